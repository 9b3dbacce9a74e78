// Benchmark: this server's dist/ against bare node:http, Fastify, Hono and Express 5, interleaved round after round;
// and, on the users workloads, against a minimal bare node:http server and a minimal Fastify app that do none of the contract's work.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { INSTALL_COMMAND, type Runtime, runtimePath } from "../scripts/install-runtimes.ts";
import { luaRequest, WRK_DONE } from "./wrk.ts";

const QUICK = process.argv.includes("--quick");
// --logging measures what the access log costs: this server with each LOG_FORMAT against bare node:http, the race only.
const LOGGING = process.argv.includes("--logging");
// --speed is the race of issue "speed": this server, the minimal bare server and the minimal Fastify app, on the three users workloads only.
const SPEED = process.argv.includes("--speed");
// --runtime=deno or --runtime=bun (with --speed) runs this server and the minimal bare server on that runtime instead of Node.
const RUNTIME = (process.argv.find((arg) => arg.startsWith("--runtime="))?.slice("--runtime=".length) ?? "node") as "node" | Runtime;
if (!["node", "deno", "bun"].includes(RUNTIME) || (RUNTIME !== "node" && !SPEED)) throw new Error("--runtime takes deno or bun, with --speed");
// --rounds=N runs N rounds instead of the plan's: the same method, with medians steadier on a machine too noisy for five.
const ROUNDS = process.argv.find((arg) => arg.startsWith("--rounds="))?.slice("--rounds=".length);
if (ROUNDS !== undefined && !(Number.isSafeInteger(Number(ROUNDS)) && Number(ROUNDS) > 0)) throw new Error("--rounds takes a positive whole number");

/**
 * How long each part runs; --quick is a smoke check, not a measurement. On a shared
 * machine load comes in bursts, so more and shorter rounds, each peer measured right
 * after the others, give steadier medians than a few long ones.
 */
const PLAN = QUICK
  ? {
      rounds: 1,
      seconds: 1,
      warmup: 0,
      otherComments: 20_000,
      sizes: [10, 1_000],
      scaleSeconds: 1,
      scaleRounds: 1,
      inMemoryRounds: 1,
      inMemoryRequests: 5_000,
    }
  : {
      rounds: 5,
      seconds: 3,
      warmup: 1,
      otherComments: 200_000,
      sizes: [10, 1_000, 100_000],
      scaleSeconds: 2,
      scaleRounds: 3,
      inMemoryRounds: 3,
      inMemoryRequests: 50_000,
    };

if (ROUNDS !== undefined) PLAN.rounds = Number(ROUNDS);

const CONNECTIONS = 50;
// A list of 100,000 records is several MB of JSON: fewer connections, so the queue
// in front of a slow answer does not turn every request into a timeout.
const SCALE_CONNECTIONS = 10;
const SERVER_CORE = "0";
const LOAD_CORE = "1";
const LIST_COMMENTS = 50;
const COMMENTS_PER_OTHER_POST = 100;
const JSON_TYPE = "application/json; charset=utf-8";
const NEW_USER = { name: "Grace Hopper", email: "grace@example.com" };

/**
 * A server under test: what runs it, with what environment, and whether it can hold seed data
 * from its environment. A minimal peer serves only the users workloads, and none of their checks.
 */
type Peer = { key: string; name: string; file: string; seedsOverHttp: boolean; env?: Record<string, string>; minimal?: true };

const MINIMAL_PEERS: Peer[] = [
  { key: "minimal", name: "minimal bare node:http", file: "bench/peers/minimal-bare.mjs", seedsOverHttp: false, minimal: true },
  { key: "minimal-fastify", name: "minimal Fastify", file: "bench/peers/minimal-fastify.mjs", seedsOverHttp: false, minimal: true },
];

