// White-box tests of the store's budget: what recordCost counts, and the memory store's limit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineData } from "../../src/api/dataset.ts";
import { StoreError } from "../../src/store/errors.ts";
import { readList } from "../../src/api/lists.ts";
import { selectPage } from "../../src/store/query.ts";
import { DEFAULT_STORE_LIMIT, formatBytes, recordCost } from "../../src/store/memory/budget.ts";
import { createHolds } from "../../src/store/memory/holds.ts";
import { createMemoryStore, StoreLimitError } from "../../src/store/memory/store.ts";
import { createRecord, deleteRecord, updateRecord } from "../../src/api/records.ts";
import { resourceRoutes } from "../../src/api/routes.ts";
import type { RecordId, Seed } from "../../src/store/records.ts";
import type { CollectionStore } from "../../src/store/seam.ts";

const AT = "2026-01-31T09:30:00.000Z";
const ALL = readList(new URLSearchParams());

function limited(limit: number, seed?: Seed) {
  const { resources, starting } = defineData({ seed, clock: () => new Date(AT) });
  return { resources, store: createMemoryStore(resources, { starting, limit }) };
}

test("recordCost counts a record's bookkeeping and each value, its members' names among them", () => {
  assert.equal(recordCost({}), 96 + 56);
  // A member: its slot, its name (2 characters), and its value.
  assert.equal(recordCost({ id: 1 }), 96 + 56 + (48 + 32 + 4 * 2) + 72);
  assert.equal(recordCost({ s: "abc" }), 96 + 56 + (48 + 32 + 4) + (32 + 12));
  assert.equal(recordCost({ a: [true, null, {}] }), 96 + 56 + (48 + 32 + 4) + (32 + 3 * 16) + 8 + 8 + 56);
});

test("recordCost is an upper bound of what V8 holds for each of the worst shapes a body can have", () => {
  // The heap taken by each shape, measured (docs/decisions.md, "Access and limits"): bytes per value.
  const n = 10_000;
  const shapes: Array<[string, object, number]> = [
    ["empty objects", { z: Array.from({ length: n }, () => ({})) }, 28 + 8],
    ["empty arrays", { z: Array.from({ length: n }, () => []) }, 32 + 8],
    ["members", Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 0])), 40 + 24],
    ["numbers", { z: Array.from({ length: n }, (_, i) => i + 0.5) }, 16 + 8],
  ];
  for (const [name, record, heapPerValue] of shapes) {
    assert.ok(recordCost(record) >= n * heapPerValue, `${name}: ${recordCost(record)} < ${n * heapPerValue}`);
  }
  // A string: two bytes a character in the heap at most, and its text kept for reads.
  assert.ok(recordCost({ s: "é".repeat(n) }) >= 2 * 2 * n);
  // Texts longer than their values, with the heap each takes and its text (measured, with
  // the text made two-byte by one wide character where that makes it longer): a control
  // character is six characters of text; a lone surrogate six, two bytes each; a number up
  // to 25 characters, two bytes each, beside its slot and box (78.5 bytes an element in all).
  const texts: Array<[string, object, number]> = [
    ["control characters", { s: "\u0001".repeat(n) }, 1 + 6],
    ["lone surrogates in a two-byte text", { s: "中\ud800".repeat(n / 2) }, 2 + (12 + 2) / 2],
    ["long numbers in a two-byte text", { w: "中", z: Array.from({ length: n }, (_, i) => -0.0000012345678901234567 * (1 + i / n)) }, 79],
    ["quotes", { s: '"'.repeat(n) }, 1 + 2],
  ];
  for (const [name, record, bytesPerValue] of texts) {
    assert.ok(recordCost(record) >= n * bytesPerValue, `${name}: ${recordCost(record)} < ${n * bytesPerValue}`);
  }
  // A string that escapes nothing costs the same on either path: an emoji is two units, unescaped.
  assert.equal(recordCost({ s: "😀" }), recordCost({ s: "ab" }));
});

