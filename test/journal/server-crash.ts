// The crash proof through the HTTP server: many clients write at once, the server is killed with SIGKILL at a random moment and restarted on the same data directory, and what it holds is checked against every client's model.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, type FSWatcher, readdirSync, readFileSync, watch } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { processEnv, readListeningUrl, ROOT, runtimeBinary } from "../support/target.ts";
import { type Answer, type Connection, connect } from "./crash-http.ts";
import { adopt, candidates, canonical, type Client, difference, type Highest, type Kind, KINDS, newClient, nextOp, ownerOf, type Rec, type Records, settle } from "./crash-model.ts";

const SEQUENCES = ["posts", "comments", "replies"] as const;
// Ids past the highest acknowledged that are checked too: a refused create that was kept would sit there.
const SCAN_PAST = 40;

export type CrashRuntime = "node" | "deno" | "bun";
export const CRASH_RUNTIMES: readonly CrashRuntime[] = ["node", "deno", "bun"];

export type CrashOptions = {
  runtime: CrashRuntime;
  /** The data directory, used by every start. */
  dir: string;
  fsync: "always" | "interval";
  cycles: number;
  /** Concurrent clients, each on one keep-alive connection; 16 by default. */
  clients?: number;
  /** The journal length that starts a compaction: small, so that kills land in some; 24 KiB by default. */
  compactBytes?: number;
  /**
   * The kill comes this long after the clients start, uniformly at random (100 to 800 ms by
   * default); in every other cycle, at the first compaction to begin after that.
   */
  killAfterMs?: [number, number];
  /**
   * Nor before the clients have had this many writes acknowledged in the cycle (100 by default): on a
   * loaded machine the clients may write little in the first 800 ms, and a kill before they have written
   * proves little (the tests count on 100 a cycle).
   */
  minAckedBeforeKill?: number;
  /** Told of each cycle once its restart has been checked. */
  onCycle?: (figures: CycleFigures) => void;
  /** Changes the data behind the clients' backs after each restart, before the check: for the test that shows a loss is caught. */
  afterRestart?: (url: string) => Promise<void>;
};

/** What one kill and restart did. */
export type CycleFigures = {
  cycle: number;
  /** When the kill came, after the clients started. */
  killAfterMs: number;
  /** Whether the kill waited for a compaction to begin. */
  atCompaction: boolean;
  /** Writes answered 2xx before the kill. */
  acked: number;
  /** Writes answered with the refusal they were meant to get. */
  refused: number;
  /** Writes sent and not answered when the server died; each may or may not have been applied. */
  inFlight: number;
  /** Of those, how many the restarted server held. */
  applied: number;
  /** Journal generations begun during the cycle: one per compaction. */
  compactions: number;
  /** Whether the kill left a compaction begun in this cycle unfinished (see unfinishedCompaction). */
  midCompaction: boolean;
  /** Whether the restart cut a torn last entry off the journal. */
  torn: boolean;
  /** How long the restart took until it listened. */
  restartMs: number;
  /** Records held after the restart, over all collections. */
  records: number;
};

export type CrashSummary = {
  cycles: CycleFigures[];
  acked: number;
  refused: number;
  inFlight: number;
  applied: number;
  compactions: number;
  midCompaction: number;
  /** Restarts that cut a torn last entry off. */
  torn: number;
  /** The snapshot's generation at the end: above 0 once a compaction has finished. */
  snapshotGeneration: number;
};

/** A failed check: what was lost or wrong, with the server's stderr when it says something. */
export class CrashCheckError extends Error {}

type Running = { child: ChildProcess; url: string; exited: Promise<[number | null, string | null]>; stderr: () => string };