const ALL_PEERS: Peer[] = [
  { key: "bare", name: "bare node:http", file: "bench/peers/bare.mjs", seedsOverHttp: false },
  { key: "ours", name: "this server (dist/)", file: "dist/main.js", seedsOverHttp: true },
  { key: "fastify", name: "Fastify", file: "bench/peers/fastify.mjs", seedsOverHttp: false },
  { key: "hono", name: "Hono + @hono/node-server", file: "bench/peers/hono.mjs", seedsOverHttp: false },
  { key: "express", name: "Express 5", file: "bench/peers/express.mjs", seedsOverHttp: false },
  ...MINIMAL_PEERS,
];

// The command logs nothing to a pipe by default (LOG_FORMAT=auto), so the race above runs it quiet.
const LOGGING_PEERS: Peer[] = [
  { key: "bare", name: "bare node:http", file: "bench/peers/bare.mjs", seedsOverHttp: false },
  { key: "ours", name: "this server, LOG_FORMAT=off (the default to a pipe)", file: "dist/main.js", seedsOverHttp: true },
  { key: "text", name: "this server, LOG_FORMAT=text", file: "dist/main.js", seedsOverHttp: true, env: { LOG_FORMAT: "text" } },
  { key: "json", name: "this server, LOG_FORMAT=json", file: "dist/main.js", seedsOverHttp: true, env: { LOG_FORMAT: "json" } },
];

// On Deno and Bun, the runtime's own server too (Deno.serve, Bun.serve): this server on it (HTTP_SERVER=native),
// Hono on it, and the minimal server written for it, the floor a fetch handler there can reach.
const NATIVE_PEERS: Peer[] = [
  {
    key: "native",
    name: `this server on ${RUNTIME === "bun" ? "Bun.serve" : "Deno.serve"} (HTTP_SERVER=native)`,
    file: "dist/main.js",
    seedsOverHttp: true,
    env: { HTTP_SERVER: "native" },
  },
  {
    key: "hono-native",
    name: `Hono on ${RUNTIME === "bun" ? "Bun.serve" : "Deno.serve"}, with this server's headers`,
    file: "bench/peers/hono-native.mjs",
    seedsOverHttp: false,
  },
  {
    key: "minimal-native",
    name: `minimal ${RUNTIME === "bun" ? "Bun.serve" : "Deno.serve"}`,
    file: "bench/peers/minimal-native.mjs",
    seedsOverHttp: false,
    minimal: true,
  },
  {
    key: "minimal-native-headers",
    name: `minimal ${RUNTIME === "bun" ? "Bun.serve" : "Deno.serve"} + ETag, Vary and X-Request-Id`,
    file: "bench/peers/minimal-native.mjs",
    seedsOverHttp: false,
    minimal: true,
    env: { CONTRACT_HEADERS: "1" },
  },
];

// Fastify is a Node framework: on Deno and Bun the race is this server against the minimal bare one.
// The minimal bare server with the contract's ETag and X-Request-Id shows what those two headers alone cost the floor.
const SPEED_PEERS: Peer[] = [
  MINIMAL_PEERS[0]!,
  { key: "ours", name: "this server (dist/)", file: "dist/main.js", seedsOverHttp: true },
  ...(RUNTIME === "node" ? [MINIMAL_PEERS[1]!] : NATIVE_PEERS),
  {
    key: "minimal-headers",
    name: "minimal bare node:http + ETag and X-Request-Id",
    file: "bench/peers/minimal-bare.mjs",
    seedsOverHttp: false,
    minimal: true,
    env: { CONTRACT_HEADERS: "1" },
  },
];

const PEERS = LOGGING ? LOGGING_PEERS : SPEED ? SPEED_PEERS : ALL_PEERS;
// The server every ratio is taken against: the contract-equivalent bare server, or in --speed the minimal one.
const BASE = SPEED ? "minimal" : "bare";

/** One request as wrk sends it. */
type Call = { method: string; path: string; body?: unknown };

/** One workload: the requests wrk sends in turn on each connection; `users` when the minimal peers serve it too. */
type Workload = { name: string; calls: Call[]; users?: true };

