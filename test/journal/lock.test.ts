// White-box tests of src/journal/lock.ts: one live process per directory, stale locks taken over.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { hostname } from "node:os";
import { acquireLock, LOCK_FILE, LockedError, startOf } from "../../src/store/journal/lock.ts";
import { tempDir } from "./support.ts";

test("acquireLock creates the lock with this pid, and release removes it once", (t) => {
  const dir = tempDir(t);
  const lock = acquireLock(dir);
  assert.match(readFileSync(join(dir, LOCK_FILE), "utf8"), new RegExp(`^${process.pid} `));
  lock.release();
  assert.equal(existsSync(join(dir, LOCK_FILE)), false);
  lock.release();
});

test("acquireLock refuses a directory locked by another live process, in one line", async (t) => {
  const dir = tempDir(t);
  const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  t.after(() => other.kill("SIGKILL"));
  writeFileSync(join(dir, LOCK_FILE), `${other.pid} elsewhere\n`);
  assert.throws(
    () => acquireLock(dir),
    (error: unknown) =>
      error instanceof LockedError && error.pid === other.pid && error.message === `${dir} is in use by process ${other.pid}; stop it or use another DATA_DIR`,
  );
  assert.equal(readFileSync(join(dir, LOCK_FILE), "utf8"), `${other.pid} elsewhere\n`);
});

test("acquireLock takes over a lock left by a dead process, by this pid (a restarted container), or unreadable", async (t) => {
  const dir = tempDir(t);
  const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(dead, "exit");
  for (const content of [`${dead.pid} host\n`, `${process.pid} host\n`, "", "garbage"]) {
    writeFileSync(join(dir, LOCK_FILE), content);
    const lock = acquireLock(dir);
    assert.match(readFileSync(join(dir, LOCK_FILE), "utf8"), new RegExp(`^${process.pid} `), JSON.stringify(content));
    lock.release();
  }
});

test("processes that find the same stale lock at once: exactly one takes it over, the others are refused", { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t);
  const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(dead, "exit");
  // Four processes for all the rounds: each takes the lock when told to, and lets go when told to.
  const children = Array.from({ length: 4 }, () =>
    spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "lock-child.ts"), dir], { stdio: ["pipe", "pipe", "inherit"] }),
  );
  t.after(() => children.forEach((child) => child.kill("SIGKILL")));
  const replies = children.map((child) => {
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    return async () => {
      const { value, done } = await lines.next();
      if (done) assert.fail(`a lock process ended (exit code ${child.exitCode})`);
      return value;
    };
  });
  assert.deepEqual(await Promise.all(replies.map((reply) => reply())), ["ready", "ready", "ready", "ready"]);
  for (let round = 0; round < 15; round++) {
    writeFileSync(join(dir, LOCK_FILE), `${dead.pid} host\n`);
    // All four are waiting, then told at once.
    for (const child of children) child.stdin!.write("go\n");
    const outcomes = await Promise.all(replies.map((reply) => reply()));
    assert.deepEqual(outcomes.filter((outcome) => outcome === "locked").length, 1, `round ${round}: ${outcomes.join(", ")}`);
    const holder = outcomes.indexOf("locked");
    children[holder]!.stdin!.write("release\n");
    assert.equal(await replies[holder]!(), "released");
    // The one that held it removed it on release; no guard or temporary file is left.
    assert.deepEqual(readdirSync(dir), []);
  }
  for (const child of children) child.stdin!.end();
  await Promise.all(children.map((child) => (child.exitCode === null ? once(child, "exit") : undefined)));
  assert.deepEqual(children.map((child) => child.exitCode), [0, 0, 0, 0]);
});

