// White-box tests of src/journal/store.ts and startServer's dataDir: a directory made, locked, loaded, and kept across reopenings.
import assert from "node:assert/strict";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createFileDataSet, defineData } from "../../src/api/dataset.ts";
import { readResourcesFile } from "../../src/api/resources-file.ts";
import { checkSeed } from "../../src/api/seed.ts";
import { JournalDamageError } from "../../src/store/journal/damage.ts";
import { openJournalStore } from "../../src/store/journal/store.ts";
import { createRecord, deleteRecord } from "../../src/api/records.ts";
import { startServer } from "../../src/http/server.ts";
import { call } from "../support/http.ts";
import { closeFirst, tempDir } from "../support/temp.ts";

const AT = "2026-01-31T09:30:00.000Z";
const SEED = { users: [{ id: 7, name: "Eve", email: "eve@example.com" }] };


async function open(dir: string, options: { seed?: typeof SEED; warnings?: string[] } = {}) {
  const { resources, starting } = defineData({ seed: options.seed, clock: () => new Date(AT) });
  const store = await openJournalStore(dir, resources, starting, {
    seeded: options.seed !== undefined,
    warn: (line) => options.warnings?.push(line),
    onFailure: (error) => assert.fail(error),
  });
  return { resources, store };
}

test("a new data directory is made, nested folders too, and starts from the seed; a reopened one from its data, the seed noted as not loaded", async (t) => {
  const dir = join(tempDir(t), "a", "b");
  const warnings: string[] = [];
  const first = await open(dir, { seed: SEED, warnings });
  assert.deepEqual(warnings, []);
  const written = await createRecord(first.resources.users, first.store.collection("users"), { name: "F", email: "f@example.com" });
  assert.equal(written.record.id, 2);
  // Listed once a write is kept: the journal file is opened alongside the start, not before it resolves.
  assert.deepEqual(readdirSync(dir).sort(), ["journal-1.log", "lock", "snapshot"]);
  await first.store.close();
  assert.equal(existsSync(join(dir, "lock")), false, "close lets go of the lock");

  const second = await open(dir, { seed: { users: [] } as never, warnings });
  assert.deepEqual(warnings, [`${dir} holds data already, so the seed was not loaded; a seed fills only a new data directory`]);
  assert.deepEqual((await second.store.snapshot()).users, [...SEED.users, { id: 2, name: "F", email: "f@example.com" }]);
  // The ETag of the record written before is the same after reopening: versions and the epoch are kept.
  assert.equal((await second.store.collection("users").read(2))!.tag, written.tag);
  await second.store.close();
});

test("a second store in the same process on a directory in use is refused with a LockedError, and the first goes on", async (t) => {
  const dir = tempDir(t);
  const first = await open(dir);
  await assert.rejects(open(dir), {
    name: "LockedError",
    message: `${dir} is in use by another server in this process; close it or use another DATA_DIR`,
  });
  await assert.rejects(startServer({ dataDir: dir }), { name: "LockedError" });
  assert.equal((await first.store.snapshot()).users.length, 2);
  await first.store.close();
  // Once closed, the directory can be used again.
  const second = await open(dir);
  await second.store.close();
});

test("a damaged journal refuses to open with a JournalDamageError naming the file and offset, and lets go of the lock", async (t) => {
  const dir = tempDir(t);
  const first = await open(dir);
  await createRecord(first.resources.users, first.store.collection("users"), { name: "F", email: "f@example.com" });
  await first.store.close();
  const journal = join(dir, "journal-1.log");
  writeFileSync(journal, `00000000 {"effects":[]}\n${"x".repeat(10)}\n`, { flag: "r+" });
  await assert.rejects(open(dir), (error: unknown) => {
    assert.ok(error instanceof JournalDamageError);
    assert.equal(error.file, journal);
    assert.equal(error.offset, 0);
    return true;
  });
  assert.equal(existsSync(join(dir, "lock")), false);
});

test("startServer with dataDir serves the data kept there after a restart, with the same ETags", async (t) => {
  const dir = tempDir(t);
  const first = await startServer({ dataDir: dir, clock: () => new Date(AT) });
  const created = await call(`${first.url}/posts`, { method: "POST", json: { title: "T", body: "B" } });
  assert.equal(created.status, 201);
  await first.close();
  const second = await startServer({ dataDir: dir, fsync: "interval", compactBytes: 1 << 20 });
  closeFirst(t, () => second.close());
  const read = await call(`${second.url}/posts/1`);
  assert.deepEqual(read.body, { id: 1, title: "T", body: "B", createdAt: AT });
  assert.equal(read.headers.get("etag"), created.headers.get("etag"));
  assert.equal((await call(`${second.url}/readyz`)).status, 200);
});

