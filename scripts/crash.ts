// The long crash run: the server killed with SIGKILL under concurrent writes and restarted, many times per runtime, with figures; exit 1 on any loss.
// Usage: npm run crash -- --cycles 50 --runtime node|deno|bun|all --fsync always|interval [--clients 16] [--compact-bytes 24576]
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureRuntimes } from "./install-runtimes.ts";
import { CRASH_RUNTIMES, type CrashRuntime, type CycleFigures, runServerCrash } from "../test/journal/server-crash.ts";

const { values } = parseArgs({
  options: {
    cycles: { type: "string", default: "50" },
    runtime: { type: "string", default: "all" },
    fsync: { type: "string", default: "always" },
    clients: { type: "string", default: "16" },
    "compact-bytes": { type: "string", default: String(24 * 1024) },
  },
});
const whole = (name: "cycles" | "clients" | "compact-bytes") => {
  const value = Number(values[name]);
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`--${name} must be a whole number above 0`);
  return value;
};
const runtimes: readonly CrashRuntime[] = values.runtime === "all" ? CRASH_RUNTIMES : [values.runtime as CrashRuntime];
if (!runtimes.every((runtime) => CRASH_RUNTIMES.includes(runtime))) throw new RangeError(`--runtime must be ${CRASH_RUNTIMES.join(", ")} or all`);
if (values.fsync !== "always" && values.fsync !== "interval") throw new RangeError("--fsync must be always or interval");
const fsync = values.fsync;
const cycles = whole("cycles");
const clients = whole("clients");
const compactBytes = whole("compact-bytes");

ensureRuntimes();
console.log(`Crash run: ${cycles} SIGKILLs per runtime, ${clients} clients, FSYNC=${fsync}, COMPACT_BYTES=${compactBytes}`);
console.log(`Node ${process.version}, ${availableParallelism()} cores`);
let failed = false;

const line = (f: CycleFigures) =>
  `  cycle ${String(f.cycle).padStart(3)}: killed after ${String(f.killAfterMs).padStart(4)} ms${f.atCompaction ? " (at a compaction)" : "                  "}; acked ${String(f.acked).padStart(4)}, refused ${String(f.refused).padStart(3)}, ` +
  `in flight ${String(f.inFlight).padStart(2)} (applied ${String(f.applied).padStart(2)}), compactions ${f.compactions}${f.midCompaction ? " (left one unfinished)" : ""}${f.torn ? ", torn tail cut at restart" : ""}; ` +
  `restart ${f.restartMs} ms, ${f.records} records`;

for (const runtime of runtimes) {
  const dir = mkdtempSync(join(tmpdir(), `crash-${runtime}-`));
  const started = Date.now();
  console.log(`\n== ${runtime} (${dir})`);
  try {
    const summary = await runServerCrash({ runtime, dir, fsync, cycles, clients, compactBytes, onCycle: (f) => console.log(line(f)) });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `${runtime}: ${summary.cycles.length} kills in ${seconds} s; ${summary.acked} writes acknowledged, ${summary.refused} refused as meant, ` +
        `${summary.inFlight} in flight at a kill (${summary.applied} of them applied); ${summary.compactions} compactions begun, ` +
        `${summary.midCompaction} kills left one unfinished, ${summary.torn} torn tails cut at restart, snapshot generation ${summary.snapshotGeneration}; lost or wrong: 0`,
    );
    rmSync(dir, { recursive: true, force: true });
  } catch (error) {
    failed = true;
    // The directory is kept, so that what the restart found can be looked at.
    console.log(`FAILED on ${runtime}: ${error instanceof Error ? error.message : String(error)}\n(data directory kept: ${dir})`);
  }
}
process.exitCode = failed ? 1 : 0;