test("a guard left by a process killed while it took a lock over is stale too; one held by a live process refuses", async (t) => {
  const dir = tempDir(t);
  const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(dead, "exit");
  writeFileSync(join(dir, LOCK_FILE), `${dead.pid} host\n`);
  writeFileSync(join(dir, `${LOCK_FILE}.takeover`), `${dead.pid} host\n`);
  const lock = acquireLock(dir);
  assert.deepEqual(readdirSync(dir), [LOCK_FILE]);
  lock.release();
  const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  t.after(() => other.kill("SIGKILL"));
  writeFileSync(join(dir, LOCK_FILE), `${dead.pid} host\n`);
  writeFileSync(join(dir, `${LOCK_FILE}.takeover`), `${other.pid} elsewhere\n`);
  assert.throws(() => acquireLock(dir), (error: unknown) => error instanceof LockedError && error.pid === other.pid);
  assert.equal(readFileSync(join(dir, LOCK_FILE), "utf8"), `${dead.pid} host\n`);
});

test("release removes only a lock that still names this process", (t) => {
  const dir = tempDir(t);
  const lock = acquireLock(dir);
  writeFileSync(join(dir, LOCK_FILE), "4194000 elsewhere\n");
  lock.release();
  assert.equal(readFileSync(join(dir, LOCK_FILE), "utf8"), "4194000 elsewhere\n");
});

test("acquireLock passes on errors other than an existing lock", (t) => {
  assert.throws(() => acquireLock(join(tempDir(t), "missing")), { code: "ENOENT" });
});

test("acquireLock refuses, in one line saying what to do, a lock whose owner the runtime may not check", (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, LOCK_FILE), "4194000 elsewhere\n");
  const kill = process.kill;
  // As Deno answers process.kill without --allow-run: an error with no errno code.
  process.kill = () => {
    throw new Error("Requires run access");
  };
  try {
    assert.throws(() => acquireLock(dir), {
      name: "LockedError",
      message: `${dir} is locked by process 4194000, which this runtime may not check (Deno needs --allow-run); if it is gone, remove ${join(dir, LOCK_FILE)}`,
    });
  } finally {
    process.kill = kill;
  }
});

// Where /proc shows when a process started (Linux), a lock says so, and a pid given again is told apart.
const NO_PROC = !existsSync("/proc/self/stat") && "no /proc on this system";

test("a lock says when its owner started; a live process with the lock's pid that started at another time does not hold it", { skip: NO_PROC }, async (t) => {
  const dir = tempDir(t);
  const lock = acquireLock(dir);
  const text = readFileSync(join(dir, LOCK_FILE), "utf8");
  assert.equal(text, `${process.pid} ${hostname()}\nstarted ${startOf(process.pid)}\n`);
  assert.match(text, /\nstarted [0-9a-f-]{36}:\d+\n$/);
  lock.release();

  // An unrelated live process that has the pid a killed server had: its start differs.
  const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  t.after(() => other.kill("SIGKILL"));
  await once(other, "spawn");
  const real = startOf(other.pid!)!;
  const [boot, ticks] = real.split(":");
  for (const started of [`${boot}:${Number(ticks) + 1}`, `00000000-0000-0000-0000-000000000000:${ticks}`]) {
    writeFileSync(join(dir, LOCK_FILE), `${other.pid} ${hostname()}\nstarted ${started}\n`);
    const taken = acquireLock(dir);
    assert.match(readFileSync(join(dir, LOCK_FILE), "utf8"), new RegExp(`^${process.pid} `), started);
    taken.release();
  }

  // The same process, still running, holds it; so does any live pid when the lock cannot say
  // (an earlier version's lock, another host's, one whose start was not known).
  for (const content of [
    `${other.pid} ${hostname()}\nstarted ${real}\n`,
    `${other.pid} ${hostname()}\n`,
    `${other.pid} another-host\nstarted ${boot}:${Number(ticks) + 1}\n`,
    `${other.pid} \nstarted ${boot}:${Number(ticks) + 1}\n`,
  ]) {
    writeFileSync(join(dir, LOCK_FILE), content);
    assert.throws(() => acquireLock(dir), (error: unknown) => error instanceof LockedError && error.pid === other.pid, JSON.stringify(content));
  }
});

test("startOf is undefined for a pid that does not exist", () => {
  assert.equal(startOf(2 ** 22 + 1), undefined);
});
