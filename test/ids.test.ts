// White-box tests of src/ids.ts: parseId reads path ids in base 10, clip shortens echoed input.
import assert from "node:assert/strict";
import { test } from "node:test";
import { clip, parseId } from "../src/ids.ts";

test("parseId reads digits as a base-10 positive safe integer", () => {
  const cases: Array<[text: string, id: number]> = [
    ["1", 1],
    ["2", 2],
    ["01", 1],
    ["007", 7],
    ["10", 10],
    ["9007199254740991", Number.MAX_SAFE_INTEGER],
    ["0009007199254740991", Number.MAX_SAFE_INTEGER],
  ];
  for (const [text, id] of cases) {
    assert.equal(parseId(text), id, text);
  }
});

test("parseId refuses anything but a positive safe integer in digits with 400 INVALID_ID", () => {
  const texts = [
    "0",
    "00",
    "-1",
    "+1",
    "1.5",
    "1.0",
    "1e3",
    "0x1",
    "abc",
    "1a",
    "",
    " 1",
    "1 ",
    "1\n",
    "%31",
    "١",
    "Infinity",
    "NaN",
    "9007199254740992",
    "9007199254740993",
    "12345678901234567890",
  ];
  for (const text of texts) {
    assert.throws(
      () => parseId(text),
      {
        name: "HttpError",
        code: "INVALID_ID",
        status: 400,
        message: `Id must be a positive whole number, not "${text}"`,
      },
      JSON.stringify(text),
    );
  }
});

test("parseId clips a long refused id in its message to 64 characters", () => {
  const text = "x".repeat(1000);
  assert.throws(() => parseId(text), {
    code: "INVALID_ID",
    message: `Id must be a positive whole number, not "${"x".repeat(64)}…"`,
  });
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
