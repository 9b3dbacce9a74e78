// Black-box tests of comments: POST and GET /posts/{id}/comments, GET, PUT and DELETE /comments/{id}, post cascades.
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

const POST = { title: "Hello", body: "First post" };

test("POST /posts/{id}/comments -> 201 with id 1, the post's id, createdAt, and Location /comments/1", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  const before = Date.now();
  const response = await call(`${url}/posts/1/comments`, { method: "POST", json: { body: "Nice" } });
  const after = Date.now();
  assert.equal(response.status, 201);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("location"), "/comments/1");
  const comment = response.body as Json;
  assertCreatedBetween(comment.createdAt, before, after);
  assert.deepEqual(comment, { id: 1, postId: 1, body: "Nice", createdAt: comment.createdAt });
  assert.deepEqual((await call(`${url}/comments/1`)).body, comment);
});

test("POST /posts/{id}/comments sets postId from the path, read in base 10", async (t) => {
  const url = await fresh(t);
  for (let i = 0; i < 2; i++) await create(url, "/posts", POST);
  const response = await call(`${url}/posts/02/comments`, { method: "POST", json: { body: "On two" } });
  assert.equal(response.status, 201);
  assert.equal((response.body as Json).postId, 2);
});

test("POST /posts/{id}/comments stores every other member as sent, whatever its JSON type", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  // A member that is server-set elsewhere in the family (commentId) is an ordinary member here.
  const extra = { ...EXTRA_MEMBERS, title: "Re", commentId: 9 };
  const comment = await create(url, "/posts/1/comments", { body: "Nice", ...extra });
  assert.deepEqual(comment, { id: 1, postId: 1, body: "Nice", ...extra, createdAt: comment.createdAt });
  assert.deepEqual((await call(`${url}/comments/1`)).body, comment);
});

test("GET /posts/{id}/comments -> 200 with only that post's comments, in creation order", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  await create(url, "/posts", POST);
  const first = await create(url, "/posts/1/comments", { body: "a" });
  await create(url, "/posts/2/comments", { body: "b" });
  const third = await create(url, "/posts/1/comments", { body: "c" });
  const response = await call(`${url}/posts/1/comments`);
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("x-total-count"), "2");
  assert.deepEqual(response.body, [first, third]);
  const other = await call(`${url}/posts/2/comments`);
  assert.deepEqual(idsOf(other), [2]);
  assert.equal(other.headers.get("x-total-count"), "1");
});

test("GET /posts/{id}/comments of a post with no comments -> 200 [] with X-Total-Count 0", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  const response = await call(`${url}/posts/1/comments`);
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("x-total-count"), "0");
  assert.deepEqual(response.body, []);
});

test("POST and GET /posts/{id}/comments of a missing post -> 404 Post not found", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  for (const method of ["POST", "GET"]) {
    const response = await call(`${url}/posts/9/comments`, { method, json: method === "POST" ? { body: "x" } : undefined });
    assert.equal(response.status, 404, method);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, NOT_FOUND.post, method);
  }
  assert.deepEqual((await call(`${url}/posts/1/comments`)).body, []);
});

const INVALID_CREATES: Array<[string, Json, FieldError[]]> = [
  ["no members", {}, [{ path: "body", message: "is required" }]],
  ["an empty body", { body: "" }, [{ path: "body", message: "must be a non-empty string" }]],
  ["a blank body", { body: "\t " }, [{ path: "body", message: "must be a non-empty string" }]],
  ["an object as body", { body: { text: "x" } }, [{ path: "body", message: "must be a non-empty string" }]],
  ["an id", { id: 1, body: "x" }, [{ path: "id", message: SERVER_SET }]],
  ["the path's postId", { postId: 1, body: "x" }, [{ path: "postId", message: SERVER_SET }]],
  ["a createdAt", { body: "x", createdAt: "2020-01-01T00:00:00.000Z" }, [{ path: "createdAt", message: SERVER_SET }]],
  ["an id, a postId, a createdAt and no body", { id: 1, postId: 2, createdAt: 3 }, [
    { path: "id", message: SERVER_SET },
    { path: "postId", message: SERVER_SET },
    { path: "createdAt", message: SERVER_SET },
    { path: "body", message: "is required" },
  ]],
];

