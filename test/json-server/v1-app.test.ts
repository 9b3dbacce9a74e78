// Ported from json-server v1.0.0-beta.15, src/app.test.ts (MIT, typicode), with its assertions;
// only how the server is started (target.ts, on the test's db.json) and reached is adapted.
// The same server serves the cases in order, as upstream's does.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type DialectServer, startDialect } from "./target.ts";
import { differs } from "./support.ts";

type Case = { method: string; url: string; statusCode: number };

const data = () => ({
  posts: [{ id: "1", title: "foo" }],
  comments: [{ id: "1", postId: "1" }],
  object: { f1: "foo" },
});
let server: DialectServer;
let port: number;
/** A server on the test's data, as upstream's app is created on its db. */
async function start(): Promise<void> {
  server = await startDialect(data());
  port = Number(new URL(server.url).port);
}
before(start);
after(() => server.close());

// URLs
const POSTS = "/posts";
const POSTS_WITH_COMMENTS = "/posts?_embed=comments";
const POST_1 = "/posts/1";
const POST_NOT_FOUND = "/posts/-1";
const POST_WITH_COMMENTS = "/posts/1?_embed=comments";
const COMMENTS = "/comments";
const POST_COMMENTS = "/comments?postId=1";
const NOT_FOUND = "/not-found";
const OBJECT = "/object";
const OBJECT_1 = "/object/1";
const file = "file.html";

const arr: Case[] = [
  // Static
  { method: "GET", url: "/", statusCode: 200 },
  { method: "GET", url: "/test.html", statusCode: 200 },
  { method: "GET", url: `/${file}`, statusCode: 200 },
  // CORS
  { method: "OPTIONS", url: POSTS, statusCode: 204 },
  // API
  { method: "GET", url: POSTS, statusCode: 200 },
  { method: "GET", url: POSTS_WITH_COMMENTS, statusCode: 200 },
  { method: "GET", url: POST_1, statusCode: 200 },
  { method: "GET", url: POST_NOT_FOUND, statusCode: 404 },
  { method: "GET", url: POST_WITH_COMMENTS, statusCode: 200 },
  { method: "GET", url: COMMENTS, statusCode: 200 },
  { method: "GET", url: POST_COMMENTS, statusCode: 200 },
  { method: "GET", url: OBJECT, statusCode: 200 },
  { method: "GET", url: OBJECT_1, statusCode: 404 },
  { method: "GET", url: NOT_FOUND, statusCode: 404 },
  { method: "POST", url: POSTS, statusCode: 201 },
  { method: "POST", url: POST_1, statusCode: 404 },
  { method: "POST", url: POST_NOT_FOUND, statusCode: 404 },
  { method: "POST", url: OBJECT, statusCode: 404 },
  { method: "POST", url: OBJECT_1, statusCode: 404 },
  { method: "POST", url: NOT_FOUND, statusCode: 404 },
  { method: "PUT", url: POSTS, statusCode: 404 },
  { method: "PUT", url: POST_1, statusCode: 200 },
  { method: "PUT", url: OBJECT, statusCode: 200 },
  { method: "PUT", url: OBJECT_1, statusCode: 404 },
  { method: "PUT", url: POST_NOT_FOUND, statusCode: 404 },
  { method: "PUT", url: NOT_FOUND, statusCode: 404 },
  { method: "PATCH", url: POSTS, statusCode: 404 },
  { method: "PATCH", url: POST_1, statusCode: 200 },
  { method: "PATCH", url: OBJECT, statusCode: 200 },
  { method: "PATCH", url: OBJECT_1, statusCode: 404 },
  { method: "PATCH", url: POST_NOT_FOUND, statusCode: 404 },
  { method: "PATCH", url: NOT_FOUND, statusCode: 404 },
  { method: "DELETE", url: POSTS, statusCode: 404 },
  { method: "DELETE", url: POST_1, statusCode: 200 },
  { method: "DELETE", url: OBJECT, statusCode: 404 },
  { method: "DELETE", url: OBJECT_1, statusCode: 404 },
  { method: "DELETE", url: POST_NOT_FOUND, statusCode: 404 },
  { method: "DELETE", url: NOT_FOUND, statusCode: 404 },
];

/** Where this server differs from 1.0 on purpose (docs/json-server.md), by case. */
const DIFFERENCES: Record<string, string> = {
  "GET /test.html": "no folder of static files is served",
  [`GET /${file}`]: "no folder of static files is served",
  [`GET ${POST_NOT_FOUND}`]: "a record not held answers 0.17's {} body",
  [`PUT ${POST_NOT_FOUND}`]: "a record not held answers 0.17's {} body",
  [`PATCH ${POST_NOT_FOUND}`]: "a record not held answers 0.17's {} body",
  [`DELETE ${POST_NOT_FOUND}`]: "a record not held answers 0.17's {} body",
  [`POST ${OBJECT}`]: "0.17 replaces a singular resource on POST, with 201",
};

await test("createApp", async (t) => {
  for (const tc of arr) {
    await t.test(`${tc.method} ${tc.url}`, async () => {
      const upstream = async () => {
        const response = await fetch(`http://localhost:${port}${tc.url}`, { method: tc.method });
        assert.equal(response.status, tc.statusCode, `${response.status} !== ${tc.statusCode} ${tc.method} ${tc.url} failed`);
        if (tc.statusCode === 404) {
          const body = await response.json();
          assert.deepEqual(body, { error: "Not Found" });
        }
      };
      const reason = DIFFERENCES[`${tc.method} ${tc.url}`];
      if (reason === undefined) await upstream();
      else await differs(reason, upstream);
    });
  }

  await t.test("GET /posts?_where=... uses JSON query", async () => {
    // Reset data since previous tests may have modified it
    await server.close();
    await start();
    const where = encodeURIComponent(JSON.stringify({ title: { eq: "foo" } }));
    const response = await fetch(`http://localhost:${port}/posts?_where=${where}`);
    assert.equal(response.status, 200);
    const data = await response.json();
    assert.deepEqual(data, [{ id: "1", title: "foo" }]);
  });

  await t.test("GET /posts?_where=... overrides query params", async () => {
    const where = encodeURIComponent(JSON.stringify({ title: { eq: "foo" } }));
    const response = await fetch(`http://localhost:${port}/posts?title:eq=bar&_where=${where}`);
    assert.equal(response.status, 200);
    const data = await response.json();
    assert.deepEqual(data, [{ id: "1", title: "foo" }]);
  });

  await t.test("POST /posts with array body returns 400", async () => {
    const response = await fetch(`http://localhost:${port}/posts`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify([{ title: "foo" }]),
    });
    assert.equal(response.status, 400);
    const data = await response.json();
    assert.deepEqual(data, { error: "Body must be a JSON object" });
  });

  await t.test("PATCH /posts/1 with string body returns 400", async () => {
    const response = await fetch(`http://localhost:${port}/posts/1`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify("hello"),
    });
    assert.equal(response.status, 400);
    const data = await response.json();
    assert.deepEqual(data, { error: "Body must be a JSON object" });
  });

  await t.test("PUT /posts/1 with null body returns 400", async () => {
    const response = await fetch(`http://localhost:${port}/posts/1`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(null),
    });
    assert.equal(response.status, 400);
    const data = await response.json();
    assert.deepEqual(data, { error: "Body must be a JSON object" });
  });
});
