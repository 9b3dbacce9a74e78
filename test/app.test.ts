// White-box tests of src/app.ts: the error boundary and createApp mounted in a plain node:http server.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { apiRoutes, createApp } from "../src/http/app.ts";
import { createListener } from "../src/http/listener.ts";
import { DEFAULT_BODY_LIMIT } from "../src/http/body.ts";
import { HttpError } from "../src/api/errors.ts";
import type { Handler } from "../src/api/handler.ts";
import type { Route } from "../src/api/handler.ts";
import { assertJsonHeaders, call } from "./support/http.ts";

/** Serves a listener on a free port for one test; returns its base URL. */
async function serve(t: { after: (fn: () => Promise<void>) => void }, listener: RequestListener): Promise<string> {
  const server: Server = createServer(listener);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function boomRoutes(): Route<Handler>[] {
  return [
    { method: "GET", pattern: "/boom", handler: () => { throw new Error("secret detail at /srv/app.ts:12"); } },
    { method: "POST", pattern: "/boom", handler: () => { throw new TypeError("bad body handling"); } },
    { method: "GET", pattern: "/teapot", handler: () => { throw new HttpError("ID_CONFLICT", "Taken"); } },
    { method: "GET", pattern: "/ok", handler: () => ({ status: 200, body: { ok: true } }) },
  ];
}

test("DEFAULT_BODY_LIMIT is 1 MiB", () => {
  assert.equal(DEFAULT_BODY_LIMIT, 1_048_576);
});

test("a handler that throws -> 500 INTERNAL_ERROR with no internals, the error logged, and the next request served", async (t) => {
  const logged: Array<[unknown, string, string]> = [];
  const url = await serve(t, createListener(boomRoutes(), { logError: (error, line, id) => logged.push([error, line, id]) }));
  const response = await call(`${url}/boom?x=1`, { headers: { "x-request-id": "trace-7" } });
  assert.equal(response.status, 500);
  assertJsonHeaders(response);
  // The body carries the request's id, so a person can quote it; the log line has the same.
  assert.equal(response.headers.get("x-request-id"), "trace-7");
  assert.deepEqual(response.body, { message: "Internal server error", code: "INTERNAL_ERROR", requestId: "trace-7" });
  assert.doesNotMatch(response.text, /secret|srv|stack/);
  assert.equal(logged.length, 1);
  assert.equal((logged[0]![0] as Error).message, "secret detail at /srv/app.ts:12");
  assert.equal(logged[0]![1], "GET /boom?x=1");
  assert.equal(logged[0]![2], "trace-7");
  assert.deepEqual((await call(`${url}/ok`)).body, { ok: true });
});

test("the request line an unexpected error is logged with hides the values of secret query parameters", async (t) => {
  const logged: string[] = [];
  const url = await serve(t, createListener(boomRoutes(), { logError: (_error, line) => logged.push(line) }));
  assert.equal((await call(`${url}/boom?x=1&access_token=s3cr3t&api_key=k3y`)).status, 500);
  assert.deepEqual(logged, ["GET /boom?x=1&access_token=***&api_key=***"]);
});

test("a handler that throws after the body was read -> 500, and the connection stays usable", async (t) => {
  const logged: unknown[] = [];
  const url = await serve(t, createListener(boomRoutes(), { logError: (error) => logged.push(error) }));
  const response = await call(`${url}/boom`, { method: "POST", json: { a: 1 } });
  assert.equal(response.status, 500);
  assert.equal(response.headers.get("connection"), "keep-alive");
  assert.equal(logged.length, 1);
  assert.equal((await call(`${url}/ok`)).status, 200);
});

test("a logger that throws does not take the server down: the client still gets the 500", async (t) => {
  const url = await serve(t, createListener(boomRoutes(), { logError: () => { throw new Error("log disk full"); } }));
  const response = await call(`${url}/boom`);
  assert.equal(response.status, 500);
  const requestId = response.headers.get("x-request-id")!;
  assert.deepEqual(response.body, { message: "Internal server error", code: "INTERNAL_ERROR", requestId });
  assert.equal((await call(`${url}/ok`)).status, 200);
});

test("an HttpError thrown by a handler is answered with its status and code, and not logged", async (t) => {
  const logged: unknown[] = [];
  const url = await serve(t, createListener(boomRoutes(), { logError: (error) => logged.push(error) }));
  const response = await call(`${url}/teapot`);
  assert.equal(response.status, 409);
  assert.deepEqual(response.body, { message: "Taken", code: "ID_CONFLICT" });
  assert.equal(logged.length, 0);
});

test("the default error log writes the time, the request id, the request line and the error with its stack to stderr", async (t) => {
  const url = await serve(t, createListener(boomRoutes()));
  const written: string[] = [];
  const original = process.stderr.write;
  process.stderr.write = ((text: string) => written.push(text) > 0) as typeof process.stderr.write;
  let response;
  try {
    response = await call(`${url}/boom`);
  } finally {
    process.stderr.write = original;
  }
  assert.equal(response.status, 500);
  const id = response.headers.get("x-request-id")!;
  assert.equal(written.length, 1);
  const [first, second, third] = written[0]!.split("\n");
  assert.match(first!, new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z error ${id} Unexpected error while answering GET /boom$`));
  assert.equal(second, "Error: secret detail at /srv/app.ts:12");
  assert.match(third!, /^ +at /);
});

test("createApp mounts in a plain node:http server and serves the seeded users", async (t) => {
  const url = await serve(t, createApp());
  const response = await call(`${url}/users/2`);
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, { id: 2, name: "Alan Turing", email: "alan@example.com" });
});

test("two apps never share data", async (t) => {
  const first = await serve(t, createApp());
  const second = await serve(t, createApp());
  await call(`${first}/users/1`, { method: "DELETE" });
  assert.equal((await call(`${first}/users`)).headers.get("x-total-count"), "1");
  assert.equal((await call(`${second}/users`)).headers.get("x-total-count"), "2");
});

test("createApp with isDraining answers 503 with Connection: close, except /healthz", async (t) => {
  const url = await serve(t, createApp({ isDraining: () => true }));
  const users = await call(`${url}/users`);
  assert.equal(users.status, 503);
  assert.equal(users.headers.get("connection"), "close");
  assert.deepEqual(users.body, { message: "Server is shutting down; retry on a new connection", code: "SHUTTING_DOWN" });
  const health = await call(`${url}/healthz`);
  assert.equal(health.status, 200);
  assert.equal(health.headers.get("connection"), "close");
  assert.equal((await call(`${url}/readyz`)).status, 503);
});

test("apiRoutes lists every route once, each with an upper-case method and a pattern", () => {
  const routes = apiRoutes();
  const keys = routes.map((route) => `${route.method} ${route.pattern}`);
  assert.equal(new Set(keys).size, keys.length);
  for (const key of ["GET /users", "POST /users", "GET /users/:id", "PUT /users/:id", "DELETE /users/:id", "GET /healthz", "GET /readyz"]) {
    assert.ok(keys.includes(key), key);
  }
});

test("a 500 and a 503 carry the CORS headers of an allowed origin, so its page can read them", async (t) => {
  const origin = "https://app.example.com";
  const boom = await serve(t, createListener(boomRoutes(), { corsOrigins: [origin], logError: () => {} }));
  const failed = await call(`${boom}/boom`, { headers: { origin } });
  assert.equal(failed.status, 500);
  assert.equal(failed.headers.get("access-control-allow-origin"), origin);
  assert.equal(failed.headers.get("access-control-expose-headers"), "X-Total-Count, Location, ETag, Link, X-Request-Id");
  assert.equal(failed.headers.get("vary"), "Origin");

  const draining = await serve(t, createApp({ isDraining: () => true, corsOrigins: "*" }));
  const refused = await call(`${draining}/users`, { headers: { origin } });
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("connection"), "close");
  assert.equal(refused.headers.get("access-control-allow-origin"), "*");
});

test("createApp with a bad corsOrigins throws a TypeError at once", () => {
  assert.throws(() => createApp({ corsOrigins: ["https://app.example.com/"] }), { name: "TypeError" });
  assert.throws(() => createApp({ corsOrigins: "none" as never }), { name: "TypeError" });
});
