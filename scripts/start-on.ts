// Starts the server on Deno or Bun from a fresh clone: installs them into runtimes/ if needed, runs src/main.ts and passes signals on.
// npm runs it as `exec node --import tsx scripts/start-on.ts ...`: the exec replaces the
// shell npm starts, which would otherwise die on SIGTERM without passing it on.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";
import { ensureRuntimes, type Runtime, runtimePath } from "./install-runtimes.ts";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

const [name, ...flags] = process.argv.slice(2);
if (name !== "deno" && name !== "bun") {
  console.error(`Name a runtime, deno or bun, not "${name ?? ""}": node --import tsx scripts/start-on.ts deno [flags]`);
  process.exit(1);
}
ensureRuntimes();
const runtime: Runtime = name;
// Deno needs --allow-read for `--seed FILE`; it reads nothing else. A data directory also
// needs --allow-write, and --allow-run for the lock's check of whether its owner still lives.
const durable = process.env.DATA_DIR || flags.some((flag) => flag.startsWith("--data-dir")) ? ["--allow-write", "--allow-run"] : [];
const args = runtime === "deno" ? ["run", "--allow-net", "--allow-env", "--allow-read", ...durable, MAIN, ...flags] : [MAIN, ...flags];
// Its own process group: a Ctrl-C in the terminal reaches only this script, which passes
// it on once. Reaching the server twice (from the terminal and from here) would end its
// graceful shutdown, since it handles each signal once and the second kills it.
const child = spawn(runtimePath(runtime)!, args, {
  stdio: "inherit",
  detached: true,
  env: { DENO_NO_UPDATE_CHECK: "1", ...process.env },
});
let forwarded = false;
for (const signal of SIGNALS) {
  process.on(signal, () => {
    // Only the first: a repeat from a wrapper (npm, tsx) relaying the same signal is dropped.
    if (forwarded) return;
    forwarded = true;
    child.kill(signal);
  });
}
child.on("error", (error) => {
  console.error(`Could not start ${runtime}: ${error.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  // A child ended by a signal exits the way a shell reports it: 128 + the signal's number.
  process.exit(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
});
