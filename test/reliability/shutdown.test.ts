// SIGTERM while keep-alive clients load the real entry point: no answer is cut, and the process exits 0 in time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { TIMEOUTS } from "../../src/http/server.ts";
import { RUNTIMES, shutdownUnderLoad } from "./shutdown.ts";

// RELIABILITY_RUNTIME=deno or bun runs the same test on that runtime (contract 8).
const runtime = process.env.RELIABILITY_RUNTIME ?? "node";

test(`SIGTERM under load on ${runtime}: every answer is whole or a 503 with Connection: close, and the exit is 0 within the deadline`, async (t) => {
  const start = RUNTIMES[runtime];
  assert.ok(start !== undefined, `RELIABILITY_RUNTIME must be one of ${Object.keys(RUNTIMES).join(", ")}`);
  const report = await shutdownUnderLoad({ ...start, clients: 24, answersBeforeSignal: 400 });
  t.diagnostic(JSON.stringify({ ...report, failures: report.failures.length }));
  assert.deepEqual(report.failures.slice(0, 10), []);
  assert.equal(report.exitCode, 0);
  assert.equal(report.exitSignal, null);
  assert.ok(report.msToExit < TIMEOUTS.shutdownTimeout, `the process took ${report.msToExit} ms to exit`);
  assert.ok(report.completed >= 400);
  assert.equal(report.connectRefused, 24, "every client ended on a refused connection");
});