for (const [label, json, errors] of INVALID_CREATES) {
  test(`POST /posts/{id}/comments with ${label} -> 400 VALIDATION_FAILED naming every wrong member`, async (t) => {
    const url = await fresh(t);
    await create(url, "/posts", POST);
    const response = await call(`${url}/posts/1/comments`, { method: "POST", json });
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, invalid("comment", errors));
    assert.deepEqual((await call(`${url}/posts/1/comments`)).body, []);
    assert.equal((await create(url, "/posts/1/comments", { body: "ok" })).id, 1);
  });
}

test("GET, PUT and DELETE /comments/{id} of a missing comment -> 404 Comment not found", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  await create(url, "/posts/1/comments", { body: "x" });
  for (const method of ["GET", "PUT", "DELETE"]) {
    const response = await call(`${url}/comments/2`, { method, json: method === "PUT" ? { body: "y" } : undefined });
    assert.equal(response.status, 404, method);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, NOT_FOUND.comment, method);
  }
});

test("PUT /comments/{id} -> 200 merging members shallowly, keeping id, postId and createdAt", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  const comment = await create(url, "/posts/1/comments", { body: "x", meta: { a: 1, b: 2 } });
  const response = await call(`${url}/comments/1`, { method: "PUT", json: { body: "y", meta: { a: 3 }, flag: true } });
  const expected = { ...comment, body: "y", meta: { a: 3 }, flag: true };
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, expected);
  assert.deepEqual((await call(`${url}/comments/1`)).body, expected);
  assert.deepEqual((await call(`${url}/posts/1/comments`)).body, [expected]);
});

test("PUT /comments/{id} with {} -> 200 and nothing changes", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  const comment = await create(url, "/posts/1/comments", { body: "x" });
  const response = await call(`${url}/comments/1`, { method: "PUT", json: {} });
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, comment);
  assert.deepEqual((await call(`${url}/comments/1`)).body, comment);
});

const INVALID_UPDATES: Array<[string, Json, FieldError[]]> = [
  ["an empty body", { body: "" }, [{ path: "body", message: "must be a non-empty string" }]],
  ["the path's own id", { id: 1 }, [{ path: "id", message: SERVER_SET }]],
  ["the same postId", { postId: 1 }, [{ path: "postId", message: SERVER_SET }]],
  ["another post's id", { postId: 2 }, [{ path: "postId", message: SERVER_SET }]],
  ["a createdAt", { createdAt: "now" }, [{ path: "createdAt", message: SERVER_SET }]],
  ["every server-set member and null as body", { id: 1, postId: 1, createdAt: "now", body: null }, [
    { path: "id", message: SERVER_SET },
    { path: "postId", message: SERVER_SET },
    { path: "createdAt", message: SERVER_SET },
    { path: "body", message: "must be a non-empty string" },
  ]],
];

for (const [label, json, errors] of INVALID_UPDATES) {
  test(`PUT /comments/1 with ${label} -> 400 VALIDATION_FAILED and the comment unchanged`, async (t) => {
    const url = await fresh(t);
    await create(url, "/posts", POST);
    await create(url, "/posts", POST);
    const comment = await create(url, "/posts/1/comments", { body: "x" });
    const response = await call(`${url}/comments/1`, { method: "PUT", json });
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, invalid("comment", errors));
    assert.deepEqual((await call(`${url}/comments/1`)).body, comment);
    assert.deepEqual((await call(`${url}/posts/2/comments`)).body, []);
  });
}

test("DELETE /comments/{id} -> 204 with no body, and the comment is gone from its post's list", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  await create(url, "/posts/1/comments", { body: "a" });
  const second = await create(url, "/posts/1/comments", { body: "b" });
  const response = await call(`${url}/comments/1`, { method: "DELETE" });
  assert.equal(response.status, 204);
  assert.equal(response.text, "");
  assert.equal(response.headers.get("content-type"), null);
  const list = await call(`${url}/posts/1/comments`);
  assert.deepEqual(list.body, [second]);
  assert.equal(list.headers.get("x-total-count"), "1");
  assert.deepEqual((await call(`${url}/comments/1`)).body, NOT_FOUND.comment);
  assert.deepEqual((await call(`${url}/comments/1`, { method: "DELETE" })).body, NOT_FOUND.comment);
  assert.equal((await call(`${url}/posts/1`)).status, 200);
});

