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

test("a data directory that exists keeps the mode its owner gave it while no one else may write there; the files the server writes there are 0600, older ones and a stale lock too", { skip: SKIP }, async (t) => {
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
  const warnings: string[] = [];
  const second = await startServer({ dataDir, logWarning: (line) => warnings.push(line) });
  closeFirst(t, () => second.close());
  assert.deepEqual(warnings, [], "a directory only its owner may write to is no one else's business");
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

test("a data directory that exists and that group or others may write to is made 0700, with one line saying so", { skip: SKIP }, async (t) => {
  for (const loose of [0o777, 0o1777, 0o775, 0o702]) {
    const dataDir = join(tempDir(t), "data");
    mkdirSync(dataDir);
    chmodSync(dataDir, loose);
    const warnings: string[] = [];
    const server = await startServer({ dataDir, logWarning: (line) => warnings.push(line) });
    closeFirst(t, () => server.close());
    const was = loose.toString(8).padStart(4, "0");
    assert.deepEqual(warnings, [`The data directory ${dataDir} could be written by other users (mode ${was}); its mode is now 0700`]);
    assert.equal((statSync(dataDir).mode & 0o7777).toString(8), "700", was);
    await server.close();
    // Once tight, the next start says nothing.
    const again = await startServer({ dataDir, logWarning: (line) => warnings.push(line) });
    await again.close();
    assert.equal(warnings.length, 1, was);
  }
});

// Root may change any mode: only another user meets a directory it cannot tighten.
const NOT_ROOT = SKIP || (process.getuid?.() !== 0 && "needs root, to run the server as another user");

test("a data directory others may write to that the server cannot tighten is used, with one line saying what to do", { skip: NOT_ROOT }, async (t) => {
  // A volume mounted 0777 and owned by root, used by a server running as nobody.
  const volume = tempDir(t);
  chmodSync(volume, 0o755);
  const dataDir = join(volume, "data");
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o777);
  const main = new URL("../../src/main.ts", import.meta.url).pathname;
  // Coverage is left out: nobody may not write the coverage folder, and would say so on stderr.
  const { NODE_V8_COVERAGE: _coverage, ...env } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", main], {
    cwd: new URL("../..", import.meta.url).pathname,
    env: { ...env, DATA_DIR: dataDir, PORT: "0" },
    uid: 65534,
    gid: 65534,
    stdio: ["ignore", "pipe", "pipe"],
  });
  t.after(() => child.kill("SIGKILL"));
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  let stdout = "";
  for await (const chunk of child.stdout) {
    stdout += chunk;
    if (stdout.includes("\n")) break;
  }
  assert.match(stdout, /listening/i);
  child.kill("SIGTERM");
  await once(child, "exit");
  // Under c8 the child still tries to write its coverage where nobody may not: those lines are the run's, not the server's.
  const lines = stderr.trim().split("\n").filter((line) => !line.includes("/coverage/"));
  assert.deepEqual(lines, [
    `The data directory ${dataDir} (mode 0777) can be written by other users, who could remove or replace its data, and its mode could not be changed (EPERM); make it 0700 or owned by the user the server runs as`,
  ]);
  assert.equal((statSync(dataDir).mode & 0o7777).toString(8), "777");
  assert.deepEqual(modes(dataDir), { "journal-1.log": "600", snapshot: "600" });
});
