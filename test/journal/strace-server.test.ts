// Traces the HTTP server with strace on Node, Deno and Bun: every 201 answer is written to its client's socket only after an fdatasync that covers the journal write holding its entry.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { ensureRuntimes } from "../../scripts/install-runtimes.ts";
import { processEnv, readListeningUrl, ROOT } from "../support/target.ts";
import { connect } from "./crash-http.ts";
import { CRASH_RUNTIMES, crashServerCommand } from "./server-crash.ts";
import { tempDir } from "./support.ts";

// npm run test:all installs strace when it is missing (scripts/system-packages.ts); without it these tests fail.
const STRACE = spawnSync("strace", ["-V"]).status === 0;
const CLIENTS = 8;
const PER_CLIENT = 25;

before(() => {
  assert.ok(STRACE, "strace is not installed; install it: apt-get install -y --no-install-recommends strace");
  ensureRuntimes();
});

type Call = { name: string; path: string; text: string };

/**
 * Reads strace's output (-f -y, with or without -tt) in order. As in strace.test.ts, the
 * lines are in causal order: a thread stopped at a call's exit goes on only after its line
 * is written, so whatever that call's result caused comes later in the file. Every 201
 * answer written to a socket names its user in `location: /users/<id>`; that user's entry
 * must have been written to a journal before an fdatasync (or fsync) of that journal began,
 * and that sync must have completed before the answer's write began.
 */
