// What answers hold (contract 13, docs/spec.md#13-access-and-limits): with default settings, a record grown by
// writes, requests pipelined behind an answer that comes later and hundreds of whole lists keep the process under
// 512 MiB, /healthz within 1 s, and SIGTERM served.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../support/target.ts";
import { concurrentListsAttack, DEFERRED, grownRecordAttack, MiB, millionUsersAttack, pipelineAttack } from "./answers.ts";

// The attacks run the build, and read resident memory from /proc.
const skip = !(existsSync(join(ROOT, "dist/main.js")) && process.platform === "linux") && "needs dist/ and /proc";

for (const durable of [false, true]) {
  const where = durable ? "in DATA_DIR" : "in memory";
  test(`a post grown by PATCHes until refused, asked for by 12 clients that never read, ${where}: under 512 MiB, and their connections cut`, { skip, timeout: 120_000 }, async () => {
    const { statuses, size, peak, cut, slowest } = await grownRecordAttack(durable);
    console.log(`# ${where}: grown to ${size} bytes (${statuses.join(" ")}); peak RSS ${Math.round(peak / MiB)} MiB; ${cut} of 12 connections cut; /healthz at most ${Math.round(slowest)} ms`);
    // Five members of 200 KB fit in a record of at most BODY_LIMIT (1 MiB); the sixth is refused.
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 413]);
    assert.ok(size <= MiB, `${size} bytes`);
    assert.ok(peak < 512 * MiB, `peak RSS ${Math.round(peak / MiB)} MiB`);
    // The keep-alive time-out closes a connection whose answer its socket took whole; REQUEST_TIMEOUT_MS (30 s) one it did not.
    assert.equal(cut, 12);
    assert.ok(slowest < 1_000, `${slowest} ms`);
  });
}

for (const kind of DEFERRED) {
  test(`10 s of requests pipelined behind an answer that comes later (${kind}): under 512 MiB, /healthz within 1 s, SIGTERM served within 1 s`, { skip, timeout: 120_000 }, async () => {
    const { peak, slowest, sigterm } = await pipelineAttack(kind);
    console.log(`# ${kind}: peak RSS ${Math.round(peak / MiB)} MiB; /healthz at most ${Math.round(slowest)} ms; shutdown begun ${Math.round(sigterm)} ms after SIGTERM`);
    assert.ok(peak < 512 * MiB, `peak RSS ${Math.round(peak / MiB)} MiB`);
    assert.ok(slowest < 1_000, `${slowest} ms`);
    assert.ok(sigterm < 1_000, `${sigterm} ms`);
  });
}

for (const reading of [true, false]) {
  test(`400 concurrent whole lists of a full store (13 MB each), ${reading ? "read" : "never read"}: under 512 MiB, /healthz within 1 s`, { skip, timeout: 300_000 }, async () => {
    const { peak, slowest, statuses } = await concurrentListsAttack(400, reading);
    console.log(`# ${reading ? "read" : "not read"}: peak RSS ${Math.round(peak / MiB)} MiB; /healthz at most ${Math.round(slowest)} ms; answers ${JSON.stringify([...statuses])}`);
    assert.ok(peak < 512 * MiB, `peak RSS ${Math.round(peak / MiB)} MiB`);
    assert.ok(slowest < 1_000, `${slowest} ms`);
    // Every list is answered: 400 are within the most long answers written at once.
    assert.deepEqual([...statuses], [[200, 400]]);
  });
}

test("a million users, two whole lists at once: /healthz within 100 ms, and each list arrives whole", { skip, timeout: 300_000 }, async () => {
  const { slowest, bytes } = await millionUsersAttack();
  console.log(`# /healthz at most ${Math.round(slowest)} ms during two lists of ${bytes[0]} bytes`);
  assert.equal(bytes[0], bytes[1]);
  assert.ok(bytes[0]! > 70_000_000, `${bytes[0]} bytes`);
  assert.ok(slowest <= 100, `${slowest} ms`);
});
