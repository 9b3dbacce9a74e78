// The server a black-box test talks to: a fresh instance per call, in this process or spawned on a runtime.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { INSTALL_COMMAND, type Runtime, runtimePath } from "../../scripts/install-runtimes.ts";
import { readConfig, readSeedFile } from "../../src/config.ts";
import type { Seed } from "../../src/store/records.ts";
import { startServer } from "../../src/http/server.ts";
import { createFetchApp } from "../../src/http/fetch-app.ts";
import { serveFetch } from "./fetch-bridge.ts";
import { createTestDatabase } from "./postgres.ts";
import { alternate } from "./proxy.ts";

/** A running server under test: its base URL, and how to stop it. */
export type Target = {
  url: string;
  /** With two processes on one database, each one's own URL, for a test that must reach one without the proxy between. */
  servers?: readonly string[];
  /** Stops the server if it still runs. */
  close: () => Promise<void>;
  /** Sends the signal (a process) or begins shutdown (in-process) and resolves with the exit code; null after SIGKILL. */
  stop: (signal?: StopSignal) => Promise<number | null>;
};

/** The signals a test stops a server with: the two that shut it down, and SIGKILL, which a process cannot catch. */
export type StopSignal = "SIGTERM" | "SIGINT" | "SIGKILL";

/** How the server under test runs: in this process (startServer, or createFetchApp behind a thin server), or as a process on one runtime. */
export type Mode = "inprocess" | "fetch" | ProcessMode;

/** The runtimes a server process is tested on; `dist` is the build run by plain node. */
export type ProcessMode = "node" | "dist" | "deno" | "bun";

/** Every process mode, in the order the runtime matrix runs them. */
export const PROCESS_MODES: readonly ProcessMode[] = ["node", "dist", "deno", "bun"];

/** The repository's root folder, where `src/` and `runtimes/` are. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The mode `TEST_TARGET` names; `inprocess` when it is unset. */
export function targetMode(): Mode {
  const mode = process.env.TEST_TARGET ?? "inprocess";
  if (mode === "inprocess" || mode === "fetch" || (PROCESS_MODES as readonly string[]).includes(mode)) return mode as Mode;
  throw new Error(`Unknown TEST_TARGET "${mode}"; use inprocess, fetch, ${PROCESS_MODES.join(", ")}`);
}

/** The path of a runtime installed in runtimes/; throws saying how to install it if it is missing. */
export function runtimeBinary(name: Runtime): string {
  const path = runtimePath(name);
  if (path === undefined) {
    throw new Error(`${name} is not installed; run "${INSTALL_COMMAND}" (npm run test:all does this itself)`);
  }
  return path;
}

/**
 * The command that starts `src/main.ts` (or the copied build) as a process on a runtime;
 * `durable` gives Deno the permissions a data directory needs (by default when TEST_DATA_DIR=1).
 */
export function serverCommand(mode: ProcessMode, durable = durableTargets()): { command: string; args: string[]; cwd: string } {
  switch (mode) {
    case "node":
      return { command: process.execPath, args: ["--import", "tsx", "src/main.ts"], cwd: ROOT };
    case "dist": {
      // dist/ copied alone into an empty folder outside the repository, with no node_modules near it.
      const folder = process.env.TEST_DIST_DIR;
      if (folder === undefined || !existsSync(`${folder}/dist/main.js`)) {
        throw new Error("TEST_TARGET=dist needs TEST_DIST_DIR, a folder holding only a copy of dist/; test:all sets it");
      }
      return { command: process.execPath, args: ["dist/main.js"], cwd: folder };
    }
    case "deno": {
      // A data directory needs writes, and --allow-run for the lock's check of its owner's pid.
      const write = durable ? ["--allow-write", "--allow-run"] : [];
      return { command: runtimeBinary("deno"), args: ["run", "--allow-net", "--allow-env", "--allow-read", ...write, "src/main.ts"], cwd: ROOT };
    }
    case "bun":
      return { command: runtimeBinary("bun"), args: ["src/main.ts"], cwd: ROOT };
  }
}

