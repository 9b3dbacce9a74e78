// Black-box tests of the order of checks on the post family's paths: route, path id, body, existence, validation.
import assert from "node:assert/strict";
import { test } from "node:test";
import { assertJsonHeaders, call } from "../support/http.ts";
import { create, type Json, NOT_FOUND } from "../support/family.ts";
import { fresh } from "../support/target.ts";

const ALLOW_BY_PATH: Array<[string, string]> = [
  ["/posts", "GET, HEAD, POST, OPTIONS"],
  ["/posts/1", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"],
  ["/posts/1/comments", "GET, HEAD, POST, OPTIONS"],
  ["/comments/1", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"],
  ["/comments/1/replies", "GET, HEAD, POST, OPTIONS"],
  ["/replies/1", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"],
];

for (const [path, allow] of ALLOW_BY_PATH) {
  test(`OPTIONS ${path} -> 204 with Allow: ${allow}`, async (t) => {
    const url = await fresh(t);
    const response = await call(url + path, { method: "OPTIONS" });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), allow);
    assert.equal(response.text, "");
  });

  const unsupported = allow.includes("POST") ? "DELETE" : "POST";
  test(`${unsupported} ${path} -> 405 with Allow: ${allow}`, async (t) => {
    const url = await fresh(t);
    const response = await call(url + path, { method: unsupported });
    assert.equal(response.status, 405);
    assertJsonHeaders(response);
    assert.equal(response.headers.get("allow"), allow);
    assert.deepEqual(response.body, {
      message: `Method ${unsupported} is not allowed here; use ${allow}`,
      code: "METHOD_NOT_ALLOWED",
    });
  });
}

test("HEAD /posts/{id}/comments -> 200 with GET's headers and no body", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", { title: "T", body: "B" });
  await create(url, "/posts/1/comments", { body: "c" });
  const get = await call(`${url}/posts/1/comments`);
  const head = await call(`${url}/posts/1/comments`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.text, "");
  for (const name of ["content-type", "content-length", "x-total-count"]) {
    assert.equal(head.headers.get(name), get.headers.get(name), name);
  }
});

const BAD_IDS: Array<[string, string, string]> = [
  ["GET", "/posts/abc", "abc"],
  ["PUT", "/posts/1.5", "1.5"],
  ["DELETE", "/posts/-1", "-1"],
  ["GET", "/posts/00x/comments", "00x"],
  ["POST", "/posts/1e3/comments", "1e3"],
  ["GET", "/comments/x", "x"],
  ["PUT", "/comments/99999999999999999999", "99999999999999999999"],
  ["DELETE", "/comments/%201", "%201"],
  ["GET", "/comments/0x1/replies", "0x1"],
  ["POST", "/comments/+1/replies", "+1"],
  ["GET", "/replies/one", "one"],
  ["PUT", "/replies/9007199254740992", "9007199254740992"],
];

for (const [method, path, shown] of BAD_IDS) {
  test(`${method} ${path} -> 400 INVALID_ID, whatever the body`, async (t) => {
    const url = await fresh(t);
    // A malformed body too: the path id is checked before the body (contract 3, order of checks).
    const init = method === "POST" || method === "PUT" ? { body: "{", headers: { "content-type": "application/json" } } : {};
    const response = await call(url + path, { method, ...init });
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, { message: `Id must be a whole number in digits, not "${shown}"`, code: "INVALID_ID" });
  });
}

test("GET /posts/0/comments -> 404 Post not found: 0 is a well-formed id that no post has", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/posts/0/comments`);
  assert.equal(response.status, 404);
  assert.deepEqual(response.body, { message: "Post not found", code: "POST_NOT_FOUND" });
});

const BAD_BODIES: Array<[string, RequestInit, number, string]> = [
  ["no Content-Type", { body: '{"body":"x"}' }, 415, "UNSUPPORTED_MEDIA_TYPE"],
  ["Content-Type text/plain", { body: '{"body":"x"}', headers: { "content-type": "text/plain" } }, 415, "UNSUPPORTED_MEDIA_TYPE"],
  ["an empty body", { body: "", headers: { "content-type": "application/json" } }, 400, "EMPTY_BODY"],
  ["malformed JSON", { body: '{"body":', headers: { "content-type": "application/json" } }, 400, "INVALID_JSON"],
  ["a JSON array", { body: "[]", headers: { "content-type": "application/json" } }, 400, "BODY_NOT_OBJECT"],
  ["a __proto__ member", { body: '{"__proto__":{}}', headers: { "content-type": "application/json" } }, 400, "FORBIDDEN_KEY"],
];

const MISSING_TARGETS: Array<[string, string]> = [
  ["POST", "/posts/999/comments"],
  ["POST", "/comments/999/replies"],
  ["PUT", "/posts/999"],
  ["PUT", "/comments/999"],
  ["PUT", "/replies/999"],
];

for (const [method, path] of MISSING_TARGETS) {
  for (const [label, init, status, code] of BAD_BODIES) {
    test(`${method} ${path} with ${label} -> ${status} ${code}: the body is checked before the record`, async (t) => {
      const url = await fresh(t);
      const response = await call(url + path, { method, ...init });
      assert.equal(response.status, status);
      assertJsonHeaders(response);
      assert.equal((response.body as Json).code, code);
    });
  }
}

test("POST /posts/999/comments with a body over BODY_LIMIT -> 413 before the post is looked up", async (t) => {
  const url = await fresh(t, { BODY_LIMIT: "64" });
  const response = await call(`${url}/posts/999/comments`, { method: "POST", json: { body: "x".repeat(100) } });
  assert.equal(response.status, 413);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, { message: "Request body must not be larger than 64 bytes", code: "BODY_TOO_LARGE" });
});

const INVALID_TO_MISSING: Array<[string, string, Json, Json]> = [
  ["POST", "/posts/9/comments", {}, NOT_FOUND.post],
  ["POST", "/posts/9/comments", { id: 1, postId: 9, body: "" }, NOT_FOUND.post],
  ["POST", "/comments/9/replies", { commentId: 9 }, NOT_FOUND.comment],
  ["PUT", "/posts/9", { id: 9, title: "" }, NOT_FOUND.post],
  ["PUT", "/comments/9", { postId: 1, body: null }, NOT_FOUND.comment],
  ["PUT", "/replies/9", { createdAt: "now", body: 5 }, NOT_FOUND.reply],
];

for (const [method, path, json, body] of INVALID_TO_MISSING) {
  test(`${method} ${path} with ${JSON.stringify(json)} -> 404 ${body.message}: existence before validation`, async (t) => {
    const url = await fresh(t);
    // Post 1 and comment 1 exist, so only the addressed record or parent is missing.
    await create(url, "/posts", { title: "T", body: "B" });
    await create(url, "/posts/1/comments", { body: "c" });
    const response = await call(url + path, { method, json });
    assert.equal(response.status, 404);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, body);
  });
}

for (const path of ["/posts/9/comments?limit=x", "/comments/9/replies?offset=-1"]) {
  test(`GET ${path} -> 400 INVALID_QUERY: the query is checked before the parent, like the path id`, async (t) => {
    const url = await fresh(t);
    const response = await call(url + path);
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.equal((response.body as Json).code, "INVALID_QUERY");
  });
}
