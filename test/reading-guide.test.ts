// docs/reading-guide.md names files and functions that exist, and its counts are true: a reader following it never reaches a missing step or a wrong figure.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { findFunctions } from "./support/functions.ts";
import { ROOT } from "./support/target.ts";

const GUIDE = readFileSync(`${ROOT}docs/reading-guide.md`, "utf8");

type Step = { file: string; name: string };

/** The steps of a table: each row's file and function. */
function stepsOf(text: string): Step[] {
  return text
    .split("\n")
    .map((line) => /^\| *\d+ *\| *`([^`]+)` *\| *`([^`]+)` *\|/.exec(line))
    .filter((found) => found !== null)
    .map((found) => ({ file: found[1]!, name: found[2]! }));
}

/** Each request the guide follows: its heading, the counts it states, and its steps. */
const REQUESTS = GUIDE.split(/^## /m)
  .slice(1)
  .filter((section) => section.startsWith("`"))
  .map((section) => {
    const heading = section.split("\n")[0]!;
    const stated = /^(\d+) files; the (\d+) functions named come to (\d+) lines/m.exec(section);
    return { heading, stated, steps: stepsOf(section) };
  });

test("the reading guide traces both requests in steps of a file and a function, each with its counts stated", () => {
  assert.deepEqual(REQUESTS.map(({ heading }) => heading), ["`GET /users/1`", "`POST /users`"]);
  for (const { heading, stated, steps } of REQUESTS) {
    assert.ok(stated !== null, `${heading} states no "N files; the N functions named come to N lines"`);
    assert.ok(steps.length >= 10, `${heading}: ${steps.length} steps`);
  }
});

test("every file the reading guide names exists, and defines the function it names exactly once", () => {
  const wrong: string[] = [];
  for (const { file, name } of REQUESTS.flatMap(({ steps }) => steps)) {
    if (!existsSync(`${ROOT}${file}`)) {
      wrong.push(`${file} does not exist`);
      continue;
    }
    const found = findFunctions(`${ROOT}${file}`, name);
    if (found.length !== 1) wrong.push(`${file} defines ${name} ${found.length} times`);
  }
  assert.deepEqual(wrong, []);
});

test("the counts the reading guide states are the files, functions and lines of its steps", () => {
  for (const { heading, stated, steps } of REQUESTS) {
    const files = new Set(steps.map(({ file }) => file));
    const functions = new Map(steps.map((step) => [`${step.file}#${step.name}`, step]));
    let lines = 0;
    for (const { file, name } of functions.values()) lines += findFunctions(`${ROOT}${file}`, name)[0]?.lines ?? 0;
    const counted = `${files.size} files; the ${functions.size} functions named come to ${lines} lines`;
    assert.equal(stated![0], counted, `${heading}: write "${counted}" in docs/reading-guide.md`);
  }
});

test("the GET path is read in at most 8 files and 450 lines, with app.ts's wiring on it and no factory for the store's read", () => {
  const get = REQUESTS[0]!;
  const [, files, , lines] = get.stated!.map(Number);
  assert.ok(files! <= 8 && lines! <= 450, get.stated![0]);
  assert.ok(get.steps.some(({ file }) => file === "src/http/app.ts"));
  assert.ok(!get.steps.some(({ name }) => name === "createMemoryStore"));
});

test("findFunctions finds declarations, methods, named function expressions and members holding arrows, from the line of the name", () => {
  const file = `${ROOT}src/http/router.ts`;
  const [match] = findFunctions(file, "match");
  assert.ok(match !== undefined && match.lines > 5);
  assert.match(readFileSync(file, "utf8").split("\n")[match.first - 1]!, /function match\(/);
  assert.equal(findFunctions(`${ROOT}src/store/memory/collection.ts`, "add").length, 2);
  assert.equal(findFunctions(`${ROOT}src/store/memory/collection.ts`, "Collection.add").length, 1);
  assert.equal(findFunctions(`${ROOT}src/store/memory/store.ts`, "create").length, 1);
  assert.deepEqual(findFunctions(`${ROOT}src/api/ids.ts`, "nothingOfThatName"), []);
});