/**
 * Why a test of a connection's own rules cannot run on the fetch target, or false where it can:
 * there the requests reach createFetchApp one at a time through a thin server (support/fetch-bridge.ts),
 * so pipelining, CONNECT and the socket's time-outs are that server's, not the app's.
 */
export function socketOnly(rule: string): string | false {
  return targetMode() === "fetch" && `${rule} belongs to startServer's socket, which the fetch target does not have`;
}

/** Whether every target keeps its data in a fresh data directory of its own (`TEST_DATA_DIR=1`), as the runtime matrix runs the suite a second time. */
export function durableTargets(): boolean {
  return process.env.TEST_DATA_DIR === "1";
}

/** Environment every spawned server gets: a free port on the loopback, and no update check reaching the network. */
export function processEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, PORT: "0", HOST: "127.0.0.1", DENO_NO_UPDATE_CHECK: "1", ...env };
}

/**
 * How many server processes each target runs on one fresh PostgreSQL database of the test
 * cluster (`TEST_DATABASE=1` or `2`, with `TEST_POSTGRES_PORT`); 0, the default, for none.
 * With two, a proxy hands new connections to each in turn.
 */
export function databaseTargets(): 0 | 1 | 2 {
  const value = process.env.TEST_DATABASE ?? "0";
  if (value === "0" || value === "1" || value === "2") return Number(value) as 0 | 1 | 2;
  throw new Error(`Unknown TEST_DATABASE "${value}"; use 1 or 2 (server processes on one database)`);
}

/**
 * Starts a fresh server for one test file. `TEST_TARGET` picks how: `inprocess`
 * (default) uses startServer with the same configuration a process would read
 * from `env`; `node`, `dist`, `deno` and `bun` spawn a process (see serverCommand).
 */
