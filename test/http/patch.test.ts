// Black-box tests of PATCH with JSON Merge Patch (RFC 7396; contract 10) on every record.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create, invalid, SERVER_SET } from "../support/family.ts";
import { assertJsonHeaders, call } from "../support/http.ts";
import { fresh } from "../support/target.ts";

const MERGE_PATCH = { "content-type": "application/merge-patch+json" };
const ADA = { id: 1, name: "Ada Lovelace", email: "ada@example.com" };
const GRACE = { name: "Grace Hopper", email: "grace@example.com", role: "admiral" };

function patch(url: string, json: unknown, contentType = "application/merge-patch+json") {
  return call(url, { method: "PATCH", body: JSON.stringify(json), headers: { "content-type": contentType } });
}

test("PATCH /users/3 with {\"role\": null} -> 200 and role is removed from the user", async (t) => {
  const url = await fresh(t);
  await create(url, "/users", GRACE);
  const response = await patch(`${url}/users/3`, { role: null });
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, { id: 3, name: "Grace Hopper", email: "grace@example.com" });
  assert.deepEqual((await call(`${url}/users/3`)).body, { id: 3, name: "Grace Hopper", email: "grace@example.com" });
});

test("PATCH /users/{id} merges objects recursively, replaces arrays and values, and keeps what it does not name", async (t) => {
  const url = await fresh(t);
  await call(`${url}/users/1`, { method: "PUT", json: { address: { city: "London", street: "St James's Square", geo: { lat: 51 } }, tags: ["a", "b"] } });
  const response = await patch(`${url}/users/1`, {
    address: { street: null, geo: { lon: 0 }, zip: "SW1Y" },
    tags: ["c"],
    title: "Countess",
  });
  const expected = {
    ...ADA,
    address: { city: "London", geo: { lat: 51, lon: 0 }, zip: "SW1Y" },
    tags: ["c"],
    title: "Countess",
  };
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, expected);
  assert.deepEqual((await call(`${url}/users/1`)).body, expected);
});

test("PATCH /users/{id} sent as application/json is read as a merge patch too", async (t) => {
  const url = await fresh(t);
  await create(url, "/users", GRACE);
  const response = await patch(`${url}/users/3`, { role: null, rank: "rear admiral" }, "application/json; charset=utf-8");
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, { id: 3, name: "Grace Hopper", email: "grace@example.com", rank: "rear admiral" });
});

test("PATCH /users/{id} with {} -> 200 and the user unchanged", async (t) => {
  const url = await fresh(t);
  const response = await patch(`${url}/users/1`, {});
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, ADA);
});

test("PATCH /users/{id} with its own id -> 200", async (t) => {
  const url = await fresh(t);
  const response = await patch(`${url}/users/1`, { id: 1, name: "Ada" });
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, { ...ADA, name: "Ada" });
});

const INVALID_USER_PATCHES: Array<[string, unknown, Array<{ path: string; message: string }>]> = [
  ["name: null", { name: null }, [{ path: "name", message: "is required" }]],
  ["name and email removed", { name: null, email: null }, [
    { path: "name", message: "is required" },
    { path: "email", message: "is required" },
  ]],
  ["id: null", { id: null }, [{ path: "id", message: "must equal the id in the path (1)" }]],
  ["another id, an empty name and a bad email", { id: 2, name: "", email: "nope" }, [
    { path: "id", message: "must equal the id in the path (1)" },
    { path: "name", message: "must be a non-empty string" },
    { path: "email", message: "must be an e-mail address such as name@example.com" },
  ]],
];

for (const [label, json, errors] of INVALID_USER_PATCHES) {
  test(`PATCH /users/1 with ${label} -> 400 VALIDATION_FAILED listing every wrong member, and the user unchanged`, async (t) => {
    const url = await fresh(t);
    const response = await patch(`${url}/users/1`, json);
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, invalid("user", errors));
    assert.deepEqual((await call(`${url}/users/1`)).body, ADA);
  });
}

test("PATCH /posts/{id}, /comments/{id} and /replies/{id} merge and remove members", async (t) => {
  const url = await fresh(t);
  const post = await create(url, "/posts", { title: "T", body: "B", meta: { draft: true, lang: "en" } });
  const comment = await create(url, "/posts/1/comments", { body: "c", score: 1 });
  const reply = await create(url, "/comments/1/replies", { body: "r", mood: "happy" });
  const cases: Array<[string, unknown, unknown]> = [
    ["/posts/1", { meta: { draft: null } }, { ...post, meta: { lang: "en" } }],
    ["/comments/1", { score: null, body: "d" }, { id: 1, postId: 1, body: "d", createdAt: comment.createdAt }],
    ["/replies/1", { mood: { now: "glad" } }, { ...reply, mood: { now: "glad" } }],
  ];
  for (const [path, json, expected] of cases) {
    const response = await patch(url + path, json);
    assert.equal(response.status, 200, path);
    assert.deepEqual(response.body, expected, path);
    assert.deepEqual((await call(url + path)).body, expected, path);
  }
});