/** The command that starts src/main.ts on a runtime, allowed what a data directory needs. */
export function crashServerCommand(runtime: CrashRuntime): { command: string; args: string[] } {
  switch (runtime) {
    case "node":
      return { command: process.execPath, args: ["--import", "tsx", "src/main.ts"] };
    case "deno":
      // --allow-run for the lock's check of a dead owner's pid, without which no restart after a kill could start.
      return { command: runtimeBinary("deno"), args: ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-run", "src/main.ts"] };
    case "bun":
      return { command: runtimeBinary("bun"), args: ["src/main.ts"] };
  }
}

async function start(options: CrashOptions): Promise<Running> {
  const { command, args } = crashServerCommand(options.runtime);
  const env = { DATA_DIR: options.dir, FSYNC: options.fsync, COMPACT_BYTES: String(options.compactBytes ?? 24 * 1024) };
  const child = spawn(command, args, { cwd: ROOT, env: processEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = once(child, "exit") as Promise<[number | null, string | null]>;
  try {
    const url = await readListeningUrl(child);
    return { child, url, exited, stderr: () => stderr };
  } catch (error) {
    await exited;
    throw new CrashCheckError(`The server on ${options.runtime} did not start on ${options.dir}: ${(error as Error).message}\n${stderr}`);
  }
}

/** The newest and oldest journal generations on disk. */
function journals(dir: string): { newest: number; oldest: number } {
  const generations = readdirSync(dir).flatMap((name) => {
    const match = /^journal-(\d+)\.log$/.exec(name);
    return match === null ? [] : [Number(match[1])];
  });
  return { newest: Math.max(0, ...generations), oldest: Math.min(Infinity, ...generations) };
}

/**
 * Whether the directory shows a compaction cut short: a snapshot.tmp, a snapshot behind the
 * journal before the newest, or journals the snapshot covers still there.
 */
function unfinishedCompaction(dir: string): boolean {
  const { newest, oldest } = journals(dir);
  const covered = snapshotGeneration(dir);
  return existsSync(join(dir, "snapshot.tmp")) || covered < newest - 1 || oldest <= covered;
}

/** The generation the snapshot covers, from its header line. */
export function snapshotGeneration(dir: string): number {
  const first = readFileSync(join(dir, "snapshot"), "utf8").split("\n", 1)[0]!;
  return (JSON.parse(first.slice(first.indexOf(" ") + 1)) as { generation: number }).generation;
}

/** The pid a lock file names. */
function lockOwner(dir: string): number | undefined {
  const path = join(dir, "lock");
  return existsSync(path) ? Number.parseInt(readFileSync(path, "utf8"), 10) : undefined;
}

/** Runs tasks on a few connections at once. */
async function onConnections<T>(connections: Connection[], items: T[], task: (connection: Connection, item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    connections.map(async (connection) => {
      while (next < items.length) await task(connection, items[next++]!);
    }),
  );
}

/**
 * Runs `cycles` kills and restarts on one data directory and checks every restart; throws a
 * CrashCheckError naming what was lost or wrong. The directory may hold data from an earlier
 * run only if no client wrote it (the models start empty).
 */
export async function runServerCrash(options: CrashOptions): Promise<CrashSummary> {
  const clients = Array.from({ length: options.clients ?? 16 }, (_, index) => newClient(index));
  const highest: Highest = { posts: 0, comments: 0, replies: 0 };
  const seedTags = new Map<number, string>();
  const [low, high] = options.killAfterMs ?? [100, 800];
  const figures: CycleFigures[] = [];
  const count = (field: "acked" | "refused") => clients.reduce((sum, client) => sum + client[field], 0);
  let server = await start(options);
  try {
    await check(server, clients, highest, seedTags);
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const before = journals(options.dir).newest;
      const delay = Math.round(low + Math.random() * (high - low));
      const ackedBefore = count("acked");
      const refusedBefore = count("refused");
      // Every other kill waits for a compaction to begin, so that many land in one.
      const atCompaction = cycle % 2 === 0;
      const killAfterMs = await writeAndKill(server, clients, highest, delay, options.minAckedBeforeKill ?? 100, options.dir, atCompaction);
      const after = journals(options.dir);
      const midCompaction = after.newest > before && unfinishedCompaction(options.dir);
      const killedPid = server.child.pid;
      if (lockOwner(options.dir) !== killedPid) throw new CrashCheckError(`cycle ${cycle}: the lock does not name the killed process ${killedPid}`);
      const acked = count("acked") - ackedBefore;
      const refused = count("refused") - refusedBefore;
      const inFlight = clients.filter((c) => c.pending !== undefined).length;
      const started = performance.now();
      // The lock the killed process left names a dead pid: the restart must take it over.
      server = await start(options);
      const restartMs = Math.round(performance.now() - started);
      if (lockOwner(options.dir) !== server.child.pid) throw new CrashCheckError(`cycle ${cycle}: the restarted server does not hold the lock`);
      await options.afterRestart?.(server.url);
      // The check counts each in-flight write it finds applied as acknowledged.
      const ackedChecked = count("acked");
      const records = await check(server, clients, highest, seedTags, `cycle ${cycle} (killed after ${killAfterMs} ms)`);
      const applied = count("acked") - ackedChecked;
      // Allowed (a torn entry was never answered), but worth counting: the kernel may cut a write of several pages short for a fatal signal.
      const torn = server.stderr().includes("dropped a torn last entry");
      const one: CycleFigures = { cycle, killAfterMs, atCompaction, acked, refused, inFlight, applied, compactions: after.newest - before, midCompaction, torn, restartMs, records };
      figures.push(one);
      options.onCycle?.(one);
    }
    await probeSequence(server, highest);
    server.child.kill("SIGTERM");
    const [code] = await server.exited;
    if (code !== 0) throw new CrashCheckError(`The server exited with ${code} on SIGTERM: ${server.stderr()}`);
    if (lockOwner(options.dir) !== undefined) throw new CrashCheckError("The lock was left behind by a clean shutdown");
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
  }
  const sum = (pick: (f: CycleFigures) => number) => figures.reduce((total, f) => total + pick(f), 0);
  return {
    cycles: figures,
    acked: sum((f) => f.acked),
    refused: sum((f) => f.refused),
    inFlight: sum((f) => f.inFlight),
    applied: sum((f) => f.applied),
    compactions: sum((f) => f.compactions),
    midCompaction: sum((f) => (f.midCompaction ? 1 : 0)),
    torn: sum((f) => (f.torn ? 1 : 0)),
    snapshotGeneration: snapshotGeneration(options.dir),
  };
}

/**
 * Every client writes until the server is killed, `killAfterMs` after they start or, with
 * `atCompaction`, as soon after that as a compaction begins; never before `minAcked` writes of
 * theirs have been acknowledged. Resolves, once every client has stopped and the process is
 * gone, with how long after the start the kill came.
 */
async function writeAndKill(
  server: Running,
  clients: Client[],
  highest: Highest,
  killAfterMs: number,
  minAcked: number,
  dir: string,
  atCompaction: boolean,
): Promise<number> {
  const problems: string[] = [];
  let killed = false;
  let killedAt = 0;
  const started = performance.now();
  const acked = () => clients.reduce((sum, client) => sum + client.acked, 0);
  const ackedAtStart = acked();
  // The kill is armed once its time has come and enough writes were acknowledged, whichever is last.
  let due = false;
  let armed = false;
  const arm = () => {
    if (armed || !due || acked() - ackedAtStart < minAcked) return;
    armed = true;
    begin();
  };
  const connections = clients.map(() => connect(server.url));
  const run = async (client: Client, connection: Connection) => {
    while (!killed && problems.length === 0) {
      const op = nextOp(client, highest);
      let answer;
      try {
        answer = await connection.send(op.method, op.path, op.body, op.headers);
      } catch (error) {
        // Unanswered because of the kill: applied or not, both are allowed.
        if (killed) client.pending = op;
        else problems.push(`client ${client.index}: ${op.method} ${op.path} failed before the kill: ${(error as Error).message}`);
        return;
      }
      // An answer read after the kill was sent counts: it left the server, so the write was kept.
      const problem = settle(client, op, answer, highest);
      if (problem !== undefined) problems.push(problem);
      arm();
    }
  };
  let watcher: FSWatcher | undefined;
  const kill = () => {
    killed = true;
    killedAt = performance.now() - started;
    watcher?.close();
    server.child.kill("SIGKILL");
  };
  const begin = () => {
    if (!atCompaction) return kill();
    // The next compaction creates the next journal, then writes snapshot.tmp: the kill lands in between or soon after.
    const newest = journals(dir).newest;
    watcher = watch(dir, (_event, name) => {
      const generation = /^journal-(\d+)\.log$/.exec(name ?? "");
      if (!killed && ((generation !== null && Number(generation[1]) > newest) || name === "snapshot.tmp")) kill();
    });
    // Writes that stop short of the bound must not wait forever.
    setTimeout(() => killed || kill(), 2000).unref();
  };
  const timer = setTimeout(() => {
    due = true;
    arm();
  }, killAfterMs);
  try {
    await Promise.all(clients.map((client, i) => run(client, connections[i]!)));
  } finally {
    clearTimeout(timer);
    watcher?.close();
    killed = true;
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    for (const connection of connections) connection.close();
  }
  const [code, signal] = await server.exited;
  if (problems.length > 0) throw new CrashCheckError(`${problems.slice(0, 5).join("\n")}\n${server.stderr()}`);
  if (signal !== "SIGKILL") throw new CrashCheckError(`The server ended by itself (code ${code}, signal ${signal}): ${server.stderr()}`);
  return Math.round(killedAt);
}

/**
 * Checks a freshly started server against every client's model, settling the fate of the write
 * each had in flight. Users and posts come from their lists, comments and replies from each
 * parent's list (there is no list of all of them), every list with its X-Total-Count. Each
 * client must hold exactly its acknowledged records (or those with its in-flight write
 * applied), each record's ETag must be its last acknowledged write's, and every other comment
 * and reply id up to past the highest given must answer 404, so that nothing deleted came
 * back and no refused write left a record under a parent that is gone. Returns how many
 * records are held.
 */
async function check(server: Running, clients: Client[], highest: Highest, seedTags: Map<number, string>, when = "first start"): Promise<number> {
  const connections = Array.from({ length: 8 }, () => connect(server.url));
  const problems: string[] = [];
  const fail = (line: string) => problems.push(line);
  const stop = () => {
    if (problems.length > 0) throw new CrashCheckError(`${when}:\n${problems.slice(0, 10).join("\n")}`);
  };
  try {
    const observed = new Map<number, Records>(clients.map((client) => [client.index, { users: [], posts: [], comments: [], replies: [] }]));
    const seed: Rec[] = [];
    let held = 0;
    const take = (kind: Kind, path: string, answer: Answer, parentOwner?: number) => {
      const list = answer.body as Rec[];
      if (answer.status !== 200 || !Array.isArray(list)) return fail(`GET ${path} answered ${answer.status} ${JSON.stringify(answer.body)}`);
      if (answer.total !== String(list.length)) fail(`GET ${path}: X-Total-Count ${answer.total} for ${list.length} records`);
      held += list.length;
      for (const record of list) {
        const owner = ownerOf(record);
        if (owner === undefined && kind === "users") seed.push(record);
        else if (typeof owner === "number" && observed.has(owner) && (parentOwner === undefined || owner === parentOwner)) observed.get(owner)![kind].push(record);
        else fail(`${kind}/${record.id} in GET ${path} was written by no client that could: ${JSON.stringify(record)}`);
      }
    };
    const [first] = connections as [Connection];
    for (const kind of ["users", "posts"] as const) take(kind, `/${kind}`, await first.send("GET", `/${kind}`));
    for (const [parentKind, kind] of [["posts", "comments"], ["comments", "replies"]] as const) {
      const parents = [...observed].flatMap(([owner, records]) => records[parentKind].map((record) => ({ owner, id: record.id })));
      await onConnections(connections, parents, async (connection, { owner, id }) => {
        const path = `/${parentKind}/${id}/${kind}`;
        take(kind, path, await connection.send("GET", path), owner);
      });
      // Ids are given in sequence, so creation order is id order.
      for (const records of observed.values()) records[kind].sort((a, b) => a.id - b.id);
    }
    if (!isDeepStrictEqual(seed.map((r) => r.id), [1, 2])) fail(`the seeded users are ${JSON.stringify(seed)}`);
    for (const record of seed) {
      const answer = await first.send("GET", `/users/${record.id}`);
      if (!seedTags.has(record.id)) seedTags.set(record.id, answer.etag!);
      else if (seedTags.get(record.id) !== answer.etag) fail(`users/${record.id} (seeded, never written) changed its ETag to ${answer.etag}`);
    }
    stop();
    for (const client of clients) {
      const found = observed.get(client.index)!;
      const options = candidates(client, found);
      const match = options.find(({ records }) => KINDS.every((kind) => isDeepStrictEqual(found[kind].map(canonical), records[kind].map(canonical))));
      if (match === undefined) {
        const op = client.pending;
        const inFlight = op === undefined ? "nothing in flight" : `in flight: ${op.method} ${op.path} ${JSON.stringify(op.body ?? {})}`;
        fail(`client ${client.index} (${inFlight}): ${difference(options.at(-1)!.records, found)}`);
        continue;
      }
      adopt(client, found, match.applied);
      for (const kind of SEQUENCES) for (const record of found[kind]) highest[kind] = Math.max(highest[kind], record.id);
    }
    stop();
    // Each record read alone: its ETag is the one its last acknowledged write answered with.
    const reads = clients.flatMap((client) => KINDS.flatMap((kind) => [...client.held[kind].values()].map((h) => ({ client, kind, h }))));
    await onConnections(connections, reads, async (connection, { client, kind, h }) => {
      const answer = await connection.send("GET", `/${kind}/${h.record.id}`);
      if (answer.status !== 200 || !isDeepStrictEqual(canonical(answer.body), canonical(h.record))) {
        fail(`client ${client.index}: GET /${kind}/${h.record.id} answered ${answer.status} ${JSON.stringify(answer.body)}`);
      } else if (h.etag === undefined) h.etag = answer.etag;
      else if (h.etag !== answer.etag) fail(`client ${client.index}: ${kind}/${h.record.id} has ETag ${answer.etag}, but its last acknowledged write answered ${h.etag}`);
    });
    // Not there: users and posts deleted or refused (their lists hold everything else), and every comment and reply id no client holds.
    const absent: { kind: Kind; id: number }[] = [];
    for (const client of clients) for (const kind of ["users", "posts"] as const) for (const id of client.gone[kind]) absent.push({ kind, id });
    for (const kind of ["comments", "replies"] as const) {
      const owned = new Set(clients.flatMap((client) => [...client.held[kind].keys()]));
      for (let id = 1; id <= highest[kind] + SCAN_PAST; id++) if (!owned.has(id)) absent.push({ kind, id });
    }
    await onConnections(connections, absent, async (connection, { kind, id }) => {
      const answer = await connection.send("GET", `/${kind}/${id}`);
      if (answer.status !== 404) fail(`${kind}/${id} should not exist (deleted, refused or never acknowledged), yet GET answered ${answer.status} ${JSON.stringify(answer.body)}`);
    });
    for (const client of clients) for (const kind of KINDS) client.gone[kind].clear();
    stop();
    return held;
  } finally {
    for (const connection of connections) connection.close();
  }
}

/** A post created now gets an id above every one ever acknowledged, deleted ones included; it is deleted again. */
async function probeSequence(server: Running, highest: Highest): Promise<void> {
  const connection = connect(server.url);
  try {
    const made = await connection.send("POST", "/posts", { title: "probe", body: "probe" });
    const id = (made.body as Rec).id;
    if (made.status !== 201 || !(id > highest.posts)) throw new CrashCheckError(`A post created after the last restart got id ${id}, not above ${highest.posts}`);
    const deleted = await connection.send("DELETE", `/posts/${id}`);
    if (deleted.status !== 204) throw new CrashCheckError(`DELETE /posts/${id} answered ${deleted.status}`);
  } finally {
    connection.close();
  }
}
