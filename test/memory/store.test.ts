// White-box tests of src/memory/store.ts: answers at once without a journal; with one, each write kept before it is answered.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineData } from "../../src/api/dataset.ts";
import { HttpError } from "../../src/api/errors.ts";
import type { JournalEntry } from "../../src/store/journal/format.ts";
import { readList } from "../../src/api/lists.ts";
import { StoreError } from "../../src/store/errors.ts";
import { createMemoryStore } from "../../src/store/memory/store.ts";
import { createRecord, deleteRecord, updateRecord } from "../../src/api/records.ts";
import type { Seed } from "../../src/store/records.ts";
import type { Awaitable } from "../../src/store/seam.ts";
import { now } from "../support/data.ts";

const AT = "2026-01-31T09:30:00.000Z";
const ALL = readList(new URLSearchParams());

/** A keep hook whose promises the test settles by hand, recording every entry in order. */
function manualKeep() {
  const entries: JournalEntry[] = [];
  const pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  const keep = (entry: JournalEntry) => {
    entries.push(structuredClone(entry));
    return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
  };
  return { entries, pending, keep };
}

function journaled(seed?: Seed) {
  const { resources, starting } = defineData({ seed, clock: () => new Date(AT) });
  const hook = manualKeep();
  const store = createMemoryStore(resources, { starting, keep: hook.keep });
  return { resources, store, ...hook };
}

