// White-box tests of src/memory/collection.ts: Collection id policies and paging, ChildIndex, takePage.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChildIndex, Collection, KEPT_READS, takePage, type StoredRecord } from "../../src/store/memory/collection.ts";
import type { RecordId } from "../../src/store/records.ts";

function ids(records: readonly StoredRecord[]): RecordId[] {
  return records.map((record) => record.id);
}

function seeded(policy: "count" | "sequence", count: number): Collection {
  return new Collection(policy, Array.from({ length: count }, (_, i) => ({ id: i + 1, name: `user ${i + 1}` })));
}

test("Collection starts empty, or holds its seed in order", () => {
  const empty = new Collection("count");
  assert.equal(empty.size, 0);
  assert.equal(empty.nextId(), 1);
  assert.deepEqual(empty.page(0, Infinity), []);
  const users = new Collection("count", [
    { id: 1, name: "Ada" },
    { id: 2, name: "Alan" },
  ]);
  assert.equal(users.size, 2);
  assert.deepEqual(users.get(1), { id: 1, name: "Ada" });
  assert.equal(users.has(2), true);
  assert.equal(users.has(3), false);
  assert.equal(users.get(3), undefined);
  assert.deepEqual(users.page(0, Infinity), [{ id: 1, name: "Ada" }, { id: 2, name: "Alan" }]);
});

test("Collection with the count policy gives records held + 1, which can repeat after deletes", () => {
  const users = seeded("count", 2);
  assert.equal(users.nextId(), 3);
  users.insert({ id: users.nextId() });
  assert.equal(users.nextId(), 4);
  assert.equal(users.delete(1), true);
  // Seed spec part 2, rule 1: three held, two after the delete, so the next id is 3 again.
  assert.equal(users.nextId(), 3);
  assert.equal(users.has(3), true);
  users.delete(3);
  assert.equal(users.nextId(), 2);
  assert.equal(users.has(2), true);
});

test("Collection with the sequence policy never gives an id twice, even after deletes", () => {
  const posts = new Collection("sequence");
  assert.equal(posts.nextId(), 1);
  for (let i = 0; i < 3; i++) posts.insert({ id: posts.nextId() });
  assert.deepEqual(ids(posts.page(0, Infinity)), [1, 2, 3]);
  posts.delete(3);
  assert.equal(posts.nextId(), 4);
  posts.delete(1);
  posts.delete(2);
  assert.equal(posts.size, 0);
  assert.equal(posts.nextId(), 4);
  posts.insert({ id: posts.nextId() });
  assert.deepEqual(ids(posts.page(0, Infinity)), [4]);
});

test("Collection with the sequence policy continues after the highest id inserted, even one chosen by hand", () => {
  const posts = seeded("sequence", 2);
  assert.equal(posts.nextId(), 3);
  posts.insert({ id: 10 });
  assert.equal(posts.nextId(), 11);
  posts.insert({ id: 5 });
  assert.equal(posts.nextId(), 11);
});

test("Collection insert of a taken id throws RangeError and keeps the stored record", () => {
  const users = seeded("count", 2);
  const before = users.get(2);
  assert.throws(() => users.insert({ id: 2, name: "intruder" }), {
    name: "RangeError",
    message: "Record 2 already exists",
  });
  assert.equal(users.get(2), before);
  assert.equal(users.size, 2);
  assert.throws(() => new Collection("sequence", [{ id: 1 }, { id: 1 }]), {
    name: "RangeError",
    message: "Record 1 already exists",
  });
});

test("Collection insert after a delete of the same id succeeds and goes to the end of creation order", () => {
  const users = seeded("count", 3);
  users.delete(1);
  users.insert({ id: 1, name: "again" });
  assert.deepEqual(ids(users.page(0, Infinity)), [2, 3, 1]);
});

test("Collection replace keeps the record's place in creation order", () => {
  const users = seeded("count", 3);
  users.replace({ id: 2, name: "renamed" });
  assert.deepEqual(users.page(0, Infinity), [
    { id: 1, name: "user 1" },
    { id: 2, name: "renamed" },
    { id: 3, name: "user 3" },
  ]);
  assert.equal(users.size, 3);
  assert.equal(users.nextId(), 4);
});

test("Collection replace of a missing id throws RangeError and adds nothing", () => {
  const users = seeded("count", 2);
  users.delete(2);
  assert.throws(() => users.replace({ id: 2, name: "ghost" }), {
    name: "RangeError",
    message: "Record 2 does not exist",
  });
  assert.throws(() => users.replace({ id: 99 }), { name: "RangeError", message: "Record 99 does not exist" });
  assert.equal(users.has(2), false);
  assert.equal(users.size, 1);
});

test("Collection delete says whether a record was removed", () => {
  const users = seeded("count", 2);
  assert.equal(users.delete(1), true);
  assert.equal(users.delete(1), false);
  assert.equal(users.delete(42), false);
  assert.deepEqual(ids(users.page(0, Infinity)), [2]);
});

