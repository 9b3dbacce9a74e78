// White-box tests of src/input.ts: whole numbers in digits, and text clipped for messages.
import assert from "node:assert/strict";
import { test } from "node:test";
import { clip, parseWholeNumber } from "../src/api/input.ts";

test("parseWholeNumber reads base-10 digits up to Number.MAX_SAFE_INTEGER", () => {
  const cases: Array<[text: string, value: number]> = [
    ["0", 0],
    ["7", 7],
    ["007", 7],
    ["9007199254740991", Number.MAX_SAFE_INTEGER],
    // Read digit by digit: leading zeros, however many, add nothing.
    [`${"0".repeat(40)}12`, 12],
  ];
  for (const [text, value] of cases) assert.equal(parseWholeNumber(text), value, text);
});

test("parseWholeNumber gives undefined for anything but digits, or for a value past the safe range", () => {
  for (const text of ["", " 1", "1 ", "-1", "+1", "1.5", "1e3", "0x1", "abc", "\u0661", "9007199254740992", "9007199254740993", "18014398509481984", "90071992547409910", "1".repeat(30), "1:", "1/"]) {
    assert.equal(parseWholeNumber(text), undefined, JSON.stringify(text));
  }
});

test("clip keeps text up to the limit and cuts longer text with an ellipsis", () => {
  const cases: Array<[text: string, max: number | undefined, clipped: string]> = [
    ["", undefined, ""],
    ["short", undefined, "short"],
    ["a".repeat(64), undefined, "a".repeat(64)],
    ["a".repeat(65), undefined, `${"a".repeat(64)}…`],
    ["b".repeat(10_000), undefined, `${"b".repeat(64)}…`],
    ["abcdef", 3, "abc…"],
    ["abc", 3, "abc"],
    ["abc", 0, "…"],
  ];
  for (const [text, max, clipped] of cases) {
    assert.equal(clip(text, max), clipped, `${text.length} characters, max ${max}`);
  }
});

test("clip never cuts a character made of two UTF-16 units in half", () => {
  const face = "\u{1F600}";
  assert.equal(clip(`a${face.repeat(40)}`), `a${face.repeat(32)}…`);
  assert.equal(clip(`${face.repeat(40)}`, 3), `${face.repeat(2)}…`);
});
