// Readers of a full request log (CONTROL=on) that never read the answer: the server's resident memory and /healthz.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { test } from "node:test";
import { readListeningUrl, ROOT } from "../support/target.ts";

const MiB = 1024 * 1024;

/**
 * A body of 64 KiB, the largest the log shows parsed, of 21,000 empty objects: the shape that
 * costs most once parsed. The API refuses it (no title), so nothing is stored, and the log keeps it.
 */
const BODY = `{"z":[${Array.from({ length: 21_000 }, () => "{}").join(",")}]}`;

/** A client that asks for the whole log and never reads a byte of the answer. */
async function stalledReader(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on("error", () => undefined);
  socket.pause();
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write("GET /__control/requests HTTP/1.1\r\nHost: localhost\r\n\r\n");
  return socket;
}

test("8 readers of a full request log that never read: resident memory stays under 512 MiB, and /healthz answers within 1 s; 32 share one answer", async (t) => {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", CONTROL: "on", LOG_FORMAT: "off" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const readers: Socket[] = [];
  t.after(async () => {
    for (const socket of readers) socket.destroy();
    child.kill("SIGTERM");
    await exited;
  });
  const url = await readListeningUrl(child);
  const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) * 1024;

  // The log holds 8 MiB: 128 such bodies fill it, and the oldest go.
  for (let index = 0; index < 140; index++) {
    const response = await fetch(`${url}/posts`, { method: "POST", headers: { "content-type": "application/json" }, body: BODY });
    await response.arrayBuffer();
    assert.equal(response.status, 400);
  }
  const listed = await fetch(`${url}/__control/requests`);
  const answer = await listed.text();
  assert.equal(listed.status, 200);
  assert.ok(answer.length > 7 * MiB && answer.length <= 8 * MiB, `${answer.length} characters`);
  const before = rss();

  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
  const health = async () => {
    const started = performance.now();
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    return performance.now() - started;
  };
  try {
    for (let index = 0; index < 8; index++) readers.push(await stalledReader(url));
    const during = await health();
    // Long enough for every answer to be made and handed to its connection.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await health();
    const eight = peak;
    t.diagnostic(`8 readers: resident memory ${Math.round(before / MiB)} MiB before, peak ${Math.round(eight / MiB)} MiB; /healthz ${Math.round(during)} ms, then ${Math.round(after)} ms`);
    assert.ok(eight < 512 * MiB, `peak ${Math.round(eight / MiB)} MiB`);
    assert.ok(during < 1000 && after < 1000, `/healthz took ${Math.round(during)} ms, then ${Math.round(after)} ms`);
    // 24 more: the log is unchanged, so every reader is sent the same bytes, and none holds a copy of its own (8 MiB each).
    for (let index = 0; index < 24; index++) readers.push(await stalledReader(url));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const last = await health();
    t.diagnostic(`32 readers: peak ${Math.round(peak / MiB)} MiB; /healthz ${Math.round(last)} ms`);
    assert.ok(peak - before < 32 * MiB, `32 readers took the resident memory from ${Math.round(before / MiB)} to ${Math.round(peak / MiB)} MiB`);
    assert.ok(last < 1000, `/healthz took ${Math.round(last)} ms`);
  } finally {
    clearInterval(sampler);
  }
});
