// Black-box tests of conditional requests (RFC 9110, section 13; contract 10): ETag, If-Match, If-None-Match.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "../support/family.ts";
import { assertJsonHeaders, call, type JsonResponse } from "../support/http.ts";
import { fresh } from "../support/target.ts";

const ADA = { id: 1, name: "Ada Lovelace", email: "ada@example.com" };
const GRACE = { name: "Grace Hopper", email: "grace@example.com" };
// A strong tag: the data set's epoch, then the version in base 36.
const STRONG_TAG = /^"[0-9a-f]{8}-[0-9a-z]+"$/;

function etagOf(response: JsonResponse): string {
  const etag = response.headers.get("etag");
  assert.ok(etag !== null, `no ETag on ${response.status} ${response.text}`);
  assert.match(etag, STRONG_TAG);
  return etag;
}

function changed(subject: string): Record<string, string> {
  return {
    message: `The ${subject} has changed since the ETag in If-Match; nothing was changed. Read it again and retry with its current ETag`,
    code: "PRECONDITION_FAILED",
  };
}

/** Asserts a 304: no body, no Content-Type, and the ETag given. */
function assertNotModified(response: JsonResponse, etag: string): void {
  assert.equal(response.status, 304);
  assert.equal(response.text, "");
  assert.equal(response.headers.get("content-type"), null);
  assert.equal(response.headers.get("etag"), etag);
}

test("GET and HEAD /users/{id} -> 200 with the same strong ETag, until the user changes", async (t) => {
  const url = await fresh(t);
  const first = await call(`${url}/users/1`);
  assert.equal(first.status, 200);
  const etag = etagOf(first);
  assert.equal(etagOf(await call(`${url}/users/1`)), etag);
  assert.equal(etagOf(await call(`${url}/users/1`, { method: "HEAD" })), etag);
  assert.notEqual(etagOf(await call(`${url}/users/2`)), etag);
  const updated = await call(`${url}/users/1`, { method: "PUT", json: { name: "Ada" } });
  assert.notEqual(etagOf(updated), etag);
  assert.equal(etagOf(await call(`${url}/users/1`)), etagOf(updated));
});

test("POST, PUT and PATCH answers carry the ETag a later GET of the record has", async (t) => {
  const url = await fresh(t);
  const created = await call(`${url}/posts`, { method: "POST", json: { title: "T", body: "B" } });
  assert.equal(created.status, 201);
  assert.equal(etagOf(created), etagOf(await call(`${url}/posts/1`)));
  const put = await call(`${url}/posts/1`, { method: "PUT", json: { title: "U" } });
  assert.equal(etagOf(put), etagOf(await call(`${url}/posts/1`)));
  const patched = await call(`${url}/posts/1`, { method: "PATCH", json: { title: "V" } });
  assert.equal(etagOf(patched), etagOf(await call(`${url}/posts/1`)));
  const deleted = await call(`${url}/posts/1`, { method: "DELETE" });
  assert.equal(deleted.status, 204);
  assert.equal(deleted.headers.get("etag"), null);
});

test("GET /users/{id} with If-None-Match of its ETag -> 304 with no body and the ETag", async (t) => {
  const url = await fresh(t);
  const etag = etagOf(await call(`${url}/users/1`));
  const weak = `W/${etag}`;
  for (const header of [etag, weak, `"other", ${etag}`, "*"]) {
    assertNotModified(await call(`${url}/users/1`, { headers: { "if-none-match": header } }), etag);
  }
  const stale = await call(`${url}/users/1`, { headers: { "if-none-match": '"other"' } });
  assert.equal(stale.status, 200);
  assertJsonHeaders(stale);
  assert.deepEqual(stale.body, ADA);
});

test("HEAD /users/{id} with If-None-Match of its ETag -> 304", async (t) => {
  const url = await fresh(t);
  const etag = etagOf(await call(`${url}/users/1`));
  assertNotModified(await call(`${url}/users/1`, { method: "HEAD", headers: { "if-none-match": etag } }), etag);
});

