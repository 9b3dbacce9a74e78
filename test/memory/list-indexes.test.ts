// White-box tests of src/store/memory/list-indexes.ts: indexed lists equal the plain scan's, through random writes and queries.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Collection } from "../../src/store/memory/collection.ts";
import { ListIndexes, MAX_FILTER_INDEXES, MAX_SORT_ORDERS, type Room, SMALL_SORT_VALUE } from "../../src/store/memory/list-indexes.ts";
import { type ListQuery, selectPage, type SortKey } from "../../src/store/query.ts";
import type { StoredRecord } from "../../src/store/records.ts";

/** A small seeded generator, so that a failure repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

// Members with few values, so that filters match several records; some records lack some.
const MEMBERS = ["role", "team", "level", "tag", "name", "a", "b", "c", "d", "e"];
// Two values past SMALL_SORT_VALUE, which no kept order holds: writing one drops the order.
const BIG_TEXT = "x".repeat(300);
const BIG_OBJECT = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
const VALUES: unknown[] = ["x", "y", "z", 1, 2, "1", true, null, { n: 1 }, ["x"], "é", "\ud83d\ude00", BIG_TEXT, BIG_OBJECT];

/** Room of `capacity` bytes that counts what it has lent. */
function countingRoom(capacity: number): Room & { taken: number } {
  const room = {
    taken: 0,
    take: (bytes: number) => {
      if (room.taken + bytes > capacity) return false;
      room.taken += bytes;
      return true;
    },
    give: (bytes: number) => {
      room.taken -= bytes;
    },
  };
  return room;
}

function query(pick: () => number, filters: Array<[string, string[]]>, sort: SortKey[]): ListQuery {
  const offset = Math.floor(pick() * 6);
  const limit = pick() < 0.3 ? Infinity : Math.floor(pick() * 8);
  return { offset, limit, sort, filters: new Map(filters.map(([member, texts]) => [member, new Set(texts)])), kept: [] };
}

for (const capacity of [Infinity, 3_000]) {
  test(`filtered and sorted pages from the indexes equal the plain scan's, through 6,000 random writes and queries, with room for ${capacity} bytes`, () => {
    const pick = random(11);
    const choose = <T>(items: readonly T[]): T => items[Math.floor(pick() * items.length)]!;
    const room = countingRoom(capacity);
    const collection = new Collection<StoredRecord>("sequence", [], { room });
    let next = 1;
    const record = (id: number): StoredRecord => {
      const made: StoredRecord = { id };
      for (const member of MEMBERS) if (pick() < 0.8) made[member] = choose(VALUES);
      return made;
    };
    for (let step = 0; step < 6000; step++) {
      const held = collection.page(0, Infinity);
      const roll = pick();
      if (roll < 0.3 || held.length === 0) collection.insert(record(next++));
      else if (roll < 0.5) collection.replace(record(choose(held).id as number));
      else if (roll < 0.62) collection.delete(choose(held).id);
      else if (roll < 0.625) collection.clear();
      else {
        const filters: Array<[string, string[]]> = [];
        const count = Math.floor(pick() * 3);
        for (let i = 0; i < count; i++) filters.push([choose(MEMBERS), pick() < 0.7 ? [choose(["x", "y", "1", "2", "true", "null"])] : ["x", "1"]]);
        const sort: SortKey[] = [];
        const keys = Math.floor(pick() * 3);
        for (let i = 0; i < keys; i++) sort.push({ member: choose(MEMBERS), descending: pick() < 0.5 });
        const list = query(pick, filters, sort);
        const expected = selectPage(held, list);
        const actual = collection.select(list);
        assert.equal(actual.total, expected.total, `step ${step}`);
        assert.deepEqual(actual.items.map((item) => item.id), expected.items.map((item) => item.id), `step ${step}: ${JSON.stringify({ filters, sort, offset: list.offset, limit: list.limit })}`);
      }
      // What the indexes hold is taken from the room and given back exactly, never past it.
      assert.equal(room.taken, collection.indexCost, `step ${step}`);
      assert.ok(room.taken <= capacity, `step ${step}`);
    }
    assert.ok(collection.indexCost > 0, "indexes were kept at the end");
    collection.dropIndexes();
    assert.equal(room.taken, 0);
  });
}

test("past the kept indexes, filters and sorts are answered by a scan, still exactly", () => {
  const collection = new Collection("sequence");
  for (let id = 1; id <= 50; id++) {
    const made: StoredRecord = { id };
    for (let m = 0; m < 14; m++) made[`m${m}`] = (id * (m + 1)) % 3;
    collection.insert(made);
  }
  const all = () => collection.page(0, Infinity);
  // More members and sorts than are kept: the first ones get indexes, the rest a scan.
  for (let m = 0; m < MAX_FILTER_INDEXES + 4; m++) {
    const list = query(() => 0.5, [[`m${m}`, ["1"]]], []);
    assert.deepEqual(collection.select(list), selectPage(all(), list));
  }
  for (let m = 0; m < MAX_SORT_ORDERS + 3; m++) {
    const list = query(() => 0.5, [], [{ member: `m${m}`, descending: m % 2 === 1 }]);
    assert.deepEqual(collection.select(list), selectPage(all(), list));
  }
  collection.delete(7);
  collection.replace({ id: 8, m0: 1 });
  for (let m = 0; m < MAX_SORT_ORDERS + 3; m++) {
    const filtered = query(() => 0.1, [[`m${m}`, ["1"]]], [{ member: "m0", descending: false }]);
    assert.deepEqual(collection.select(filtered), selectPage(all(), filtered));
  }
});

