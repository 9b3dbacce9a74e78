// White-box tests of src/store/journal/changes.ts: what an update journals, and that replaying it makes the same record, byte for byte.
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyMergePatch } from "../../src/api/merge-patch.ts";
import { applyChange, changeOf, isChange } from "../../src/store/journal/changes.ts";
import type { StoredRecord } from "../../src/store/records.ts";

/** The change as it is read back from a journal line, applied to `before`: the record replay makes. */
function replay(before: StoredRecord, after: StoredRecord): { text: string; bytes: number } {
  const change = changeOf(before, after);
  assert.ok(change !== undefined, "a change is journaled");
  const line = JSON.stringify(change);
  const read = JSON.parse(line) as unknown;
  assert.ok(isChange(read), line);
  const made = applyChange(before, read);
  assert.equal(typeof made, "object", String(made));
  return { text: JSON.stringify(made), bytes: Buffer.byteLength(line) };
}

test("a one-member merge patch of a large record journals that member only, and replays to the same record", () => {
  const big = "x".repeat(1 << 20);
  const before: StoredRecord = { id: 4, title: "T", body: big, meta: { tags: ["a"], views: 1, note: big } };
  const frozen = JSON.stringify(before);
  const after = applyMergePatch(before, { title: "U" }) as StoredRecord;
  assert.deepEqual(changeOf(before, after), { set: [["title", "U"]] });
  const nested = applyMergePatch(before, { meta: { views: 2, tags: null, extra: true } }) as StoredRecord;
  assert.deepEqual(changeOf(before, nested), { in: [["meta", { unset: ["tags"], set: [["views", 2], ["extra", true]] }]] });
  for (const next of [after, nested]) {
    const { text, bytes } = replay(before, next);
    assert.equal(text, JSON.stringify(next));
    assert.ok(bytes < 200, `${bytes} bytes`);
  }
  // The record changed is never changed itself: a compaction may be writing it.
  assert.equal(JSON.stringify(before), frozen);
});

test("a change replays to the same JSON text, members in the same order, in every shape an update makes", () => {
  const cases: [string, StoredRecord, StoredRecord][] = [
    ["a member removed and one added", { id: 1, a: 1, b: 2, c: 3 }, { id: 1, a: 1, c: 3, d: 4 }],
    ["a PUT resending the same values with one changed", { id: 1, a: [1, { x: 2 }], b: "s" }, { id: 1, a: [1, { x: 2 }], b: "t" }],
    ["an array changed within", { id: 1, a: [1, 2, 3], keep: "k" }, { id: 1, a: [1, 2, 4], keep: "k" }],
    ["names that look like indexes", { id: 1, b: 1, 2: "two" }, { id: 1, b: 2, 2: "deux", z: 0 }],
    ["a member named __proto__", JSON.parse('{"id":1,"__proto__":{"a":1},"k":2}'), JSON.parse('{"id":1,"__proto__":{"a":2},"k":2,"n":3}')],
    ["null values kept and set", { id: 1, a: null, b: 1 }, { id: 1, a: null, b: null }],
    ["an object replaced by an array", { id: 1, a: { x: 1 }, b: 1 }, { id: 1, a: [1], b: 1 }],
    ["an inner object in another order", { id: 1, o: { x: 1, y: 2 }, b: 1 }, { id: 1, o: { y: 2, x: 1 }, b: 1 }],
    ["nothing changed", { id: 1, a: 1 }, { id: 1, a: 1 }],
  ];
  for (const [name, before, after] of cases) assert.equal(replay(before, after).text, JSON.stringify(after), name);
  const proto = replay(cases[4]![1], cases[4]![2]).text;
  assert.equal(proto, '{"id":1,"__proto__":{"a":2},"k":2,"n":3}');
  // An index-like name added before the others moves them: that record is journaled whole.
  assert.equal(changeOf({ id: 1, b: 1, 2: "two" }, { id: 1, b: 1, 2: "two", 1: "one" }), undefined);
});

test("a record whose members come in another order, or with none unchanged, is journaled whole", () => {
  assert.equal(changeOf({ id: 1, a: 1, b: 2 }, { b: 2, id: 1, a: 1 }), undefined);
  assert.equal(changeOf({ id: 1, a: 1 }, { id: 2, a: 2 }), undefined);
});

test("a change nested deeper than the walk goes sets the deep member whole, and still replays exactly", () => {
  let deep: unknown = { leaf: 1 };
  let deeper: unknown = { leaf: 2 };
  for (let i = 0; i < 100; i++) {
    deep = { next: deep };
    deeper = { next: deeper };
  }
  const before = { id: 1, deep, other: "o" } as StoredRecord;
  const after = { id: 1, deep: deeper, other: "o" } as StoredRecord;
  assert.equal(replay(before, after).text, JSON.stringify(after));
});

test("random merge patches replay to the records they made", () => {
  // A small deterministic generator, so a failure repeats.
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const names = ["a", "b", "c", "1", "d"];
  const value = (depth: number): unknown => {
    switch (random(depth > 2 ? 4 : 6)) {
      case 0:
        return random(3);
      case 1:
        return `s${random(3)}`;
      case 2:
        return null;
      case 3:
        return [random(2), `t${random(2)}`];
      default: {
        const object: Record<string, unknown> = {};
        for (let i = random(4); i > 0; i--) object[names[random(names.length)]!] = value(depth + 1);
        return object;
      }
    }
  };
  let record: StoredRecord = { id: 1 };
  for (let step = 0; step < 2000; step++) {
    const patch = value(0);
    const next = { ...(applyMergePatch(record, typeof patch === "object" && patch !== null && !Array.isArray(patch) ? patch : { a: patch }) as object), id: 1 };
    const change = changeOf(record, next);
    const made = change === undefined ? next : applyChange(record, JSON.parse(JSON.stringify(change)));
    assert.equal(JSON.stringify(made), JSON.stringify(next), `step ${step}`);
    record = next;
  }
});

test("applyChange refuses a change that does not fit the record, and isChange refuses what was never written", () => {
  assert.match(applyChange({ id: 1 }, { unset: ["gone"] }) as string, /the member "gone" is removed but not held/);
  assert.match(applyChange({ id: 1, a: 1 }, { in: [["a", { set: [["x", 1]] }]] }) as string, /the member "a" is changed within but is not an object/);
  for (const bad of [null, [], { set: [["a"]] }, { set: "a" }, { unset: [1] }, { in: [["a", 1]] }, { set: [[1, 2]] }]) {
    assert.equal(isChange(bad), false, JSON.stringify(bad));
  }
  assert.equal(isChange({}), true);
});
