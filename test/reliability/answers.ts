// Attacks on what answers hold (contract 13), against the built server with default settings: a
// record grown by writes and asked for by clients that never read, requests pipelined behind an
// answer that comes later, and hundreds of whole lists at once. answers.test.ts holds them to the
// promises; the reliability run reports their figures.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readListeningUrl, ROOT } from "../support/target.ts";

const MiB = 1024 * 1024;

/** A built server (dist/) started with `env`: its URL, its resident memory from /proc, and how to stop it. */
type Built = { url: string; rss: () => number; stop: () => Promise<number>; exited: Promise<unknown> };

async function startBuilt(env: Record<string, string>): Promise<Built> {
  const child = spawn(process.execPath, ["dist/main.js"], { cwd: ROOT, env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_FORMAT: "off", ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const url = await readListeningUrl(child);
  const rss = () => {
    try {
      return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) * 1024;
    } catch {
      return 0;
    }
  };
  /**
   * Sends SIGTERM and resolves with the milliseconds until the server acts on it: a new connection
   * is refused, or its `/readyz` answered 503 (shutdown has begun; connections still busy have
   * until the shutdown deadline). Then waits for the process to exit, within that deadline.
   */
  const stop = async () => {
    const started = performance.now();
    child.kill("SIGTERM");
    while (!(await shuttingDown(url))) await pause(20);
    const took = performance.now() - started;
    const exit = await Promise.race([exited.then(() => true), pause(12_000).then(() => false)]);
    assert.ok(exit, "the server had not exited 12 s after SIGTERM");
    return took;
  };
  return { url, rss, stop, exited };
}

/** Whether the server at `url` refuses a new connection, or answers its `/readyz` with 503. */
function shuttingDown(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise<boolean>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once("error", () => resolve(true));
    socket.once("connect", () => socket.write("GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
    socket.once("data", (chunk: Buffer) => {
      socket.destroy();
      resolve(chunk.toString("latin1").startsWith("HTTP/1.1 503"));
    });
    socket.once("close", () => resolve(true));
  });
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Samples resident memory every 10 ms and probes /healthz on a new connection every 100 ms, until stopped. */
function watch(server: Built) {
  let peak = server.rss();
  let slowest = 0;
  let probing = true;
  const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 10);
  const probes = (async () => {
    while (probing) {
      const started = performance.now();
      const response = await fetch(`${server.url}/healthz`);
      await response.arrayBuffer();
      assert.equal(response.status, 200);
      slowest = Math.max(slowest, performance.now() - started);
      await pause(100);
    }
  })();
  return async () => {
    probing = false;
    clearInterval(sampler);
    await probes;
    return { peak, slowest };
  };
}

/** A raw connection that sends `text` and never reads what comes back. */
async function neverReads(url: string, text: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on("error", () => undefined);
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.pause();
  socket.write(text);
  return socket;
}

/** Reads a whole answer off a raw socket, counting its body's bytes without keeping them. */
async function readWhole(url: string, path: string): Promise<number> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
  let head = "";
  let body = 0;
  for await (const chunk of socket as AsyncIterable<Buffer>) {
    if (head.endsWith("\r\n\r\n")) body += chunk.length;
    else {
      const text = chunk.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) head += text;
      else {
        head += text.slice(0, end + 4);
        body += chunk.length - (end + 4);
      }
    }
  }
  return body;
}

/** What the grown-record attack found: the PATCHes' statuses, the record's size, and how many of the 12 connections the server had cut. */
export type GrownReport = { statuses: number[]; size: number; peak: number; cut: number; slowest: number };

/**
 * Grows one post by PATCHes of 200 KB members until the server refuses, then has 12 clients ask
 * for it and read nothing for 35 s, past REQUEST_TIMEOUT_MS (30 s by default); then they read,
 * and find their connections closed.
 */
