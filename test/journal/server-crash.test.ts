// The crash proof through the HTTP server, short form: on Node, Deno and Bun, 16 clients write at once, the server is killed with SIGKILL and restarted, and every restart holds exactly what was acknowledged.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { ensureTestedRuntimes, testedRuntimes } from "../support/runtimes.ts";
import { connect } from "./crash-http.ts";
import type { Rec } from "./crash-model.ts";
import { CRASH_RUNTIMES, CrashCheckError, runServerCrash } from "./server-crash.ts";
import { tempDir } from "./support.ts";

// A few kills per runtime keep the file under a minute on 2 cores; `npm run crash` is the long form.
const CYCLES = Number(process.env.SERVER_CRASH_CYCLES ?? 3);

before(() => {
  // A runtime that is missing fails these tests; it is never skipped.
  ensureTestedRuntimes(CRASH_RUNTIMES);
});

for (const runtime of testedRuntimes(CRASH_RUNTIMES)) {
  test(`the server on ${runtime}, killed with SIGKILL under 16 writing clients, restarts holding every acknowledged write and no refused one`, async (t) => {
    const summary = await runServerCrash({ runtime, dir: tempDir(t), fsync: "always", cycles: CYCLES });
    assert.equal(summary.cycles.length, CYCLES);
    assert.ok(summary.acked >= 100 * CYCLES, `only ${summary.acked} writes were acknowledged`);
    assert.ok(summary.refused > 0, "some writes were refused, as meant");
    assert.ok(summary.compactions >= 1 && summary.snapshotGeneration >= 1, "compactions happened during the run");
    t.diagnostic(
      `${runtime}: ${CYCLES} kills, ${summary.acked} acknowledged, ${summary.refused} refused, ${summary.inFlight} in flight ` +
        `(${summary.applied} applied), ${summary.compactions} compactions, ${summary.midCompaction} kills left one unfinished; lost or wrong: 0`,
    );
  });
}

test("with FSYNC=interval a killed server loses no acknowledged write either: the bytes were in the kernel", async (t) => {
  const summary = await runServerCrash({ runtime: "node", dir: tempDir(t), fsync: "interval", cycles: 2 });
  assert.ok(summary.acked >= 100, `only ${summary.acked} writes were acknowledged`);
});

/**
 * Changes every user a client owns, directly over HTTP, as a lost or wrongly replayed write
 * would. Every one, since the user a client's in-flight write aimed at may go either way.
 */
async function tamper(url: string, change: (record: Rec) => { method: string; body?: unknown }): Promise<void> {
  const connection = connect(url);
  try {
    const users = (await connection.send("GET", "/users")).body as Rec[];
    for (const record of users.filter((user) => typeof user.mark === "string")) {
      const { method, body } = change(record);
      const answer = await connection.send(method, `/users/${record.id}`, body);
      assert.ok(answer.status < 300);
    }
  } finally {
    connection.close();
  }
}

/** Runs one kill and restart on Node with `afterRestart`, and returns the error the check threw. */
async function caught(t: { after: (fn: () => void) => void }, afterRestart: (url: string) => Promise<void>): Promise<Error> {
  const error = await runServerCrash({ runtime: "node", dir: tempDir(t), fsync: "always", cycles: 1, killAfterMs: [300, 300], afterRestart }).then(
    () => undefined,
    (error: Error) => error,
  );
  assert.ok(error instanceof CrashCheckError, `the check found nothing wrong: ${error}`);
  return error;
}

test("the check catches a lost write and an ETag that changed", async (t) => {
  const lost = await caught(t, (url) => tamper(url, () => ({ method: "DELETE" })));
  assert.match(lost.message, /users\/\d+ is missing/);
  // The same content written again: only the ETag tells.
  const rewritten = await caught(t, (url) => tamper(url, (record) => ({ method: "PUT", body: { name: record.name } })));
  assert.match(rewritten.message, /has ETag .*, but its last acknowledged write answered/);
});
