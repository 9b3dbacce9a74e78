// syntaxErrorPlace: the line and column of the first character that is not JSON, as a start-up error tells them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { syntaxErrorPlace } from "../src/api/json-syntax.ts";

const BROKEN: Array<[text: string, line: number, column: number]> = [
  ['{\n  "a": 1,\n  "b" 2\n}', 3, 7],
  ['{"a":1}x', 1, 8],
  ['{"a":', 1, 6],
  ["", 1, 1],
  ["[1,2,]", 1, 6],
  ['{"a":tru}', 1, 9],
  ['{"a":"x\ny"}', 1, 8],
  ['{"a":01}', 1, 7],
  ["[1.]", 1, 4],
  ['{"a":1,}', 1, 8],
  ['  [\n\n  {"x": [1, 2 3]}]', 3, 15],
  ['{"a":"\\q"}', 1, 8],
  ['{"a":"\\u12G4"}', 1, 11],
  ['{"a":-}', 1, 7],
  ["[1e]", 1, 4],
  ["{,}", 1, 2],
  ["{'a':1}", 1, 2],
  ['{"a":1}\n}', 2, 1],
  ["[".repeat(100_000), 1, 100_001],
];

test("syntaxErrorPlace gives the line and column of the first character that is not JSON, or the end of a text cut short", () => {
  for (const [text, line, column] of BROKEN) {
    assert.throws(() => JSON.parse(text), SyntaxError, text.slice(0, 40));
    assert.deepEqual(syntaxErrorPlace(text), { line, column }, text.slice(0, 40));
  }
});

test("syntaxErrorPlace agrees with the offset V8's JSON.parse gives, where it gives one", () => {
  let compared = 0;
  for (const [text] of BROKEN) {
    try {
      JSON.parse(text);
    } catch (error) {
      const position = / at position (\d+)/.exec((error as Error).message)?.[1];
      if (position === undefined) continue;
      const before = text.slice(0, Number(position));
      const line = before.split("\n").length;
      assert.deepEqual(syntaxErrorPlace(text), { line, column: before.length - before.lastIndexOf("\n") }, text.slice(0, 40));
      compared++;
    }
  }
  // Deno and Bun word their errors otherwise; on Node most of the table carries an offset.
  if (process.versions.bun === undefined && process.versions.deno === undefined) assert.ok(compared >= 10, `${compared} compared`);
});

test("syntaxErrorPlace finds nothing wrong in JSON", () => {
  for (const text of ['{"a":[{}]}', '"x"', " 1 ", '{"a" : [ true , false , null , -1.5e+3, "\\u00e9\\n" ] }', "[".repeat(5000) + "]".repeat(5000)]) {
    JSON.parse(text);
    assert.equal(syntaxErrorPlace(text), undefined, text.slice(0, 40));
  }
});
