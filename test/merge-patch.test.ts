// White-box tests of merge-patch.ts: RFC 7396's algorithm, its Appendix A, and that nothing given is modified.
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyMergePatch } from "../src/api/merge-patch.ts";

// RFC 7396, Appendix A, every example: original, patch, result.
const APPENDIX_A: Array<[unknown, unknown, unknown]> = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [["a", "b"], ["c", "d"], ["c", "d"]],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

for (const [original, patch, result] of APPENDIX_A) {
  test(`applyMergePatch(${JSON.stringify(original)}, ${JSON.stringify(patch)}) is ${JSON.stringify(result)} (RFC 7396, Appendix A)`, () => {
    assert.deepEqual(applyMergePatch(original, patch), result);
  });
}

test("applyMergePatch turns a member that is not an object into {} before merging an object into it", () => {
  assert.deepEqual(applyMergePatch({ a: 5 }, { a: { b: 1 } }), { a: { b: 1 } });
  assert.deepEqual(applyMergePatch({ a: [1] }, { a: { b: null, c: 2 } }), { a: { c: 2 } });
});

test("applyMergePatch merges at any depth and keeps members the patch does not name", () => {
  const original = { title: "Goodbye!", author: { givenName: "John", familyName: "Doe" }, tags: ["example", "sample"], content: "x" };
  const patch = { title: "Hello!", phoneNumber: "+01-123-456-7890", author: { familyName: null }, tags: ["example"] };
  // RFC 7396, section 3's example.
  assert.deepEqual(applyMergePatch(original, patch), {
    title: "Hello!",
    author: { givenName: "John" },
    tags: ["example"],
    content: "x",
    phoneNumber: "+01-123-456-7890",
  });
});

test("applyMergePatch modifies neither the target nor anything inside it", () => {
  const target = { a: { b: { c: 1, d: 2 } }, list: [1, 2], keep: { x: 1 } };
  const before = structuredClone(target);
  const inner = target.a.b;
  const result = applyMergePatch(target, { a: { b: { c: null, e: 3 } }, list: null }) as typeof target;
  assert.deepEqual(target, before);
  assert.notEqual(result, target);
  assert.notEqual(result.a, target.a);
  assert.notEqual(result.a.b, inner);
  assert.deepEqual(result, { a: { b: { d: 2, e: 3 } }, keep: { x: 1 } });
});

test("applyMergePatch reads a member named like an Object.prototype method as absent", () => {
  assert.deepEqual(applyMergePatch({}, { toString: { a: 1 } }), { toString: { a: 1 } });
});
