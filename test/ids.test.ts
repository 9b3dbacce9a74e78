// White-box tests of src/ids.ts: parseId reads path ids in base 10.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseId } from "../src/api/ids.ts";

test("parseId reads digits as a base-10 safe integer", () => {
  const cases: Array<[text: string, id: number]> = [
    ["0", 0],
    ["00", 0],
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

test("parseId refuses anything but a safe integer in digits with 400 INVALID_ID", () => {
  const texts = [
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
        message: `Id must be a whole number in digits, not "${text}"`,
      },
      JSON.stringify(text),
    );
  }
});

test("parseId clips a long refused id in its message to 64 characters", () => {
  const text = "x".repeat(1000);
  assert.throws(() => parseId(text), {
    code: "INVALID_ID",
    message: `Id must be a whole number in digits, not "${"x".repeat(64)}…"`,
  });
});