test("a sort is kept only while every value under its keys is small, so that no write makes a large value comparable again and again", () => {
  const records = new Map<number, StoredRecord>();
  const indexes = new ListIndexes<StoredRecord>((id) => id as number);
  const all = () => [...records.values()];
  const add = (record: StoredRecord) => {
    records.set(record.id as number, record);
    indexes.added(record);
  };
  const byMember = (member: string) => query(() => 0, [], [{ member, descending: false }]);
  // The page from the kept order, or undefined where the sort is left to a scan.
  const sorted = (member: string) => indexes.select(byMember(member), all, (id) => records.get(id as number)!);
  for (let id = 1; id <= 20; id++) add({ id, name: `n${id % 7}`, nested: { a: [id, "x"] } });
  // A value at the bound is small; one past it is not.
  add({ id: 21, name: "y".repeat(SMALL_SORT_VALUE - 1), nested: { b: "z".repeat(SMALL_SORT_VALUE) } });
  assert.deepEqual(sorted("name"), selectPage(all(), byMember("name")));
  assert.equal(indexes.sortsKept, 1, "every name is small: its order is kept");
  assert.equal(sorted("nested"), undefined, "a nested value past the bound: that sort is answered by a scan");
  assert.equal(indexes.sortsKept, 1);
  // A write of a large name drops the kept order; the next sort by name is sorted, and exact.
  const before = records.get(3)!;
  const after = { id: 3, name: "w".repeat(SMALL_SORT_VALUE + 1) };
  records.set(3, after);
  indexes.replaced(before, after);
  assert.equal(indexes.sortsKept, 0);
  assert.equal(sorted("name"), undefined, "not kept again while the large name is held");
  assert.equal(indexes.sortsKept, 0);
  // So does a create of one, and once the large values are gone the order is kept again.
  records.set(3, before);
  indexes.replaced(after, before);
  assert.deepEqual(sorted("name"), selectPage(all(), byMember("name")));
  assert.equal(indexes.sortsKept, 1);
  add({ id: 22, name: ["n", { deep: "v".repeat(SMALL_SORT_VALUE) }] });
  assert.equal(indexes.sortsKept, 0);
});

test("a filter with several texts merges only the id lists it needs, in creation order", () => {
  const collection = new Collection("sequence");
  for (let id = 1; id <= 300; id++) collection.insert({ id, flag: id % 3 === 0, tag: `t${id % 5}` });
  const all = () => collection.page(0, Infinity);
  for (const [offset, limit] of [[0, 5], [97, 10], [190, Infinity], [0, Infinity], [250, 100]] as const) {
    for (const filters of [
      [["flag", ["true", "false"]]],
      [["tag", ["t1", "t3", "t4", "t9"]]],
      [["tag", ["t1", "t3"]], ["flag", ["true"]]],
      [["flag", ["true", "false"]], ["tag", ["t0", "t2", "t4"]]],
    ] as Array<Array<[string, string[]]>>) {
      const list: ListQuery = { offset, limit, sort: [], filters: new Map(filters.map(([member, texts]) => [member, new Set(texts)])), kept: [] };
      assert.deepEqual(collection.select(list), selectPage(all(), list), JSON.stringify({ filters, offset, limit }));
    }
  }
});

test("an index the room cannot hold is not kept and its list is answered by a scan; one a write would grow past it is let go of", () => {
  const records = new Map<number, StoredRecord>();
  const room = countingRoom(20_000);
  const indexes = new ListIndexes<StoredRecord>((id) => id as number, room);
  const all = () => [...records.values()];
  const add = (record: StoredRecord) => {
    records.set(record.id as number, record);
    indexes.added(record);
  };
  const select = (list: ListQuery) => indexes.select(list, all, (id) => records.get(id as number)!);
  for (let id = 1; id <= 1000; id++) add({ id, name: `n${id}`, flag: id % 2 === 0 });
  // 16 bytes a record for an order: 16,000 fit in 20,000, and the order is kept.
  const byName = query(() => 0, [], [{ member: "name", descending: true }]);
  assert.deepEqual(select(byName), selectPage(all(), byName));
  assert.equal(indexes.sortsKept, 1);
  assert.equal(room.taken, 16_000);
  // A second order does not fit beside it: answered by a scan (undefined here), nothing taken.
  assert.equal(select(query(() => 0, [], [{ member: "flag", descending: false }])), undefined);
  assert.equal(indexes.sortsKept, 1);
  assert.equal(room.taken, 16_000);
  // An equality index of 1,000 texts needs 168,000 bytes: made a step at a time, given up, and
  // what its first steps took given back.
  assert.equal(select(query(() => 0, [["name", ["n7"]]], [])), undefined);
  assert.equal(indexes.filtersKept, 0);
  assert.equal(room.taken, 16_000);
  // Two texts take 16,000 + 2 x 152: not beside the order; once it is let go of, they fit.
  assert.equal(select(query(() => 0, [["flag", ["true"]]], [])), undefined);
  indexes.cleared();
  assert.equal(room.taken, 0);
  const flagged = query(() => 0, [["flag", ["true"]]], []);
  assert.deepEqual(select(flagged), selectPage(all(), flagged));
  assert.equal(indexes.filtersKept, 1);
  assert.equal(room.taken, 16_304);
  // Creates grow it 16 bytes each, until one would pass the room: the index is let go of, all it held given back.
  let id = 1000;
  while (indexes.filtersKept === 1) add({ id: ++id, flag: true });
  assert.equal(id, 1000 + Math.floor((20_000 - 16_304) / 16) + 1);
  assert.equal(room.taken, 0);
  assert.equal(indexes.cost, 0);
});
