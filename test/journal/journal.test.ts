// White-box tests of src/journal/journal.ts: opening a data directory, appending, and compaction while appends go on.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { JournalEntry } from "../../src/store/journal/format.ts";
import { openJournal, type JournalOptions } from "../../src/store/journal/journal.ts";
import { loadDataDir } from "../../src/store/journal/load.ts";
import { SNAPSHOT_TEMP_FILE } from "../../src/store/journal/snapshot.ts";
import { applyEntry, copyState, emptyState, type DataState } from "../../src/store/journal/state.ts";
import { plain, tempDir } from "./support.ts";

/** Opens a journal over a state the test changes as the store will: apply, then append in the same step. */
async function open(dir: string, options: Partial<JournalOptions> = {}) {
  let state: DataState | undefined;
  const opened = await openJournal(dir, {
    initial: () => emptyState("seeded", ["users"]),
    capture: () => copyState(state!),
    ...options,
  });
  state = opened.state;
  const write = (entry: JournalEntry): Promise<void> => {
    applyEntry(state!, entry);
    return opened.journal.append(entry);
  };
  const users = state.collections.get("users")!;
  const put = (id: number): Promise<void> => write({ effects: [{ put: "users", record: { id, name: `user ${id}` }, version: users.revision + 1 }] });
  return { ...opened, state, put };
}

test("openJournal on an empty directory writes the initial state as the first snapshot", async (t) => {
  const dir = tempDir(t);
  const { journal, state, warnings, put } = await open(dir);
  assert.deepEqual(warnings, []);
  assert.equal(state.epoch, "seeded");
  assert.equal(journal.generation, 1);
  await put(1);
  await journal.close();
  assert.deepEqual(readdirSync(dir).sort(), ["journal-1.log", "snapshot"]);
  const again = await open(dir, { initial: () => assert.fail("a used directory keeps its own state") });
  assert.deepEqual(plain(again.state), plain(state));
  await again.journal.close();
});

test("Journal compacts past its bound while appends go on, and loses nothing", async (t) => {
  const dir = tempDir(t);
  const { journal, state, put } = await open(dir, { compactBytes: 2000 });
  // Waves of concurrent appends, so that some land while a compaction runs and some after it.
  for (let wave = 0; wave < 10; wave++) {
    await Promise.all(Array.from({ length: 30 }, (_, i) => put(wave * 30 + i + 1)));
  }
  await journal.close();
  const stats = journal.stats;
  // How many waves meet a compaction still running depends on timing; every one started finished.
  assert.ok(stats.compactions >= 1, `${stats.compactions} compactions`);
  assert.equal(stats.compactions, journal.generation - 1);
  assert.equal(stats.entries, 300);
  assert.ok(stats.syncs >= 1 && stats.batches >= stats.syncs && stats.bytes > 0 && stats.lastBatchEntries >= 1);
  assert.equal(stats.generation, journal.generation);
  // Only the newest journal is left beside the snapshot.
  assert.deepEqual(readdirSync(dir).sort(), [`journal-${journal.generation}.log`, "snapshot"]);
  assert.deepEqual(plain(loadDataDir(dir).state), plain(state));
});

test("Journal tells onError of a failed compaction when no onCompactionError is given", async (t) => {
  const dir = tempDir(t);
  const errors: Error[] = [];
  const { journal, put } = await open(dir, { compactBytes: 10, onError: (error) => errors.push(error) });
  mkdirSync(join(dir, SNAPSHOT_TEMP_FILE));
  await put(1);
  await journal.close();
  assert.deepEqual(errors.map((error) => (error as NodeJS.ErrnoException).code), ["EISDIR"]);
});

test("Journal.compact resolves once the snapshot covers everything appended before it", async (t) => {
  const dir = tempDir(t);
  const { journal, state, put } = await open(dir);
  await put(1);
  const pending = put(2);
  const compacting = journal.compact();
  assert.equal(journal.compact(), compacting, "one compaction at a time");
  const during = put(3);
  await Promise.all([pending, compacting, during]);
  assert.equal(journal.stats.compactions, 1);
  assert.equal(journal.generation, 2);
  await journal.close();
  const loaded = loadDataDir(dir);
  assert.deepEqual(loaded.journals, [2]);
  assert.deepEqual(plain(loaded.state), plain(state));
  assert.equal(journal.stats.lastSyncMs >= 0, true);
});

test("Journal keeps every journal when a compaction fails, tells onError, and the directory still loads whole", async (t) => {
  const dir = tempDir(t);
  const errors: Error[] = [];
  const { journal, state, put } = await open(dir, {
    compactBytes: 500,
    onError: () => assert.fail("the journal itself did not fail"),
    onCompactionError: (error) => errors.push(error),
  });
  // A directory where the temporary snapshot goes makes writing it fail.
  mkdirSync(join(dir, SNAPSHOT_TEMP_FILE));
  for (let id = 1; id <= 10; id++) await put(id);
  await journal.close();
  assert.ok(errors.length >= 1);
  assert.equal(errors.every((error) => (error as NodeJS.ErrnoException).code === "EISDIR"), true);
  assert.equal(journal.stats.compactions, 0);
  rmSync(join(dir, SNAPSHOT_TEMP_FILE), { recursive: true });
  const loaded = loadDataDir(dir);
  assert.ok(loaded.journals.length > 1);
  assert.deepEqual(plain(loaded.state), plain(state));
});

test("a compaction puts its snapshot in place only once the journal after it exists: one that cannot be made leaves the old snapshot", async (t) => {
  const dir = tempDir(t);
  const failures: Error[] = [];
  const { journal, put } = await open(dir, { onError: (error) => failures.push(error), onCompactionError: () => undefined });
  await put(1);
  // A directory where journal 2 goes makes creating it fail.
  mkdirSync(join(dir, "journal-2.log"));
  await assert.rejects(journal.compact(), { code: "EISDIR" });
  await journal.close().catch(() => undefined);
  assert.deepEqual(failures.map((error) => (error as NodeJS.ErrnoException).code), ["EISDIR"]);
  // The snapshot still covers generation 0 and journal 1 is kept: nothing is lost.
  rmSync(join(dir, "journal-2.log"), { recursive: true });
  const loaded = loadDataDir(dir);
  assert.deepEqual(loaded.journals, [1]);
  assert.equal(loaded.state!.collections.get("users")!.records.size, 1);
});

test("a new directory gets its first journal before its first snapshot", async (t) => {
  const dir = tempDir(t);
  const { journal } = await open(dir);
  // The snapshot is in place once openJournal resolves, and journal 1 was there before it.
  assert.deepEqual(readdirSync(dir).sort(), ["journal-1.log", "snapshot"]);
  await journal.close();
  // A first start cut short before its snapshot leaves the empty journal alone, which is a new directory.
  const other = tempDir(t);
  await assert.rejects(open(other, { initial: () => assert.fail("cut short") }), { message: "cut short" });
  assert.deepEqual(readdirSync(other), ["journal-1.log"]);
  const again = await open(other);
  assert.equal(again.state.epoch, "seeded");
  await again.journal.close();
});
