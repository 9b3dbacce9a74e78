// Ported from json-server v0.17.4, __tests__/server/singular.js and __tests__/server/schema-ignore.js
// (MIT, typicode), with their assertions; only how the server is started and reached is adapted.
import { afterEach, beforeEach, describe, test } from "node:test";
import { expectBody, lazyServer } from "./support.ts";

let db: { $schema?: string; user: Record<string, unknown> };
const api = lazyServer(() => db);
const request = api.request;
afterEach(() => api.close());

describe("Server (singular.js)", () => {
  beforeEach(() => {
    db = { user: { name: "foo", email: "foo@example.com" } };
  });
  test("GET /:resource should respond with corresponding resource", async () => expectBody(await request("GET", "/user"), 200, db.user));
  test("POST /:resource should create resource", async () => {
    const user = { name: "bar" };
    expectBody(await request("POST", "/user", { json: user }), 201, user);
  });
  test("PUT /:resource should update resource", async () => {
    const user = { name: "bar" };
    expectBody(await request("PUT", "/user", { json: user }), 200, user);
  });
  test("PATCH /:resource should update resource", async () =>
    expectBody(await request("PATCH", "/user", { json: { name: "bar" } }), 200, { name: "bar", email: "foo@example.com" }));
});

describe("$schema-ignore (schema-ignore.js)", () => {
  beforeEach(() => {
    db = { $schema: "http://some.schema.somewhere/", user: { name: "foo", email: "foo@example.com" } };
  });
  test("doesnt error with $schema node", async () => expectBody(await request("GET", "/user"), 200, db.user));
});