test("the default limit is 64 MiB, and sizes are shown in their largest whole unit", () => {
  assert.equal(DEFAULT_STORE_LIMIT, 64 * 1024 * 1024);
  assert.equal(formatBytes(DEFAULT_STORE_LIMIT), "64 MiB");
  assert.equal(formatBytes(1536), "1.5 KiB");
  assert.equal(formatBytes(3 * 1024 ** 3), "3 GiB");
  assert.equal(formatBytes(500), "500 bytes");
});

test("a create past the limit -> 507 STORE_FULL naming the limit, nothing stored; a delete frees room for it", async () => {
  const { resources, store } = limited(4_000);
  const posts = store.collection("posts");
  const body = { title: "t", body: "b".repeat(200) };
  const created: RecordId[] = [];
  let refusal: unknown;
  for (let i = 0; i < 100 && refusal === undefined; i++) {
    try {
      created.push((await createRecord(resources.posts, posts, body)).record.id);
    } catch (error) {
      refusal = error;
    }
  }
  assert.ok(refusal instanceof StoreError);
  assert.equal(refusal.status, 507);
  assert.equal(refusal.code, "STORE_FULL");
  assert.equal(refusal.message, "The store is full: this write would take the records past STORE_LIMIT (3.9 KiB); delete records to make room");
  const held = (await posts.list(ALL))!;
  assert.equal(held.total, created.length);
  // The refused create took no id: the next one gets the id after the last stored.
  await deleteRecord(resources.posts, posts, created[0]!);
  const again = await createRecord(resources.posts, posts, body);
  assert.equal(again.record.id, (created.at(-1) as number) + 1);
});

test("a replace that grows a record past the limit -> 507 and the record is unchanged; one that shrinks it always passes", async () => {
  const { resources, store } = limited(2_000);
  const users = store.collection("users");
  await assert.rejects(async () => updateRecord(resources.users, users, 1, { bio: "x".repeat(1_000) }), { code: "STORE_FULL" });
  assert.equal(JSON.parse((await users.read(1))!.text).bio, undefined);
  const shrunk = await updateRecord(resources.users, users, 1, { name: "A" });
  assert.equal(shrunk.record.name, "A");
});

test("deleting a post frees what its comments and replies took too", async () => {
  const { resources, store } = limited(6_400);
  const post = await createRecord(resources.posts, store.collection("posts"), { title: "t", body: "b" });
  const comment = await createRecord(resources.comments, store.collection("comments"), { body: "c".repeat(300) }, post.record.id);
  await createRecord(resources.replies, store.collection("replies"), { body: "r".repeat(300) }, comment.record.id);
  await assert.rejects(async () => createRecord(resources.posts, store.collection("posts"), { title: "t", body: "x".repeat(900) }), { code: "STORE_FULL" });
  await deleteRecord(resources.posts, store.collection("posts"), post.record.id);
  const big = await createRecord(resources.posts, store.collection("posts"), { title: "t", body: "x".repeat(900) });
  assert.equal(big.record.body, "x".repeat(900));
});

test("starting records past the limit throw a StoreLimitError that says what to do", () => {
  const seed: Seed = { users: Array.from({ length: 50 }, (_, i) => ({ id: i + 1, name: "n", email: "a@b.io" })) };
  assert.throws(() => limited(1_000, seed), {
    name: "StoreLimitError",
    message: /^The starting records take [\d.]+ KiB, more than STORE_LIMIT \(1000 bytes\); raise STORE_LIMIT or start with fewer records$/,
  });
  assert.ok(StoreLimitError.prototype instanceof RangeError);
  assert.throws(() => limited(0), { name: "TypeError" });
});

/** Creates posts until the store is full; their ids. */
async function fill(resources: ReturnType<typeof limited>["resources"], posts: CollectionStore, body: { title: string; body: string }): Promise<RecordId[]> {
  const ids: RecordId[] = [];
  for (;;) {
    try {
      ids.push((await createRecord(resources.posts, posts, body)).record.id);
    } catch (error) {
      assert.equal((error as StoreError).code, "STORE_FULL");
      return ids;
    }
  }
}

