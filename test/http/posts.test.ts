// Black-box tests of posts: the seed's POST, GET /posts and GET /posts/{id}, and PUT and DELETE (contract 5, 6).
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

const HELLO = { title: "Hello", body: "First post" };

test("GET /posts on a fresh server -> 200 [] with X-Total-Count 0", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/posts`);
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("x-total-count"), "0");
  assert.deepEqual(response.body, []);
});

test("POST /posts -> 201 with id 1, a createdAt of the request's time, and Location /posts/1", async (t) => {
  const url = await fresh(t);
  const before = Date.now();
  const response = await call(`${url}/posts`, { method: "POST", json: HELLO });
  const after = Date.now();
  assert.equal(response.status, 201);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("location"), "/posts/1");
  const post = response.body as Json;
  assertCreatedBetween(post.createdAt, before, after);
  assert.deepEqual(post, { id: 1, ...HELLO, createdAt: post.createdAt });
});

test("POST /posts -> the created post is what GET /posts/{id} and GET /posts answer", async (t) => {
  const url = await fresh(t);
  const post = await create(url, "/posts", HELLO);
  const one = await call(`${url}/posts/1`);
  assert.equal(one.status, 200);
  assertJsonHeaders(one);
  assert.deepEqual(one.body, post);
  const list = await call(`${url}/posts`);
  assert.equal(list.status, 200);
  assertJsonHeaders(list);
  assert.equal(list.headers.get("x-total-count"), "1");
  assert.deepEqual(list.body, [post]);
});

test("POST /posts stores every other member as sent, whatever its JSON type", async (t) => {
  const url = await fresh(t);
  const post = await create(url, "/posts", { ...HELLO, ...EXTRA_MEMBERS });
  assert.deepEqual(post, { id: 1, ...HELLO, ...EXTRA_MEMBERS, createdAt: post.createdAt });
  assert.deepEqual((await call(`${url}/posts/1`)).body, post);
});

test("GET /posts lists posts in creation order, numbered 1, 2, 3", async (t) => {
  const url = await fresh(t);
  for (const title of ["a", "b", "c"]) await create(url, "/posts", { title, body: "x" });
  const list = await call(`${url}/posts`);
  assert.deepEqual(idsOf(list), [1, 2, 3]);
  assert.deepEqual((list.body as Json[]).map((post) => post.title), ["a", "b", "c"]);
  assert.equal(list.headers.get("x-total-count"), "3");
});

const INVALID_CREATES: Array<[string, Json, FieldError[]]> = [
  ["no members", {}, [
    { path: "title", message: "is required" },
    { path: "body", message: "is required" },
  ]],
  ["an empty title and a blank body", { title: "", body: "  \n" }, [
    { path: "title", message: "must be a non-empty string" },
    { path: "body", message: "must be a non-empty string" },
  ]],
  ["a number as title and null as body", { title: 5, body: null }, [
    { path: "title", message: "must be a non-empty string" },
    { path: "body", message: "must be a non-empty string" },
  ]],
  ["an array as body", { title: "T", body: ["x"] }, [{ path: "body", message: "must be a non-empty string" }]],
  ["an id", { id: 1, ...HELLO }, [{ path: "id", message: SERVER_SET }]],
  ["a createdAt", { ...HELLO, createdAt: "2020-01-01T00:00:00.000Z" }, [{ path: "createdAt", message: SERVER_SET }]],
  ["an id, a createdAt and neither title nor body", { id: 7, createdAt: null }, [
    { path: "id", message: SERVER_SET },
    { path: "createdAt", message: SERVER_SET },
    { path: "title", message: "is required" },
    { path: "body", message: "is required" },
  ]],
];

for (const [label, json, errors] of INVALID_CREATES) {
  test(`POST /posts with ${label} -> 400 VALIDATION_FAILED naming every wrong member, nothing stored`, async (t) => {
    const url = await fresh(t);
    const response = await call(`${url}/posts`, { method: "POST", json });
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, invalid("post", errors));
    assert.deepEqual((await call(`${url}/posts`)).body, []);
    // Nothing stored means no id spent either.
    assert.equal((await create(url, "/posts", HELLO)).id, 1);
  });
}

test("GET, PUT and DELETE /posts/{id} of a missing post -> 404 Post not found", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", HELLO);
  for (const method of ["GET", "PUT", "DELETE"]) {
    const response = await call(`${url}/posts/2`, { method, json: method === "PUT" ? { title: "x" } : undefined });
    assert.equal(response.status, 404, method);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, NOT_FOUND.post, method);
  }
});

test("PUT /posts/{id} -> 200 merging members shallowly over the post, keeping id and createdAt", async (t) => {
  const url = await fresh(t);
  const post = await create(url, "/posts", { ...HELLO, tags: ["a"], meta: { lang: "en", draft: true } });
  const response = await call(`${url}/posts/1`, {
    method: "PUT",
    json: { body: "Edited", meta: { lang: "fr" }, mood: "glad" },
  });
  const expected = { ...post, body: "Edited", meta: { lang: "fr" }, mood: "glad" };
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, expected);
  assert.deepEqual((await call(`${url}/posts/1`)).body, expected);
});

test("PUT /posts/{id} with {} -> 200 and nothing changes", async (t) => {
  const url = await fresh(t);
  const post = await create(url, "/posts", HELLO);
  const response = await call(`${url}/posts/1`, { method: "PUT", json: {} });
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, post);
  assert.deepEqual((await call(`${url}/posts`)).body, [post]);
});

test("PUT /posts/{id} keeps the post's place in the list", async (t) => {
  const url = await fresh(t);
  const first = await create(url, "/posts", { title: "a", body: "x" });
  const second = await create(url, "/posts", { title: "b", body: "x" });
  await call(`${url}/posts/1`, { method: "PUT", json: { title: "A" } });
  assert.deepEqual((await call(`${url}/posts`)).body, [{ ...first, title: "A" }, second]);
});

const INVALID_UPDATES: Array<[string, Json, FieldError[]]> = [
  ["an empty title", { title: "" }, [{ path: "title", message: "must be a non-empty string" }]],
  ["null as body", { body: null }, [{ path: "body", message: "must be a non-empty string" }]],
  ["the path's own id", { id: 1 }, [{ path: "id", message: SERVER_SET }]],
  ["another id", { id: 2, title: "T" }, [{ path: "id", message: SERVER_SET }]],
  ["a createdAt", { createdAt: "2020-01-01T00:00:00.000Z" }, [{ path: "createdAt", message: SERVER_SET }]],
  ["an id, a createdAt, a blank title and a number as body", { id: 1, createdAt: 0, title: " ", body: 1 }, [
    { path: "id", message: SERVER_SET },
    { path: "createdAt", message: SERVER_SET },
    { path: "title", message: "must be a non-empty string" },
    { path: "body", message: "must be a non-empty string" },
  ]],
];

for (const [label, json, errors] of INVALID_UPDATES) {
  test(`PUT /posts/1 with ${label} -> 400 VALIDATION_FAILED and the post unchanged`, async (t) => {
    const url = await fresh(t);
    const post = await create(url, "/posts", HELLO);
    const response = await call(`${url}/posts/1`, { method: "PUT", json });
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, invalid("post", errors));
    assert.deepEqual((await call(`${url}/posts/1`)).body, post);
  });
}

test("DELETE /posts/{id} -> 204 with no body, and the post is gone", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", { title: "a", body: "x" });
  const second = await create(url, "/posts", { title: "b", body: "x" });
  const response = await call(`${url}/posts/1`, { method: "DELETE" });
  assert.equal(response.status, 204);
  assert.equal(response.text, "");
  assert.equal(response.headers.get("content-type"), null);
  const list = await call(`${url}/posts`);
  assert.deepEqual(list.body, [second]);
  assert.equal(list.headers.get("x-total-count"), "1");
  assert.deepEqual((await call(`${url}/posts/1`)).body, NOT_FOUND.post);
  assert.deepEqual((await call(`${url}/posts/1`, { method: "DELETE" })).body, NOT_FOUND.post);
});

test("POST /posts after deletes -> ids are never reused, not even the highest", async (t) => {
  const url = await fresh(t);
  for (let i = 0; i < 3; i++) await create(url, "/posts", HELLO);
  for (const id of [3, 2]) assert.equal((await call(`${url}/posts/${id}`, { method: "DELETE" })).status, 204);
  const next = await call(`${url}/posts`, { method: "POST", json: HELLO });
  assert.equal(next.headers.get("location"), "/posts/4");
  assert.equal((next.body as Json).id, 4);
  assert.equal((await call(`${url}/posts/1`, { method: "DELETE" })).status, 204);
  assert.equal((await call(`${url}/posts/4`, { method: "DELETE" })).status, 204);
  assert.equal((await create(url, "/posts", HELLO)).id, 5);
  assert.deepEqual(idsOf(await call(`${url}/posts`)), [5]);
});

const PAGES: Array<[string, number[]]> = [
  ["", [1, 2, 3, 4, 5]],
  ["?limit=2", [1, 2]],
  ["?offset=3", [4, 5]],
  ["?limit=2&offset=1", [2, 3]],
  ["?offset=1&limit=2", [2, 3]],
  ["?limit=0", []],
  ["?limit=10", [1, 2, 3, 4, 5]],
  ["?offset=5", []],
  ["?offset=99&limit=1", []],
  ["?limit=05&offset=00", [1, 2, 3, 4, 5]],
];

test("GET /posts?limit&offset -> 200 with that slice and X-Total-Count of the whole list", async (t) => {
  const url = await fresh(t);
  for (let i = 1; i <= 5; i++) await create(url, "/posts", { title: `t${i}`, body: "x" });
  for (const [query, ids] of PAGES) {
    const response = await call(`${url}/posts${query}`);
    assert.equal(response.status, 200, query);
    assertJsonHeaders(response);
    assert.equal(response.headers.get("x-total-count"), "5", query);
    assert.deepEqual(idsOf(response), ids, query);
  }
});

for (const [query, message] of BAD_PAGES) {
  test(`GET /posts${query} -> 400 INVALID_QUERY`, async (t) => {
    const url = await fresh(t);
    const response = await call(`${url}/posts${query}`);
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, { message, code: "INVALID_QUERY" });
  });
}

test("posts number their own ids, apart from comments, replies and users", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", HELLO);
  await create(url, "/posts/1/comments", { body: "c" });
  await create(url, "/posts/1/comments", { body: "c" });
  await create(url, "/comments/2/replies", { body: "r" });
  await create(url, "/users", { name: "Grace", email: "grace@example.com" });
  assert.equal((await create(url, "/posts", HELLO)).id, 2);
});

test("two instances never share posts", async (t) => {
  const first = await fresh(t);
  const second = await fresh(t);
  await create(first, "/posts", HELLO);
  assert.deepEqual((await call(`${second}/posts`)).body, []);
  assert.equal((await create(second, "/posts", HELLO)).id, 1);
});