export function checkServerTrace(trace: string): { answers: number; uncovered: number[]; syncs: number; journals: number } {
  const written = new Map<string, number[]>(); // journal path -> users whose entry's write completed
  const synced = new Set<number>();
  const open = new Map<string, { call: Call; covers: number[] }>(); // pid -> call in flight
  const uncovered: number[] = [];
  let answers = 0;
  let syncs = 0;
  const journal = (path: string) => /journal-\d+\.log$/.test(path);
  const complete = (call: Call, covers: number[]): void => {
    if (!journal(call.path)) return;
    if (/sync/.test(call.name)) {
      syncs++;
      for (const id of covers) synced.add(id);
    } else {
      const ids = [...call.text.matchAll(/\\"put\\":\\"users\\",\\"record\\":\{\\"id\\":(\d+)/g)].map((m) => Number(m[1]));
      written.set(call.path, [...(written.get(call.path) ?? []), ...ids]);
    }
  };
  for (const line of trace.split("\n")) {
    const match = /^(\d+) +(?:\d\d:\d\d:\d\d\.\d+ +)?(.*)$/.exec(line);
    if (match === null) continue;
    const [, pid, rest] = match as unknown as [string, string, string];
    if (/^<\.\.\. \w+ resumed>/.test(rest)) {
      const pending = open.get(pid);
      open.delete(pid);
      if (pending !== undefined) complete(pending.call, pending.covers);
      continue;
    }
    const start = /^(\w+)\((\d+)<([^>]*)>(.*)$/.exec(rest);
    if (start === null) continue;
    const [, name, , path, text] = start as unknown as [string, string, string, string, string];
    const call = { name, path, text };
    // A sync covers the writes to its file completed before it began, whichever descriptor they used.
    const covers = /sync/.test(name) ? [...(written.get(path) ?? [])] : [];
    if (path.startsWith("socket:") && /^(write|writev|sendto|sendmsg)$/.test(name) && text.includes("HTTP/1.1 201")) {
      for (const answer of text.matchAll(/location: \/users\/(\d+)/g)) {
        answers++;
        if (!synced.has(Number(answer[1]))) uncovered.push(Number(answer[1]));
      }
    }
    if (text.endsWith("<unfinished ...>")) open.set(pid, { call, covers });
    else complete(call, covers);
  }
  return { answers, uncovered, syncs, journals: written.size };
}

for (const runtime of CRASH_RUNTIMES) {
  test(`strace on the server on ${runtime}: each 201 reaches its socket after the fdatasync that covers its journal entry`, async (t) => {
    const dir = tempDir(t);
    const out = join(dir, "..", `${dir.split("/").pop()}.strace`);
    t.after(() => spawnSync("rm", ["-f", out]));
    const { command, args } = crashServerCommand(runtime);
    const calls = "trace=write,writev,pwrite64,pwritev,pwritev2,sendto,sendmsg,fdatasync,fsync";
    const traced = spawn("strace", ["-f", "-qq", "-tt", "-y", "-s", "65536", "-e", calls, "-o", out, command, ...args], {
      cwd: ROOT,
      // A small bound, so that a compaction runs among the writes too.
      env: processEnv({ DATA_DIR: dir, FSYNC: "always", COMPACT_BYTES: String(4 * 1024) }),
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = once(traced, "exit") as Promise<[number | null, string | null]>;
    const url = await readListeningUrl(traced);
    // Concurrent clients, so that answers wait for syncs that group several entries.
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        const connection = connect(url);
        try {
          for (let n = 0; n < PER_CLIENT; n++) {
            const id = 5000 + client * PER_CLIENT + n;
            const answer = await connection.send("POST", "/users", { id, name: `user ${id}`, email: `u${id}@example.com` });
            assert.equal(answer.status, 201);
          }
        } finally {
          connection.close();
        }
      }),
    );
    // The server, not strace, is stopped: the lock names its pid. strace ends when it does.
    process.kill(Number.parseInt(readFileSync(join(dir, "lock"), "utf8"), 10), "SIGTERM");
    const [code] = await exited;
    assert.equal(code, 0);
    const { answers, uncovered, syncs, journals } = checkServerTrace(readFileSync(out, "utf8"));
    assert.equal(answers, CLIENTS * PER_CLIENT, "every 201 was seen written to a socket");
    assert.deepEqual(uncovered, [], "answered before a sync covered them");
    assert.ok(syncs > 0 && syncs < CLIENTS * PER_CLIENT, `${syncs} journal syncs: group commit shares them`);
    assert.ok(journals > 1, "compactions moved the writes to new journal generations");
    t.diagnostic(`${runtime}: ${answers} answers, each after its fdatasync; ${syncs} journal syncs over ${journals} journal generations`);
  });
}

test("checkServerTrace finds an answer written before the sync of its entry", () => {
  const entry = String.raw`"0 {\"effects\":[{\"put\":\"users\",\"record\":{\"id\":7,\"name\":\"x\"},\"version\":4}]}\n"`;
  const answer = String.raw`[{iov_base="HTTP/1.1 201 Created\r\nlocation: /users/7\r\n\r\n", iov_len=40}], 1) = 40`;
  const early = [
    `7 10:00:00.000001 write(19</d/journal-1.log>, ${entry}, 60) = 60`,
    `5 10:00:00.000002 writev(26<socket:[1]>, ${answer}`,
    `8 10:00:00.000003 fdatasync(29</d/journal-1.log>) = 0`,
  ].join("\n");
  assert.deepEqual(checkServerTrace(early), { answers: 1, uncovered: [7], syncs: 1, journals: 1 });
  // A sync that began before the entry's write completed does not cover it.
  const raced = [
    `8 fdatasync(29</d/journal-1.log> <unfinished ...>`,
    `7 write(19</d/journal-1.log>, ${entry}, 60) = 60`,
    `8 <... fdatasync resumed>) = 0`,
    `5 writev(26<socket:[1]>, ${answer}`,
  ].join("\n");
  assert.deepEqual(checkServerTrace(raced), { answers: 1, uncovered: [7], syncs: 1, journals: 1 });
  const covered = [
    `7 write(19</d/journal-1.log>, ${entry}, 60 <unfinished ...>`,
    `7 <... write resumed>) = 60`,
    `8 fdatasync(29</d/journal-1.log> <unfinished ...>`,
    `8 <... fdatasync resumed>) = 0`,
    String.raw`5 sendto(26<socket:[1]>, "HTTP/1.1 201 Created\r\nlocation: /users/7\r\n\r\n", 40, 0, NULL, 0) = 40`,
  ].join("\n");
  assert.deepEqual(checkServerTrace(covered), { answers: 1, uncovered: [], syncs: 1, journals: 1 });
});