test("startServer refuses journal options without dataDir, and bad values of them, before listening", async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ fsync: "always" }, "fsync and compactBytes need dataDir"],
    [{ compactBytes: 100 }, "fsync and compactBytes need dataDir"],
    [{ dataDir: "" }, "dataDir must be the path of a directory"],
    [{ dataDir: 5 }, "dataDir must be the path of a directory"],
    [{ dataDir: "x", fsync: "sometimes" }, "fsync must be always or interval"],
    [{ dataDir: "x", compactBytes: 0 }, "compactBytes must be a positive whole number of bytes"],
    [{ dataDir: "x", compactBytes: 1.5 }, "compactBytes must be a positive whole number of bytes"],
  ];
  for (const [options, message] of cases) {
    await assert.rejects(startServer(options as never), { name: "TypeError", message }, JSON.stringify(options));
  }
});

test("a start that fails once the data directory is open lets go of it: a retry in the same process succeeds", async (t) => {
  const dir = tempDir(t);
  await assert.rejects(startServer({ dataDir: dir, corsOrigins: ["not an origin"] }), { name: "TypeError" });
  await assert.rejects(startServer({ dataDir: dir, requestTimeout: -5 }));
  assert.equal(existsSync(join(dir, "lock")), false);
  const api = await startServer({ dataDir: dir });
  closeFirst(t, () => api.close());
  assert.equal((await call(`${api.url}/users`)).status, 200);
});

test("a directory that cannot be made is a DataDirError with one line naming it and the system's code", async (t) => {
  const file = join(tempDir(t), "file");
  writeFileSync(file, "");
  await assert.rejects(startServer({ dataDir: join(file, "data") }), {
    name: "DataDirError",
    message: `Cannot use the data directory ${join(file, "data")} (ENOTDIR); check DATA_DIR and its permissions`,
  });
});

test("a file's collections, string ids among them, are kept in a data directory across reopenings", async (t) => {
  const dir = tempDir(t);
  const definitions = readResourcesFile({ resources: { notes: { id: "string" }, pages: { parent: { resource: "notes", member: "noteId" } } } });
  const reopen = async () => {
    const { resources, store: fresh } = createFileDataSet(definitions);
    await fresh.close();
    // Compacted after every write, so that the snapshot holds string ids too.
    const options = { seeded: false, compactBytes: 1, warn: () => undefined, onFailure: (error: Error) => assert.fail(error) };
    const store = await openJournalStore(dir, resources, checkSeed({}, resources), options);
    return { resources, store };
  };
  const first = await reopen();
  const note = await createRecord(first.resources.notes!, first.store.collection("notes"), { id: "kept", text: "t" });
  const made = await createRecord(first.resources.notes!, first.store.collection("notes"), {});
  await createRecord(first.resources.pages!, first.store.collection("pages"), { n: 1 }, "kept");
  await deleteRecord(first.resources.notes!, first.store.collection("notes"), made.record.id);
  await first.store.close();
  const second = await reopen();
  assert.deepEqual(await second.store.snapshot(), { notes: [{ id: "kept", text: "t" }], pages: [{ id: 1, noteId: "kept", n: 1 }] });
  assert.equal((await second.store.collection("notes").read("kept"))!.tag, note.tag);
  await deleteRecord(second.resources.notes!, second.store.collection("notes"), "kept");
  assert.deepEqual(await second.store.snapshot(), { notes: [], pages: [] });
  await createRecord(second.resources.notes!, second.store.collection("notes"), { id: "again" });
  await second.store.close();
  // Resources that give the notes integer ids would leave the note held unreachable: refused, the lock let go.
  const { resources } = createFileDataSet(readResourcesFile({ resources: { notes: {} } }));
  const options = { seeded: false, warn: () => undefined, onFailure: (error: Error) => assert.fail(error) };
  for (let attempt = 0; attempt < 2; attempt++) {
    await assert.rejects(openJournalStore(dir, resources, checkSeed({}, resources), options), {
      name: "DataMismatchError",
      message: `The data directory ${dir} holds the collection notes with string ids, which the resources served here give integer ids; serve the resources it was made with, or use another directory`,
    });
  }
});
