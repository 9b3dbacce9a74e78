// Traces the journal child with strace on Node, Deno and Bun: every acknowledgement is written to stdout only after an fdatasync that covers its entry.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { ensureRuntimes } from "../../scripts/install-runtimes.ts";
import { childCommand, RUNTIMES, tempDir } from "./support.ts";

// npm run test:all installs strace when it is missing (scripts/system-packages.ts); without it these tests fail.
const STRACE = spawnSync("strace", ["-V"]).status === 0;
const ENTRIES = 300;

before(() => {
  assert.ok(STRACE, "strace is not installed; install it: apt-get install -y --no-install-recommends strace");
  ensureRuntimes();
});

type Call = { name: string; path: string; text: string };

/**
 * Reads strace's output (-f -y) in order. Its lines are in the order the calls happened
 * as far as causality goes: a thread stopped at a call's exit is resumed only after the
 * line is written, so anything that call's result caused comes later in the file.
 * Returns the acknowledgements and, for each, whether a sync covering it had completed.
 */
export function checkTrace(trace: string): { acks: number; uncovered: number[]; syncs: number } {
  const written = new Map<string, number[]>(); // journal path -> ids whose write completed
  const synced = new Set<number>();
  const open = new Map<string, { call: Call; covers: number[] }>(); // pid -> call in flight
  const uncovered: number[] = [];
  let acks = 0;
  let syncs = 0;
  const complete = (call: Call, covers: number[]): void => {
    if (/journal-\d+\.log$/.test(call.path)) {
      if (call.name.includes("write")) {
        const ids = [...call.text.matchAll(/\\"put\\":\\"items\\",\\"record\\":\{\\"id\\":(\d+)/g)].map((m) => Number(m[1]));
        written.set(call.path, [...(written.get(call.path) ?? []), ...ids]);
      } else {
        syncs++;
        for (const id of covers) synced.add(id);
      }
    }
  };
  for (const line of trace.split("\n")) {
    const match = /^(\d+) +(.*)$/.exec(line);
    if (match === null) continue;
    const [, pid, rest] = match as unknown as [string, string, string];
    const resumed = /^<\.\.\. (\w+) resumed>/.exec(rest);
    if (resumed !== null) {
      const pending = open.get(pid);
      open.delete(pid);
      if (pending !== undefined) complete(pending.call, pending.covers);
      continue;
    }
    const start = /^(\w+)\((\d+)<([^>]*)>(.*)$/.exec(rest);
    if (start === null) continue;
    const [, name, fd, path, text] = start as unknown as [string, string, string, string, string];
    const call = { name, path, text };
    // A sync covers the journal writes completed before it began.
    const covers = name.includes("sync") ? [...(written.get(path) ?? [])] : [];
    if (fd === "1" && name === "write") {
      for (const ack of text.matchAll(/ack (\d+)/g)) {
        acks++;
        if (!synced.has(Number(ack[1]))) uncovered.push(Number(ack[1]));
      }
    }
    if (text.endsWith("<unfinished ...>")) open.set(pid, { call, covers });
    else complete(call, covers);
  }
  return { acks, uncovered, syncs };
}

for (const runtime of RUNTIMES) {
  test(`strace on ${runtime}: each acknowledgement reaches stdout after the fdatasync that covers its entry`, (t) => {
    const dir = tempDir(t);
    const out = join(dir, "..", `${dir.split("/").pop()}.strace`);
    t.after(() => spawnSync("rm", ["-f", out]));
    const { command, args } = childCommand(runtime, [dir, String(ENTRIES)]);
    const traceArgs = ["-f", "-qq", "-y", "-s", "1000000", "-e", "trace=write,writev,pwrite64,pwritev,pwritev2,fdatasync,fsync", "-o", out];
    const result = spawnSync("strace", [...traceArgs, command, ...args], {
      encoding: "utf8",
      env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", COMPACT_BYTES: String(8 * 1024) },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.split("\n").filter((line) => line.startsWith("ack ")).length, ENTRIES);
    const { acks, uncovered, syncs } = checkTrace(readFileSync(out, "utf8"));
    assert.equal(acks, ENTRIES, "every acknowledgement was seen in the trace");
    assert.deepEqual(uncovered, [], "acknowledged before a sync covered them");
    assert.ok(syncs > 0 && syncs < ENTRIES, `${syncs} syncs: group commit shares them`);
    t.diagnostic(`${runtime}: ${acks} acknowledgements, each after its fdatasync; ${syncs} journal syncs`);
  });
}

test("checkTrace finds an acknowledgement written before its sync", () => {
  const entry = String.raw`"0 {\"effects\":[{\"put\":\"items\",\"record\":{\"id\":1,\"text\":\"x\"}}]}\n"`;
  const before = [`7 write(9</d/journal-1.log>, ${entry}, 60) = 60`, `7 write(1<pipe:[1]>, "ack 1\n", 6) = 6`, `8 fdatasync(9</d/journal-1.log>) = 0`].join("\n");
  assert.deepEqual(checkTrace(before), { acks: 1, uncovered: [1], syncs: 1 });
  const after = [
    `8 write(9</d/journal-1.log>, ${entry}, 60 <unfinished ...>`,
    `8 <... write resumed>) = 60`,
    `8 fdatasync(9</d/journal-1.log> <unfinished ...>`,
    `8 <... fdatasync resumed>) = 0`,
    `7 write(1<pipe:[1]>, "ack 1\n", 6) = 6`,
  ].join("\n");
  assert.deepEqual(checkTrace(after), { acks: 1, uncovered: [], syncs: 1 });
});