test("GET /users/{id} with If-None-Match of an ETag from before a change -> 200 with the new record", async (t) => {
  const url = await fresh(t);
  const etag = etagOf(await call(`${url}/users/1`));
  await call(`${url}/users/1`, { method: "PUT", json: { name: "Ada" } });
  const response = await call(`${url}/users/1`, { headers: { "if-none-match": etag } });
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, { ...ADA, name: "Ada" });
});

test("GET /users/{id} with If-Match of another ETag -> 412, with the current ETag", async (t) => {
  const url = await fresh(t);
  const etag = etagOf(await call(`${url}/users/1`));
  assert.equal((await call(`${url}/users/1`, { headers: { "if-match": etag } })).status, 200);
  const response = await call(`${url}/users/1`, { headers: { "if-match": '"other"' } });
  assert.equal(response.status, 412);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("etag"), etag);
  assert.deepEqual(response.body, {
    message: "The user has changed since the ETag in If-Match; read it again for its current ETag",
    code: "PRECONDITION_FAILED",
  });
});

test("two clients PUT /posts/{id} with the same If-Match: the first -> 200, the second -> 412, and the first's change is stored", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", { title: "Draft", body: "B" });
  const [alice, bob] = await Promise.all([call(`${url}/posts/1`), call(`${url}/posts/1`)]);
  const etag = etagOf(alice);
  assert.equal(etagOf(bob), etag);
  const first = await call(`${url}/posts/1`, { method: "PUT", json: { title: "Alice's" }, headers: { "if-match": etag } });
  assert.equal(first.status, 200);
  assert.equal((first.body as { title: string }).title, "Alice's");
  const second = await call(`${url}/posts/1`, { method: "PUT", json: { title: "Bob's" }, headers: { "if-match": etag } });
  assert.equal(second.status, 412);
  assertJsonHeaders(second);
  assert.deepEqual(second.body, changed("post"));
  assert.equal(second.headers.get("etag"), etagOf(first));
  const stored = await call(`${url}/posts/1`);
  assert.deepEqual(stored.body, first.body);
  assert.equal(etagOf(stored), etagOf(first));
});

test("PATCH and DELETE /comments/{id} with a stale If-Match -> 412 and nothing changed; with the current one they succeed", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", { title: "T", body: "B" });
  const comment = await create(url, "/posts/1/comments", { body: "first" });
  const stale = etagOf(await call(`${url}/comments/1`));
  const current = etagOf(await call(`${url}/comments/1`, { method: "PUT", json: { body: "second" } }));
  const patch = await call(`${url}/comments/1`, { method: "PATCH", json: { body: "third" }, headers: { "if-match": stale } });
  assert.equal(patch.status, 412);
  assert.deepEqual(patch.body, changed("comment"));
  const remove = await call(`${url}/comments/1`, { method: "DELETE", headers: { "if-match": stale } });
  assert.equal(remove.status, 412);
  assert.deepEqual(remove.body, changed("comment"));
  assert.deepEqual((await call(`${url}/comments/1`)).body, { ...comment, body: "second" });
  const removed = await call(`${url}/comments/1`, { method: "DELETE", headers: { "if-match": `"x", ${current}` } });
  assert.equal(removed.status, 204);
});

test("PUT /users/{id} with If-Match: * -> 200 on a held user; on a missing one -> 404, not 412", async (t) => {
  const url = await fresh(t);
  const held = await call(`${url}/users/1`, { method: "PUT", json: { name: "Ada" }, headers: { "if-match": "*" } });
  assert.equal(held.status, 200);
  const missing = await call(`${url}/users/9`, { method: "PUT", json: { name: "Ada" }, headers: { "if-match": "*" } });
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { message: "User not found", code: "USER_NOT_FOUND" });
});

