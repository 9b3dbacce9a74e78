// Black-box tests of replies: POST and GET /comments/{id}/replies, GET, PUT and DELETE /replies/{id}, comment cascades.
import assert from "node:assert/strict";
import { test } from "node:test";
import { assertJsonHeaders, call } from "../support/http.ts";
import {
  assertCreatedBetween,
  BAD_PAGES,
  create,
  EXTRA_MEMBERS,
  type FieldError,
  idsOf,
  invalid,
  type Json,
  NOT_FOUND,
  SERVER_SET,
} from "../support/family.ts";
import { fresh } from "../support/target.ts";

/** A fresh server holding post 1 with comment 1: the usual parent of a reply. */
async function withComment(t: Parameters<typeof fresh>[0]): Promise<string> {
  const url = await fresh(t);
  await create(url, "/posts", { title: "Hello", body: "First post" });
  await create(url, "/posts/1/comments", { body: "Nice" });
  return url;
}

test("POST /comments/{id}/replies -> 201 with id 1, the comment's id, createdAt, and Location /replies/1", async (t) => {
  const url = await withComment(t);
  const before = Date.now();
  const response = await call(`${url}/comments/1/replies`, { method: "POST", json: { body: "Thanks" } });
  const after = Date.now();
  assert.equal(response.status, 201);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("location"), "/replies/1");
  const reply = response.body as Json;
  assertCreatedBetween(reply.createdAt, before, after);
  assert.deepEqual(reply, { id: 1, commentId: 1, body: "Thanks", createdAt: reply.createdAt });
  assert.deepEqual((await call(`${url}/replies/1`)).body, reply);
});

test("POST /comments/{id}/replies stores every other member as sent, whatever its JSON type", async (t) => {
  const url = await withComment(t);
  // postId is server-set on comments only; on a reply it is an ordinary member.
  const extra = { ...EXTRA_MEMBERS, postId: 7 };
  const reply = await create(url, "/comments/1/replies", { body: "Thanks", ...extra });
  assert.deepEqual(reply, { id: 1, commentId: 1, body: "Thanks", ...extra, createdAt: reply.createdAt });
  assert.deepEqual((await call(`${url}/replies/1`)).body, reply);
});

test("GET /comments/{id}/replies -> 200 with only that comment's replies, in creation order", async (t) => {
  const url = await withComment(t);
  await create(url, "/posts/1/comments", { body: "Second" });
  const first = await create(url, "/comments/1/replies", { body: "a" });
  await create(url, "/comments/2/replies", { body: "b" });
  const third = await create(url, "/comments/1/replies", { body: "c" });
  const response = await call(`${url}/comments/1/replies`);
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("x-total-count"), "2");
  assert.deepEqual(response.body, [first, third]);
  assert.deepEqual(idsOf(await call(`${url}/comments/2/replies`)), [2]);
});

test("GET /comments/{id}/replies of a comment with no replies -> 200 [] with X-Total-Count 0", async (t) => {
  const url = await withComment(t);
  const response = await call(`${url}/comments/1/replies`);
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("x-total-count"), "0");
  assert.deepEqual(response.body, []);
});

test("POST and GET /comments/{id}/replies of a missing comment -> 404 Comment not found", async (t) => {
  const url = await withComment(t);
  for (const method of ["POST", "GET"]) {
    const response = await call(`${url}/comments/9/replies`, { method, json: method === "POST" ? { body: "x" } : undefined });
    assert.equal(response.status, 404, method);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, NOT_FOUND.comment, method);
  }
  assert.deepEqual((await call(`${url}/comments/1/replies`)).body, []);
});

const INVALID_CREATES: Array<[string, Json, FieldError[]]> = [
  ["no members", {}, [{ path: "body", message: "is required" }]],
  ["an empty body", { body: "" }, [{ path: "body", message: "must be a non-empty string" }]],
  ["false as body", { body: false }, [{ path: "body", message: "must be a non-empty string" }]],
  ["an id", { id: 1, body: "x" }, [{ path: "id", message: SERVER_SET }]],
  ["the path's commentId", { commentId: 1, body: "x" }, [{ path: "commentId", message: SERVER_SET }]],
  ["a createdAt", { body: "x", createdAt: "2020-01-01T00:00:00.000Z" }, [{ path: "createdAt", message: SERVER_SET }]],
  ["an id, a commentId, a createdAt and a blank body", { id: 1, commentId: 1, createdAt: 1, body: " " }, [
    { path: "id", message: SERVER_SET },
    { path: "commentId", message: SERVER_SET },
    { path: "createdAt", message: SERVER_SET },
    { path: "body", message: "must be a non-empty string" },
  ]],
];

