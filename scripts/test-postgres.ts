// The PostgreSQL passes: the black-box suite against one, then two server processes on one database, and the tests of several processes sharing it.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { startCluster } from "../test/support/postgres.ts";

const FILES = ["test/http", "test/process"].flatMap((folder) =>
  readdirSync(folder)
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => join(folder, name)),
);
const PROCESS_FILES = readdirSync("test/postgres/processes")
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => join("test/postgres/processes", name));

// The build, run in place: its dist/main.js finds the adapter's build through node_modules,
// as a server installed beside rest-reference-server-postgres does.
run(process.execPath, ["--import", "tsx", "scripts/build.ts"], {});

// One cluster for every pass; each server gets a fresh database copied from a template.
const cluster = await startCluster();
const failed: string[] = [];
const times: string[] = [];
try {
  const env = { TEST_TARGET: "dist", TEST_DIST_DIR: process.cwd(), TEST_POSTGRES_PORT: String(cluster.port) };
  for (const processes of ["1", "2"]) {
    const name = `${processes} dist process${processes === "1" ? "" : "es"} on one PostgreSQL database`;
    console.log(`\n=== Black-box suite against ${name} ===`);
    // Four files at a time: a test mostly waits for server processes to start and stop. On two
    // cores the two passes took 111 s and 70 s two at a time, 86 s and 50 s four at a time, and
    // no less six at a time.
    const args = ["--import", "tsx", "--test", "--test-concurrency=4", "--test-reporter=spec", ...FILES];
    timed(name, () => run(process.execPath, args, { ...env, TEST_DATABASE: processes }));
  }
  console.log("\n=== Several server processes sharing one PostgreSQL database: model, races, a restart of PostgreSQL ===");
  const args = ["--import", "tsx", "--test", "--test-concurrency=1", "--test-reporter=spec", ...PROCESS_FILES];
  timed("processes sharing a database", () => run(process.execPath, args, env));
} finally {
  cluster.close();
}
console.log(`\n${times.join("\n")}`);
if (failed.length > 0) {
  console.error(`\nThe PostgreSQL passes failed: ${failed.join(", ")}`);
  process.exit(1);
}
console.log("\nThe PostgreSQL passes passed");

function timed(name: string, pass: () => boolean): void {
  const began = Date.now();
  if (!pass()) failed.push(name);
  times.push(`${name}: ${((Date.now() - began) / 1000).toFixed(1)} s`);
}

function run(command: string, args: string[], env: Record<string, string>): boolean {
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (result.error) throw result.error;
  return result.status === 0;
}