export async function startTarget(env: Record<string, string> = {}): Promise<Target> {
  // With a suite token, every server takes it as its write token, and the suite sends it (support/http.ts, raw.ts).
  const token = process.env.TEST_AUTH_TOKEN;
  if (token !== undefined && env.AUTH_TOKENS === undefined && env.AUTH_TOKENS_FILE === undefined) env = { ...env, AUTH_TOKENS: `write:${token}` };
  const processes = databaseTargets();
  // A test that names its own store keeps it.
  if (processes !== 0 && env.DATA_DIR === undefined && env.DATABASE_URL === undefined) return startOnDatabase(env, processes);
  if (!durableTargets() || env.DATA_DIR !== undefined) return startTargetOn(env);
  const dir = mkdtempSync(join(tmpdir(), "rest-data-"));
  const target = await startTargetOn({ ...env, DATA_DIR: dir }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const remove = () => rmSync(dir, { recursive: true, force: true });
  return {
    url: target.url,
    close: () => target.close().finally(remove),
    stop: (signal) => target.stop(signal).finally(remove),
  };
}

/** One or two servers on a fresh database; with two, behind a proxy that alternates new connections between them. */
async function startOnDatabase(env: Record<string, string>, processes: 1 | 2): Promise<Target> {
  const databaseEnv = { ...env, DATABASE_URL: await createTestDatabase() };
  if (processes === 1) return startTargetOn(databaseEnv);
  // Both at once, as replicas start: one fills the new database, the other finds it filled.
  const [a, b] = await Promise.allSettled([startTargetOn(databaseEnv), startTargetOn(databaseEnv)]);
  if (a.status === "rejected" || b.status === "rejected") {
    for (const started of [a, b]) if (started.status === "fulfilled") await started.value.close();
    throw a.status === "rejected" ? a.reason : (b as PromiseRejectedResult).reason;
  }
  const [first, second] = [a.value, b.value];
  const proxy = await alternate([first.url, second.url]);
  // Both get the signal; the exit code is the first one's, unless the other's says worse.
  const stop = async (signal?: StopSignal) => {
    const [a, b] = await Promise.all([first.stop(signal), second.stop(signal)]);
    await proxy.close();
    return a === b || b === 0 ? a : b;
  };
  return { url: proxy.url, servers: [first.url, second.url], close: async () => void (await stop()), stop };
}

async function startTargetOn(env: Record<string, string>): Promise<Target> {
  const mode = targetMode();
  if (mode === "fetch") return startFetchTarget(env);
  if (mode === "inprocess") {
    const { seedFile, resourcesFile, dbFile: _served, fsync, compactBytes, httpServer: _server, ...options } = readConfig({ ...env, PORT: "0", HOST: "127.0.0.1" });
    const seed = seedFile === undefined ? undefined : (readSeedFile(seedFile) as Seed);
    const resources = resourcesFile === undefined ? undefined : readSeedFile(resourcesFile);
    const journal = options.dataDir === undefined ? {} : { fsync, compactBytes };
    // In-process, the test runner's stdout is not the server's: no access log unless asked.
    const logFormat = options.logFormat === "auto" ? "off" : options.logFormat;
    const running = await startServer({ ...options, ...journal, seed, resources, logFormat });
    const stop = async () => {
      await running.close();
      return 0;
    };
    return { url: running.url, close: running.close, stop };
  }
  const { command, args, cwd } = serverCommand(mode);
  return spawnTarget(command, args, env, cwd);
}

/**
 * createFetchApp with the settings `env` names, behind a thin node:http server (support/fetch-bridge.ts):
 * the app's own options only, since the socket's time-outs and the stores on disk are startServer's.
 */
async function startFetchTarget(env: Record<string, string>): Promise<Target> {
  const config = readConfig({ ...env, PORT: "0", HOST: "127.0.0.1" });
  const { allowedHosts, authTokens, authTokensFile, readOnly, storeLimit, bodyLimit, corsOrigins, metrics, control, controlLog, delay } = config;
  const seed = config.seedFile === undefined ? undefined : (readSeedFile(config.seedFile) as Seed);
  const resources = config.resourcesFile === undefined ? undefined : readSeedFile(config.resourcesFile);
  const app = createFetchApp({ allowedHosts, authTokens, authTokensFile, readOnly, storeLimit, bodyLimit, corsOrigins, metrics, control, controlLog, delay, seed, resources });
  const served = await serveFetch(app);
  return { url: served.url, close: served.close, stop: async () => (await served.close(), 0) };
}

/** Starts `command args` with PORT=0 and resolves with the URL it prints once it listens; `onOutput` is given all its stdout. */
export async function spawnTarget(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  cwd: string = ROOT,
  onOutput?: (chunk: string) => void,
): Promise<Target> {
  const child = spawn(command, args, { cwd, env: processEnv(env), stdio: ["ignore", "pipe", "inherit"] });
  if (onOutput !== undefined) child.stdout.setEncoding("utf8").on("data", onOutput);
  const exited = once(child, "exit").then(([code]) => code as number | null);
  // A child that cannot start rejects this too; readListeningUrl reports that failure.
  exited.catch(() => {});
  const url = await readListeningUrl(child);
  const stop = async (signal: StopSignal = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return { url, close: async () => void (await stop()), stop };
}

/**
 * Reads the child's stdout until the start-up line, `Listening on <url>` (with LOG_FORMAT=json,
 * a JSON object whose message it is), then lets the rest of stdout, the access log, drain
 * unread, so that a server that logs every request never waits on a full pipe.
 */
export async function readListeningUrl(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`Server exited with code ${code} before listening`);
  });
  const listening = (async () => {
    for await (const line of lines) {
      const message = line.startsWith("{") ? (JSON.parse(line) as { message?: string }).message : line;
      const found = /^Listening on (http:\/\/\S+)$/.exec(message ?? "");
      if (found) return found[1]!;
    }
    throw new Error("Server closed its output before listening");
  })();
  const url = await Promise.race([listening, exited]);
  child.stdout!.resume();
  return url;
}

/** Starts a fresh target for one test and closes it when that test ends. */
export async function fresh(t: { after: (fn: () => Promise<void>) => void }, env?: Record<string, string>): Promise<string> {
  const target = await startTarget(env);
  t.after(() => target.close());
  return target.url;
}
