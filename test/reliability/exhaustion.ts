// Exhaustion attacks on memory and time (contract 13), against the built server with default settings:
// the reliability run reports their figures, and exhaustion.test.ts holds them to the promises.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { readListeningUrl, ROOT } from "../support/target.ts";

export const LIMIT = 1024 * 1024;
const HEAD = '{"title":"t","body":"b","z":';

/** The worst shapes a 1 MiB body can have within the body's limits, by what each costs in memory once parsed. */
export const WORST_BODIES: Record<string, string> = {
  // 99,990 empty objects: the most objects a body may hold, padded to the byte limit.
  objects: (() => {
    const array = `[${"{},".repeat(99_989)}{}]`;
    return `${HEAD}${array},"pad":"${"x".repeat(LIMIT - HEAD.length - array.length - 12)}"}`;
  })(),
  // 49,990 members with names of their own, each holding an empty object.
  members: `${HEAD}{${Array.from({ length: 49_990 }, (_, i) => `"${i.toString(36).padStart(12, "m")}":{}`).join(",")}}}`,
  // One string of control characters: six bytes of JSON each, and six of text when read.
  escapes: `${HEAD}"${"\\u0001".repeat(Math.floor((LIMIT - HEAD.length - 3) / 6))}"}`,
  // One string of two-byte characters: held as a two-byte string.
  wide: `${HEAD}"${"é".repeat(Math.floor((LIMIT - HEAD.length - 3) / 2))}"}`,
};

