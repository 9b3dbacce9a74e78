// White-box tests of src/journal/writer.ts: ordered appends, group commit, the interval policy, failures and close.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { scanJournal } from "../../src/store/journal/format.ts";
import { JournalWriter } from "../../src/store/journal/writer.ts";
import { putUser, tempDir } from "./support.ts";

test("JournalWriter.append resolves once written and synced, in order, and close leaves a clean journal", async (t) => {
  const path = join(tempDir(t), "journal-1.log");
  const writer = new JournalWriter(path);
  await writer.append(putUser(1, 1));
  // Resolved means written: the entry is in the file already, before close.
  assert.equal(scanJournal(path).entries.length, 1);
  assert.equal(writer.stats.syncs, 1);
  await Promise.all([2, 3, 4].map((n) => writer.append(putUser(n, n))));
  await writer.close();
  const scan = scanJournal(path);
  assert.deepEqual(scan.entries, [1, 2, 3, 4].map((n) => putUser(n, n)));
  assert.equal(scan.torn, false);
  assert.equal(writer.size, readFileSync(path).length);
});

test("JournalWriter groups appends made while a sync is in flight into one write and one sync", async (t) => {
  const path = join(tempDir(t), "journal-1.log");
  const writer = new JournalWriter(path);
  const count = 200;
  const order: number[] = [];
  await Promise.all(Array.from({ length: count }, (_, i) => writer.append(putUser(i + 1, i + 1)).then(() => order.push(i + 1))));
  await writer.close();
  const stats = writer.stats;
  assert.equal(stats.entries, count);
  // The first append goes alone while the file opens; the others wait and go together.
  assert.ok(stats.syncs <= 3, `${stats.syncs} syncs for ${count} concurrent appends`);
  assert.equal(stats.batches, stats.syncs);
  assert.equal(stats.bytes, readFileSync(path).length);
  assert.ok(stats.lastBatchEntries > 1);
  assert.ok(stats.maxSyncMs >= stats.lastSyncMs && stats.lastSyncMs >= 0);
  assert.deepEqual(order, Array.from({ length: count }, (_, i) => i + 1));
  assert.deepEqual(scanJournal(path).entries.map((e) => (e.effects[0] as { record: { id: number } }).record.id), order);
});

test("JournalWriter with the interval policy answers after the write and syncs later, at most once per interval", async (t) => {
  const path = join(tempDir(t), "journal-1.log");
  const writer = new JournalWriter(path, { fsync: "interval", intervalMs: 20 });
  await writer.append(putUser(1, 1));
  assert.equal(writer.stats.syncs, 0);
  assert.equal(scanJournal(path).entries.length, 1);
  await writer.append(putUser(2, 2));
  // The timer's sync: waited for by its counter, bounded, no fixed sleep.
  for (let i = 0; i < 200 && writer.stats.syncs === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(writer.stats.syncs, 1);
  await writer.append(putUser(3, 3));
  await writer.close();
  // close syncs what the timer had not yet.
  assert.equal(writer.stats.syncs, 2);
  assert.equal(scanJournal(path).entries.length, 3);
});

test("JournalWriter.close with nothing written syncs nothing; close twice is the same promise; append after close rejects", async (t) => {
  const path = join(tempDir(t), "journal-1.log");
  const writer = new JournalWriter(path, { fsync: "interval" });
  const closing = writer.close();
  assert.equal(writer.close(), closing);
  await closing;
  assert.equal(writer.stats.syncs, 0);
  assert.equal(existsSync(path), true, "opening creates the journal, so its generation exists on disk");
  await assert.rejects(writer.append(putUser(1, 1)), { message: `${path} is closed` });
});

test("JournalWriter never reports a failed write as durable: the waiting and every later append reject, onError is told once", async () => {
  // /dev/full accepts the open and fails every write with ENOSPC.
  const failures: Error[] = [];
  const writer = new JournalWriter("/dev/full", { onError: (error) => failures.push(error) });
  const results = await Promise.allSettled([writer.append(putUser(1, 1)), writer.append(putUser(2, 2))]);
  assert.deepEqual(results.map((r) => r.status), ["rejected", "rejected"]);
  await assert.rejects(writer.append(putUser(3, 3)), { code: "ENOSPC" });
  await assert.rejects(writer.close(), { code: "ENOSPC" });
  assert.equal(failures.length, 1);
});

test("JournalWriter fails when its file cannot be opened, or when what it waits for fails", async (t) => {
  const missing = new JournalWriter(join(tempDir(t), "no", "journal-1.log"));
  await assert.rejects(missing.append(putUser(1, 1)), { code: "ENOENT" });
  await assert.rejects(missing.close(), { code: "ENOENT" });
  const path = join(tempDir(t), "journal-2.log");
  const waiting = new JournalWriter(path, { after: Promise.reject(new Error("the previous journal failed")) });
  await assert.rejects(waiting.append(putUser(1, 1)), { message: "the previous journal failed" });
  await assert.rejects(waiting.close());
  assert.equal(existsSync(path), false, "nothing is written after a failed predecessor");
});

test("JournalWriter waits for `after` before writing anything", async (t) => {
  const path = join(tempDir(t), "journal-2.log");
  let release!: () => void;
  const writer = new JournalWriter(path, { after: new Promise<void>((resolve) => (release = resolve)), size: 10 });
  let done = false;
  const appended = writer.append(putUser(1, 1)).then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(done, false);
  assert.equal(existsSync(path), false);
  assert.ok(writer.size > 10, "size counts from the given length and includes entries waiting");
  release();
  await appended;
  await writer.close();
  assert.equal(scanJournal(path).entries.length, 1);
});