test("Collection page skips offset records and takes at most limit in creation order", () => {
  const users = seeded("sequence", 5);
  const cases: Array<[offset: number, limit: number, expected: number[]]> = [
    [0, Infinity, [1, 2, 3, 4, 5]],
    [0, 2, [1, 2]],
    [2, 2, [3, 4]],
    [4, 2, [5]],
    [3, Infinity, [4, 5]],
    [5, Infinity, []],
    [6, 1, []],
    [Number.MAX_SAFE_INTEGER, Infinity, []],
    [0, 0, []],
    [2, 0, []],
    [0, 5, [1, 2, 3, 4, 5]],
    [0, Number.MAX_SAFE_INTEGER, [1, 2, 3, 4, 5]],
  ];
  for (const [offset, limit, expected] of cases) {
    assert.deepEqual(ids(users.page(offset, limit)), expected, `offset ${offset}, limit ${limit}`);
  }
});

test("Collection page reflects deletes", () => {
  const users = seeded("sequence", 5);
  users.delete(2);
  users.delete(4);
  assert.deepEqual(ids(users.page(0, Infinity)), [1, 3, 5]);
  assert.deepEqual(ids(users.page(1, 1)), [3]);
});

test("ChildIndex keeps each parent's children in the order they were added", () => {
  const index = new ChildIndex();
  index.add(1, 10);
  index.add(2, 20);
  index.add(1, 12);
  index.add(1, 11);
  assert.deepEqual([...index.ids(1)], [10, 12, 11]);
  assert.deepEqual([...index.ids(2)], [20]);
  assert.equal(index.count(1), 3);
  assert.equal(index.count(2), 1);
});

test("ChildIndex counts a child added twice once, in its first place", () => {
  const index = new ChildIndex();
  index.add(1, 10);
  index.add(1, 11);
  index.add(1, 10);
  assert.equal(index.count(1), 2);
  assert.deepEqual([...index.ids(1)], [10, 11]);
});

test("ChildIndex answers a parent with no children with zero and no ids", () => {
  const index = new ChildIndex();
  assert.equal(index.count(7), 0);
  assert.deepEqual([...index.ids(7)], []);
  assert.deepEqual(index.drop(7), []);
  index.remove(7, 1);
  assert.equal(index.count(7), 0);
});

test("ChildIndex remove forgets one child, and the parent once its last child is gone", () => {
  const index = new ChildIndex();
  index.add(1, 10);
  index.add(1, 11);
  index.remove(1, 10);
  assert.equal(index.count(1), 1);
  assert.deepEqual([...index.ids(1)], [11]);
  index.remove(1, 99);
  assert.equal(index.count(1), 1);
  index.remove(1, 11);
  assert.equal(index.count(1), 0);
  assert.deepEqual([...index.ids(1)], []);
  index.add(1, 10);
  assert.deepEqual([...index.ids(1)], [10]);
});

test("ChildIndex drop returns a parent's children in order and forgets them", () => {
  const index = new ChildIndex();
  index.add(1, 3);
  index.add(1, 1);
  index.add(1, 2);
  index.add(2, 4);
  assert.deepEqual(index.drop(1), [3, 1, 2]);
  assert.equal(index.count(1), 0);
  assert.deepEqual([...index.ids(1)], []);
  assert.deepEqual(index.drop(1), []);
  assert.deepEqual([...index.ids(2)], [4]);
});

test("takePage skips offset items and takes at most limit", () => {
  const letters = ["a", "b", "c", "d"];
  const cases: Array<[offset: number, limit: number, expected: string[]]> = [
    [0, Infinity, ["a", "b", "c", "d"]],
    [1, 2, ["b", "c"]],
    [3, 5, ["d"]],
    [4, Infinity, []],
    [10, 10, []],
    [0, 0, []],
    [0, 1, ["a"]],
  ];
  for (const [offset, limit, expected] of cases) {
    assert.deepEqual(takePage(letters, offset, limit), expected, `offset ${offset}, limit ${limit}`);
  }
  assert.deepEqual(takePage([], 0, Infinity), []);
});

test("takePage stops reading once the page is full, and reads nothing for limit 0", () => {
  let read = 0;
  function* numbers(): Generator<number> {
    for (let n = 1; ; n++) {
      read++;
      yield n;
    }
  }
  assert.deepEqual(takePage(numbers(), 2, 3), [3, 4, 5]);
  assert.equal(read, 5);
  read = 0;
  assert.deepEqual(takePage(numbers(), 0, 0), []);
  assert.equal(read, 0);
});

test("takePage reads a Set and a Map's values like an array", () => {
  assert.deepEqual(takePage(new Set([5, 6, 7]), 1, 1), [6]);
  assert.deepEqual(takePage(new Map([[1, "x"], [2, "y"]]).values(), 1, Infinity), ["y"]);
});

test("Collection raises its revision on every insert, replace and delete, and a record's version is its last write's", () => {
  const users = seeded("count", 2);
  assert.equal(users.revision, 2);
  assert.equal(users.version(1), 1);
  assert.equal(users.version(2), 2);
  users.replace({ id: 1, name: "Ada" });
  assert.equal(users.revision, 3);
  assert.equal(users.version(1), 3);
  assert.equal(users.version(2), 2);
  assert.equal(users.delete(2), true);
  assert.equal(users.revision, 4);
  assert.equal(users.version(2), undefined);
  // A delete of nothing changes nothing.
  assert.equal(users.delete(2), false);
  assert.equal(users.revision, 4);
});