const WORKLOADS: Workload[] = ([
  { name: "GET /users/1", calls: [{ method: "GET", path: "/users/1" }], users: true },
  { name: "GET /users", calls: [{ method: "GET", path: "/users" }], users: true },
  { name: "GET /users/999999 (404)", calls: [{ method: "GET", path: "/users/999999" }] },
  { name: "GET /posts/1/comments", calls: [{ method: "GET", path: "/posts/1/comments" }] },
  {
    // No GET /users here: the creates would make that list grow during the run.
    name: "mix",
    calls: [
      { method: "GET", path: "/users/1" },
      { method: "GET", path: "/users/2" },
      { method: "GET", path: "/posts/1/comments" },
      { method: "GET", path: "/users/999999" },
      { method: "POST", path: "/users", body: NEW_USER },
    ],
  },
  // Last, because every create adds a user to what the other workloads would read.
  { name: "POST /users", calls: [{ method: "POST", path: "/users", body: NEW_USER }], users: true },
] satisfies Workload[] as Workload[]).filter((workload) => !SPEED || workload.users);

/** The peers that run a workload: the minimal ones only serve the users workloads. */
const peersOf = (workload: Workload): Peer[] => PEERS.filter((peer) => !peer.minimal || workload.users === true);

/** A running server: its base URL, its process id (for its memory), and how to stop it. */
type Running = { url: string; pid: number; stop: () => Promise<void> };

/** Starts a file with node on the server core and resolves once it prints the address it listens on. */
async function start(file: string, env: Record<string, string> = {}): Promise<Running> {
  const command =
    RUNTIME === "deno"
      ? [runtimeCommand("deno"), "run", "--allow-net", "--allow-env", "--allow-read", file]
      : [RUNTIME === "bun" ? runtimeCommand("bun") : process.execPath, file];
  const child: ChildProcess = spawn("taskset", ["-c", SERVER_CORE, ...command], {
    // The largest store: a round creates more users than the default 64 MiB holds, and a 507 is not a create.
    env: { ...process.env, PORT: "0", DENO_NO_UPDATE_CHECK: "1", STORE_LIMIT: String(Number.MAX_SAFE_INTEGER), ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${file} exited with ${code} before listening`)));
    lines.on("line", (line) => {
      const found = /Listening on (http:\/\/[^\s"]+)/.exec(line);
      if (found) resolve(found[1]!);
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Deno's or Bun's binary, installed by `npm ci --prefix runtimes` (npm test installs them). */
function runtimeCommand(name: Runtime): string {
  const path = runtimePath(name);
  if (path === undefined) throw new Error(`${name} is not installed; run \`${INSTALL_COMMAND}\``);
  return path;
}

/** Runs a node script on the load core and returns what it printed. */
function onLoadCore(command: string, args: string[]): string {
  return execFileSync("taskset", ["-c", LOAD_CORE, command, ...args], { encoding: "utf8", maxBuffer: 1 << 24 });
}

/** Sends exactly `amount` copies of one request (path `{n}` cycles over `cycle`), many at a time. */
function create(url: string, path: string, body: unknown, amount: number, cycle?: { from: number; count: number }) {
  if (amount <= 0) return;
  const spec = {
    url,
    connections: 20,
    pipelining: 1,
    amount,
    requests: [{ method: "POST", path, headers: { "content-type": "application/json" }, body: JSON.stringify(body), cycle }],
  };
  const result = JSON.parse(onLoadCore(process.execPath, ["bench/create.mjs", JSON.stringify(spec)])) as {
    statuses: Record<string, number>;
  };
  if (result.statuses["201"] !== amount) throw new Error(`Creating ${path}: ${JSON.stringify(result.statuses)}`);
}

/** Gives the server under test the same posts and comments the peers build at start-up (see peers/data.mjs). */
async function seedComments(url: string, otherComments: number): Promise<void> {
  await call(url, { method: "POST", path: "/posts", body: { title: "t", body: "b" } });
  // Post 1's comments come first and one at a time, so they get ids 1..50 as on every peer.
  for (let i = 0; i < LIST_COMMENTS; i++) {
    await call(url, { method: "POST", path: "/posts/1/comments", body: { body: `comment ${i}` } });
  }
  const otherPosts = Math.ceil(otherComments / COMMENTS_PER_OTHER_POST);
  create(url, "/posts", { title: "t", body: "b" }, otherPosts);
  create(url, "/posts/{n}/comments", { body: "other" }, otherComments, { from: 2, count: otherPosts });
}

/** An answer as the verification compares it. */
type Answer = { status: number; headers: Record<string, string>; text: string };

// Set by node:http itself on every answer, the same for every peer; and the ETag, the request
// id and `Vary: Origin` (loopback CORS), which only this server sends (contracts 10, 12 and 13):
// the peers are not compared on them, though the time to send them is measured.
const TRANSPORT_HEADERS = new Set(["date", "connection", "keep-alive", "etag", "x-request-id", "vary"]);

async function call(url: string, request: Call): Promise<Answer> {
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: request.body === undefined ? {} : { "content-type": "application/json" },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!TRANSPORT_HEADERS.has(name)) headers[name] = value;
  });
  return { status: response.status, headers, text: await response.text() };
}

