// /metrics checked by Prometheus's own tool (contract 12): needs promtool, from Debian's prometheus package, so `npm run test:all` runs it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { call } from "../support/http.ts";
import { processMode } from "../support/process.ts";
import { startTarget } from "../support/target.ts";

const PROCESS = processMode();

test(`on ${PROCESS}, /metrics passes promtool check metrics, before and after requests of every kind`, async (t) => {
  const target = await startTarget({});
  t.after(() => target.close());
  for (const round of [1, 2]) {
    // Requests of each kind first, so that every family has samples for promtool to check.
    await call(`${target.url}/users/1`);
    await call(`${target.url}/nowhere`);
    await call(`${target.url}/users`, { method: "POST", json: { name: `User ${round}`, email: `u${round}@example.com` } });
    const metrics = await call(`${target.url}/metrics`);
    assert.equal(metrics.status, 200);
    const check = spawnSync("promtool", ["check", "metrics"], { input: metrics.text, encoding: "utf8" });
    assert.equal(check.error, undefined, "promtool runs (Debian's prometheus package)");
    assert.equal(check.status, 0, `promtool check metrics: ${check.stdout}${check.stderr}`);
    assert.equal(`${check.stdout}${check.stderr}`.trim(), "");
  }
});
