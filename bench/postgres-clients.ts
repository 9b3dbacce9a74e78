// Benchmark: the two well-kept PostgreSQL clients for Node.js, pg and postgres, on the queries the adapter makes.
//
//   npm ci --prefix bench && npx tsx bench/postgres-clients.ts [--quick]
//
// A throwaway cluster (durable settings: fsync and synchronous_commit on) on this machine.
// Each client gets a pool of 10 connections and 10 workers that send one query or one
// transaction after another for a few seconds; rounds alternate the clients, and the
// table shows medians.
import { performance } from "node:perf_hooks";
import pg from "pg";
import postgres from "postgres";
import { startCluster } from "../test/support/postgres.ts";

const QUICK = process.argv.includes("--quick");
const ROUNDS = QUICK ? 1 : 5;
const SECONDS = QUICK ? 1 : 3;
const POOL = 10;

const cluster = await startCluster({ durable: true });
const url = cluster.url("rest");
try {
  await setUp();
  type Client = { name: string; read: (id: number) => Promise<unknown>; write: (n: number) => Promise<unknown>; end: () => Promise<void> };
  const makePg = (): Client => {
    const pool = new pg.Pool({ connectionString: url, max: POOL });
    return {
      name: "pg (named prepared statements)",
      read: (id) => pool.query({ name: "read", text: "SELECT version, body FROM bench_records WHERE collection = $1 AND id = $2", values: ["users", id] }),
      write: async (n) => {
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          const { rows } = await client.query({ name: "lock", text: "SELECT revision FROM bench_collections WHERE name = $1 FOR NO KEY UPDATE", values: ["users"] });
          const revision = Number(rows[0].revision) + 1;
          await client.query({
            name: "insert",
            text: "WITH i AS (INSERT INTO bench_records (collection, id, version, body) VALUES ($1, $2, $3, $4)) UPDATE bench_collections SET revision = $3 WHERE name = $1",
            values: ["users", 1_000_000 + n, revision, '{"name":"Grace"}'],
          });
          await client.query("COMMIT");
        } finally {
          client.release();
        }
      },
      end: () => pool.end(),
    };
  };
  const makePostgres = (): Client => {
    const sql = postgres(url, { max: POOL, prepare: true, onnotice: () => {} });
    return {
      name: "postgres (prepared statements)",
      read: (id) => sql`SELECT version, body FROM bench_records WHERE collection = ${"users"} AND id = ${id}`,
      write: (n) =>
        sql.begin(async (tx) => {
          const [row] = await tx`SELECT revision FROM bench_collections WHERE name = ${"users"} FOR NO KEY UPDATE`;
          const revision = Number(row!.revision) + 1;
          await tx`WITH i AS (INSERT INTO bench_records (collection, id, version, body) VALUES (${"users"}, ${2_000_000 + n}, ${revision}, ${'{"name":"Grace"}'})) UPDATE bench_collections SET revision = ${revision} WHERE name = ${"users"}`;
        }),
      end: () => sql.end(),
    };
  };
  const results = new Map<string, number[]>();
  let written = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [makePg, makePostgres] : [makePostgres, makePg];
    for (const make of order) {
      const client = make();
      for (const kind of ["reads", "write transactions"] as const) {
        await run(client, kind, 0.5);
        const rate = await run(client, kind, SECONDS);
        const key = `${client.name}|${kind}`;
        results.set(key, [...(results.get(key) ?? []), rate]);
        console.error(`round ${round + 1}, ${client.name}, ${kind}: ${Math.round(rate)}/s`);
      }
      await client.end();
    }
  }
  console.log(`\n| client | reads/s (GET /users/1's query) | write transactions/s (POST /users's) |`);
  console.log("|---|---:|---:|");
  for (const name of ["pg (named prepared statements)", "postgres (prepared statements)"]) {
    const m = (kind: string) => Math.round(median(results.get(`${name}|${kind}`)!)).toLocaleString("en-US");
    console.log(`| ${name} | ${m("reads")} | ${m("write transactions")} |`);
  }

  async function run(client: Client, kind: "reads" | "write transactions", seconds: number): Promise<number> {
    const end = performance.now() + seconds * 1000;
    let count = 0;
    await Promise.all(
      Array.from({ length: POOL }, async () => {
        while (performance.now() < end) {
          if (kind === "reads") await client.read(1 + (count % 2));
          else await client.write(written++);
          count++;
        }
      }),
    );
    return count / seconds;
  }
} finally {
  cluster.close();
}

async function setUp(): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`
    CREATE TABLE bench_collections (name text PRIMARY KEY, revision bigint NOT NULL);
    CREATE TABLE bench_records (collection text, id bigint, version bigint, body text, PRIMARY KEY (collection, id));
    INSERT INTO bench_collections VALUES ('users', 2);
    INSERT INTO bench_records VALUES ('users', 1, 1, '{"id":1,"name":"Ada Lovelace"}'), ('users', 2, 2, '{"id":2,"name":"Alan Turing"}');
  `);
  await client.end();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