export async function grownRecordAttack(durable: boolean): Promise<GrownReport> {
  const dir = mkdtempSync(join(tmpdir(), "answers-"));
  const server = await startBuilt(durable ? { DATA_DIR: dir } : {});
  const sockets: Socket[] = [];
  try {
    const created = await fetch(`${server.url}/posts`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"title":"t","body":"b"}' });
    assert.equal(created.status, 201);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const body = JSON.stringify({ [`m${i}`]: "x".repeat(200_000) });
      const response = await fetch(`${server.url}/posts/1`, { method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body });
      await response.arrayBuffer();
      statuses.push(response.status);
      if (response.status !== 200) break;
    }
    const size = (await (await fetch(`${server.url}/posts/1`)).arrayBuffer()).byteLength;
    const done = watch(server);
    for (let i = 0; i < 12; i++) sockets.push(await neverReads(server.url, "GET /posts/1 HTTP/1.1\r\nHost: localhost\r\n\r\n"));
    // Past REQUEST_TIMEOUT_MS (30 s): a connection the server has cut is closed once its client reads what came.
    await pause(35_000);
    const { peak, slowest } = await done();
    const closedSoon = sockets.map(
      (socket) =>
        new Promise<boolean>((resolve) => {
          socket.once("close", () => resolve(true));
          setTimeout(() => resolve(false), 5_000);
          socket.on("data", () => undefined);
          socket.resume();
        }),
    );
    const cut = (await Promise.all(closedSoon)).filter(Boolean).length;
    return { statuses, size, peak, cut, slowest };
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The answers that come later, behind which requests are pipelined. */
export const DEFERRED = ["long list", "DATA_DIR write", "Prefer: delay", "DELAY"] as const;

/** What a pipelining attack found. */
export type PipelineReport = { peak: number; slowest: number; sigterm: number };

/** Posts enough to make `GET /posts` a long list (about 13 MB), as a seed file. */
function longListSeed(dir: string, count = 23_796): string {
  const posts = Array.from({ length: count }, (_, i) => ({ id: i + 1, title: `post ${i}`, body: "b".repeat(470), createdAt: "2026-01-31T09:30:00.000Z" }));
  const file = join(dir, "seed.json");
  writeFileSync(file, JSON.stringify({ posts }));
  return file;
}

/**
 * One connection sends a request whose answer comes later, then pipelines small requests for
 * `seconds` as fast as its socket takes them, never reading; meanwhile /healthz is probed and
 * memory sampled. Last, SIGTERM: how long until the port is closed.
 */
export async function pipelineAttack(kind: (typeof DEFERRED)[number], seconds = 10): Promise<PipelineReport> {
  const dir = mkdtempSync(join(tmpdir(), "answers-"));
  const env: Record<string, string> =
    kind === "long list" ? { SEED_FILE: longListSeed(dir) } : kind === "DATA_DIR write" ? { DATA_DIR: join(dir, "data") } : kind === "Prefer: delay" ? { CONTROL: "on" } : { DELAY: "500" };
  const server = await startBuilt(env);
  const { hostname, port } = new URL(server.url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on("error", () => undefined);
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.pause();
  try {
    const first =
      kind === "long list"
        ? "GET /posts HTTP/1.1\r\nHost: localhost\r\n\r\n"
        : kind === "Prefer: delay"
          ? "GET /users/1 HTTP/1.1\r\nHost: localhost\r\nPrefer: delay=5000\r\n\r\n"
          : 'PATCH /users/1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/merge-patch+json\r\nContent-Length: 12\r\n\r\n{"name":"n"}';
    const small = kind === "DATA_DIR write" ? 'PATCH /users/1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/merge-patch+json\r\nContent-Length: 12\r\n\r\n{"name":"n"}' : "GET /users/1 HTTP/1.1\r\nHost: localhost\r\n\r\n";
    const batch = small.repeat(256);
    const done = watch(server);
    socket.write(first);
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until && !socket.destroyed) {
      // Yielding each time, so that this process's own probes are not held up by its writes.
      if (socket.write(batch)) await new Promise((resolve) => setImmediate(resolve));
      else await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), pause(until - performance.now())]);
    }
    const { peak, slowest } = await done();
    const sigterm = await server.stop();
    return { peak, slowest, sigterm };
  } finally {
    socket.destroy();
    await server.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the concurrent-lists attack found. */
export type ListsReport = { peak: number; slowest: number; statuses: Map<number, number> };

/**
 * Seeds the store with as many posts as the full store held (a 13 MB list), then opens
 * `clients` connections that each ask for the whole list, reading it or not, while /healthz is
 * probed. Readers are waited for; non-readers are held for `holdSeconds`.
 */
export async function concurrentListsAttack(clients: number, reading: boolean, holdSeconds = 10): Promise<ListsReport> {
  const dir = mkdtempSync(join(tmpdir(), "answers-"));
  const server = await startBuilt({ SEED_FILE: longListSeed(dir) });
  const sockets: Socket[] = [];
  const statuses = new Map<number, number>();
  try {
    const done = watch(server);
    const { hostname, port } = new URL(server.url);
    const finished: Promise<unknown>[] = [];
    for (let i = 0; i < clients; i++) {
      const socket = connect({ host: hostname, port: Number(port) });
      socket.on("error", () => undefined);
      sockets.push(socket);
      let first = true;
      let expected = Infinity;
      let received = 0;
      finished.push(
        new Promise<void>((resolve) => {
          socket.on("close", () => resolve());
          socket.on("data", (chunk: Buffer) => {
            if (first) {
              first = false;
              const head = chunk.toString("latin1");
              const status = Number(head.split(" ")[1]);
              statuses.set(status, (statuses.get(status) ?? 0) + 1);
              const length = /content-length: (\d+)/i.exec(head);
              const end = head.indexOf("\r\n\r\n");
              expected = length === null ? 0 : Number(length[1]);
              received = chunk.length - end - 4;
              if (!reading) socket.pause();
            } else received += chunk.length;
            if (received >= expected) resolve();
          });
        }),
      );
      socket.write("GET /posts HTTP/1.1\r\nHost: localhost\r\n\r\n");
    }
    if (reading) await Promise.all(finished);
    else await pause(holdSeconds * 1000);
    const { peak, slowest } = await done();
    return { peak, slowest, statuses };
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A million users (STORE_LIMIT raised to hold them), two clients reading the whole list at once
 * (79 MB each), and /healthz probed every 100 ms meanwhile: the slowest probe, in milliseconds.
 */
export async function millionUsersAttack(): Promise<{ slowest: number; bytes: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), "answers-"));
  const users = Array.from({ length: 1_000_000 }, (_, i) => ({ id: i + 1, name: `User ${i + 1}`, email: `user${i + 1}@example.com`, role: "a" }));
  const file = join(dir, "seed.json");
  writeFileSync(file, JSON.stringify({ users }));
  const server = await startBuilt({ SEED_FILE: file, STORE_LIMIT: "2000000000" });
  try {
    const done = watch(server);
    // Read off raw sockets and counted, not gathered: this process's own collecting of 160 MB
    // would delay its probes, and the probes measure the server.
    const bytes = await Promise.all([1, 2].map(() => readWhole(server.url, "/users")));
    const { slowest } = await done();
    return { slowest, bytes };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export { MiB };
