// The fast loop needs only Node and npm: every in-process test that starts PostgreSQL or a browser is left to test:all.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fast, inProcessFiles } from "../scripts/test-sets.ts";

test("npm test runs no in-process file that starts PostgreSQL or a browser", () => {
  // What starts a PostgreSQL cluster, or imports the browser driver; written in pieces so that this file does not match.
  const needsMore = new RegExp(["startCluster" + "\\(", 'from "playwright' + '-core"'].join("|"));
  const offending = fast(inProcessFiles()).filter((file) => needsMore.test(readFileSync(file, "utf8")));
  assert.deepEqual(offending, []);
});
