// White-box tests of src/journal/load.ts: start-up after a crash at every point of a compaction, torn tails, and refused damage.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { JournalDamageError } from "../../src/store/journal/damage.ts";
import { encodeEntry, type JournalEntry } from "../../src/store/journal/format.ts";
import { journalName, loadDataDir } from "../../src/store/journal/load.ts";
import { SNAPSHOT_TEMP_FILE, writeSnapshot } from "../../src/store/journal/snapshot.ts";
import { applyEntry, copyState, emptyState } from "../../src/store/journal/state.ts";
import { plain, putUser, tempDir } from "./support.ts";

function journal(dir: string, generation: number, entries: JournalEntry[], tail: Uint8Array = new Uint8Array()): void {
  writeFileSync(join(dir, journalName(generation)), Buffer.concat([...entries.map(encodeEntry), tail]));
}

function replayed(entries: JournalEntry[]) {
  const state = emptyState("e", ["users"]);
  for (const entry of entries) applyEntry(state, entry);
  return state;
}

const E = [1, 2, 3, 4, 5, 6].map((n) => putUser(n, n));

test("loadDataDir of an empty directory has no state and starts at generation 1", (t) => {
  const dir = tempDir(t);
  assert.deepEqual(loadDataDir(dir), { state: undefined, generation: 1, size: 0, journals: [], warnings: [] });
});

test("loadDataDir loads the snapshot and replays the journals after it in order", async (t) => {
  const dir = tempDir(t);
  await writeSnapshot(dir, replayed(E.slice(0, 2)), 3);
  journal(dir, 4, E.slice(2, 4));
  journal(dir, 5, E.slice(4));
  const loaded = loadDataDir(dir);
  assert.deepEqual(plain(loaded.state), plain(replayed(E)));
  assert.deepEqual([loaded.generation, loaded.journals, loaded.warnings], [5, [4, 5], []]);
  assert.equal(loaded.size, readFileSync(join(dir, journalName(5))).length);
});

test("loadDataDir after a crash before the snapshot's rename: the temporary file is removed, the old snapshot and every journal replayed", async (t) => {
  const dir = tempDir(t);
  await writeSnapshot(dir, replayed([]), 0);
  journal(dir, 1, E.slice(0, 3));
  // Compaction began: generation 2 took appends, the new snapshot was half written.
  journal(dir, 2, E.slice(3));
  writeFileSync(join(dir, SNAPSHOT_TEMP_FILE), "half a snapsh");
  const loaded = loadDataDir(dir);
  assert.deepEqual(plain(loaded.state), plain(replayed(E)));
  assert.equal(existsSync(join(dir, SNAPSHOT_TEMP_FILE)), false);
});

test("loadDataDir after a crash between the rename and the old journal's removal: the covered journal is not applied twice, and is removed", async (t) => {
  const dir = tempDir(t);
  journal(dir, 1, E.slice(0, 3));
  await writeSnapshot(dir, replayed(E.slice(0, 3)), 1);
  journal(dir, 2, E.slice(3));
  const loaded = loadDataDir(dir);
  assert.deepEqual(plain(loaded.state), plain(replayed(E)));
  assert.deepEqual(loaded.journals, [2]);
  assert.deepEqual(readdirSync(dir).sort(), [journalName(2), "snapshot"]);
});

test("loadDataDir after a compaction made the new journal, before anything was written to it, starts there", async (t) => {
  const dir = tempDir(t);
  journal(dir, 8, []);
  await writeSnapshot(dir, replayed(E), 7);
  const loaded = loadDataDir(dir);
  assert.deepEqual([loaded.generation, loaded.size, loaded.journals], [8, 0, [8]]);
  assert.deepEqual(plain(loaded.state), plain(replayed(E)));
});

test("loadDataDir after a new directory's first start was cut short between its first journal and its first snapshot is a new directory", (t) => {
  const dir = tempDir(t);
  journal(dir, 1, []);
  assert.deepEqual(loadDataDir(dir), { state: undefined, generation: 1, size: 0, journals: [], warnings: [] });
});

