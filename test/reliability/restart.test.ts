// Random sequences against a server process keeping its data in DATA_DIR, restarted (SIGTERM or SIGKILL) at random steps.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ensureRuntimes } from "../../scripts/install-runtimes.ts";
import { testedRuntimes } from "../support/runtimes.ts";
import type { ProcessMode } from "../support/target.ts";
import { runRestartModel } from "./restarts.ts";
import { readSeed } from "./seed.ts";

const seed = readSeed();
const path = process.env.RELIABILITY_PATH;

// Node's start is the slow part (tsx compiles src/ again, about 0.35 s; Deno and Bun start
// in under 0.1 s), so the sequences are few. Every runtime runs the same ones, from one seed.
const RUNS: Array<{ mode: ProcessMode; runs: number }> = [
  { mode: "node", runs: 8 },
  { mode: "deno", runs: 8 },
  { mode: "bun", runs: 8 },
];

const TESTED = testedRuntimes(RUNS.map(({ mode }) => mode));

for (const { mode, runs } of RUNS.filter(({ mode }) => TESTED.includes(mode))) {
  test(`with DATA_DIR on ${mode}, ${runs} random sequences with clean and SIGKILL restarts answer every step as the model does`, async (t) => {
    if (mode !== "node") ensureRuntimes();
    t.diagnostic(`seed ${seed} (replay with RELIABILITY_SEED=${seed})`);
    // About one step in eleven is a restart, and every sequence restarts at least once each way.
    const options = { seed, runs, maxSteps: 40, mode, eachKind: true };
    const stats = await runRestartModel({ ...options, ...(path === undefined ? {} : { path }) });
    t.diagnostic(
      `${stats.sequences} sequences, ${stats.steps} steps, ${stats.clean} clean restarts, ` +
        `${stats.killed} SIGKILL restarts, ${stats.etagsKept} ETags the same after a restart`,
    );
    if (path !== undefined) return;
    assert.ok(stats.clean >= runs, `only ${stats.clean} clean restarts`);
    assert.ok(stats.killed >= runs, `only ${stats.killed} SIGKILL restarts`);
    assert.ok(stats.etagsKept > 0, "no ETag was compared across a restart");
  });
}