const INVALID_FAMILY_PATCHES: Array<[string, string, unknown, Array<{ path: string; message: string }>]> = [
  ["post", "/posts/1", { title: null, body: "" }, [
    { path: "title", message: "is required" },
    { path: "body", message: "must be a non-empty string" },
  ]],
  ["post", "/posts/1", { id: null, createdAt: null }, [
    { path: "id", message: SERVER_SET },
    { path: "createdAt", message: SERVER_SET },
  ]],
  ["comment", "/comments/1", { postId: null, body: null }, [
    { path: "postId", message: SERVER_SET },
    { path: "body", message: "is required" },
  ]],
  ["reply", "/replies/1", { commentId: 1, createdAt: "2026-01-01T00:00:00.000Z", id: 1 }, [
    { path: "id", message: SERVER_SET },
    { path: "commentId", message: SERVER_SET },
    { path: "createdAt", message: SERVER_SET },
  ]],
];

for (const [label, path, json, errors] of INVALID_FAMILY_PATCHES) {
  test(`PATCH ${path} with ${JSON.stringify(json)} -> 400 VALIDATION_FAILED and the ${label} unchanged`, async (t) => {
    const url = await fresh(t);
    await create(url, "/posts", { title: "T", body: "B" });
    await create(url, "/posts/1/comments", { body: "c" });
    await create(url, "/comments/1/replies", { body: "r" });
    const before = (await call(url + path)).body;
    const response = await patch(url + path, json);
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, invalid(label, errors));
    assert.deepEqual((await call(url + path)).body, before);
  });
}

test("PATCH of a missing record -> 404, and of a bad id -> 400", async (t) => {
  const url = await fresh(t);
  const missing = await patch(`${url}/posts/9`, { title: "x" });
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { message: "Post not found", code: "POST_NOT_FOUND" });
  const badId = await patch(`${url}/users/abc`, { name: "x" });
  assert.equal(badId.status, 400);
  assert.equal((badId.body as { code: string }).code, "INVALID_ID");
});

const MEDIA_TYPES: Array<[string, number, string | undefined]> = [
  ["application/merge-patch+json", 200, undefined],
  ["Application/Merge-Patch+JSON; charset=UTF-8", 200, undefined],
  ["application/json", 200, undefined],
  ["application/json-patch+json", 415, "JSON Patch (application/json-patch+json) is not supported; send a JSON Merge Patch as application/merge-patch+json"],
  ["text/plain", 415, "Content-Type must be application/merge-patch+json or application/json"],
  ["application/merge-patch+json; charset=latin1", 415, "Content-Type charset must be utf-8"],
];

for (const [type, status, message] of MEDIA_TYPES) {
  test(`PATCH /users/1 sent as ${type} -> ${status}`, async (t) => {
    const url = await fresh(t);
    const response = await patch(`${url}/users/1`, { name: "Ada" }, type);
    assert.equal(response.status, status);
    assertJsonHeaders(response);
    if (message !== undefined) assert.deepEqual(response.body, { message, code: "UNSUPPORTED_MEDIA_TYPE" });
  });
}

test("PATCH /users/1 without Content-Type -> 415 naming both media types", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/users/1`, { method: "PATCH", body: new Blob(["{}"]) });
  assert.equal(response.status, 415);
  assert.deepEqual(response.body, {
    message: "Content-Type must be application/merge-patch+json or application/json; the header is missing",
    code: "UNSUPPORTED_MEDIA_TYPE",
  });
});

test("POST and PUT sent as application/merge-patch+json -> 415", async (t) => {
  const url = await fresh(t);
  for (const [method, path] of [["POST", "/users"], ["PUT", "/users/1"]] as const) {
    const response = await call(url + path, { method, body: JSON.stringify(GRACE), headers: MERGE_PATCH });
    assert.equal(response.status, 415, method);
    assert.deepEqual(response.body, { message: "Content-Type must be application/json", code: "UNSUPPORTED_MEDIA_TYPE" });
  }
});

const BAD_BODIES: Array<[string, string, string]> = [
  ["an empty body", "", "EMPTY_BODY"],
  ["malformed JSON", "{", "INVALID_JSON"],
  ["an array", "[]", "BODY_NOT_OBJECT"],
  ["null", "null", "BODY_NOT_OBJECT"],
  ["a __proto__ member", '{"a":{"__proto__":{"x":1}}}', "FORBIDDEN_KEY"],
  ["66 levels of nesting", `${'{"a":'.repeat(65)}1${"}".repeat(65)}`, "BODY_TOO_DEEP"],
];

for (const [label, body, code] of BAD_BODIES) {
  test(`PATCH /users/1 with ${label} -> 400 ${code} and the user unchanged`, async (t) => {
    const url = await fresh(t);
    const response = await call(`${url}/users/1`, { method: "PATCH", body, headers: MERGE_PATCH });
    assert.equal(response.status, 400);
    assert.equal((response.body as { code: string }).code, code);
    assert.deepEqual((await call(`${url}/users/1`)).body, ADA);
  });
}

test("PATCH /users/1 with a body over BODY_LIMIT -> 413", async (t) => {
  const url = await fresh(t, { BODY_LIMIT: "64" });
  const response = await patch(`${url}/users/1`, { name: "x".repeat(100) });
  assert.equal(response.status, 413);
  assert.equal((response.body as { code: string }).code, "BODY_TOO_LARGE");
});

test("OPTIONS /users/1 -> 204 with PATCH in Allow", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/users/1`, { method: "OPTIONS" });
  assert.equal(response.status, 204);
  assert.equal(response.headers.get("allow"), "GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
});