test("PATCH and DELETE /users/{id} with If-Match: * on a missing user -> 404, not 412", async (t) => {
  const url = await fresh(t);
  const patched = await call(`${url}/users/9`, {
    method: "PATCH",
    body: JSON.stringify({ name: "Ada" }),
    headers: { "content-type": "application/merge-patch+json", "if-match": "*" },
  });
  assert.equal(patched.status, 404);
  assert.deepEqual(patched.body, { message: "User not found", code: "USER_NOT_FOUND" });
  const deleted = await call(`${url}/users/9`, { method: "DELETE", headers: { "if-match": "*" } });
  assert.equal(deleted.status, 404);
  assert.deepEqual(deleted.body, { message: "User not found", code: "USER_NOT_FOUND" });
});

test("PUT and DELETE /users/{id} with If-None-Match of the current ETag or * -> 412 and nothing changed", async (t) => {
  const url = await fresh(t);
  const etag = etagOf(await call(`${url}/users/1`));
  for (const [method, header] of [["PUT", etag], ["PUT", "*"], ["DELETE", `W/${etag}`]] as const) {
    const response = await call(`${url}/users/1`, { method, json: method === "PUT" ? { name: "X" } : undefined, headers: { "if-none-match": header } });
    assert.equal(response.status, 412, `${method} ${header}`);
    assert.deepEqual(response.body, { message: "The user matches If-None-Match; nothing was changed", code: "PRECONDITION_FAILED" });
  }
  const after = await call(`${url}/users/1`);
  assert.deepEqual(after.body, ADA);
  assert.equal(etagOf(after), etag);
});

test("checks run in the contract's order: 415 and 404 before 412, and 412 before 400 and 409", async (t) => {
  const url = await fresh(t);
  const stale = { "if-match": '"stale"' };
  const wrongType = await call(`${url}/users/1`, { method: "PUT", body: "{}", headers: { ...stale, "content-type": "text/plain" } });
  assert.equal(wrongType.status, 415);
  const missing = await call(`${url}/users/9`, { method: "DELETE", headers: stale });
  assert.equal(missing.status, 404);
  const invalid = await call(`${url}/users/1`, { method: "PUT", json: { name: "" }, headers: stale });
  assert.equal(invalid.status, 412);
  const conflict = await call(`${url}/users`, { method: "POST", json: { id: 1, ...GRACE }, headers: stale });
  assert.equal(conflict.status, 412);
  const missingParent = await call(`${url}/posts/9/comments`, { method: "POST", json: { body: "c" }, headers: stale });
  assert.equal(missingParent.status, 404);
});

test("a user deleted and created again with the same id (count + 1) never gets its old ETag", async (t) => {
  const url = await fresh(t);
  const created = await call(`${url}/users`, { method: "POST", json: GRACE });
  assert.equal(created.headers.get("location"), "/users/3");
  const old = etagOf(created);
  assert.equal((await call(`${url}/users/3`, { method: "DELETE" })).status, 204);
  const again = await call(`${url}/users`, { method: "POST", json: GRACE });
  assert.equal(again.headers.get("location"), "/users/3");
  assert.deepEqual(again.body, created.body);
  assert.notEqual(etagOf(again), old);
  const stale = await call(`${url}/users/3`, { method: "PUT", json: { name: "G" }, headers: { "if-match": old } });
  assert.equal(stale.status, 412);
  assert.equal((await call(`${url}/users/3`, { headers: { "if-none-match": old } })).status, 200);
});

test("two instances never give the same ETag for their records", async (t) => {
  const [first, second] = await Promise.all([fresh(t), fresh(t)]);
  const [a, b] = await Promise.all([call(`${first}/users/1`), call(`${second}/users/1`)]);
  assert.deepEqual(a.body, b.body);
  assert.notEqual(etagOf(a), etagOf(b));
});