/** Starts the built server (dist/) with `env`, and reads its resident memory from /proc. */
async function startBuilt(env: Record<string, string>) {
  const child = spawn(process.execPath, ["dist/main.js"], { cwd: ROOT, env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const url = await readListeningUrl(child);
  const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) * 1024;
  const stop = async () => {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  };
  return { url, rss, stop };
}

/** How long a /healthz takes to answer while `busy` runs, in milliseconds. */
async function healthWhile(url: string, busy: () => Promise<unknown>): Promise<number> {
  const work = busy();
  // The busy request has reached the server before the probe is sent.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  const health = await fetch(`${url}/healthz`);
  const took = performance.now() - started;
  assert.equal(health.status, 200);
  await work;
  return took;
}

/** What the memory attack found: the peak resident memory, the answers by status, and the status of a write once every record was deleted. */
export type MemoryReport = { peak: number; statuses: Map<number, number>; afterDeletes: number };

/** A client that asks for a whole list, takes its first bytes, then reads no more. */
async function stalledReader(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on("error", () => undefined);
  socket.write("GET /posts HTTP/1.1\r\nHost: localhost\r\n\r\n");
  await new Promise((resolve) => socket.once("data", resolve));
  socket.pause();
  return socket;
}

/**
 * Sends 600 worst-shape 1 MiB bodies to a server with default settings (in memory, or in a
 * data directory), reading each record stored once and whole lists three at a time every 50,
 * while sampling its resident memory. Then, eight times, two clients stop reading whole
 * lists, every record is deleted and the store filled again. Last, those clients hang up,
 * every record is deleted, and one more write is sent.
 */
export async function memoryAttack(durable: boolean): Promise<MemoryReport> {
  const dir = mkdtempSync(join(tmpdir(), "exhaustion-"));
  const server = await startBuilt(durable ? { DATA_DIR: dir } : {});
  const stalled: Socket[] = [];
  try {
    let peak = server.rss();
    const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 10);
    const statuses = new Map<number, number>();
    const held = new Set<string>();
    const shapes = Object.values(WORST_BODIES);
    let sent = 0;
    const post = async (): Promise<number> => {
      const body = shapes[sent++ % shapes.length]!;
      const response = await fetch(`${server.url}/posts`, { method: "POST", headers: { "content-type": "application/json" }, body });
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 201) {
        const location = response.headers.get("location")!;
        held.add(location);
        // Read once, so that the record's text is made and kept as well.
        await (await fetch(`${server.url}${location}`)).arrayBuffer();
      }
      return response.status;
    };
    const deleteAll = async () => {
      for (const location of held) assert.equal((await fetch(`${server.url}${location}`, { method: "DELETE" })).status, 204);
      held.clear();
    };
    for (let i = 0; i < 600; i++) {
      await post();
      if (i % 50 === 49) await Promise.all([1, 2, 3].map(async () => (await fetch(`${server.url}/posts`)).arrayBuffer()));
    }
    // Lists that are not read hold the records they list, deleted ones among them.
    for (let round = 0; round < 8; round++) {
      stalled.push(await stalledReader(server.url), await stalledReader(server.url));
      await deleteAll();
      for (let i = 0; i < 100 && (await post()) === 201; i++);
    }
    clearInterval(sampler);
    for (const socket of stalled.splice(0)) socket.destroy();
    await deleteAll();
    // The server learns of the hang-ups as their connections close.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await fetch(`${server.url}/posts`, { method: "POST", headers: { "content-type": "application/json" }, body: WORST_BODIES.objects });
    await again.arrayBuffer();
    return { peak, statuses, afterDeletes: again.status };
  } finally {
    for (const socket of stalled) socket.destroy();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the unfinished-bodies attack found: the peak resident memory, the answers by status, and whether /healthz answered under it. */
export type UnfinishedReport = { peak: number; statuses: Map<number, number>; health: number };

/**
 * Opens 600 connections to a server with default settings, 50 at a time, each sending the
 * headers of a 1 MiB create and all of its body but the last byte, then waiting: each body is
 * within BODY_LIMIT, and together they are 600 MiB. Samples the server's resident memory, reads
 * the answers that come (a 503 for each body past what the server holds at once), asks for
 * /healthz, then hangs up every connection.
 */
export async function unfinishedBodiesAttack(): Promise<UnfinishedReport> {
  const server = await startBuilt({});
  const sockets: Socket[] = [];
  const statuses = new Map<number, number>();
  try {
    let peak = server.rss();
    const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 10);
    const body = WORST_BODIES.wide!;
    const head = `POST /posts HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const unfinished = Buffer.from(head + body).subarray(0, -1);
    const { hostname, port } = new URL(server.url);
    for (let i = 0; i < 600; i++) {
      const socket = connect({ host: hostname, port: Number(port) });
      socket.on("error", () => undefined);
      // Only the status line is read: an answer to an unfinished body refuses it.
      socket.once("data", (chunk: Buffer) => {
        const status = Number(chunk.toString("latin1").split(" ")[1]);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      });
      socket.write(unfinished);
      sockets.push(socket);
      if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Until every body the server took has arrived but its last byte, and every other been refused.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const started = performance.now();
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    const health = performance.now() - started;
    clearInterval(sampler);
    return { peak, statuses, health };
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop();
  }
}

/** How long a /healthz took, in milliseconds, during each of the slowest list requests on a store filled to its default budget. */
export type TimeReport = { sort: number; filter: number; wholeLists: number };

/**
 * Fills the default budget with the most posts it holds, titled so that sorting them works
 * hardest, and times a /healthz during a sort, a filter and two whole lists.
 */
export async function timeAttack(): Promise<TimeReport> {
  const dir = mkdtempSync(join(tmpdir(), "exhaustion-"));
  // As many as the default budget holds beside the two seeded users.
  const count = 66_800;
  const posts = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    title: `${"\uE000".repeat(40)}${((i * 7919) % count).toString().padStart(6, "0")}`,
    body: "b",
    createdAt: "2026-01-31T09:30:00.000Z",
  }));
  writeFileSync(join(dir, "seed.json"), JSON.stringify({ posts }));
  const server = await startBuilt({ SEED_FILE: join(dir, "seed.json") });
  try {
    const sort = await healthWhile(server.url, async () => (await fetch(`${server.url}/posts?sort=-title&limit=10`)).arrayBuffer());
    const filter = await healthWhile(server.url, async () => (await fetch(`${server.url}/posts?body=b&sort=title&limit=10`)).arrayBuffer());
    const wholeLists = await healthWhile(server.url, () => Promise.all([1, 2].map(async () => (await fetch(`${server.url}/posts`)).arrayBuffer())));
    return { sort, filter, wholeLists };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
