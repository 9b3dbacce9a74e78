// The plans PostgreSQL makes for lists at a realistic size: users seeded straight into the tables, each list's statement explained.
//
//   npx tsx scripts/build.ts && npx tsx bench/postgres-plans.ts [users, default 1000000]
//
// A throwaway cluster; the server runs in this process on it. Each list is requested once
// through HTTP (the first filter or sort registers and fills its kept rows, timed), the
// statement it ran is caught on its way to pg, and explained with its parameters: the plan
// for those values (EXPLAIN ANALYZE, timing off), and the generic plan a prepared statement
// may switch to after five runs.
import pg from "pg";
import { startServer } from "../src/http/server.ts";
import { startCluster } from "../test/support/postgres.ts";

const USERS = Number(process.argv[2] ?? 1_000_000);
const LISTS = ["/users?limit=10&offset=500000", "/users?role=a&limit=10", "/users?sort=-name&limit=10", "/users?role=a&sort=-name&limit=10"];

const cluster = await startCluster();
process.on("exit", () => cluster.close());
const url = await cluster.createDatabase();
const server = await startServer({ databaseUrl: url });

const client = new pg.Client({ connectionString: url });
await client.connect();
const seeded = performance.now();
await client.query("BEGIN");
await client.query("DELETE FROM rest_records WHERE collection = 'users'");
// Bodies as the API writes them; names in no order, so that sorting them means something; three roles.
await client.query(
  `INSERT INTO rest_records (collection, id, parent_id, place, version, body)
   SELECT 'users', n::text, NULL, n, n,
          '{"id":' || n || ',"name":"User ' || substr(md5(n::text), 1, 12) || '","email":"u' || n || '@example.com","role":"' || (ARRAY['a','b','c'])[1 + n % 3] || '"}'
   FROM generate_series(1, $1::bigint) AS n`,
  [USERS],
);
// Users have one counter row; versions go on after the seeded ones, so that no ETag is given twice.
await client.query("UPDATE rest_counters SET revision = revision + $1, size = $1 WHERE collection = 'users'", [USERS]);
await client.query("SELECT setval('rest_versions', greatest($1::bigint, (SELECT last_value FROM rest_versions)))", [USERS]);
await client.query("COMMIT");
console.log(`Seeded ${USERS} users in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

// Every statement the server's pool runs passes here on its way to pg.
let caught: pg.QueryConfig[] = [];
const query = pg.Pool.prototype.query as (...args: unknown[]) => unknown;
pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
  if (typeof args[0] === "object" && args[0] !== null) caught.push(args[0] as pg.QueryConfig);
  return query.apply(this, args);
} as typeof pg.Pool.prototype.query;

const statements: Array<[string, pg.QueryConfig]> = [];
for (const path of LISTS) {
  caught = [];
  const started = performance.now();
  const listed = fetch(`${server.url}${path}`).then(async (answer) => {
    await answer.arrayBuffer();
    return answer;
  });
  // Creates of users, one after another, while the list fills its kept rows: they go on meanwhile.
  const creates: number[] = [];
  let done = false;
  void listed.finally(() => (done = true));
  while (!done) {
    const sent = performance.now();
    const created = await fetch(`${server.url}/users`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "New", email: "new@example.com" }) });
    await created.arrayBuffer();
    if (created.status !== 201) throw new Error(`POST /users during a fill: ${created.status}`);
    creates.push(performance.now() - sent);
  }
  const answer = await listed;
  const seconds = (performance.now() - started) / 1000;
  const slowest = creates.length === 0 ? 0 : Math.max(...creates);
  console.log(
    `GET ${path}: ${answer.status}, X-Total-Count ${answer.headers.get("x-total-count")}, first request ${seconds.toFixed(2)} s; ${creates.length} creates meanwhile, the slowest ${slowest.toFixed(0)} ms`,
  );
  // The list's statement: the last one, after any that read or registered the kept lists.
  statements.push([path, caught.at(-1)!]);
}
await client.query("VACUUM ANALYZE rest_records, rest_list_filters, rest_list_sorts");
for (const [path, statement] of statements) {
  const runs: number[] = [];
  for (let i = 0; i < (process.env.PLAN_ONLY ? 0 : 5); i++) {
    const started = performance.now();
    await fetch(`${server.url}${path}`).then((answer) => answer.arrayBuffer());
    runs.push(performance.now() - started);
  }
  console.log(`\n## GET ${path} (then ${runs.map((ms) => ms.toFixed(1)).join(", ")} ms)\n`);
  if (process.env.PLAN_ONLY) {
    console.log(statement.text, JSON.stringify(statement.values));
    console.log((await client.query(`EXPLAIN ${statement.text}`, statement.values)).rows.map((row: Record<string, string>) => row["QUERY PLAN"]).join("\n"));
    continue;
  }
  const custom = await client.query(`EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) ${statement.text}`, statement.values);
  console.log(custom.rows.map((row: Record<string, string>) => row["QUERY PLAN"]).join("\n"));
  await client.query(`PREPARE explained AS ${statement.text}`);
  await client.query("SET plan_cache_mode = force_generic_plan");
  const generic = await client.query(`EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) EXECUTE explained(${statement.values!.map(literal).join(", ")})`);
  console.log("\n-- generic plan:\n" + generic.rows.map((row: Record<string, string>) => row["QUERY PLAN"]).join("\n"));
  await client.query("RESET plan_cache_mode");
  await client.query("DEALLOCATE explained");
}
await client.end();
await server.close();

/** A parameter written as an SQL literal, for EXECUTE, which takes no bound parameters. */
function literal(value: unknown): string {
  if (value === null) return "NULL";
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return client.escapeLiteral(`{${value.map((item) => `"${String(item).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}`);
  return client.escapeLiteral(String(value));
}