test("loadDataDir cuts a torn last entry off the newest journal, syncs it and warns once", async (t) => {
  const dir = tempDir(t);
  await writeSnapshot(dir, replayed([]), 0);
  journal(dir, 1, E.slice(0, 2));
  const torn = encodeEntry(E[2]!).subarray(0, 30);
  journal(dir, 2, E.slice(2, 3), torn);
  const loaded = loadDataDir(dir);
  const path = join(dir, journalName(2));
  assert.deepEqual(plain(loaded.state), plain(replayed(E.slice(0, 3))));
  assert.equal(loaded.warnings.length, 1);
  assert.equal(loaded.warnings[0], `${path}: dropped a torn last entry at byte ${encodeEntry(E[2]!).length} (30 bytes), left by a crash mid-append`);
  assert.equal(readFileSync(path).length, encodeEntry(E[2]!).length);
  assert.equal(loaded.size, encodeEntry(E[2]!).length);
  // The next start finds it clean.
  assert.deepEqual(loadDataDir(dir).warnings, []);
});

test("loadDataDir refuses damage with a JournalDamageError and changes nothing on disk", async (t) => {
  const cases: [string, (dir: string) => Promise<void>, RegExp][] = [
    [
      "a torn entry in an older journal",
      async (dir) => {
        await writeSnapshot(dir, replayed([]), 0);
        journal(dir, 1, E.slice(0, 1), encodeEntry(E[1]!).subarray(0, 9));
        journal(dir, 2, E.slice(1, 2));
      },
      /journal-1\.log is damaged at byte \d+: an older journal ends with a torn entry/,
    ],
    [
      "a missing journal",
      async (dir) => {
        await writeSnapshot(dir, replayed([]), 0);
        journal(dir, 1, E.slice(0, 1));
        journal(dir, 3, E.slice(1, 2));
      },
      /journal-3\.log is damaged at byte 0: journal-2\.log is missing before it/,
    ],
    [
      "every journal after a snapshot removed",
      async (dir) => {
        await writeSnapshot(dir, replayed(E.slice(0, 2)), 4);
      },
      /snapshot is damaged at byte 0: journal-5\.log, the journal after it, is missing, and the writes kept there with it/,
    ],
    [
      "the journal after the first snapshot removed",
      async (dir) => {
        await writeSnapshot(dir, replayed([]), 0);
      },
      /snapshot is damaged at byte 0: journal-1\.log, the journal after it, is missing/,
    ],
    [
      "the first journal after a snapshot removed, a later one kept",
      async (dir) => {
        await writeSnapshot(dir, replayed(E.slice(0, 2)), 4);
        journal(dir, 6, E.slice(2, 3));
      },
      /snapshot is damaged at byte 0: journal-5\.log, the journal after it, is missing/,
    ],
    [
      "journals without a snapshot",
      async (dir) => journal(dir, 1, E.slice(0, 1)),
      /snapshot is damaged at byte 0: the snapshot is missing but journal-1\.log needs it/,
    ],
    [
      "an entry applied twice",
      async (dir) => {
        await writeSnapshot(dir, replayed(E.slice(0, 2)), 0);
        journal(dir, 1, E.slice(1, 3));
      },
      /journal-1\.log is damaged at byte 0: version 2 of users does not follow its revision 2/,
    ],
    [
      "a bad entry before the last",
      async (dir) => {
        await writeSnapshot(dir, replayed([]), 0);
        journal(dir, 1, E.slice(0, 1), Buffer.concat([Buffer.from("0badc0de {}\n"), encodeEntry(E[1]!)]));
      },
      new RegExp(`journal-1\\.log is damaged at byte ${encodeEntry(E[0]!).length}: `),
    ],
  ];
  for (const [name, make, message] of cases) {
    const dir = join(tempDir(t), "data");
    mkdirSync(dir);
    await make(dir);
    writeFileSync(join(dir, SNAPSHOT_TEMP_FILE), "left over");
    const before = readdirSync(dir).map((file) => [file, readFileSync(join(dir, file)).toString("hex")]);
    assert.throws(() => loadDataDir(dir), (error: unknown) => error instanceof JournalDamageError && message.test(error.message), name);
    assert.deepEqual(readdirSync(dir).map((file) => [file, readFileSync(join(dir, file)).toString("hex")]), before, name);
  }
});

test("loadDataDir replays into a state that copyState keeps apart", async (t) => {
  const dir = tempDir(t);
  await writeSnapshot(dir, replayed(E.slice(0, 1)), 0);
  journal(dir, 1, []);
  const { state } = loadDataDir(dir);
  const copy = copyState(state!);
  applyEntry(state!, E[1]!);
  assert.equal(copy.collections.get("users")!.records.size, 1);
});