test("GET /users has an ETag that changes when a user in it changes, is added or is deleted", async (t) => {
  const url = await fresh(t);
  const seen = new Set<string>();
  const listTag = async () => etagOf(await call(`${url}/users`));
  const initial = await listTag();
  seen.add(initial);
  assert.equal(await listTag(), initial);
  assert.equal(etagOf(await call(`${url}/users`, { method: "HEAD" })), initial);
  await call(`${url}/users/2`, { method: "PATCH", json: { role: "codebreaker" } });
  seen.add(await listTag());
  await call(`${url}/users`, { method: "POST", json: GRACE });
  seen.add(await listTag());
  await call(`${url}/users/3`, { method: "DELETE" });
  seen.add(await listTag());
  assert.equal(seen.size, 4);
});

test("GET and HEAD /users with If-None-Match of the list's ETag -> 304; after a change -> 200", async (t) => {
  const url = await fresh(t);
  const etag = etagOf(await call(`${url}/users`));
  assertNotModified(await call(`${url}/users`, { headers: { "if-none-match": etag } }), etag);
  assertNotModified(await call(`${url}/users?limit=1`, { method: "HEAD", headers: { "if-none-match": etag } }), etag);
  await call(`${url}/users`, { method: "POST", json: GRACE });
  const response = await call(`${url}/users`, { headers: { "if-none-match": etag } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-total-count"), "3");
});

test("GET /posts/{id}/comments has an ETag that changes with its comments, and answers 304 while it holds", async (t) => {
  const url = await fresh(t);
  await create(url, "/posts", { title: "T", body: "B" });
  const empty = etagOf(await call(`${url}/posts/1/comments`));
  assertNotModified(await call(`${url}/posts/1/comments`, { headers: { "if-none-match": empty } }), empty);
  await create(url, "/posts/1/comments", { body: "c" });
  const one = etagOf(await call(`${url}/posts/1/comments`));
  assert.notEqual(one, empty);
  await call(`${url}/comments/1`, { method: "PATCH", json: { body: "d" } });
  assert.notEqual(etagOf(await call(`${url}/posts/1/comments`)), one);
  // The parent's 404 and the query's 400 come before any precondition.
  assert.equal((await call(`${url}/posts/9/comments`, { headers: { "if-none-match": "*" } })).status, 404);
  assert.equal((await call(`${url}/posts/1/comments?limit=x`, { headers: { "if-none-match": "*" } })).status, 400);
});

test("POST /users with If-Match of the list's ETag -> 201 while the list is unchanged, else 412 and nothing stored", async (t) => {
  const url = await fresh(t);
  const etag = etagOf(await call(`${url}/users`));
  const created = await call(`${url}/users`, { method: "POST", json: GRACE, headers: { "if-match": etag } });
  assert.equal(created.status, 201);
  const stale = await call(`${url}/users`, { method: "POST", json: { name: "Late", email: "late@example.com" }, headers: { "if-match": etag } });
  assert.equal(stale.status, 412);
  assert.deepEqual(stale.body, changed("list of users"));
  const noneMatch = await call(`${url}/users`, { method: "POST", json: { name: "Late", email: "late@example.com" }, headers: { "if-none-match": "*" } });
  assert.equal(noneMatch.status, 412);
  assert.deepEqual(noneMatch.body, { message: "The list of users matches If-None-Match; nothing was changed", code: "PRECONDITION_FAILED" });
  assert.equal((await call(`${url}/users`)).headers.get("x-total-count"), "3");
});

test("PUT and PATCH /users/{id} with {} change no member but give a new ETag", async (t) => {
  const url = await fresh(t);
  const before = etagOf(await call(`${url}/users/1`));
  const put = await call(`${url}/users/1`, { method: "PUT", json: {} });
  assert.deepEqual(put.body, ADA);
  assert.notEqual(etagOf(put), before);
  const patched = await call(`${url}/users/1`, { method: "PATCH", json: {} });
  assert.deepEqual(patched.body, ADA);
  assert.notEqual(etagOf(patched), etagOf(put));
});