/** What every peer, and this server, must answer before it is measured. */
function expectedAnswers(): Array<{ request: Call; status: number; body: unknown; headers: Record<string, string> }> {
  const users = [
    { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
    { id: 2, name: "Alan Turing", email: "alan@example.com" },
  ];
  const comments = Array.from({ length: LIST_COMMENTS }, (_, i) => ({
    id: i + 1,
    postId: 1,
    body: `comment ${i}`,
    createdAt: "<timestamp>",
  }));
  return [
    { request: { method: "GET", path: "/users/1" }, status: 200, body: users[0], headers: {} },
    { request: { method: "GET", path: "/users" }, status: 200, body: users, headers: { "x-total-count": "2" } },
    {
      request: { method: "GET", path: "/users/999999" },
      status: 404,
      body: { message: "User not found", code: "USER_NOT_FOUND" },
      headers: {},
    },
    {
      request: { method: "GET", path: "/posts/1/comments" },
      status: 200,
      body: comments,
      headers: { "x-total-count": String(LIST_COMMENTS) },
    },
    {
      request: { method: "POST", path: "/users", body: NEW_USER },
      status: 201,
      body: { id: 3, ...NEW_USER },
      headers: { location: "/users/3" },
    },
  ];
}

/**
 * Checks that a server answers the measured requests with the same status, body and
 * headers as every other; a peer that answered differently would make the race meaningless.
 */
async function verify(peer: Peer, url: string): Promise<void> {
  // A minimal peer, and every server in --speed, is checked on the users requests alone.
  const usersOnly = peer.minimal === true || SPEED;
  const served = expectedAnswers().filter((expected) => !usersOnly || /^\/users(\/[12])?$/.test(expected.request.path));
  for (const expected of served) {
    const answer = await call(url, expected.request);
    const text = JSON.stringify(expected.body);
    const length = String(Buffer.byteLength(answer.text));
    const headers = { ...expected.headers, "content-type": JSON_TYPE, "content-length": length };
    // Timestamps differ between runs; their place and format are what must agree.
    const got = answer.text.replace(/"createdAt":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g, '"createdAt":"<timestamp>"');
    const sameHeaders = JSON.stringify(sortKeys(answer.headers)) === JSON.stringify(sortKeys(headers));
    if (answer.status !== expected.status || got !== text || !sameHeaders) {
      throw new Error(
        `${peer.name} answers ${expected.request.method} ${expected.request.path} differently:\n` +
          `  got ${answer.status} ${JSON.stringify(answer.headers)} ${answer.text.slice(0, 200)}\n` +
          `  want ${expected.status} ${JSON.stringify(headers)} ${text.slice(0, 200)}`,
      );
    }
  }
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

const scripts = mkdtempSync(join(tmpdir(), "bench-wrk-"));

/** A wrk Lua script that sends the workload's requests in turn and prints its figures as JSON. */
function wrkScript(calls: Call[]): string {
  const requests = calls.map((c) => luaRequest(c.method, c.path, c.body));
  const file = join(scripts, `workload-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(
    file,
    `-- Built in init, once wrk knows the Host header every request must carry.
local requests
function init(args)
  requests = {${requests.join(", ")}}
end
local i = 0
function request()
  i = i % #requests + 1
  return requests[i]
end
${WRK_DONE}`,
  );
  return file;
}

/** One measurement: requests per second, latencies in milliseconds, and the server's CPU time per request. */
type Figures = { rps: number; p99: number; p50: number; cpu: number };

/** CPU time (user + system) a process has used so far, in microseconds, from /proc. */
function cpuMicros(pid: number): number {
  // Fields after the command name; utime and stime are the 12th and 13th of them, in clock ticks.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** Runs wrk on the load core for `seconds` and reads its figures; any socket error or unexpected status fails. */
function measure(
  server: Running,
  script: string,
  seconds: number,
  options: { connections: number; non2xx: boolean },
): Figures {
  const cpuBefore = cpuMicros(server.pid);
  const output = onLoadCore("wrk", [
    "-t1",
    `-c${options.connections}`,
    `-d${seconds}s`,
    "--timeout",
    "10s",
    "-s",
    script,
    server.url,
  ]);
  const cpu = cpuMicros(server.pid) - cpuBefore;
  const line = output.split("\n").find((l) => l.startsWith("{"));
  if (line === undefined) throw new Error(`wrk printed no figures:\n${output}`);
  const r = JSON.parse(line) as { requests: number; micros: number; p99: number; p50: number; status: number; socket: number };
  if (r.socket > 0) throw new Error(`wrk saw ${r.socket} socket errors:\n${output}`);
  // A workload either expects only 2xx answers, or (404, mix) some that are not.
  if (!options.non2xx && r.status > 0) throw new Error(`wrk saw ${r.status} answers that were not 2xx:\n${output}`);
  return { rps: r.requests / (r.micros / 1e6), p99: r.p99 / 1000, p50: r.p50 / 1000, cpu: cpu / r.requests };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Resident memory of a process in MiB, from /proc. */
function residentMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

function rotate<T>(items: T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Checks the tools are in place, with a clear word on what to do when one is not. */
function preflight(): void {
  if (!existsSync("dist/main.js")) throw new Error("dist/ is missing; run `npm run build` (npm run bench does)");
  if (!existsSync("bench/node_modules/autocannon")) throw new Error("Run `npm ci --prefix bench` (npm run bench does)");
  if (!hasWrk()) installWrk();
  execFileSync("taskset", ["-c", LOAD_CORE, "true"]);
}

function hasWrk(): boolean {
  try {
    execFileSync("wrk", ["-v"], { stdio: "ignore" });
  } catch (error) {
    // `wrk -v` exits 1 after printing its version; only a missing binary is a problem.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
  return true;
}

/** Installs wrk from the Debian/Ubuntu archive when running as root; otherwise says how to. */
function installWrk(): void {
  const how = "install it (`sudo apt-get install wrk` on Debian/Ubuntu, `brew install wrk` on macOS) and run again";
  if (process.getuid?.() !== 0 || !hasAptGet()) throw new Error(`wrk is not installed: ${how}`);
  console.error("wrk is not installed; installing the Debian package: apt-get update && apt-get install -y wrk");
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "-qq", "wrk"], { stdio: "inherit" });
  if (!hasWrk()) throw new Error(`Installing wrk failed: ${how}`);
}

function hasAptGet(): boolean {
  try {
    execFileSync("apt-get", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function wrkVersion(): string {
  try {
    execFileSync("wrk", ["-v"], { encoding: "utf8" });
  } catch (error) {
    const output = String((error as { stdout?: string }).stdout ?? "");
    return output.split("\n")[0]?.split(" Copyright")[0] ?? "wrk";
  }
  return "wrk";
}

function version(name: string): string {
  return (JSON.parse(readFileSync(`bench/node_modules/${name}/package.json`, "utf8")) as { version: string }).version;
}

// --- The race ---------------------------------------------------------------------------

const began = performance.now();
preflight();
const out: string[] = [];
const print = (line = "") => {
  out.push(line);
  console.log(line);
};

type Row = { rps: number[]; p99: number[]; ratio: number[]; minimalRatio: number[]; cpu: number[]; cpuRatio: number[] };
const results = new Map<string, Map<string, Row>>();
const row = (workload: string, peer: string): Row => {
  const byPeer = results.get(workload) ?? new Map<string, Row>();
  results.set(workload, byPeer);
  const found = byPeer.get(peer) ?? { rps: [], p99: [], ratio: [], minimalRatio: [], cpu: [], cpuRatio: [] };
  byPeer.set(peer, found);
  return found;
};

const workloadScripts = new Map(WORKLOADS.map((w) => [w.name, wrkScript(w.calls)]));
for (let round = 0; round < PLAN.rounds; round++) {
  console.error(`Round ${round + 1} of ${PLAN.rounds}: starting and seeding every server`);
  const running = new Map<string, Running>();
  try {
    for (const peer of PEERS) {
      const env = { OTHER_COMMENTS: String(PLAN.otherComments) };
      const server = await start(peer.file, { ...peer.env, ...(peer.seedsOverHttp ? {} : env) });
      running.set(peer.key, server);
      if (peer.seedsOverHttp && !SPEED) await seedComments(server.url, PLAN.otherComments);
    }
    for (const peer of PEERS) await verify(peer, running.get(peer.key)!.url);
    for (const workload of WORKLOADS) {
      const script = workloadScripts.get(workload.name)!;
      const options = { connections: CONNECTIONS, non2xx: workload.calls.some((c) => c.path.endsWith("999999")) };
      // The order of the peers turns each round, so none always runs first or last.
      const order = rotate(peersOf(workload), round);
      for (const peer of order) if (PLAN.warmup > 0) measure(running.get(peer.key)!, script, PLAN.warmup, options);
      // In --speed each server's seconds are cut into slices taken in turn (A B C A B C ...),
      // so a burst of other work on the machine falls on all of them alike.
      const slices = SPEED ? PLAN.seconds : 1;
      const taken = new Map<string, Figures[]>(order.map((peer) => [peer.key, []]));
      for (let slice = 0; slice < slices; slice++) {
        for (const peer of order) taken.get(peer.key)!.push(measure(running.get(peer.key)!, script, PLAN.seconds / slices, options));
      }
      const figures = new Map<string, Figures>();
      for (const [key, parts] of taken) {
        const mean = (pick: (f: Figures) => number) => parts.reduce((sum, part) => sum + pick(part), 0) / parts.length;
        figures.set(key, { rps: mean((f) => f.rps), p99: median(parts.map((f) => f.p99)), p50: median(parts.map((f) => f.p50)), cpu: mean((f) => f.cpu) });
        console.error(`  ${workload.name} ${key}: ${fmt(figures.get(key)!.rps)} req/s`);
      }
      const bare = figures.get(BASE)!;
      const minimal = figures.get("minimal");
      for (const [key, f] of figures) {
        const r = row(workload.name, key);
        r.rps.push(f.rps);
        r.p99.push(f.p99);
        r.ratio.push(f.rps / bare.rps);
        if (minimal !== undefined) r.minimalRatio.push(f.rps / minimal.rps);
        r.cpu.push(f.cpu);
        r.cpuRatio.push(f.cpu / bare.cpu);
      }
    }
  } finally {
    for (const server of running.values()) await server.stop();
  }
}

const cpu = cpus()[0]?.model ?? "unknown CPU";
print(`### Peers, ${PLAN.rounds} round(s) of ${PLAN.seconds} s per measurement`);
print();
// `deno --version` names itself; `bun --version` prints the number alone.
const runtime =
  RUNTIME === "node"
    ? `Node ${process.version}`
    : `${RUNTIME === "bun" ? "Bun " : ""}${execFileSync(runtimeCommand(RUNTIME), ["--version"], { encoding: "utf8" }).split("\n")[0]}`;
print(
  `${runtime}; ${availableParallelism()} cores (${cpu}); server on core ${SERVER_CORE}, ` +
    `wrk on core ${LOAD_CORE}; ${wrkVersion()}, 1 thread, ${CONNECTIONS} connections; ` +
    `fastify ${version("fastify")}, hono ${version("hono")}, @hono/node-server ${version("@hono/node-server")}, ` +
    `express ${version("express")}, autocannon ${version("autocannon")} (creates the records only).`,
);
for (const workload of WORKLOADS) {
  print();
  print(`#### ${workload.name}`);
  print();
  // On the users workloads every server is also set against the minimal bare one, round by round.
  const againstMinimal = !SPEED && workload.users === true;
  const base = SPEED ? "minimal bare" : "bare";
  print(
    `| server | req/s | req/s ratio to ${base} | ratio per round |${againstMinimal ? " ratio to minimal bare | per round |" : ""} ` +
      `p99 ms | server CPU µs/request | CPU ratio to ${base} |`,
  );
  print(`|---|---:|---:|---|${againstMinimal ? "---:|---|" : ""}---:|---:|---:|`);
  for (const peer of peersOf(workload)) {
    const r = row(workload.name, peer.key);
    const perRound = (ratios: number[]) => ratios.map((x) => x.toFixed(2)).join(", ");
    const minimal = againstMinimal ? ` **${median(r.minimalRatio).toFixed(2)}** | ${perRound(r.minimalRatio)} |` : "";
    print(
      `| ${peer.name} | ${fmt(median(r.rps))} | **${median(r.ratio).toFixed(2)}** | ${perRound(r.ratio)} |${minimal} ` +
        `${fmt(median(r.p99), 2)} | ${fmt(median(r.cpu), 1)} | ${median(r.cpuRatio).toFixed(2)} |`,
    );
  }
}

if (LOGGING || SPEED) {
  print();
  print(`Whole run: ${fmt((performance.now() - began) / 1000)} s`);
  rmSync(scripts, { recursive: true, force: true });
  process.exit(0);
}

// --- Scale: the cost of large lists, and memory ------------------------------------------

type ScaleRow = { rps: number[]; p99: number[]; ratio: number[] };
const scale = new Map<string, ScaleRow>();
const memory = new Map<string, number>();
const LIST_PATHS = ["/users", "/users?limit=10", "/posts", "/posts?limit=10"];
const listScripts = new Map(LIST_PATHS.map((path) => [path, wrkScript([{ method: "GET", path }])]));
const scalePeers = PEERS.filter((p) => p.key === "bare" || p.key === "ours");

for (let round = 0; round < PLAN.scaleRounds; round++) {
  for (const size of PLAN.sizes) {
    console.error(`Scale round ${round + 1}: ${fmt(size)} users and posts`);
    const running = new Map<string, Running>();
    try {
      for (const peer of scalePeers) {
        // Both get their users through POST /users, so both memory figures include what
        // the creates left on the heap; the bare server builds its posts at start-up.
        const server = await start(peer.file, peer.seedsOverHttp ? {} : { POSTS: String(size), LIST_COMMENTS: "0" });
        running.set(peer.key, server);
        create(server.url, "/users", NEW_USER, size - 2);
        if (round === 0) memory.set(`${peer.key} ${size}`, residentMiB(server.pid));
        if (peer.seedsOverHttp) create(server.url, "/posts", { title: "t", body: "b" }, size);
      }
      for (const path of LIST_PATHS) {
        const figures = new Map<string, Figures>();
        for (const peer of rotate(scalePeers, round)) {
          const server = running.get(peer.key)!;
          const options = { connections: SCALE_CONNECTIONS, non2xx: false };
          if (PLAN.warmup > 0) measure(server, listScripts.get(path)!, PLAN.warmup, options);
          figures.set(peer.key, measure(server, listScripts.get(path)!, PLAN.scaleSeconds, options));
        }
        for (const [key, f] of figures) {
          const name = `${key} ${path} ${size}`;
          const r = scale.get(name) ?? { rps: [], p99: [], ratio: [] };
          scale.set(name, r);
          r.rps.push(f.rps);
          r.p99.push(f.p99);
          r.ratio.push(f.rps / figures.get("bare")!.rps);
        }
      }
    } finally {
      for (const server of running.values()) await server.stop();
    }
  }
}

print();
print(`### Lists by size, ${PLAN.scaleRounds} round(s) of ${PLAN.scaleSeconds} s, ${SCALE_CONNECTIONS} connections`);
print();
print("| request | records held | this server req/s | p99 ms | bare node:http req/s | p99 ms | ratio (median) |");
print("|---|---:|---:|---:|---:|---:|---:|");
for (const path of LIST_PATHS) {
  for (const size of PLAN.sizes) {
    const ours = scale.get(`ours ${path} ${size}`)!;
    const bare = scale.get(`bare ${path} ${size}`)!;
    print(
      `| GET ${path} | ${fmt(size)} | ${fmt(median(ours.rps))} | ${fmt(median(ours.p99), 2)} | ` +
        `${fmt(median(bare.rps))} | ${fmt(median(bare.p99), 2)} | ${median(ours.ratio).toFixed(2)} |`,
    );
  }
}
print();
print("### Resident memory (VmRSS) with the users held, right after they were created");
print();
print("| users held | this server | bare node:http |");
print("|---:|---:|---:|");
for (const size of PLAN.sizes) {
  print(`| ${fmt(size)} | ${fmt(memory.get(`ours ${size}`)!, 1)} MiB | ${fmt(memory.get(`bare ${size}`)!, 1)} MiB |`);
}
// --- CPU time per request with no network --------------------------------------------------

// Which requests are measured, and whether the minimal peers serve them (the users requests).
const IN_MEMORY_KINDS = [
  ["get", "GET /users/1", true],
  ["list", "GET /users", true],
  ["404", "GET /users/999999 (404)", false],
  ["comments", "GET /posts/1/comments", false],
  ["post", "POST /users", true],
] as const;
const inMemory = new Map<string, number[]>();
for (let round = 0; round < PLAN.inMemoryRounds; round++) {
  console.error(`In-memory round ${round + 1} of ${PLAN.inMemoryRounds}`);
  for (const [kind, , users] of IN_MEMORY_KINDS) {
    for (const peer of rotate(PEERS, round)) {
      if (peer.minimal && !users) continue;
      // This server is measured from the built dist/; a peer through the server it exports.
      const target = peer.key === "ours" ? "." : peer.file;
      const args = ["bench/in-memory.mjs", kind, String(PLAN.inMemoryRequests), target];
      const output = execFileSync("taskset", ["-c", SERVER_CORE, process.execPath, ...args], { encoding: "utf8" });
      const line = output.split("\n").find((l) => l.startsWith("{"))!;
      const { microsPerRequest } = JSON.parse(line) as { microsPerRequest: number };
      const key = `${kind} ${peer.key}`;
      inMemory.set(key, [...(inMemory.get(key) ?? []), microsPerRequest]);
    }
  }
}

print();
print(`### CPU time per request with no network, ${PLAN.inMemoryRounds} round(s) of ${fmt(PLAN.inMemoryRequests)} requests`);
print();
print("Each cell: µs of CPU per request, then its ratio to the bare server and, for the users requests, to the minimal bare server.");
print();
print(`| server | ${IN_MEMORY_KINDS.map(([, name]) => name).join(" | ")} |`);
print(`|---|${IN_MEMORY_KINDS.map(() => "---:").join("|")}|`);
for (const peer of PEERS) {
  const cells = IN_MEMORY_KINDS.map(([kind, , users]) => {
    const figures = inMemory.get(`${kind} ${peer.key}`);
    if (figures === undefined) return "–";
    const own = median(figures);
    const against = (key: string) => (own / median(inMemory.get(`${kind} ${key}`)!)).toFixed(2);
    return `${fmt(own, 2)} (${against("bare")}${users ? `; ${against("minimal")}` : ""})`;
  });
  print(`| ${peer.name} | ${cells.join(" | ")} |`);
}

print();
print(`Whole run: ${fmt((performance.now() - began) / 1000)} s`);
rmSync(scripts, { recursive: true, force: true });
