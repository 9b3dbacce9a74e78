// Modes in a data directory: one the server makes is 0700, every file it writes 0600, whatever the umask.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { type RunningServer, startServer } from "../../src/http/server.ts";
import { call } from "../support/http.ts";
import { closeFirst, tempDir } from "../support/temp.ts";

// POSIX modes mean nothing on Windows; the server leaves them to its ACLs there.
const SKIP = process.platform === "win32" && "no POSIX modes on Windows";

/** The permission bits of a file or directory. */
function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

/** Each entry of `dir` with its mode in octal, for messages that name the file that is wrong. */
function modes(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((name) => [name, mode(join(dir, name)).toString(8)]));
}

/** Waits until a compaction has left `dir` holding the lock, the snapshot and `journal` only. */
async function compacted(dir: string, journal: string): Promise<void> {
  const want = [journal, "lock", "snapshot"].join(" ");
  for (let waited = 0; readdirSync(dir).sort().join(" ") !== want; waited += 10) {
    assert.ok(waited < 5000, `no compaction after 5 s: ${readdirSync(dir).join(" ")}`);
    await sleep(10);
  }
}

/**
 * Starts a server on `dataDir` that compacts after every write, under `umask`, posts one user
 * and waits until the compaction has replaced the first journal by a snapshot: every kind of
 * file the server writes has then been made under that umask. The umask is restored at once.
 */
async function writeAndCompact(t: Parameters<typeof closeFirst>[0], dataDir: string, umask: number): Promise<RunningServer> {
  const before = process.umask(umask);
  try {
    const server = await startServer({ dataDir, compactBytes: 1 });
    closeFirst(t, () => server.close());
    const created = await call(`${server.url}/users`, { method: "POST", json: { name: "Grace Hopper", email: "grace@example.com" } });
    assert.equal(created.status, 201);
    // The compaction covers journal-1.log with a new snapshot (snapshot.tmp renamed), removes
    // it, and the next journal is opened for the writes after it.
    await compacted(dataDir, "journal-2.log");
    return server;
  } finally {
    process.umask(before);
  }
}

// 0 would leave whatever mode open() and mkdir() are given; 0o277 takes the owner's write
// bit and all of group and others, so only a chmod after creating gives exactly 0600 and 0700.
for (const umask of [0o000, 0o277]) {
  test(`under umask ${umask.toString(8).padStart(3, "0")} a data directory the server makes is 0700, its parents too, and every file in it 0600`, { skip: SKIP }, async (t) => {
    const parent = join(tempDir(t), "volume");
    const dataDir = join(parent, "data");
    const server = await writeAndCompact(t, dataDir, umask);
    assert.equal(mode(dataDir).toString(8), "700");
    assert.equal(mode(parent).toString(8), "700");
    assert.deepEqual(modes(dataDir), { "journal-2.log": "600", lock: "600", snapshot: "600" });
    // What outlives the server keeps its mode.
    await server.close();
    assert.deepEqual(modes(dataDir), { "journal-2.log": "600", snapshot: "600" });
  });
}

test("a data directory that exists keeps the mode its owner gave it; the files the server writes there are 0600, older ones and a stale lock too", { skip: SKIP }, async (t) => {
  const dataDir = join(tempDir(t), "data");
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755);
  await (await writeAndCompact(t, dataDir, 0o022)).close();
  // As an earlier version left them, readable by everyone, with the lock of a process killed.
  const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(dead, "exit");
  writeFileSync(join(dataDir, "lock"), `${dead.pid} host\n`);
  for (const name of readdirSync(dataDir)) chmodSync(join(dataDir, name), 0o644);
  assert.deepEqual(modes(dataDir), { "journal-2.log": "644", lock: "644", snapshot: "644" });

  // The stale lock is taken over by a new file renamed over it; the newest journal, opened
  // again for appends, is set to 0600 before the write is kept in it; the snapshot waits for
  // the next compaction.
  const second = await startServer({ dataDir });
  closeFirst(t, () => second.close());
  assert.equal((await call(`${second.url}/users`, { method: "POST", json: { name: "Kay", email: "kay@example.com" } })).status, 201);
  assert.deepEqual(modes(dataDir), { "journal-2.log": "600", lock: "600", snapshot: "644" });
  await second.close();

  const third = await startServer({ dataDir, compactBytes: 1 });
  closeFirst(t, () => third.close());
  assert.equal((await call(`${third.url}/users`, { method: "POST", json: { name: "Lin", email: "lin@example.com" } })).status, 201);
  await compacted(dataDir, "journal-3.log");
  assert.deepEqual(modes(dataDir), { "journal-3.log": "600", lock: "600", snapshot: "600" });
  assert.equal(mode(dataDir).toString(8), "755");
  assert.deepEqual(((await call(`${third.url}/users`)).body as Array<{ id: number }>).map((user) => user.id), [1, 2, 3, 4, 5]);
});
