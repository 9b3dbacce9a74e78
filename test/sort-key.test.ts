// White-box tests of src/store/sort-key.ts: the bytes of sort keys order records exactly as sortRecords does.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { compareJson, compareSortRows, type ListRecord, type SortKey, sortRecords, sortRow } from "../src/store/query.ts";
import { sortKey } from "../src/store/sort-key.ts";

/** Bytewise order, as memcmp and PostgreSQL's bytea compare. */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

// Any JSON value, with strings and member names of any UTF-16 unit: astral characters, lone surrogates, U+0000, U+E000 to U+FFFF.
const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }),
  fc.constantFrom<unknown>("", "\u0000", "a\u0000", "a\u0001", "\ud800", "\udc00", "\ud800\udc00", "\ud83d\ude00", "\uffff", "\ue000", "é", -0, 0, -1e-300, 1e300, -1.5),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

test("sortKey's bytes order two values as compareJson does, equal values giving equal bytes, on any JSON values", () => {
  fc.assert(
    fc.property(anyValue, anyValue, (a, b) => {
      const order = Math.sign(compareBytes(sortKey({ id: 1, x: a }, [{ member: "x", descending: false }]), sortKey({ id: 1, x: b }, [{ member: "x", descending: false }])));
      assert.equal(order, Math.sign(compareJson(a, b)), `${JSON.stringify(a)} against ${JSON.stringify(b)}`);
    }),
    { numRuns: 20_000 },
  );
});

test("sortKey orders records as sortRecords does: several keys, descending ones, missing members, ties broken by id ascending", () => {
  const members = ["a", "b", "c"];
  const record = fc.record({ a: anyValue, b: fc.constantFrom<unknown>(1, "1", null, true, [1]), c: fc.constantFrom<unknown>("x", "y") }, { requiredKeys: [] });
  const keys = fc.uniqueArray(fc.record({ member: fc.constantFrom(...members, "id", "constructor"), descending: fc.boolean() }), { selector: (key) => key.member, minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(fc.array(record, { maxLength: 25 }), keys, fc.boolean(), (bodies, sort: SortKey[], stringIds) => {
      // Ids of one type, as one collection holds: whole numbers, or strings compared by code point.
      const records: ListRecord[] = bodies.map((body, index) => ({ ...body, id: stringIds ? `k${(index * 7) % 25}-${index}` : (index * 37) % 101 + index * 101 }));
      const expected = sortRecords(records, sort).map((item) => item.id);
      const actual = [...records].sort((x, y) => compareBytes(sortKey(x, sort), sortKey(y, sort))).map((item) => item.id);
      assert.deepEqual(actual, expected);
      for (let i = 1; i < records.length; i++) {
        const [x, y] = [records[i - 1]!, records[i]!];
        assert.equal(Math.sign(compareBytes(sortKey(x, sort), sortKey(y, sort))), Math.sign(compareSortRows(sortRow(x, sort), sortRow(y, sort), sort)));
      }
    }),
    { numRuns: 2_000 },
  );
});

test("sortKey puts a missing member after every value ascending and before every value descending, and reads own members only", () => {
  const values: unknown[] = [null, "", "\uffff", -1e308, 1e308, false, true, [], [[{}]], {}, { "\ud800": null }];
  const missing = sortKey({ id: 1 }, [{ member: "x", descending: false }]);
  const missingDown = sortKey({ id: 1 }, [{ member: "x", descending: true }]);
  for (const x of values) {
    assert.ok(compareBytes(sortKey({ id: 1, x }, [{ member: "x", descending: false }]), missing) < 0, JSON.stringify(x));
    assert.ok(compareBytes(sortKey({ id: 1, x }, [{ member: "x", descending: true }]), missingDown) > 0, JSON.stringify(x));
  }
  assert.deepEqual(sortKey({ id: 1 }, [{ member: "constructor", descending: false }]), missing);
});

test("sortKey breaks ties by id ascending under a descending key, numbers by value and strings by code point", () => {
  const down: SortKey[] = [{ member: "x", descending: true }];
  assert.ok(compareBytes(sortKey({ id: 2, x: 1 }, down), sortKey({ id: 10, x: 1 }, down)) < 0);
  assert.ok(compareBytes(sortKey({ id: 10, x: 1 }, down), sortKey({ id: 2, x: 0 }, down)) < 0);
  assert.ok(compareBytes(sortKey({ id: "B", x: 1 }, down), sortKey({ id: "a", x: 1 }, down)) < 0);
  assert.ok(compareBytes(sortKey({ id: "a", x: 1 }, down), sortKey({ id: "ab", x: 1 }, down)) < 0);
});
