// A throwaway PostgreSQL cluster for tests: initdb in a temporary directory, run by the postgres system user on a free port.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createSchema } from "../../packages/postgres/src/schema.ts";

/** Where Debian's postgresql package puts the server's programs: the newest version installed. */
export function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, "bin", "postgres"))) : [];
  if (versions.length === 0) {
    throw new Error("PostgreSQL is not installed; install it: apt-get install -y --no-install-recommends postgresql (npm test does this itself)");
  }
  const newest = versions.sort((a, b) => Number(a) - Number(b)).at(-1)!;
  return join(root, newest, "bin");
}

/** The template every test database is copied from: the adapter's schema, made, and no data. */
export const TEMPLATE = "rest_template";

/** A running cluster: URLs of its databases, fresh databases, and its stop and start. */
export type Cluster = {
  port: number;
  /** The URL of a database of this cluster. */
  url: (database: string) => string;
  /** A new database copied from the template (the schema made, no data), and its URL. */
  createDatabase: () => Promise<string>;
  /** Stops the server (fast: sessions are ended), keeping its files. */
  stop: () => void;
  /** Starts it again on the same port. */
  start: () => void;
  /** Stops it at once and removes its files. */
  close: () => void;
};

let created = 0;

/** A database's URL on the cluster at `port`. */
export function databaseUrl(port: number, database: string): string {
  return `postgres://postgres@127.0.0.1:${port}/${database}`;
}

/** A new database copied from the template, on the cluster whose port is TEST_POSTGRES_PORT (set by scripts/test-postgres.ts). */
export async function createTestDatabase(): Promise<string> {
  const port = Number(process.env.TEST_POSTGRES_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error("TEST_DATABASE needs TEST_POSTGRES_PORT, the port of a test cluster; scripts/test-postgres.ts sets both");
  return copyTemplate(port);
}

async function copyTemplate(port: number): Promise<string> {
  const name = `rest_${process.pid}_${++created}`;
  await admin(databaseUrl(port, "postgres"), `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  return databaseUrl(port, name);
}

/**
 * Initialises a cluster in a new temporary directory and starts it on a free port on the
 * loopback, as the postgres user when this process is root (PostgreSQL refuses root).
 * Durability is switched off: a test cluster is thrown away, and fsync only costs time.
 */
export async function startCluster(): Promise<Cluster> {
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
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=300",
  ].join(" ");
  const start = () => run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-t", "30", "-o", settings, "start"]);
  const stopWith = (mode: string) => run("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
  let running = false;
  const cluster: Cluster = {
    port,
    url: (database) => databaseUrl(port, database),
    createDatabase: () => copyTemplate(port),
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
    await admin(cluster.url("postgres"), `CREATE DATABASE ${TEMPLATE}`);
    const client = new pg.Client({ connectionString: cluster.url(TEMPLATE) });
    await client.connect();
    try {
      await client.query("BEGIN");
      await createSchema(client);
      await client.query("COMMIT");
    } finally {
      await client.end();
    }
  } catch (error) {
    cluster.close();
    throw error;
  }
  return cluster;
}

/** Runs one statement on a database of the cluster; a copy of the template that another copy is being made from is retried. */
async function admin(url: string, sql: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
      return;
    } catch (error) {
      // "source database is being accessed by other users": two copies begun at once.
      if ((error as { code?: string }).code !== "55006" || attempt >= 20) throw error;
    } finally {
      await client.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
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