test("DELETE /posts/{id} deletes its comments and their replies; other posts' are untouched", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  const kept = await create(url, "/posts", POST);
  await create(url, "/posts/1/comments", { body: "doomed 1" });
  const keptComment = await create(url, "/posts/2/comments", { body: "kept" });
  await create(url, "/posts/1/comments", { body: "doomed 3" });
  await create(url, "/comments/1/replies", { body: "doomed reply 1" });
  const keptReply = await create(url, "/comments/2/replies", { body: "kept reply" });
  await create(url, "/comments/3/replies", { body: "doomed reply 3" });

  assert.equal((await call(`${url}/posts/1`, { method: "DELETE" })).status, 204);

  assert.deepEqual((await call(`${url}/posts`)).body, [kept]);
  assert.deepEqual((await call(`${url}/posts/1/comments`)).body, NOT_FOUND.post);
  for (const id of [1, 3]) {
    assert.deepEqual((await call(`${url}/comments/${id}`)).body, NOT_FOUND.comment, `comment ${id}`);
    assert.deepEqual((await call(`${url}/comments/${id}/replies`)).body, NOT_FOUND.comment, `replies of ${id}`);
  }
  for (const id of [1, 3]) assert.deepEqual((await call(`${url}/replies/${id}`)).body, NOT_FOUND.reply, `reply ${id}`);

  const comments = await call(`${url}/posts/2/comments`);
  assert.deepEqual(comments.body, [keptComment]);
  assert.equal(comments.headers.get("x-total-count"), "1");
  const replies = await call(`${url}/comments/2/replies`);
  assert.deepEqual(replies.body, [keptReply]);
  assert.equal(replies.headers.get("x-total-count"), "1");
  assert.deepEqual((await call(`${url}/replies/2`)).body, keptReply);
});

test("POST /posts/{id}/comments of a post deleted a moment ago -> 404 Post not found", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  await call(`${url}/posts/1`, { method: "DELETE" });
  const response = await call(`${url}/posts/1/comments`, { method: "POST", json: { body: "late" } });
  assert.equal(response.status, 404);
  assert.deepEqual(response.body, NOT_FOUND.post);
});

test("POST /posts/{id}/comments after deletes and cascades -> comment ids are never reused", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  await create(url, "/posts", POST);
  for (const post of [1, 1, 2, 1]) await create(url, `/posts/${post}/comments`, { body: "x" });
  assert.equal((await call(`${url}/comments/4`, { method: "DELETE" })).status, 204);
  assert.equal((await create(url, "/posts/2/comments", { body: "y" })).id, 5);
  // Deleting post 1 takes comments 1 and 2 with it; the highest id (5) lives on post 2.
  assert.equal((await call(`${url}/posts/1`, { method: "DELETE" })).status, 204);
  assert.equal((await call(`${url}/comments/5`, { method: "DELETE" })).status, 204);
  const next = await call(`${url}/posts/2/comments`, { method: "POST", json: { body: "z" } });
  assert.equal(next.headers.get("location"), "/comments/6");
  assert.deepEqual(idsOf(await call(`${url}/posts/2/comments`)), [3, 6]);
});

test("comments number their own ids, apart from posts", async (t) => {
  const url = await fresh(t);
  for (let i = 0; i < 3; i++) await create(url, "/posts", POST);
  assert.equal((await create(url, "/posts/3/comments", { body: "x" })).id, 1);
  assert.equal((await create(url, "/posts/2/comments", { body: "x" })).id, 2);
});

const PAGES: Array<[string, number[]]> = [
  ["", [2, 3, 5, 6]],
  ["?limit=2", [2, 3]],
  ["?offset=2", [5, 6]],
  ["?limit=1&offset=2", [5]],
  ["?limit=0", []],
  ["?offset=4", []],
];

test("GET /posts/{id}/comments?limit&offset -> that slice of the post's list, X-Total-Count of the whole", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", POST);
  await create(url, "/posts", POST);
  for (const post of [1, 2, 2, 1, 2, 2]) await create(url, `/posts/${post}/comments`, { body: "x" });
  for (const [query, ids] of PAGES) {
    const response = await call(`${url}/posts/2/comments${query}`);
    assert.equal(response.status, 200, query);
    assertJsonHeaders(response);
    assert.equal(response.headers.get("x-total-count"), "4", query);
    assert.deepEqual(idsOf(response), ids, query);
  }
});

for (const [query, message] of BAD_PAGES) {
  test(`GET /posts/1/comments${query} -> 400 INVALID_QUERY`, async (t) => {
    const url = await fresh(t);
    await create(url, "/posts", POST);
    const response = await call(`${url}/posts/1/comments${query}`);
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, { message, code: "INVALID_QUERY" });
  });
}