for (const [label, json, errors] of INVALID_CREATES) {
  test(`POST /comments/{id}/replies with ${label} -> 400 VALIDATION_FAILED naming every wrong member`, async (t) => {
    const url = await withComment(t);
    const response = await call(`${url}/comments/1/replies`, { method: "POST", json });
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, invalid("reply", errors));
    assert.deepEqual((await call(`${url}/comments/1/replies`)).body, []);
    assert.equal((await create(url, "/comments/1/replies", { body: "ok" })).id, 1);
  });
}

test("GET, PUT and DELETE /replies/{id} of a missing reply -> 404 Reply not found", async (t) => {
  const url = await withComment(t);
  await create(url, "/comments/1/replies", { body: "x" });
  for (const method of ["GET", "PUT", "DELETE"]) {
    const response = await call(`${url}/replies/2`, { method, json: method === "PUT" ? { body: "y" } : undefined });
    assert.equal(response.status, 404, method);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, NOT_FOUND.reply, method);
  }
});

test("PUT /replies/{id} -> 200 merging members shallowly, keeping id, commentId and createdAt", async (t) => {
  const url = await withComment(t);
  const reply = await create(url, "/comments/1/replies", { body: "x", list: [1, 2] });
  const response = await call(`${url}/replies/1`, { method: "PUT", json: { list: [3], extra: { deep: true } } });
  const expected = { ...reply, list: [3], extra: { deep: true } };
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, expected);
  assert.deepEqual((await call(`${url}/replies/1`)).body, expected);
  assert.deepEqual((await call(`${url}/comments/1/replies`)).body, [expected]);
});

test("PUT /replies/{id} with {} -> 200 and nothing changes", async (t) => {
  const url = await withComment(t);
  const reply = await create(url, "/comments/1/replies", { body: "x" });
  const response = await call(`${url}/replies/1`, { method: "PUT", json: {} });
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, reply);
  assert.deepEqual((await call(`${url}/replies/1`)).body, reply);
});

const INVALID_UPDATES: Array<[string, Json, FieldError[]]> = [
  ["an empty body", { body: "" }, [{ path: "body", message: "must be a non-empty string" }]],
  ["the path's own id", { id: 1 }, [{ path: "id", message: SERVER_SET }]],
  ["the same commentId", { commentId: 1 }, [{ path: "commentId", message: SERVER_SET }]],
  ["a createdAt", { createdAt: null }, [{ path: "createdAt", message: SERVER_SET }]],
  ["every server-set member and a number as body", { id: 2, commentId: 2, createdAt: "", body: 0 }, [
    { path: "id", message: SERVER_SET },
    { path: "commentId", message: SERVER_SET },
    { path: "createdAt", message: SERVER_SET },
    { path: "body", message: "must be a non-empty string" },
  ]],
];

for (const [label, json, errors] of INVALID_UPDATES) {
  test(`PUT /replies/1 with ${label} -> 400 VALIDATION_FAILED and the reply unchanged`, async (t) => {
    const url = await withComment(t);
    const reply = await create(url, "/comments/1/replies", { body: "x" });
    const response = await call(`${url}/replies/1`, { method: "PUT", json });
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, invalid("reply", errors));
    assert.deepEqual((await call(`${url}/replies/1`)).body, reply);
  });
}

test("DELETE /replies/{id} -> 204 with no body, and the reply is gone from its comment's list", async (t) => {
  const url = await withComment(t);
  await create(url, "/comments/1/replies", { body: "a" });
  const second = await create(url, "/comments/1/replies", { body: "b" });
  const response = await call(`${url}/replies/1`, { method: "DELETE" });
  assert.equal(response.status, 204);
  assert.equal(response.text, "");
  assert.equal(response.headers.get("content-type"), null);
  const list = await call(`${url}/comments/1/replies`);
  assert.deepEqual(list.body, [second]);
  assert.equal(list.headers.get("x-total-count"), "1");
  assert.deepEqual((await call(`${url}/replies/1`)).body, NOT_FOUND.reply);
  assert.deepEqual((await call(`${url}/replies/1`, { method: "DELETE" })).body, NOT_FOUND.reply);
  assert.equal((await call(`${url}/comments/1`)).status, 200);
});