test("Collection gives a record deleted and created again with the same id a higher version than before", () => {
  const users = seeded("count", 2);
  const before = users.version(2)!;
  users.delete(2);
  users.insert({ id: users.nextId() });
  assert.equal(users.has(2), true);
  assert.ok(users.version(2)! > before);
});

test("Collection.clear forgets records and ids but never lowers the revision", () => {
  const posts = seeded("sequence", 3);
  const before = posts.revision;
  posts.clear();
  assert.ok(posts.revision > before);
  assert.equal(posts.version(1), undefined);
  posts.insert({ id: 1 });
  assert.ok(posts.version(1)! > before);
});

test("Collection.readView gives a record's ETag and JSON text, made once per version and dropped by any write", () => {
  const users = new Collection("count", [{ id: 1, name: "A" }], { epoch: "e" });
  const first = users.readView(1)!;
  assert.deepEqual(first, { tag: users.entityTag(1), text: '{"id":1,"name":"A"}' });
  assert.equal(users.readView(1), first, "a second read of the same version reuses the view");
  users.replace({ id: 1, name: "B" });
  const second = users.readView(1)!;
  assert.equal(second.text, '{"id":1,"name":"B"}');
  assert.notEqual(second.tag, first.tag);
  users.delete(1);
  assert.equal(users.readView(1), undefined);
  users.insert({ id: 1, name: "C" });
  assert.equal(users.readView(1)!.text, '{"id":1,"name":"C"}');
  users.clear();
  assert.equal(users.readView(1), undefined);
});

test("Collection keeps at most KEPT_READS reads, letting go of the oldest first", () => {
  const users = seeded("count", KEPT_READS + 1);
  const oldest = users.readView(1)!;
  const second = users.readView(2)!;
  for (let id = 3; id <= KEPT_READS; id++) users.readView(id);
  assert.equal(users.readView(1), oldest, "below the bound every read is kept");
  // One more read than the bound: the first kept (record 1) goes, and record 2 stays.
  const newest = users.readView(KEPT_READS + 1)!;
  assert.equal(users.readView(2), second);
  assert.equal(users.readView(KEPT_READS + 1), newest);
  const again = users.readView(1)!;
  assert.notEqual(again, oldest, "a read let go of is made again");
  assert.deepEqual(again, oldest, "with the same ETag and text");
  // Making it again let go of the next oldest, record 2.
  assert.notEqual(users.readView(2), second);
});

test("Collection.listText is the whole list's JSON text, kept from one read to the next and new after every write", () => {
  const users = seeded("count", 2);
  const first = users.listText(users.page(0, Infinity));
  assert.equal(first, JSON.stringify(users.page(0, Infinity)));
  assert.equal(users.listText(users.page(0, Infinity)), first);
  users.insert({ id: 3, name: "user 3" });
  assert.equal(users.listText(users.page(0, Infinity)), JSON.stringify([{ id: 1, name: "user 1" }, { id: 2, name: "user 2" }, { id: 3, name: "user 3" }]));
  users.replace({ id: 1, name: "Ada" });
  assert.equal(users.listText(users.page(0, Infinity)), JSON.stringify([{ id: 1, name: "Ada" }, { id: 2, name: "user 2" }, { id: 3, name: "user 3" }]));
  users.delete(2);
  assert.equal(users.listText(users.page(0, Infinity)), JSON.stringify([{ id: 1, name: "Ada" }, { id: 3, name: "user 3" }]));
  users.clear();
  assert.equal(users.listText(users.page(0, Infinity)), "[]");
});

test("Collection.listText of a list too long to make at once is undefined, so that it is written in pieces; a write brings back a short one", () => {
  // About 100 KiB of JSON: more than one piece.
  const users = seeded("count", 4_000);
  assert.equal(users.listText(users.page(0, Infinity)), undefined);
  for (let id = 4_000; id > 10; id--) users.delete(id);
  assert.equal(users.listText(users.page(0, Infinity)), JSON.stringify(users.page(0, Infinity)));
});

test("Collection.has finds every held id, a chosen high one and ones below it after deletes, and no id past the highest", () => {
  const users = seeded("count", 3);
  users.insert({ id: 1_000, name: "chosen" });
  users.delete(2);
  assert.deepEqual([1, 2, 3, 4, 999, 1_000, 1_001].map((id) => users.has(id)), [true, false, true, false, false, true, false]);
  const restored = Collection.restore("count", users.capture(), "e");
  assert.deepEqual([1, 3, 1_000, 1_001].map((id) => restored.has(id)), [true, true, true, false]);
  // A restored state whose highest id is below a record it holds still finds that record.
  const state = users.capture();
  const restoredLow = Collection.restore("count", { ...state, highestId: 1 }, "e");
  assert.equal(restoredLow.has(1_000), true);
});
