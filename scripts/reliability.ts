// The long reliability run: model steps, restarts on a data directory, hostile inputs, connection faults and shutdowns under load, with figures.
import { once } from "node:events";
import { availableParallelism, cpus } from "node:os";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { readSeed } from "../test/reliability/seed.ts";

const { values } = parseArgs({
  options: {
    steps: { type: "string", default: "100000" },
    "restart-steps": { type: "string", default: "2000" },
    inputs: { type: "string", default: "1000000" },
    connections: { type: "string", default: "100000" },
    shutdowns: { type: "string", default: "20" },
    runtimes: { type: "string", default: "node" },
    only: { type: "string" },
  },
});
const count = (name: keyof typeof values) => {
  const value = Number(values[name]);
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`--${name} must be a whole number`);
  return value;
};
const parts = values.only === undefined ? ["model", "restart", "hostile", "faults", "shutdown", "exhaustion"] : values.only.split(",");
const seed = readSeed();
let failed = false;

console.log(`Reliability run: seed ${seed} (replay with RELIABILITY_SEED=${seed})`);
console.log(`Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? "unknown"})`);

/** Runs one part, prints its figures or its failure, and goes on with the next. */
async function part(name: string, run: () => Promise<void>): Promise<void> {
  if (!parts.includes(name)) return;
  const started = Date.now();
  console.log(`\n== ${name}`);
  try {
    await run();
  } catch (error) {
    failed = true;
    console.log(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  }
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

// Each part loads its own code, so a part run alone (--only faults) measures a process holding nothing else.
await part("model", async () => {
  const { runModel } = await import("../test/reliability/operations.ts");
  // Rounds of 500 sequences, each from its own seed, until the steps are reached.
  const target = count("steps");
  const total = { sequences: 0, steps: 0 };
  for (let round = 0; total.steps < target; round++) {
    const stats = await runModel({ seed: seed + round, runs: 500, maxSteps: 60 });
    total.sequences += stats.sequences;
    total.steps += stats.steps;
  }
  console.log(`${total.sequences} sequences, ${total.steps} steps, every answer equal to the model's: failures 0`);
});

await part("restart", async () => {
  const { runRestartModel } = await import("../test/reliability/restarts.ts");
  const target = count("restart-steps");
  for (const [index, runtime] of values.runtimes.split(",").entries()) {
    const mode = (["node", "deno", "bun"] as const).find((name) => name === runtime);
    if (mode === undefined) throw new RangeError(`unknown runtime ${runtime}`);
    const started = Date.now();
    const total = { sequences: 0, steps: 0, clean: 0, killed: 0, etagsKept: 0 };
    // Rounds of 20 sequences, each from its own seed (and other seeds on each runtime), until
    // the steps are reached; a failure names its round's seed.
    for (let round = 0; total.steps < target; round++) {
      const stats = await runRestartModel({ seed: seed + 1_000 * index + round, runs: 20, maxSteps: 60, mode });
      for (const key of Object.keys(total) as Array<keyof typeof total>) total[key] += stats[key];
    }
    console.log(
      `${runtime}: ${total.sequences} sequences, ${total.steps} steps, ${total.clean} clean restarts, ` +
        `${total.killed} SIGKILL restarts, ${total.etagsKept} ETags the same after a restart; ` +
        `every answer equal to the model's: failures 0 (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
});

await part("hostile", async () => {
  const { runHostile } = await import("../test/reliability/hostile.ts");
  // A thread does not inherit the TypeScript loader, so the worker registers it before it loads the server.
  const entry = JSON.stringify(new URL("./reliability-server.ts", import.meta.url).href);
  const worker = new Worker(`import("tsx/esm/api").then(({ register }) => { register(); return import(${entry}); });`, {
    eval: true,
  });
  const [listening] = (await once(worker, "message")) as [{ url: string }];
  const inputs = count("inputs");
  const byStatus: Record<string, number> = {};
  const byKind: Record<string, number> = {};
  let connections = 0;
  let unanswered = 0;
  // Batches of 100,000, each from its own seed, so a failure names a batch that can be replayed.
  for (let batch = 0; batch * 100_000 < inputs; batch++) {
    const size = Math.min(100_000, inputs - batch * 100_000);
    const stats = await runHostile({
      url: listening.url,
      seed: seed + 1_000 * (batch + 1),
      inputs: size,
      concurrency: 8,
    });
    connections += stats.connections;
    unanswered += stats.unanswered;
    for (const [key, value] of Object.entries(stats.byStatus)) byStatus[key] = (byStatus[key] ?? 0) + value;
    for (const [key, value] of Object.entries(stats.byKind)) byKind[key] = (byKind[key] ?? 0) + value;
    console.log(`  batch ${batch + 1}: ${size} inputs`);
  }
  worker.postMessage({ kind: "report" });
  const [report] = (await once(worker, "message")) as [{ logged: string[]; prototypeChanged: boolean }];
  await worker.terminate();
  console.log(`${inputs} inputs on ${connections} connections; ${unanswered} bare line breaks went unanswered`);
  console.log(`answers: ${JSON.stringify(byStatus)}`);
  console.log(`kinds: ${JSON.stringify(byKind)}`);
  console.log(
    `errors logged by the server: ${report.logged.length}; Object.prototype changed: ${report.prototypeChanged}`,
  );
  if (report.logged.length > 0 || report.prototypeChanged) throw new Error(report.logged.slice(0, 5).join("\n"));
});

await part("faults", async () => {
  const { startServer } = await import("../src/http/server.ts");
  const { addLargeUsers, runFaults, settle } = await import("../test/reliability/faults.ts");
  const { ConnectionCounter, measure, megabytes } = await import("../test/reliability/resources.ts");
  const server = await startServer();
  const counter = new ConnectionCounter(server.server);
  await addLargeUsers(server.url, 24);
  await runFaults(server.url, { seed: seed + 1, connections: 1_000, concurrency: 16, big: "/users" });
  await settle(server.url, counter);
  const before = measure();
  const stats = await runFaults(server.url, {
    seed,
    connections: count("connections"),
    concurrency: 16,
    big: "/users",
  });
  await settle(server.url, counter);
  const after = measure();
  await server.close();
  console.log(`${stats.connections} connections: ${JSON.stringify(stats.byFault)}`);
  console.log(
    `heap used after a full collection: ${megabytes(before.heapUsed)} before, ${megabytes(after.heapUsed)} after`,
  );
  console.log(`resident set: ${megabytes(before.rss)} before, ${megabytes(after.rss)} after`);
  console.log(`open file descriptors: ${before.fds} before, ${after.fds} after`);
  console.log(`active handles: ${JSON.stringify(before.resources)} before, ${JSON.stringify(after.resources)} after`);
  const same = JSON.stringify(before.resources) === JSON.stringify(after.resources) && before.fds === after.fds;
  if (!same || counter.open !== 0) throw new Error("handles or descriptors were left behind");
});

await part("shutdown", async () => {
  const { RUNTIMES, shutdownUnderLoad } = await import("../test/reliability/shutdown.ts");
  for (const runtime of values.runtimes.split(",")) {
    const start = RUNTIMES[runtime];
    if (start === undefined) throw new RangeError(`unknown runtime ${runtime}`);
    const total = { requests: 0, completed: 0, refusedWith503: 0, closedBeforeAnswer: 0, failures: 0 };
    let slowest = 0;
    const exits = new Set<string>();
    for (let round = 0; round < count("shutdowns"); round++) {
      const report = await shutdownUnderLoad({ ...start, clients: 32, answersBeforeSignal: 1_000 });
      total.requests += report.requests;
      total.completed += report.completed;
      total.refusedWith503 += report.refusedWith503;
      total.closedBeforeAnswer += report.closedBeforeAnswer;
      total.failures += report.failures.length;
      slowest = Math.max(slowest, report.msToExit);
      exits.add(`${report.exitCode ?? report.exitSignal}`);
      for (const failure of report.failures.slice(0, 3)) console.log(`  ${runtime}: ${failure}`);
    }
    console.log(
      `${runtime}: ${count("shutdowns")} shutdowns under load; ${total.requests} requests: ` +
        `${total.completed} whole answers, ${total.refusedWith503} 503 with Connection: close, ` +
        `${total.closedBeforeAnswer} closed before any byte of an answer; ` +
        `cut or wrong answers: ${total.failures}; exit codes: ${[...exits].join(", ")}; slowest exit ${slowest} ms`,
    );
    if (total.failures > 0 || exits.size !== 1 || !exits.has("0")) throw new Error(`${runtime}: shutdown failures`);
  }
});

await part("exhaustion", async () => {
  const { memoryAttack, timeAttack, unfinishedBodiesAttack } = await import("../test/reliability/exhaustion.ts");
  for (const durable of [false, true]) {
    const { peak, statuses, afterDeletes } = await memoryAttack(durable);
    const mib = Math.round(peak / 1048576);
    console.log(`600 worst-shape 1 MiB bodies ${durable ? "in DATA_DIR" : "in memory"}: peak RSS ${mib} MiB; answers ${JSON.stringify(Object.fromEntries(statuses))}; a write after deleting everything: ${afterDeletes}`);
    if (mib >= 512 || afterDeletes !== 201) throw new Error("the memory promise is broken");
  }
  const unfinished = await unfinishedBodiesAttack();
  const unfinishedMib = Math.round(unfinished.peak / 1048576);
  console.log(`600 connections each holding a 1 MiB body but its last byte: peak RSS ${unfinishedMib} MiB; answers ${JSON.stringify(Object.fromEntries(unfinished.statuses))}; /healthz took ${Math.round(unfinished.health)} ms`);
  if (unfinishedMib >= 512) throw new Error("the memory promise is broken by unfinished bodies");
  const { sort, filter, wholeLists } = await timeAttack();
  const slowest = Math.max(sort, filter, wholeLists);
  console.log(`slowest /healthz on a full store: ${Math.round(sort)} ms during a sort, ${Math.round(filter)} ms during a filter, ${Math.round(wholeLists)} ms during two whole lists`);
  if (slowest >= 1_000) throw new Error("a /healthz waited 1 s or more");
});

console.log(failed ? "\nSome part FAILED." : "\nAll parts passed.");
process.exitCode = failed ? 1 : 0;
