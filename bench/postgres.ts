// Benchmark: requests per second of each store in one run: memory, the journal, and PostgreSQL with one and with two server processes on one database.
//
//   npm run build && npx tsx bench/postgres.ts [--quick] [--creates] [--stores=pg1,pg2]
//
// --creates measures creates only: of users (numbered by count, so one at a time), of posts
// and of comments of one post (numbered by sequences, side by side); --stores names the
// stores to run (memory, journal, pg1, pg2).
//
// Servers are dist/main.js processes, as deployed. PostgreSQL is a throwaway cluster with
// its durable settings (fsync and synchronous_commit on, as the journal's FSYNC=always),
// started as the postgres user. Two processes share the database as replicas would, each
// loaded by its own wrk with half of the connections, at the same time; their figures add up.
// Every round starts each store afresh (the two seeded users), in a turning order; the
// tables show medians. Nothing is pinned to a core: the server processes, PostgreSQL and
// wrk share the machine's cores, as they would on a small host.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { startCluster } from "../test/support/postgres.ts";
import { oneRequestScript } from "./wrk.ts";

const QUICK = process.argv.includes("--quick");
const CREATES = process.argv.includes("--creates");
const ONLY = process.argv.find((arg) => arg.startsWith("--stores="))?.slice("--stores=".length).split(",");
const PLAN = QUICK ? { rounds: 1, seconds: 1, warmup: 1 } : { rounds: 5, seconds: 3, warmup: 1 };
const CONNECTIONS = 50;
const NEW_USER = { name: "Grace Hopper", email: "grace@example.com" };

if (!existsSync("dist/main.js") || !existsSync("packages/postgres/dist/postgres.js")) throw new Error("Run `npm run build` first");
if (!existsSync("/usr/bin/wrk")) throw new Error("wrk is not installed; install it: apt-get install -y wrk");

type Store = { key: string; name: string; processes: number; env: () => Promise<Record<string, string>> };

const work = mkdtempSync(join(tmpdir(), "bench-postgres-"));
const cluster = await startCluster({ durable: true });
process.on("exit", () => {
  cluster.close();
  rmSync(work, { recursive: true, force: true });
});
let dirs = 0;
const ALL_STORES: Store[] = [
  { key: "memory", name: "memory", processes: 1, env: async () => ({}) },
  { key: "journal", name: "journal (DATA_DIR, FSYNC=always)", processes: 1, env: async () => ({ DATA_DIR: join(work, `data-${++dirs}`) }) },
  { key: "pg1", name: "PostgreSQL, 1 process", processes: 1, env: async () => ({ DATABASE_URL: await cluster.createDatabase() }) },
  { key: "pg2", name: "PostgreSQL, 2 processes on one database", processes: 2, env: async () => ({ DATABASE_URL: await cluster.createDatabase() }) },
];
const STORES = ONLY === undefined ? ALL_STORES : ALL_STORES.filter((store) => ONLY.includes(store.key));
if (STORES.length === 0) throw new Error(`--stores names none of ${ALL_STORES.map((store) => store.key).join(", ")}`);

type Workload = { name: string; method: "GET" | "POST"; path: string; body?: unknown };
const NEW_USER_POST: Workload = { name: "POST /users", method: "POST", path: "/users", body: NEW_USER };
const WORKLOADS: Workload[] = CREATES
  ? [
      NEW_USER_POST,
      { name: "POST /posts", method: "POST", path: "/posts", body: { title: "T", body: "B" } },
      // Post 1 is made as each store starts, in the rounds below.
      { name: "POST /posts/1/comments", method: "POST", path: "/posts/1/comments", body: { body: "C" } },
    ]
  : [
      { name: "GET /users/1", method: "GET", path: "/users/1" },
      { name: "GET /users", method: "GET", path: "/users" },
      NEW_USER_POST,
    ];

type Running = { url: string; child: ChildProcess };

async function start(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, ["dist/main.js"], { env: { ...process.env, PORT: "0", ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`dist/main.js exited with ${code} before listening`)));
    lines.on("line", (line) => {
      const found = /Listening on (http:\/\/\S+)/.exec(line);
      if (found) resolve(found[1]!);
    });
  });
  return { url, child };
}

async function stop(server: Running): Promise<void> {
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGTERM");
  await exited;
}

function script(workload: Workload): string {
  const file = join(work, `${workload.method}-${workload.path.replaceAll("/", "_")}.lua`);
  writeFileSync(file, oneRequestScript(workload.method, workload.path, workload.body));
  return file;
}

/** Runs one wrk per server at once, the connections split between them; the requests per second add up. */
async function measure(servers: Running[], workload: Workload, seconds: number): Promise<number> {
  // Written once, before any wrk starts: a wrk reading the file while it is rewritten would run without `done`.
  const file = script(workload);
  const runs = servers.map(
    (server) =>
      new Promise<number>((resolve, reject) => {
        const connections = String(CONNECTIONS / servers.length);
        const wrk = spawn("wrk", ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", file, server.url]);
        let output = "";
        wrk.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
        wrk.once("close", async () => {
          const line = output.split("\n").find((l) => l.startsWith("{"));
          if (line === undefined) {
            const sample = await fetch(`${server.url}${workload.path}`).then(async (r) => `${r.status} ${await r.text()}`, String);
            return reject(new Error(`wrk printed no figures:\n${output}\nA request now: ${sample}`));
          }
          const r = JSON.parse(line) as { requests: number; micros: number; status: number; socket: number };
          if (r.socket > 0 || r.status > 0) return reject(new Error(`wrk saw ${r.socket} socket errors and ${r.status} answers that were not 2xx`));
          resolve(r.requests / (r.micros / 1e6));
        });
      }),
  );
  return (await Promise.all(runs)).reduce((sum, rps) => sum + rps, 0);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

const began = Date.now();
console.log(`# Node ${process.version}; ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? "?"}); ${CONNECTIONS} connections; PostgreSQL on the same machine`);
const results = new Map<string, number[]>();
for (let round = 0; round < PLAN.rounds; round++) {
  const order = [...STORES.slice(round % STORES.length), ...STORES.slice(0, round % STORES.length)];
  for (const store of order) {
    const env = await store.env();
    const servers = await Promise.all(Array.from({ length: store.processes }, () => start(env)));
    // The post the comments' workload writes under.
    if (CREATES) await fetch(`${servers[0]!.url}/posts`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"title":"T","body":"B"}' });
    try {
      for (const workload of WORKLOADS) {
        await measure(servers, workload, PLAN.warmup);
        const rps = await measure(servers, workload, PLAN.seconds);
        const key = `${store.key} ${workload.name}`;
        results.set(key, [...(results.get(key) ?? []), rps]);
        console.error(`round ${round + 1}, ${store.name}, ${workload.name}: ${fmt(rps)} req/s`);
      }
    } finally {
      await Promise.all(servers.map(stop));
    }
  }
}
console.log(`\n## Requests per second, ${PLAN.rounds} rounds of ${PLAN.seconds} s (medians; each round's stores afresh)\n`);
console.log(`| store | ${WORKLOADS.map((w) => w.name).join(" | ")} |`);
console.log(`|---|${WORKLOADS.map(() => "---:").join("|")}|`);
for (const store of STORES) {
  console.log(`| ${store.name} | ${WORKLOADS.map((w) => fmt(median(results.get(`${store.key} ${w.name}`)!))).join(" | ")} |`);
}
console.log(`\nThe whole run took ${fmt((Date.now() - began) / 1000)} s.`);
