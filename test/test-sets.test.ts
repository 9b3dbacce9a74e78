// The fast loop needs only Node and npm: every in-process test that starts PostgreSQL or a browser is left to test:all.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { DENO_AND_BUN_TESTS, fast, fastInProcessFiles, inProcessFiles } from "../scripts/test-sets.ts";

test("npm test runs no in-process file that starts PostgreSQL or a browser", () => {
  // What starts a PostgreSQL cluster, or imports the browser driver; written in pieces so that this file does not match.
  const needsMore = new RegExp(["startCluster" + "\\(", 'from "playwright' + '-core"'].join("|"));
  const offending = fast(inProcessFiles()).filter((file) => needsMore.test(readFileSync(file, "utf8")));
  assert.deepEqual(offending, []);
});

test("npm test leaves out the files that test Deno and Bun alone, and only those of its files test no runtime but them", () => {
  assert.deepEqual(fastInProcessFiles().filter((file) => DENO_AND_BUN_TESTS.includes(file)), []);
  // A file whose every test is on Deno or Bun names only them to testedRuntimes.
  const onlyDenoAndBun = /testedRuntimes\((?:\[)?"deno", "bun"|const RUNTIMES = \["deno", "bun"\]/;
  const found = fast(inProcessFiles()).filter((file) => onlyDenoAndBun.test(readFileSync(file, "utf8")));
  assert.deepEqual(found.sort(), [...DENO_AND_BUN_TESTS].sort());
});
