// npm test's reporter (scripts/test-reporter.mjs): when all pass, the files a folder to a line with their
// seconds and the summary; a failure whole, with its name, its diff and what its file printed.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ROOT } from "./support/target.ts";

const work = mkdtempSync(join(tmpdir(), "rest-reporter-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** Runs node:test on `files` (name to source) in a fresh folder of `work`, through the reporter. */
function report(folder: string, files: Record<string, string>, env: Record<string, string> = {}): { status: number | null; lines: string[] } {
  const dir = join(work, folder);
  for (const [name, source] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), source);
  }
  const reporter = join(ROOT, "scripts", "test-reporter.mjs");
  const { NODE_TEST_CONTEXT: _, ...rest } = process.env;
  const result = spawnSync(process.execPath, ["--test", `--test-reporter=${reporter}`, "--test-concurrency=1", ...Object.keys(files)], {
    cwd: dir,
    encoding: "utf8",
    env: { ...rest, ...env },
  });
  return { status: result.status, lines: result.stdout.trimEnd().split("\n") };
}

const PASSING = `import { test } from "node:test";\ntest("one", () => {});\ntest("two", () => {});\n`;

test("files that pass are packed a folder to a line, each with its seconds, then the summary", () => {
  const { status, lines } = report("passing", { "a.test.mjs": PASSING, "b.test.mjs": PASSING, "sub/c.test.mjs": PASSING });
  assert.equal(status, 0);
  assert.equal(lines.length, 3, lines.join("\n"));
  assert.match(lines[0]!, /^✔ \.\/ {16}a \d+\.\d · b \d+\.\d$/);
  assert.match(lines[1]!, /^✔ sub\/ {14}c \d+\.\d$/);
  assert.match(lines[2]!, /^6 tests, 0 suites, 6 pass, 0 fail, 0 cancelled, 0 skipped, 0 todo, \d+\.\d s$/);
});

test("a line of files that pass is at most 100 characters: a long folder goes on over several lines", () => {
  const files = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`a-file-with-a-long-name-${index}.test.mjs`, PASSING]));
  const { status, lines } = report("many", files);
  assert.equal(status, 0);
  const packed = lines.slice(0, -1);
  assert.ok(packed.length > 1 && packed.every((line) => line.startsWith("✔ ./") && line.length <= 100), packed.join("\n"));
  assert.equal(packed.join(" · ").split(" · ").length, 30);
});

test("a failure is printed whole: the file, the test's name, the diff, and what the file printed", () => {
  const failing = `import assert from "node:assert/strict";\nimport { test } from "node:test";\ntest("adds", () => { console.log("said before failing"); assert.equal(1 + 1, 3); });\n`;
  const { status, lines } = report("failing", { "a.test.mjs": PASSING, "b.test.mjs": failing });
  assert.equal(status, 1);
  const text = lines.join("\n");
  assert.match(lines[0]!, /^✔ \.\/ {16}a \d+\.\d$/);
  assert.match(lines[1]!, /^✖ b\.test\.mjs {2}1 tests {2}\d+\.\d s$/);
  assert.equal(lines[2], "  ✖ adds");
  assert.match(text, / {4}2 !== 3\n/);
  assert.match(text, /at TestContext\.<anonymous> \(file:\/\/.*b\.test\.mjs:3:\d+\)/);
  assert.match(text, / {6}actual: 2,\n {6}expected: 3,/);
  assert.match(text, / {2}What the file printed:\n {2}\| said before failing/);
  assert.match(lines.at(-1)!, /^3 tests, 0 suites, 2 pass, 1 fail/);
});

test("a file whose process dies mid-test is a failure of the file itself", () => {
  const dies = `import { test } from "node:test";\ntest("dies", async () => { process.kill(process.pid, "SIGKILL"); await new Promise((resolve) => setTimeout(resolve, 5000)); });\n`;
  const { status, lines } = report("killed", { "a.test.mjs": PASSING, "k.test.mjs": dies });
  assert.equal(status, 1);
  assert.match(lines[1]!, /^✖ k\.test\.mjs {2}0 tests {2}\d+\.\d s$/);
  assert.deepEqual(lines.slice(2, 4), ["  ✖ the file itself", "    test failed"]);
});

test("a file that runs no test says so on its line", () => {
  const { status, lines } = report("empty", { "a.test.mjs": PASSING, "b.test.mjs": `import { test } from "node:test";\n` });
  assert.equal(status, 0);
  assert.match(lines[0]!, /^✔ \.\/ {16}a \d+\.\d · b \d+\.\d \(no tests\)$/);
});

test("TEST_REPORT=failures prints only the failures and the summary", () => {
  const { status, lines } = report("quiet", { "a.test.mjs": PASSING }, { TEST_REPORT: "failures" });
  assert.equal(status, 0);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^2 tests, 0 suites, 2 pass, 0 fail/);
});
