// Benchmark: the memory store against the journal store (DATA_DIR) with FSYNC=always and FSYNC=interval, and start-up with 100,000 records kept.
//
//   npm run bench:durable                       # data directories in the system's temp folder
//   npm run bench:durable -- --dir <folder>     # elsewhere: fsync's cost depends on the filesystem
//   npm run bench:durable -- --quick            # a smoke check, not a measurement
//
// The server is dist/main.js in its own process, as deployed. An fsync on tmpfs costs
// nothing, so the filesystem of the data directories is printed with the figures.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { oneRequestScript } from "./wrk.ts";

const QUICK = process.argv.includes("--quick");
const dirFlag = process.argv.indexOf("--dir");
const BASE = resolve(dirFlag === -1 ? tmpdir() : process.argv[dirFlag + 1]!);

const PLAN = QUICK
  ? { rounds: 1, seconds: 1, warmup: 1, syncRuns: 1, records: 2_000, startRuns: 3 }
  : { rounds: 5, seconds: 3, warmup: 1, syncRuns: 3, records: 100_000, startRuns: 9 };

const SERVER_CORE = "0";
const LOAD_CORE = "1";
// Many connections, each waiting for its answer: with FSYNC=always the writes that arrive
// while one fdatasync runs share the next one (group commit), and this is what shows it.
const CONNECTIONS = 50;
const NEW_USER = { name: "Grace Hopper", email: "grace@example.com" };
// Past any journal this benchmark writes, so the 100,000 entries stay a journal.
const NEVER_COMPACT = String(Number.MAX_SAFE_INTEGER);

/** How the server keeps its data. */
type Mode = { key: string; name: string; env: Record<string, string> };

const MODES: Mode[] = [
  { key: "memory", name: "memory (no DATA_DIR)", env: {} },
  { key: "always", name: "journal, FSYNC=always", env: { FSYNC: "always" } },
  { key: "interval", name: "journal, FSYNC=interval", env: { FSYNC: "interval" } },
];

/** What wrk sends, on how many connections. */
type Workload = { name: string; method: "GET" | "POST"; path: string; connections: number };

const WORKLOADS: Workload[] = [
  { name: `GET /users/1, ${CONNECTIONS} connections`, method: "GET", path: "/users/1", connections: CONNECTIONS },
  // One request at a time: every write waits for its own fdatasync, nothing to group.
  { name: "POST /users, 1 connection", method: "POST", path: "/users", connections: 1 },
  { name: `POST /users, ${CONNECTIONS} connections`, method: "POST", path: "/users", connections: CONNECTIONS },
];

