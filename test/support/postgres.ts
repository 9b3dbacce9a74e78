// A throwaway PostgreSQL cluster for tests: initdb in a temporary directory, run by the postgres system user on a free port.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** Where Debian's postgresql package puts the server's programs: the newest version installed. */
export function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, "bin", "postgres"))) : [];
  if (versions.length === 0) {
    throw new Error("PostgreSQL is not installed; install it: apt-get install -y --no-install-recommends postgresql (npm run test:all does this itself)");
  }
  const newest = versions.sort((a, b) => Number(a) - Number(b)).at(-1)!;
  return join(root, newest, "bin");
}

/** The database every test data set is a schema of. */
export const DATABASE = "rest";

/** A running cluster: URLs of its databases, fresh databases, and its stop and start. */
export type Cluster = {
  port: number;
  /** The URL of a database of this cluster. */
  url: (database: string) => string;
  /** The URL of a new, empty data set: a schema of its own, which the server sees as a new database. */
  createDatabase: () => Promise<string>;
  /** Stops the server (fast: sessions are ended), keeping its files. */
  stop: () => void;
  /** Starts it again on the same port. */
  start: () => void;
  /** Stops it at once and removes its files. */
  close: () => void;
};

let created = 0;

/**
 * The URL of a new, empty data set on the cluster at `port`: a schema of its own, named
 * first in the connection's search_path. Making one takes a fraction of a millisecond,
 * where CREATE DATABASE, even from a template, took 180 ms here.
 */
export async function createDataSetAt(port: number): Promise<string> {
  const schema = `rest_${process.pid}_${++created}`;
  await admin(databaseUrl(port, DATABASE), `CREATE SCHEMA ${schema}`);
  return `${databaseUrl(port, DATABASE)}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** A database's URL on the cluster at `port`. */
export function databaseUrl(port: number, database: string): string {
  return `postgres://postgres@127.0.0.1:${port}/${database}`;
}

/** A new, empty data set on the cluster whose port is TEST_POSTGRES_PORT (set by scripts/test-postgres.ts). */
export async function createTestDatabase(): Promise<string> {
  const port = Number(process.env.TEST_POSTGRES_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error("TEST_DATABASE needs TEST_POSTGRES_PORT, the port of a test cluster; scripts/test-postgres.ts sets both");
  return createDataSetAt(port);
}

/**
 * Initialises a cluster in a new temporary directory and starts it on a free port on the
 * loopback, as the postgres user when this process is root (PostgreSQL refuses root).
 * Durability is switched off unless `durable` (benchmarks): a test cluster is thrown away,
 * and fsync only costs time.
 */
export async function startCluster(options: { durable?: boolean } = {}): Promise<Cluster> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), "rest-pg-"));
  const asPostgres = process.getuid?.() === 0;
  if (asPostgres) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (program: string, args: string[]) => {
    const [command, full] = asPostgres ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]] : [join(bin, program), args];
    execFileSync(command, full, { stdio: ["ignore", "ignore", "pipe"] });
  };
  const data = join(dir, "data");
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"]);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    ...(options.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]),
    "-c max_connections=300",
  ].join(" ");
  const start = () => run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-t", "30", "-o", settings, "start"]);
  const stopWith = (mode: string) => run("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
  let running = false;
  const cluster: Cluster = {
    port,
    url: (database) => databaseUrl(port, database),
    createDatabase: () => createDataSetAt(port),
    stop: () => {
      stopWith("fast");
      running = false;
    },
    start: () => {
      start();
      running = true;
    },
    close: () => {
      if (running) stopWith("immediate");
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    cluster.start();
    await admin(cluster.url("postgres"), `CREATE DATABASE ${DATABASE}`);
  } catch (error) {
    cluster.close();
    throw error;
  }
  return cluster;
}

/** Runs one statement on a database of the cluster. */
async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A port that was free a moment ago, on the loopback. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