test("a cost freed while lists hold records is taken off once the last list open that lists the record is released", () => {
  const budget = { used: 100 };
  const holds = createHolds(budget);
  const [r1, r2, r3, r4, r5] = [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 }];
  holds.free(r1, 1, 10);
  assert.equal(budget.used, 90, "with no list open, a free is at once");
  // Every record held at revision 5, and two answers that write that same array.
  const all = [r1, r2, r5];
  const a = holds.hold(all, 5, true);
  const a2 = holds.hold(all, 5, true);
  holds.free(r2, 3, 20);
  assert.equal(budget.used, 90, "written before the list was read: it lists it");
  holds.free(r3, 6, 7);
  assert.equal(budget.used, 83, "written after the list was read: another record, freed at once");
  // A page: only what it has is held.
  const page = holds.hold([r4, r1], 8, false);
  assert.equal(holds.lists(r5, 2), true, "the whole list has it");
  holds.free(r5, 2, 4);
  holds.free(r4, 7, 30);
  assert.equal(holds.lists(r4, 7), true);
  assert.equal(holds.lists(r3, 9), false);
  assert.equal(budget.used, 83);
  page();
  assert.equal(budget.used, 53, "the page was the only list of the fourth record");
  page();
  assert.equal(budget.used, 53, "a release counts once");
  a();
  a();
  assert.equal(budget.used, 53, "the second answer still writes the whole list");
  assert.equal(holds.holding(), true);
  a2();
  assert.equal(budget.used, 29);
  assert.equal(holds.holding(), false);
  // A record two lists hold goes back when the last of them is released, whichever it is.
  const first = holds.hold([r1, r2], 10, true);
  const second = holds.hold([r2, r1], 11, false);
  holds.free(r1, 9, 9);
  first();
  assert.equal(budget.used, 29);
  second();
  assert.equal(budget.used, 20);
});

test("records deleted while a list that holds them is not yet written keep their cost until it is", async () => {
  const { resources, store } = limited(400_000);
  const posts = store.collection("posts");
  const body = { title: "t", body: "b".repeat(4000) };
  const ids = await fill(resources, posts, body);
  // A sorted list longer than a piece has no text made yet: it is written in pieces, so it holds its records.
  const view = (await posts.list(readList(new URLSearchParams("sort=-id"))))!;
  assert.ok(ids.length > 2);
  assert.equal(view.items.length, ids.length);
  assert.equal(typeof view.release, "function");
  for (const id of ids) await deleteRecord(resources.posts, posts, id);
  await assert.rejects(async () => createRecord(resources.posts, posts, body), { code: "STORE_FULL" });
  view.release!();
  assert.equal((await createRecord(resources.posts, posts, body)).record.title, "t");
  // A short page's text is made when it is read: nothing is held.
  assert.equal((await posts.list(readList(new URLSearchParams("sort=-id&limit=3"))))!.release, undefined);
});

test("a list answered 304 or 412 lets go of its records at once", async () => {
  const { resources, store } = limited(400_000);
  const posts = store.collection("posts");
  const body = { title: "t", body: "b".repeat(4000) };
  const ids = await fill(resources, posts, body);
  const list = resourceRoutes(resources.posts, posts).find((route) => route.method === "GET" && route.operation?.kind === "list")!;
  const query = new URLSearchParams("sort=-id");
  const sent = await list.handler({ params: {}, query, body: {}, headers: {} });
  assert.equal(typeof sent.release, "function", "a list sent lets go once written");
  sent.release!();
  const notModified = await list.handler({ params: {}, query, body: {}, headers: { "if-none-match": sent.etag! } });
  assert.equal(notModified.status, 304);
  await assert.rejects(async () => list.handler({ params: {}, query, body: {}, headers: { "if-match": '"other"' } }), { code: "PRECONDITION_FAILED" });
  for (const id of ids) await deleteRecord(resources.posts, posts, id);
  assert.equal((await createRecord(resources.posts, posts, body)).record.title, "t");
});