preflight();
mkdirSync(BASE, { recursive: true });
const work = mkdtempSync(join(BASE, "bench-durable-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const filesystem = execFileSync("stat", ["-f", "-c", "%T", work], { encoding: "utf8" }).trim();
const device = execFileSync("df", ["-T", work], { encoding: "utf8" }).trim().split("\n")[1]?.split(/\s+/).slice(0, 2).join(" ") ?? "?";

/** A running server: its base URL, its process id (for CPU time and memory), and how to stop it. */
type Running = { url: string; pid: number; startedMs: number; stop: () => Promise<void> };

let dirs = 0;
/** A new, empty data directory under the work folder. */
function freshDir(): string {
  return join(work, `data-${++dirs}`);
}

/**
 * Starts `command` on the server core with the given environment and resolves once it prints
 * the address it listens on, with the time that took. `pidOf` finds the server's own process
 * when `command` is a wrapper (strace).
 */
async function start(command: string[], env: Record<string, string>, pidOf?: (child: ChildProcess) => number): Promise<Running> {
  const spawned = performance.now();
  const child = spawn("taskset", ["-c", SERVER_CORE, ...command], {
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${command.join(" ")} exited with ${code} before listening`)));
    lines.on("line", (line) => {
      const found = /Listening on (http:\/\/[^\s"]+)/.exec(line);
      if (found) resolve(found[1]!);
    });
  });
  const startedMs = performance.now() - spawned;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const pid = pidOf === undefined ? child.pid! : pidOf(child);
  return {
    url,
    pid,
    startedMs,
    stop: async () => {
      // SIGTERM closes the server, which waits for every write answered to be kept.
      process.kill(pid, "SIGTERM");
      await exited;
    },
  };
}

const startServer = (mode: Mode, dataDir: string | undefined, env: Record<string, string> = {}) =>
  start([process.execPath, "dist/main.js"], { ...mode.env, ...(dataDir === undefined ? {} : { DATA_DIR: dataDir }), ...env });

const scripts = mkdtempSync(join(tmpdir(), "bench-wrk-"));
process.on("exit", () => rmSync(scripts, { recursive: true, force: true }));

/** A wrk Lua script that sends one request over and over and prints its figures as JSON. */
function wrkScript(workload: Workload): string {
  const file = join(scripts, `${workload.method}-${workload.connections}.lua`);
  writeFileSync(file, oneRequestScript(workload.method, workload.path, workload.method === "POST" ? NEW_USER : undefined));
  return file;
}

/** One measurement: requests per second, latencies in milliseconds, the server's CPU time per request, and requests answered. */
type Figures = { rps: number; p50: number; p99: number; cpu: number; requests: number };

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU time (user + system) a process has used so far, in microseconds, from /proc. */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}

/** Runs wrk on the load core for `seconds`; any socket error or answer that is not 2xx fails. */
function measure(server: Running, workload: Workload, seconds: number): Figures {
  const cpuBefore = cpuMicros(server.pid);
  const output = execFileSync(
    "taskset",
    ["-c", LOAD_CORE, "wrk", "-t1", `-c${workload.connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", wrkScript(workload), server.url],
    { encoding: "utf8" },
  );
  const cpu = cpuMicros(server.pid) - cpuBefore;
  const line = output.split("\n").find((l) => l.startsWith("{"));
  if (line === undefined) throw new Error(`wrk printed no figures:\n${output}`);
  const r = JSON.parse(line) as { requests: number; micros: number; p99: number; p50: number; status: number; socket: number };
  if (r.socket > 0 || r.status > 0) throw new Error(`wrk saw ${r.socket} socket errors and ${r.status} answers that were not 2xx:\n${output}`);
  return { rps: r.requests / (r.micros / 1e6), p50: r.p50 / 1000, p99: r.p99 / 1000, cpu: cpu / r.requests, requests: r.requests };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function rotate<T>(items: T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** Resident memory of a process in MiB, from /proc. */
function residentMiB(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
  return kib / 1024;
}

/** Entries in a data directory's journals: one line each. */
function journalEntries(dir: string): number {
  let lines = 0;
  for (const name of readdirSync(dir).filter((n) => n.startsWith("journal"))) {
    const bytes = readFileSync(join(dir, name));
    for (const byte of bytes) if (byte === 10) lines++;
  }
  return lines;
}

/** Bytes in a directory's files whose names start with `prefix`. */
function bytesOf(dir: string, prefix: string): number {
  return readdirSync(dir)
    .filter((n) => n.startsWith(prefix))
    .reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

function preflight(): void {
  if (!existsSync("dist/main.js")) throw new Error("dist/ is missing; run `npm run build` (npm run bench:durable does)");
  if (!existsSync("bench/node_modules/autocannon")) throw new Error("Run `npm ci --prefix bench` (npm run bench:durable does)");
  for (const [tool, how] of [
    ["wrk", "install it (`sudo apt-get install wrk`; `npm run bench` installs it when run as root)"],
    ["strace", "install it (`sudo apt-get install strace`)"],
  ] as const) {
    try {
      execFileSync(tool, tool === "wrk" ? ["-v"] : ["-V"], { stdio: "ignore" });
    } catch (error) {
      // `wrk -v` exits 1 after printing its version; only a missing binary is a problem.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error(`${tool} is not installed: ${how}`);
    }
  }
  execFileSync("taskset", ["-c", LOAD_CORE, "true"]);
}

const began = performance.now();
console.log(
  `# Node ${process.version}; ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? "?"}); server on core ${SERVER_CORE}, wrk on core ${LOAD_CORE}`,
);
console.log(`# Data directories under ${work}: ${filesystem} (${device})`);

// 1. Requests per second: every round starts each mode afresh (a new data directory), in a turning order.
const results = new Map<string, Figures[]>();
const key = (mode: Mode, workload: Workload) => `${mode.key} ${workload.name}`;
for (let round = 0; round < PLAN.rounds; round++) {
  for (const mode of rotate(MODES, round)) {
    const server = await startServer(mode, mode.key === "memory" ? undefined : freshDir());
    try {
      for (const workload of WORKLOADS) {
        if (PLAN.warmup > 0) measure(server, workload, PLAN.warmup);
        const figures = measure(server, workload, PLAN.seconds);
        results.set(key(mode, workload), [...(results.get(key(mode, workload)) ?? []), figures]);
        console.error(`round ${round + 1}, ${mode.name}, ${workload.name}: ${fmt(figures.rps)} req/s`);
      }
    } finally {
      await server.stop();
    }
  }
}

console.log(`\n## Requests per second: ${PLAN.rounds} rounds of ${PLAN.seconds} s per measurement (medians)\n`);
for (const workload of WORKLOADS) {
  console.log(`### ${workload.name}\n`);
  console.log("| store | req/s | ratio to memory | ratio per round | p50 ms | p99 ms | server CPU µs/request |");
  console.log("|---|---:|---:|---|---:|---:|---:|");
  const base = results.get(key(MODES[0]!, workload))!;
  for (const mode of MODES) {
    const runs = results.get(key(mode, workload))!;
    // Each ratio against memory in the same round, then their median.
    const ratios = runs.map((r, i) => r.rps / base[i]!.rps);
    console.log(
      `| ${mode.name} | ${fmt(median(runs.map((r) => r.rps)))} | **${fmt(median(ratios), 2)}** | ${ratios.map((r) => fmt(r, 2)).join(", ")} | ` +
        `${fmt(median(runs.map((r) => r.p50)), 2)} | ${fmt(median(runs.map((r) => r.p99)), 2)} | ${fmt(median(runs.map((r) => r.cpu)), 1)} |`,
    );
  }
  console.log("");
}

// 2. Group commit: the fdatasync calls a journal server makes, counted by strace in runs of their own
// (only fdatasync is traced, with seccomp-bpf, so the other system calls run at full speed).
const POSTS = WORKLOADS.filter((w) => w.method === "POST");
console.log(`## fdatasync calls per POST /users: ${PLAN.syncRuns} runs of ${PLAN.seconds} s each, under strace (medians)\n`);
console.log("| store | connections | req/s under strace | entries journaled | fdatasync calls | entries per fdatasync |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const mode of MODES.filter((m) => m.key !== "memory")) {
  for (const workload of POSTS) {
    const rows: { rps: number; entries: number; syncs: number }[] = [];
    for (let run = 0; run < PLAN.syncRuns; run++) {
      const dir = freshDir();
      const counts = join(work, `strace-${dirs}.txt`);
      const traced = await start(
        ["strace", "-f", "--seccomp-bpf", "-e", "trace=fdatasync", "-c", "-o", counts, process.execPath, "dist/main.js"],
        { ...mode.env, DATA_DIR: dir },
        // strace runs node as its one child.
        (child) => Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(" ")[0]),
      );
      const before = journalEntries(dir);
      const figures = measure(traced, workload, PLAN.seconds);
      await traced.stop();
      const entries = journalEntries(dir) - before;
      const line = readFileSync(counts, "utf8").split("\n").find((l) => l.trim().endsWith(" fdatasync"));
      const syncs = line === undefined ? 0 : Number(line.trim().split(/\s+/)[3]);
      rows.push({ rps: figures.rps, entries, syncs });
    }
    const m = (pick: (r: (typeof rows)[number]) => number) => median(rows.map(pick));
    console.log(
      `| ${mode.name} | ${workload.connections} | ${fmt(m((r) => r.rps))} | ${fmt(m((r) => r.entries))} | ${fmt(m((r) => r.syncs))} | ` +
        `${fmt(m((r) => r.entries / Math.max(1, r.syncs)), 1)} |`,
    );
  }
}

// 3. Start-up with many records: as a journal not yet compacted, as a snapshot after compaction,
// and (for comparison) in memory from a seed file holding the same users.
const journalDir = freshDir();
{
  const writer = await startServer(MODES[2]!, journalDir, { COMPACT_BYTES: NEVER_COMPACT });
  const spec = {
    url: writer.url,
    connections: 20,
    pipelining: 1,
    amount: PLAN.records,
    requests: [{ method: "POST", path: "/users", headers: { "content-type": "application/json" }, body: JSON.stringify(NEW_USER) }],
  };
  const created = JSON.parse(
    execFileSync("taskset", ["-c", LOAD_CORE, process.execPath, "bench/create.mjs", JSON.stringify(spec)], { encoding: "utf8", maxBuffer: 1 << 24 }),
  ) as { statuses: Record<string, number> };
  if (created.statuses["201"] !== PLAN.records) throw new Error(`Creating users: ${JSON.stringify(created.statuses)}`);
  const all = (await (await fetch(`${writer.url}/users`)).json()) as unknown[];
  writeFileSync(join(work, "seed.json"), JSON.stringify({ users: all }));
  await writer.stop();
}
const journaled = journalEntries(journalDir);

// The same data compacted: a copy started with a bound it is already past compacts at its next
// write, a PUT that gives user 1 the name it has; the server then stops once the old journal is gone.
const snapshotDir = freshDir();
cpSync(journalDir, snapshotDir, { recursive: true });
{
  const compactor = await startServer(MODES[1]!, snapshotDir, { COMPACT_BYTES: "1" });
  const user = (await (await fetch(`${compactor.url}/users/1`)).json()) as { name: string; email: string };
  const put = await fetch(`${compactor.url}/users/1`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: user.name, email: user.email }),
  });
  if (put.status !== 200) throw new Error(`PUT /users/1 -> ${put.status}`);
  const deadline = Date.now() + 60_000;
  while (bytesOf(snapshotDir, "journal") > 1_000 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
  await compactor.stop();
  if (bytesOf(snapshotDir, "journal") > 1_000) throw new Error(`${snapshotDir} was not compacted`);
}

type Start = { name: string; mode: Mode; dataDir?: string; env?: Record<string, string>; held: string };
const STARTS: Start[] = [
  { name: "memory, no records (the two seeded users)", mode: MODES[0]!, held: "-" },
  {
    name: `memory, SEED_FILE with the ${fmt(PLAN.records + 2)} users`,
    mode: MODES[0]!,
    env: { SEED_FILE: join(work, "seed.json") },
    held: `${fmt(statSync(join(work, "seed.json")).size / 2 ** 20, 1)} MiB seed`,
  },
  {
    name: `journal, ${fmt(journaled)} entries not compacted`,
    mode: MODES[1]!,
    dataDir: journalDir,
    held: `${fmt(bytesOf(journalDir, "journal") / 2 ** 20, 1)} MiB journal + ${fmt(bytesOf(journalDir, "snapshot") / 1024, 1)} KiB snapshot`,
  },
  {
    name: "journal, the same data compacted into a snapshot",
    mode: MODES[1]!,
    dataDir: snapshotDir,
    held: `${fmt(bytesOf(snapshotDir, "snapshot") / 2 ** 20, 1)} MiB snapshot + ${fmt(bytesOf(snapshotDir, "journal"))} B journal`,
  },
];
const starts = new Map<string, { ms: number; rss: number }[]>();
for (let run = 0; run < PLAN.startRuns; run++) {
  for (const s of rotate(STARTS, run)) {
    const server = await startServer(s.mode, s.dataDir, s.env);
    // Resident memory right after the "Listening on" line, before any request.
    const rss = residentMiB(server.pid);
    await server.stop();
    starts.set(s.name, [...(starts.get(s.name) ?? []), { ms: server.startedMs, rss }]);
  }
}
console.log(`\n## Start-up with ${fmt(PLAN.records)} users created: ${PLAN.startRuns} starts each, in turn (medians)\n`);
console.log("| what the server starts from | on disk | spawn to `Listening on`, ms | range, ms | ratio to no records | VmRSS after start, MiB |");
console.log("|---|---|---:|---|---:|---:|");
const baseMs = median(starts.get(STARTS[0]!.name)!.map((s) => s.ms));
for (const s of STARTS) {
  const runs = starts.get(s.name)!;
  const ms = runs.map((r) => r.ms);
  console.log(
    `| ${s.name} | ${s.held} | ${fmt(median(ms))} | ${fmt(Math.min(...ms))}–${fmt(Math.max(...ms))} | ${fmt(median(ms) / baseMs, 2)} | ` +
      `${fmt(median(runs.map((r) => r.rss)), 1)} |`,
  );
}
console.log(`\nThe whole run took ${fmt((performance.now() - began) / 1000)} s.`);
