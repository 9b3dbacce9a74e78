// Black-box tests of DATA_DIR at start-up on a process: what it refuses with exit 1 and one line, and what it recovers from with one warning.
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { call } from "../support/http.ts";
import { closeFirst, tempDir } from "../support/temp.ts";
import { processMode, runToExit, startCommand } from "../support/process.ts";

const PROCESS = processMode();


/** Starts the server on `dir`, collecting stderr; resolves once it listens. */
function start(dir: string) {
  return startCommand([], { DATA_DIR: dir }, true);
}

/** A data directory holding the two seeded users and two posts, written by a server that then stopped. */
async function written(t: { after: (fn: () => void) => void }): Promise<string> {
  const dir = tempDir(t);
  const server = await start(dir);
  for (const title of ["T", "U"]) {
    assert.equal((await call(`${server.url}/posts`, { method: "POST", json: { title, body: "B" } })).status, 201);
  }
  assert.equal(await server.stop(), 0);
  return dir;
}

const BAD: Array<[Record<string, string>, string]> = [
  [{ FSYNC: "interval" }, "FSYNC applies to a data directory only; set DATA_DIR (or --data-dir) too, or leave FSYNC unset"],
  [{ COMPACT_BYTES: "1000" }, "COMPACT_BYTES applies to a data directory only; set DATA_DIR (or --data-dir) too, or leave COMPACT_BYTES unset"],
  [{ DATA_DIR: "unused", FSYNC: "never" }, 'FSYNC must be always or interval, not "never"'],
  [{ DATA_DIR: "unused", COMPACT_BYTES: "64MB" }, 'COMPACT_BYTES must be a whole number from 1 to 9007199254740991, not "64MB"'],
];

for (const [env, line] of BAD) {
  test(`on ${PROCESS}, ${Object.entries(env).map(([name, value]) => `${name}=${value}`).join(" ")} ends the process with exit code 1 and one line`, async () => {
    const { code, stderr } = await runToExit(env);
    assert.equal(code, 1);
    assert.equal(stderr, `${line}\n`);
  });
}

test(`on ${PROCESS}, a DATA_DIR that is a file ends the process with exit code 1 and one line`, async (t) => {
  const file = join(tempDir(t), "file");
  writeFileSync(file, "");
  const { code, stderr } = await runToExit({ DATA_DIR: file });
  assert.equal(code, 1);
  assert.match(stderr, new RegExp(`^Cannot use the data directory ${file} \\((EEXIST|ENOTDIR)\\); check DATA_DIR and its permissions\\n$`));
});

test(`on ${PROCESS}, a damaged journal ends start-up with exit code 1 and one line naming the file and the offset`, async (t) => {
  const dir = await written(t);
  const journal = join(dir, "journal-1.log");
  const whole = readFileSync(journal, "utf8");
  // One character changed inside the first of two entries: damage, since a whole entry follows it.
  // (The same change in the last entry would be a torn tail, as a crash mid-append can leave.)
  writeFileSync(journal, whole.replace('"title":"T"', '"title":"X"'));
  const { code, stderr } = await runToExit({ DATA_DIR: dir });
  assert.equal(code, 1);
  assert.match(stderr, new RegExp(`^${journal} is damaged at byte 0: [^\\n]+; the server will not start until it is repaired or restored\\n$`));
  assert.equal(readFileSync(journal, "utf8"), whole.replace('"title":"T"', '"title":"X"'), "nothing on disk is changed");
});

test(`on ${PROCESS}, a DATA_DIR locked by a live process ends start-up with exit code 1 and one line`, async (t) => {
  const dir = await written(t);
  // This test's own process is alive, and is not the server's.
  writeFileSync(join(dir, "lock"), `${process.pid} elsewhere\n`);
  const { code, stderr } = await runToExit({ DATA_DIR: dir });
  assert.equal(code, 1);
  assert.equal(stderr, `${dir} is in use by process ${process.pid}; stop it or use another DATA_DIR\n`);
});

test(`on ${PROCESS}, a torn last entry and a lock left by a dead process: start-up warns once, drops the entry and serves the rest`, async (t) => {
  const dir = await written(t);
  const journal = join(dir, "journal-1.log");
  const size = readFileSync(journal).length;
  const torn = '1234abcd {"effects":[{"put":"posts"';
  appendFileSync(journal, torn);
  // No process has pid 2^22 + 1: above Linux's highest pid.
  writeFileSync(join(dir, "lock"), "4194305 gone\n");
  const server = await start(dir);
  closeFirst(t, () => server.stop());
  assert.equal(((await call(`${server.url}/posts`)).body as unknown[]).length, 2);
  assert.equal(server.stderr(), `${journal}: dropped a torn last entry at byte ${size} (${torn.length} bytes), left by a crash mid-append\n`);
  assert.equal(readFileSync(journal).length, size, "the torn entry is cut off");
});