test("list indexes count in the budget: a write that fits the records is never refused for one, and a full store answers sorts and filters by a scan", async () => {
  const body = { title: "t", body: "b".repeat(200) };
  // How many posts a store of this limit holds when no list has asked for an index.
  const plain = limited(200_000);
  const fits = (await fill(plain.resources, plain.store.collection("posts"), body)).length;
  const { resources, store } = limited(200_000);
  const posts = store.collection("posts");
  for (let i = 0; i < fits / 2; i++) await createRecord(resources.posts, posts, { ...body, title: `t${i % 7}` });
  const asked = ["sort=title", "sort=-createdAt", "title=t3", "id=5", "sort=body&title=t1"].map((query) => readList(new URLSearchParams(query)));
  for (const list of asked) await posts.list(list);
  const { records, indexes } = store.costs();
  assert.ok(indexes > 0, "the lists made indexes, counted in the budget");
  assert.ok(records + indexes <= 200_000);
  // The indexes use the room the records leave; the records still get every byte of it.
  assert.equal((await fill(resources, posts, body)).length + Math.ceil(fits / 2), fits);
  assert.ok(store.costs().records + store.costs().indexes <= 200_000);
  // Full: the same lists are answered exactly, by a scan, and keep nothing past the limit.
  const held = (await posts.list(ALL))!.items;
  for (const list of asked) {
    const answer = (await posts.list(list))!;
    assert.deepEqual(answer.items, selectPage(held, list).items);
    answer.release?.();
  }
  assert.ok(store.costs().records + store.costs().indexes <= 200_000);
});

test("a list being written keeps counted only the records it lists: one written after it was read, or not in it, gives back its room at once", async () => {
  const { resources, store } = limited(700_000);
  const posts = store.collection("posts");
  const post = (title: string) => createRecord(resources.posts, posts, { title, body: "b".repeat(7000) });
  const full = (title: string) => assert.rejects(async () => post(title), { code: "STORE_FULL" });
  const ids = new Map<string, RecordId[]>([["x", []], ["y", []]]);
  for (let i = 0; ; i++) {
    const title = i % 2 === 0 ? "x" : "y";
    try {
      ids.get(title)!.push((await post(title)).record.id);
    } catch (error) {
      assert.equal((error as StoreError).code, "STORE_FULL");
      break;
    }
  }
  assert.ok(ids.get("x")!.length >= 10, "a list of the x posts is long enough to be written in pieces");
  await deleteRecord(resources.posts, posts, ids.get("y")!.pop()!);
  // A reader of the whole list that never finishes: posts made and deleted after it was read
  // are other records, and their room comes back each time.
  const whole = (await posts.list(ALL))!;
  assert.equal(typeof whole.release, "function");
  for (let i = 0; i < 20; i++) await deleteRecord(resources.posts, posts, (await post("z")).record.id);
  ids.get("y")!.push((await post("y")).record.id);
  // A post it lists keeps its room counted until the list is out.
  await deleteRecord(resources.posts, posts, ids.get("y")!.shift()!);
  await full("y");
  whole.release!();
  ids.get("y")!.push((await post("y")).record.id);
  // A filtered list holds its own records only.
  const filtered = (await posts.list(readList(new URLSearchParams("title=x"))))!;
  assert.equal(filtered.items.length, ids.get("x")!.length);
  assert.equal(typeof filtered.release, "function");
  await deleteRecord(resources.posts, posts, ids.get("y")!.shift()!);
  ids.get("y")!.push((await post("y")).record.id);
  await deleteRecord(resources.posts, posts, ids.get("x")!.shift()!);
  await full("x");
  filtered.release!();
  assert.equal((await post("x")).record.title, "x");
});