/** Whether a promise has settled, after the microtasks queued so far have run. */
async function settled(value: Awaitable<unknown>): Promise<boolean> {
  let done = false;
  Promise.resolve(value).then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test("without a keep hook every answer of the memory store is a value, not a promise", () => {
  const { resources, starting } = defineData();
  const store = createMemoryStore(resources, { starting });
  const users = store.collection("users");
  const written = now(createRecord(resources.users, users, { name: "C", email: "c@example.com" }));
  assert.equal(written.record.id, 3);
  assert.equal(now(users.read(3))!.tag, written.tag);
  assert.equal(now(users.list(ALL))!.total, 3);
  now(updateRecord(resources.users, users, 3, { name: "D" }));
  now(deleteRecord(resources.users, users, 3));
  assert.equal(now(users.read(3)), undefined);
});

test("a create is answered only once its entry is kept, and the entry holds the record and its version", async () => {
  const { resources, store, entries, pending } = journaled();
  const answer = createRecord(resources.users, store.collection("users"), { name: "C", email: "c@example.com" });
  assert.ok(answer instanceof Promise);
  // Loading the two seeded users took versions 1 (the clear) to 3.
  assert.deepEqual(entries, [{ effects: [{ put: "users", record: { id: 3, name: "C", email: "c@example.com" }, version: 4 }] }]);
  assert.equal(await settled(answer), false);
  pending[0]!.resolve();
  const written = await answer;
  assert.equal(written.record.id, 3);
  assert.equal(written.tag, (await store.collection("users").read(3))!.tag);
});

test("a read made while a write is being kept waits for it, and is answered with what was read", async () => {
  const { resources, store, pending } = journaled();
  const users = store.collection("users");
  assert.equal(now(users.read(1))!.text, '{"id":1,"name":"Ada Lovelace","email":"ada@example.com"}');
  void updateRecord(resources.users, users, 1, { name: "Ada" });
  const read = users.read(1);
  const list = users.list(ALL);
  assert.ok(read instanceof Promise && list instanceof Promise);
  assert.equal(await settled(read), false);
  pending[0]!.resolve();
  assert.equal((await read)!.text, '{"id":1,"name":"Ada","email":"ada@example.com"}');
  assert.equal((await list)!.items[0]!.name, "Ada");
  // Once everything is kept, reads answer at once again.
  assert.equal(now(users.read(1))!.text, '{"id":1,"name":"Ada","email":"ada@example.com"}');
});

test("a write refused while another is being kept is refused only once that one is kept", async () => {
  const { resources, store, pending, entries } = journaled();
  const users = store.collection("users");
  void createRecord(resources.users, users, { id: 9, name: "C", email: "c@example.com" });
  const refused = createRecord(resources.users, users, { id: 9, name: "D", email: "d@example.com" });
  assert.ok(refused instanceof Promise);
  assert.equal(await settled(refused), false);
  pending[0]!.resolve();
  await assert.rejects(refused, { code: "ID_CONFLICT" });
  assert.equal(entries.length, 1, "a refused write is never journaled");
});

test("a cascading delete is one entry: the post, then its comments and their replies, each with its version", async () => {
  const seed = {
    posts: [{ id: 1, title: "T", body: "B", createdAt: AT }],
    comments: [
      { id: 1, postId: 1, body: "C", createdAt: AT },
      { id: 2, postId: 1, body: "D", createdAt: AT },
    ],
    replies: [{ id: 1, commentId: 2, body: "R", createdAt: AT }],
  };
  const { resources, store, entries, pending } = journaled(seed);
  const deleted = deleteRecord(resources.posts, store.collection("posts"), 1);
  assert.deepEqual(entries, [
    {
      effects: [
        { delete: "posts", id: 1, version: 3 },
        { delete: "comments", id: 1, version: 4 },
        { delete: "comments", id: 2, version: 5 },
        { delete: "replies", id: 1, version: 3 },
      ],
    },
  ]);
  pending[0]!.resolve();
  await deleted;
  assert.deepEqual(await store.snapshot(), { users: [], posts: [], comments: [], replies: [] });
});

test("reset is one entry that clears each collection and puts back the starting records", async () => {
  const { resources, store, entries, pending } = journaled({ users: [{ id: 5, name: "E", email: "e@example.com" }] });
  void createRecord(resources.users, store.collection("users"), { name: "F", email: "f@example.com" });
  pending[0]!.resolve();
  const reset = store.reset();
  assert.deepEqual(entries[1], {
    effects: [
      { clear: "users", version: 4 },
      { put: "users", record: { id: 5, name: "E", email: "e@example.com" }, version: 5 },
      { clear: "posts", version: 2 },
      { clear: "comments", version: 2 },
      { clear: "replies", version: 2 },
    ],
  });
  pending[1]!.resolve();
  await reset;
  assert.deepEqual((await store.snapshot()).users, [{ id: 5, name: "E", email: "e@example.com" }]);
});

test("a write that cannot be kept is answered 503, and from then on the store answers 503 and is not ready", async () => {
  const { resources, store, pending } = journaled();
  const users = store.collection("users");
  const lost = createRecord(resources.users, users, { name: "C", email: "c@example.com" });
  const read = users.read(1);
  assert.equal(store.ready(), true);
  pending[0]!.reject(new Error("EIO: i/o error, fdatasync"));
  const unavailable = (error: unknown) => error instanceof StoreError && error.code === "STORE_UNAVAILABLE" && error.status === 503;
  await assert.rejects(Promise.resolve(lost), unavailable);
  await assert.rejects(Promise.resolve(read), unavailable);
  assert.equal(store.ready(), false);
  assert.throws(() => createRecord(resources.users, users, { name: "D", email: "d@example.com" }), unavailable);
  assert.throws(() => updateRecord(resources.users, users, 1, { name: "D" }), unavailable);
  assert.throws(() => deleteRecord(resources.users, users, 1), unavailable);
  assert.throws(() => users.read(1), unavailable);
  await assert.rejects(store.reset(), unavailable);
  // close still resolves: there is nothing more it could keep.
  await store.close();
});

test("capture and restore keep records, versions, revisions, highest ids and the epoch, so ids and ETags go on", async () => {
  const { resources, starting } = defineData({ clock: () => new Date(AT) });
  const first = createMemoryStore(resources, { starting });
  const posts = first.collection("posts");
  for (const title of ["A", "B", "C"]) now(createRecord(resources.posts, posts, { title, body: "x" }));
  now(deleteRecord(resources.posts, posts, 3));
  now(updateRecord(resources.posts, posts, 1, { title: "A2" }));
  const tagBefore = now(posts.read(1))!.tag;
  const listBefore = now(posts.list(ALL))!.tag;
  const second = createMemoryStore(resources, { starting, restored: first.capture() });
  const again = second.collection("posts");
  assert.equal(now(again.read(1))!.tag, tagBefore);
  assert.equal(now(again.list(ALL))!.tag, listBefore);
  assert.deepEqual(await second.snapshot(), await first.snapshot());
  // The sequence never gives 3 again, although post 3 is gone.
  assert.equal(now(createRecord(resources.posts, again, { title: "D", body: "x" })).record.id, 4);
  assert.equal(second.nextId("users"), 3);
});

test("fail() stops the store at once: reads, lists and writes get 503, and it is not ready", async () => {
  const { resources, store } = journaled();
  const users = store.collection("users");
  store.fail();
  assert.equal(store.ready(), false);
  const unavailable = { code: "STORE_UNAVAILABLE", status: 503 };
  assert.throws(() => users.read(1), unavailable);
  assert.throws(() => users.list(ALL), unavailable);
  assert.throws(() => createRecord(resources.users, users, { name: "C", email: "c@example.com" }), unavailable);
  await assert.rejects(store.snapshot(), unavailable);
});

test("snapshot() copies at once and answers once what it holds is kept: a write made after the call is not in it", async () => {
  const { resources, store, pending } = journaled();
  const users = store.collection("users");
  void createRecord(resources.users, users, { name: "C", email: "c@example.com" });
  const snapshot = store.snapshot();
  void createRecord(resources.users, users, { name: "D", email: "d@example.com" });
  assert.equal(await settled(snapshot), false);
  pending[0]!.resolve();
  assert.deepEqual((await snapshot).users.map((user) => user.id), [1, 2, 3]);
});

test("a keep hook that throws instead of returning a promise fails the store: the write is answered 503, not 500", async () => {
  const { resources, starting } = defineData();
  const store = createMemoryStore(resources, {
    starting,
    keep: () => {
      throw new TypeError("cannot encode");
    },
  });
  const answer = createRecord(resources.users, store.collection("users"), { name: "C", email: "c@example.com" });
  await assert.rejects(Promise.resolve(answer), { code: "STORE_UNAVAILABLE" });
  assert.equal(store.ready(), false);
});
