// White-box tests of src/resource.ts: the one collection design's rules, called directly over a memory store without a socket.
import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpError } from "../src/api/errors.ts";
import { memoryData } from "./support/data.ts";

test("createRecord gives a user the count + 1, or the body's id, and refuses a taken id with 409", () => {
  const h = memoryData();
  assert.equal(h.create("users", { name: "C", email: "c@example.com" }).id, 3);
  assert.equal(h.create("users", { id: 9, name: "D", email: "d@example.com" }).id, 9);
  assert.throws(() => h.create("users", { id: 9, name: "E", email: "e@example.com" }), {
    name: "HttpError",
    code: "ID_CONFLICT",
  });
  assert.equal(h.size("users"), 4);
});

test("createRecord stores a child under its parent, with the parent's id and a createdAt", () => {
  const h = memoryData();
  const post = h.create("posts", { title: "T", body: "B" });
  const comment = h.create("comments", { body: "C", extra: [1] }, post.id);
  assert.deepEqual(Object.keys(comment), ["id", "postId", "body", "extra", "createdAt"]);
  assert.equal(comment.postId, post.id);
  assert.equal(new Date(comment.createdAt as string).toISOString(), comment.createdAt);
  assert.deepEqual(h.list("comments", post.id).items, [comment]);
});

test("createRecord and listRecords refuse a child resource without its parent's id as a programmer error", () => {
  const h = memoryData();
  assert.throws(() => h.create("comments", { body: "orphan" }), TypeError);
  assert.throws(() => h.list("comments"), TypeError);
  assert.equal(h.size("comments"), 0);
});

test("createRecord of a child of a missing parent throws the parent's 404 and stores nothing", () => {
  const h = memoryData();
  assert.throws(() => h.create("comments", { body: "x" }, 7), { code: "POST_NOT_FOUND", message: "Post not found" });
  assert.equal(h.size("comments"), 0);
});

test("updateRecord merges shallowly and keeps server-set members", () => {
  const h = memoryData();
  const post = h.create("posts", { title: "T", body: "B", meta: { a: 1, b: 2 } });
  const updated = h.update("posts", post.id, { meta: { a: 3 } });
  assert.deepEqual(updated, { ...post, meta: { a: 3 } });
  assert.deepEqual(h.get("posts", post.id), updated);
});

test("updateRecord reports every wrong member at once and changes nothing", () => {
  const h = memoryData();
  const post = h.create("posts", { title: "T", body: "B" });
  assert.throws(
    () => h.update("posts", post.id, { id: 1, createdAt: "now", title: "", body: 3 }),
    (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.deepEqual(error.errors?.map((entry) => entry.path), ["id", "createdAt", "title", "body"]);
      return true;
    },
  );
  assert.deepEqual(h.get("posts", post.id), post);
});

test("deleteRecord of a post removes its comments and their replies, and only those", () => {
  const h = memoryData();
  const [kept, gone] = [h.create("posts", { title: "K", body: "B" }), h.create("posts", { title: "G", body: "B" })];
  const keptComment = h.create("comments", { body: "k" }, kept.id);
  const goneComment = h.create("comments", { body: "g" }, gone.id);
  h.create("replies", { body: "r" }, goneComment.id);
  const keptReply = h.create("replies", { body: "r" }, keptComment.id);
  h.remove("posts", gone.id);
  assert.equal(h.size("comments"), 1);
  assert.equal(h.size("replies"), 1);
  assert.deepEqual(h.list("comments", kept.id).items, [keptComment]);
  assert.deepEqual(h.list("replies", keptComment.id).items, [keptReply]);
  assert.throws(() => h.list("replies", goneComment.id), { code: "COMMENT_NOT_FOUND" });
});

test("deleteRecord of a comment takes it out of its post's list, and ids are not reused", () => {
  const h = memoryData();
  const post = h.create("posts", { title: "T", body: "B" });
  const first = h.create("comments", { body: "1" }, post.id);
  h.remove("comments", first.id);
  const reply = h.list("comments", post.id);
  assert.deepEqual(reply.items, []);
  assert.equal(reply.total, 0);
  assert.equal(h.create("comments", { body: "2" }, post.id).id, 2);
});

test("patchRecord builds a new record and modifies neither the stored one nor anything inside it", () => {
  const h = memoryData();
  const stored = h.create("posts", { title: "T", body: "B", meta: { a: { b: 1, c: 2 }, list: [1] } });
  const before = structuredClone(stored);
  const inner = stored.meta;
  const patched = h.patch("posts", stored.id, { meta: { a: { b: null, d: 3 }, list: null } });
  assert.deepEqual(stored, before);
  assert.equal(stored.meta, inner);
  assert.deepEqual(patched, { ...before, meta: { a: { c: 2, d: 3 } } });
  assert.deepEqual(h.get("posts", stored.id), patched);
});

test("patchRecord reports every wrong member at once and changes nothing", () => {
  const h = memoryData();
  const post = h.create("posts", { title: "T", body: "B" });
  assert.throws(() => h.patch("posts", post.id, { id: null, createdAt: null, title: null, body: "" }), {
    code: "VALIDATION_FAILED",
    errors: [
      { path: "id", message: "is set by the server and must not be sent" },
      { path: "createdAt", message: "is set by the server and must not be sent" },
      { path: "title", message: "is required" },
      { path: "body", message: "must be a non-empty string" },
    ],
  });
  assert.deepEqual(h.get("posts", post.id), post);
});

test("the writes check If-Match after the record's 404 and before its rules, and change nothing on a 412", () => {
  const h = memoryData();
  const stale = { headers: { "if-match": '"stale"' } };
  assert.throws(() => h.update("users", 9, { name: "" }, stale), { code: "USER_NOT_FOUND" });
  assert.throws(() => h.update("users", 1, { name: "" }, stale), { code: "PRECONDITION_FAILED", status: 412 });
  assert.throws(() => h.patch("users", 1, { name: null }, stale), { code: "PRECONDITION_FAILED" });
  assert.throws(() => h.remove("users", 1, stale), { code: "PRECONDITION_FAILED" });
  assert.throws(() => h.create("users", { id: 1 }, undefined, stale), { code: "PRECONDITION_FAILED" });
  assert.equal(h.size("users"), 2);
  const current = { headers: { "if-match": h.tag("users", 1)! } };
  assert.equal(h.update("users", 1, { name: "Ada" }, current).name, "Ada");
});
