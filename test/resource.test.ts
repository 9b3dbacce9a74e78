// White-box tests of src/resource.ts: the one collection design, called directly without a socket.
import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpError } from "../src/errors.ts";
import { createRecord, deleteRecord, findRecord, listRecords, patchRecord, updateRecord } from "../src/resource.ts";
import { definePostFamily } from "../src/resources/posts.ts";
import { defineUsers } from "../src/resources/users.ts";

const NO_QUERY = new URLSearchParams();

test("createRecord gives a user the count + 1, or the body's id, and refuses a taken id with 409", () => {
  const users = defineUsers();
  assert.equal(createRecord(users, { name: "C", email: "c@example.com" }).id, 3);
  assert.equal(createRecord(users, { id: 9, name: "D", email: "d@example.com" }).id, 9);
  assert.throws(() => createRecord(users, { id: 9, name: "E", email: "e@example.com" }), {
    name: "HttpError",
    code: "ID_CONFLICT",
  });
  assert.equal(users.records.size, 4);
});

test("createRecord stores a child under its parent, with the parent's id and a createdAt", () => {
  const { posts, comments } = definePostFamily();
  const post = createRecord(posts, { title: "T", body: "B" });
  const comment = createRecord(comments, { body: "C", extra: [1] }, post.id);
  assert.deepEqual(Object.keys(comment), ["id", "postId", "body", "extra", "createdAt"]);
  assert.equal(comment.postId, post.id);
  assert.equal(new Date(comment.createdAt as string).toISOString(), comment.createdAt);
  assert.deepEqual(listRecords(comments, NO_QUERY, post.id).body, [comment]);
});

test("createRecord and listRecords refuse a child resource without its parent's id as a programmer error", () => {
  const { comments } = definePostFamily();
  assert.throws(() => createRecord(comments, { body: "orphan" }), TypeError);
  assert.throws(() => listRecords(comments, NO_QUERY), TypeError);
  assert.equal(comments.records.size, 0);
});

test("createRecord of a child of a missing parent throws the parent's 404 and stores nothing", () => {
  const { comments } = definePostFamily();
  assert.throws(() => createRecord(comments, { body: "x" }, 7), { code: "POST_NOT_FOUND", message: "Post not found" });
  assert.equal(comments.records.size, 0);
});

test("updateRecord merges shallowly and keeps server-set members", () => {
  const { posts } = definePostFamily();
  const post = createRecord(posts, { title: "T", body: "B", meta: { a: 1, b: 2 } });
  const updated = updateRecord(posts, post.id, { meta: { a: 3 } });
  assert.deepEqual(updated, { ...post, meta: { a: 3 } });
  assert.deepEqual(findRecord(posts, post.id), updated);
});

test("updateRecord reports every wrong member at once and changes nothing", () => {
  const { posts } = definePostFamily();
  const post = createRecord(posts, { title: "T", body: "B" });
  assert.throws(
    () => updateRecord(posts, post.id, { id: 1, createdAt: "now", title: "", body: 3 }),
    (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.deepEqual(error.errors?.map((entry) => entry.path), ["id", "createdAt", "title", "body"]);
      return true;
    },
  );
  assert.deepEqual(findRecord(posts, post.id), post);
});

test("deleteRecord of a post removes its comments and their replies, and only those", () => {
  const { posts, comments, replies } = definePostFamily();
  const [kept, gone] = [createRecord(posts, { title: "K", body: "B" }), createRecord(posts, { title: "G", body: "B" })];
  const keptComment = createRecord(comments, { body: "k" }, kept.id);
  const goneComment = createRecord(comments, { body: "g" }, gone.id);
  createRecord(replies, { body: "r" }, goneComment.id);
  const keptReply = createRecord(replies, { body: "r" }, keptComment.id);
  deleteRecord(posts, gone.id);
  assert.equal(comments.records.size, 1);
  assert.equal(replies.records.size, 1);
  assert.deepEqual(listRecords(comments, NO_QUERY, kept.id).body, [keptComment]);
  assert.deepEqual(listRecords(replies, NO_QUERY, keptComment.id).body, [keptReply]);
  assert.throws(() => listRecords(replies, NO_QUERY, goneComment.id), { code: "COMMENT_NOT_FOUND" });
});

test("deleteRecord of a comment takes it out of its post's list, and ids are not reused", () => {
  const { posts, comments } = definePostFamily();
  const post = createRecord(posts, { title: "T", body: "B" });
  const first = createRecord(comments, { body: "1" }, post.id);
  deleteRecord(comments, first.id);
  const reply = listRecords(comments, NO_QUERY, post.id);
  assert.deepEqual(reply.body, []);
  assert.equal(reply.headers?.["x-total-count"], "0");
  assert.equal(createRecord(comments, { body: "2" }, post.id).id, 2);
});

test("patchRecord builds a new record and modifies neither the stored one nor anything inside it", () => {
  const { posts } = definePostFamily();
  const stored = createRecord(posts, { title: "T", body: "B", meta: { a: { b: 1, c: 2 }, list: [1] } });
  const before = structuredClone(stored);
  const inner = stored.meta;
  const patched = patchRecord(posts, stored.id, { meta: { a: { b: null, d: 3 }, list: null } });
  assert.deepEqual(stored, before);
  assert.equal(stored.meta, inner);
  assert.deepEqual(patched, { ...before, meta: { a: { c: 2, d: 3 } } });
  assert.deepEqual(findRecord(posts, stored.id), patched);
});

test("patchRecord reports every wrong member at once and changes nothing", () => {
  const { posts } = definePostFamily();
  const post = createRecord(posts, { title: "T", body: "B" });
  assert.throws(() => patchRecord(posts, post.id, { id: null, createdAt: null, title: null, body: "" }), {
    code: "VALIDATION_FAILED",
    errors: [
      { path: "id", message: "is set by the server and must not be sent" },
      { path: "createdAt", message: "is set by the server and must not be sent" },
      { path: "title", message: "is required" },
      { path: "body", message: "must be a non-empty string" },
    ],
  });
  assert.equal(findRecord(posts, post.id), post);
});

test("the writes check If-Match after the record's 404 and before its rules, and change nothing on a 412", () => {
  const users = defineUsers();
  const stale = { headers: { "if-match": '"stale"' } };
  assert.throws(() => updateRecord(users, 9, { name: "" }, stale), { code: "USER_NOT_FOUND" });
  assert.throws(() => updateRecord(users, 1, { name: "" }, stale), { code: "PRECONDITION_FAILED", status: 412 });
  assert.throws(() => patchRecord(users, 1, { name: null }, stale), { code: "PRECONDITION_FAILED" });
  assert.throws(() => deleteRecord(users, 1, stale), { code: "PRECONDITION_FAILED" });
  assert.throws(() => createRecord(users, { id: 1 }, undefined, stale), { code: "PRECONDITION_FAILED" });
  assert.equal(users.records.size, 2);
  const current = { headers: { "if-match": users.records.entityTag(1)! } };
  assert.equal(updateRecord(users, 1, { name: "Ada" }, current).name, "Ada");
});