test("DELETE /comments/{id} deletes its replies; other comments' replies are untouched", async (t) => {
  const url = await withComment(t);
  const kept = await create(url, "/posts/1/comments", { body: "Second" });
  await create(url, "/comments/1/replies", { body: "doomed 1" });
  const keptReply = await create(url, "/comments/2/replies", { body: "kept" });
  await create(url, "/comments/1/replies", { body: "doomed 3" });

  assert.equal((await call(`${url}/comments/1`, { method: "DELETE" })).status, 204);

  assert.deepEqual((await call(`${url}/posts/1/comments`)).body, [kept]);
  assert.deepEqual((await call(`${url}/comments/1/replies`)).body, NOT_FOUND.comment);
  for (const id of [1, 3]) assert.deepEqual((await call(`${url}/replies/${id}`)).body, NOT_FOUND.reply, `reply ${id}`);
  const replies = await call(`${url}/comments/2/replies`);
  assert.deepEqual(replies.body, [keptReply]);
  assert.equal(replies.headers.get("x-total-count"), "1");
  assert.equal((await call(`${url}/posts/1`)).status, 200);
});

test("POST /comments/{id}/replies of a comment its post's delete took -> 404 Comment not found", async (t) => {
  const url = await withComment(t);
  await call(`${url}/posts/1`, { method: "DELETE" });
  const response = await call(`${url}/comments/1/replies`, { method: "POST", json: { body: "late" } });
  assert.equal(response.status, 404);
  assert.deepEqual(response.body, NOT_FOUND.comment);
});

test("POST /comments/{id}/replies after deletes and cascades -> reply ids are never reused", async (t) => {
  const url = await withComment(t);
  await create(url, "/posts/1/comments", { body: "Second" });
  for (const comment of [1, 2, 1]) await create(url, `/comments/${comment}/replies`, { body: "x" });
  assert.equal((await call(`${url}/replies/3`, { method: "DELETE" })).status, 204);
  assert.equal((await create(url, "/comments/2/replies", { body: "y" })).id, 4);
  // Deleting comment 2 takes replies 2 and 4 with it, the highest among them.
  assert.equal((await call(`${url}/comments/2`, { method: "DELETE" })).status, 204);
  const next = await call(`${url}/comments/1/replies`, { method: "POST", json: { body: "z" } });
  assert.equal(next.headers.get("location"), "/replies/5");
  assert.deepEqual(idsOf(await call(`${url}/comments/1/replies`)), [1, 5]);
});

test("replies number their own ids, apart from posts and comments", async (t) => {
  const url = await withComment(t);
  for (let i = 0; i < 3; i++) await create(url, "/posts/1/comments", { body: "x" });
  assert.equal((await create(url, "/comments/4/replies", { body: "x" })).id, 1);
  assert.equal((await create(url, "/comments/2/replies", { body: "x" })).id, 2);
});

const PAGES: Array<[string, number[]]> = [
  ["", [1, 2, 3]],
  ["?limit=1", [1]],
  ["?offset=1", [2, 3]],
  ["?limit=1&offset=1", [2]],
  ["?limit=0&offset=0", []],
  ["?offset=3", []],
];

test("GET /comments/{id}/replies?limit&offset -> that slice, X-Total-Count of the whole list", async (t) => {
  const url = await withComment(t);
  for (let i = 0; i < 3; i++) await create(url, "/comments/1/replies", { body: "x" });
  for (const [query, ids] of PAGES) {
    const response = await call(`${url}/comments/1/replies${query}`);
    assert.equal(response.status, 200, query);
    assertJsonHeaders(response);
    assert.equal(response.headers.get("x-total-count"), "3", query);
    assert.deepEqual(idsOf(response), ids, query);
  }
});

for (const [query, message] of BAD_PAGES) {
  test(`GET /comments/1/replies${query} -> 400 INVALID_QUERY`, async (t) => {
    const url = await withComment(t);
    const response = await call(`${url}/comments/1/replies${query}`);
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, { message, code: "INVALID_QUERY" });
  });
}
