// GET /users/1 over TCP for several server commands, each started afresh every round: the way to
// compare two builds of this server, or a variant, against the minimal bare server.
//
//   node bench/fresh-starts.mjs <rounds> <name>=<command> <name>=<command> ...
//   node bench/fresh-starts.mjs 11 floor="node bench/peers/minimal-bare.mjs" \
//     before="node ../before/dist/main.js" after="node dist/main.js"
//
// Each round starts every command in turn on core 0 (PORT is set), warms it with wrk for 1 s,
// then measures 3 s (wrk -t1 -c50 on core 1) and reads the process's CPU time from /proc.
// A process's rate moves by a tenth or more from one start to the next on a shared machine, so
// each round starts them all again; the first command is the base of the same-round ratios.
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const [roundsText, ...pairs] = process.argv.slice(2);
const rounds = Number(roundsText);
if (!Number.isSafeInteger(rounds) || rounds < 1 || pairs.length < 2 || !pairs.every((pair) => pair.includes("="))) {
  throw new Error('Usage: node bench/fresh-starts.mjs <rounds> <name>=<command> <name>=<command> ...');
}
const servers = pairs.map((pair) => ({ name: pair.slice(0, pair.indexOf("=")), command: pair.slice(pair.indexOf("=") + 1) }));
const PORT = 4100;
// The clock ticks a second that /proc counts CPU time in.
const TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** Runs wrk on core 1 against the server and returns its req/s. */
function wrk(seconds) {
  const output = execFileSync("taskset", ["-c", "1", "wrk", "-t1", "-c50", `-d${seconds}s`, `http://127.0.0.1:${PORT}/users/1`], { encoding: "utf8" });
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(output)[1]);
}

async function start(command) {
  const child = spawn("bash", ["-c", `exec taskset -c 0 ${command}`], {
    env: { ...process.env, PORT: String(PORT), STORE_LIMIT: String(Number.MAX_SAFE_INTEGER) },
    stdio: "ignore",
  });
  for (let tries = 0; tries < 100; tries++) {
    const ready = await fetch(`http://127.0.0.1:${PORT}/users/1`).then((response) => response.ok, () => false);
    if (ready) return child;
    await sleep(100);
  }
  child.kill();
  throw new Error(`${command} did not answer GET /users/1`);
}

const results = new Map(servers.map(({ name }) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const { name, command } of servers) {
    const child = await start(command);
    wrk(1);
    const before = cpuSeconds(child.pid);
    const rps = wrk(3);
    const cpu = ((cpuSeconds(child.pid) - before) / (rps * 3)) * 1e6;
    results.get(name).push({ rps, cpu });
    child.kill();
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const base = results.get(servers[0].name);
console.log(`| server | median req/s | ratio to ${servers[0].name} (median of same-round ratios) | CPU µs a request |`);
console.log("|---|---:|---:|---:|");
for (const { name } of servers) {
  const rows = results.get(name);
  const ratio = median(rows.map((row, i) => row.rps / base[i].rps));
  console.log(`| ${name} | ${Math.round(median(rows.map((row) => row.rps)))} | ${ratio.toFixed(3)} | ${median(rows.map((row) => row.cpu)).toFixed(2)} |`);
}
