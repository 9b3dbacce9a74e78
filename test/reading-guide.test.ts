// docs/reading-guide.md names files and functions that exist: a reader following it never reaches a missing step.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { ROOT } from "./support/target.ts";

const GUIDE = readFileSync(`${ROOT}docs/reading-guide.md`, "utf8");

/** Every step of the guide's tables: its file and its function. */
const STEPS = GUIDE.split("\n")
  .map((line) => /^\| *\d+ *\| *`([^`]+)` *\| *`([^`]+)` *\|/.exec(line))
  .filter((found) => found !== null)
  .map((found) => ({ file: found[1]!, name: found[2]! }));

test("the reading guide traces both requests in steps of a file and a function", () => {
  assert.ok(STEPS.length >= 20, `${STEPS.length} steps`);
  assert.ok(GUIDE.includes("## `GET /users/1`") && GUIDE.includes("## `POST /users`"));
});

test("every file the reading guide names exists, and defines the function it names", () => {
  const missing: string[] = [];
  for (const { file, name } of STEPS) {
    if (!existsSync(`${ROOT}${file}`)) {
      missing.push(`${file} does not exist`);
      continue;
    }
    const source = readFileSync(`${ROOT}${file}`, "utf8");
    // A declaration, a method, or a property holding a function.
    const defined = new RegExp(`(function\\*?\\s+${name}\\b)|(\\b${name}\\s*\\([^)]*\\)\\s*(:[^{]+)?\\{)|(\\b${name}\\s*:\\s*\\()|(\\bconst\\s+${name}\\s*=)`);
    if (!defined.test(source)) missing.push(`${file} defines no ${name}`);
  }
  assert.deepEqual(missing, []);
});
