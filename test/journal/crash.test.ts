// Crash tests: a child process appending as fast as it can is killed with SIGKILL at random moments, on Node, Deno and Bun; no acknowledged entry may be lost.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { before, test } from "node:test";
import { ensureTestedRuntimes, testedRuntimes } from "../support/runtimes.ts";
import { loadDataDir } from "../../src/store/journal/load.ts";
import { childCommand, RUNTIMES, tempDir } from "./support.ts";

// Bounded: a few cycles per runtime keep the whole file to a few seconds.
const CYCLES = Number(process.env.JOURNAL_CRASH_CYCLES ?? 6);

before(() => {
  ensureTestedRuntimes(RUNTIMES);
});

/** Starts the child on `dir` and calls `onLine` with each line it prints. */
function start(runtime: (typeof RUNTIMES)[number], dir: string, onLine: (line: string) => void): { child: ChildProcess; stderr: () => string } {
  const { command, args } = childCommand(runtime, [dir]);
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" } });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout! }).on("line", onLine);
  return { child, stderr: () => stderr };
}

for (const runtime of testedRuntimes(RUNTIMES)) {
  test(`a journal killed with SIGKILL at random moments on ${runtime} keeps every acknowledged entry`, async (t) => {
    const dir = tempDir(t);
    let acknowledged = 0;
    let highest = 0;
    let torn = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const acks: number[] = [];
      let killAt = 0;
      const { child, stderr } = start(runtime, dir, (line) => {
        const [word, id] = line.split(" ");
        if (word === "ack") acks.push(Number(id));
        // Killed some random time after the first acknowledgement: mid-append, mid-sync or mid-compaction.
        if (word === "ready" && killAt === 0) {
          killAt = Math.random() * 150;
          setTimeout(() => child.kill("SIGKILL"), killAt);
        }
      });
      const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
      assert.equal(signal, "SIGKILL", `cycle ${cycle} ended by itself (${code}): ${stderr()}`);
      if (/dropped a torn last entry/.test(stderr())) torn++;
      const { state } = loadDataDir(dir);
      const items = state!.collections.get("items")!;
      for (const id of acks) assert.ok(items.records.has(id), `cycle ${cycle}: acknowledged entry ${id} is lost`);
      // Entries are kept in order: the ids held are exactly 1..n, with no hole.
      assert.deepEqual([...items.records.keys()], Array.from({ length: items.records.size }, (_, i) => i + 1));
      const last = (state!.collections.get("counters")!.records.get(1)?.record.last as number | undefined) ?? 0;
      assert.equal(last, items.records.size, "both effects of each entry are applied together");
      acknowledged += acks.length;
      highest = Math.max(highest, ...acks);
    }
    assert.ok(acknowledged > 0, "the child acknowledged something before being killed");
    t.diagnostic(`${runtime}: ${CYCLES} kills, ${acknowledged} entries acknowledged, 0 lost, ${torn} torn tails dropped at start-up`);
  });
}

for (const runtime of testedRuntimes(RUNTIMES)) {
  test(`a second process on the same data directory on ${runtime} exits 1 with one line`, async (t) => {
    const dir = tempDir(t);
    let ready!: () => void;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const first = start(runtime, dir, (line) => line.startsWith("ready") && ready());
    // A first process that ends before it is ready fails the test with what it printed, rather than leaving it waiting.
    let isReady = false;
    const ended = once(first.child, "exit").then(([code]) => {
      if (!isReady) assert.fail(`the first process exited with ${code} before it was ready: ${first.stderr()}`);
    });
    await Promise.race([started, ended]);
    isReady = true;
    const second = start(runtime, dir, () => {});
    const [code] = (await once(second.child, "exit")) as [number | null];
    // Stopped before the directory is removed, so nothing writes into it meanwhile.
    first.child.kill("SIGKILL");
    await once(first.child, "exit");
    assert.equal(code, 1);
    assert.equal(second.stderr(), `${dir} is in use by process ${first.child.pid}; stop it or use another DATA_DIR\n`);
  });
}
