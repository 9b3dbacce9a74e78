// White-box tests of src/journal/snapshot.ts: a snapshot round-trips, replaces the old one atomically, and any damage is refused.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { JournalDamageError } from "../../src/store/journal/damage.ts";
import { encodeLine } from "../../src/store/journal/format.ts";
import { readSnapshot, SNAPSHOT_FILE, SNAPSHOT_TEMP_FILE, writeSnapshot } from "../../src/store/journal/snapshot.ts";
import { applyEntry, emptyState } from "../../src/store/journal/state.ts";
import { plain, tempDir } from "./support.ts";

function sample() {
  const state = emptyState("epoch1", ["users", "posts", "comments", "replies"]);
  applyEntry(state, { effects: [{ put: "users", record: { id: 1, name: "Ada ✓" }, version: 1 }] });
  applyEntry(state, { effects: [{ put: "users", record: { id: 2, name: "Alan" }, version: 2 }] });
  applyEntry(state, { effects: [{ put: "posts", record: { id: 5, title: "t", nested: { a: [1, null] } }, version: 1 }] });
  applyEntry(state, { effects: [{ delete: "users", id: 1, version: 3 }] });
  return state;
}

test("writeSnapshot then readSnapshot gives back the state and the generation", async (t) => {
  const dir = tempDir(t);
  const state = sample();
  await writeSnapshot(dir, state, 4);
  const loaded = readSnapshot(join(dir, SNAPSHOT_FILE));
  assert.equal(loaded.generation, 4);
  assert.deepEqual(plain(loaded.state), plain(state));
  assert.equal(existsSync(join(dir, SNAPSHOT_TEMP_FILE)), false);
  const first = readFileSync(join(dir, SNAPSHOT_FILE), "utf8").split("\n")[0]!;
  assert.match(first, /^[0-9a-f]{8} \{"snapshot":1,"generation":4,"epoch":"epoch1","collections":4\}$/);
});

test("writeSnapshot writes many records in chunks and replaces an older snapshot and a left-over temporary file", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, SNAPSHOT_TEMP_FILE), "left by a crash");
  await writeSnapshot(dir, sample(), 1);
  const state = emptyState("epoch2", ["users"]);
  for (let id = 1; id <= 5000; id++) applyEntry(state, { effects: [{ put: "users", record: { id, name: "x".repeat(60) }, version: id }] });
  await writeSnapshot(dir, state, 2);
  const loaded = readSnapshot(join(dir, SNAPSHOT_FILE));
  assert.equal(loaded.generation, 2);
  assert.equal(loaded.state.collections.get("users")?.records.size, 5000);
  assert.deepEqual(plain(loaded.state), plain(state));
});

test("a snapshot cut short leaves no temporary file and the old snapshot as it was: a failed write, a failed rename", async (t) => {
  const dir = tempDir(t);
  await writeSnapshot(dir, sample(), 1);
  const before = readFileSync(join(dir, SNAPSHOT_FILE));
  // A record no line can hold fails the write part-way, after thousands of lines were written.
  const state = emptyState("epoch2", ["users"]);
  for (let id = 1; id <= 5000; id++) applyEntry(state, { effects: [{ put: "users", record: { id, name: "x".repeat(60) }, version: id }] });
  applyEntry(state, { effects: [{ put: "users", record: { id: 5001, big: 1n }, version: 5001 }] });
  await assert.rejects(writeSnapshot(dir, state, 2), TypeError);
  assert.equal(existsSync(join(dir, SNAPSHOT_TEMP_FILE)), false);
  assert.deepEqual(readFileSync(join(dir, SNAPSHOT_FILE)), before);
  // A snapshot that cannot take its place (here, a directory in the way) is removed too.
  const other = tempDir(t);
  mkdirSync(join(other, SNAPSHOT_FILE));
  writeFileSync(join(other, SNAPSHOT_FILE, "x"), "");
  await assert.rejects(writeSnapshot(other, sample(), 1), { code: /^(EISDIR|ENOTEMPTY|EEXIST)$/ });
  assert.equal(existsSync(join(other, SNAPSHOT_TEMP_FILE)), false);
});

test("readSnapshot throws a JournalDamageError with the offset for every kind of damage", async (t) => {
  const dir = tempDir(t);
  await writeSnapshot(dir, sample(), 3);
  const path = join(dir, SNAPSHOT_FILE);
  const good = readFileSync(path);
  const lines = good.toString("utf8").split("\n").slice(0, -1);
  const offsetOf = (index: number): number => Buffer.byteLength(lines.slice(0, index).map((l) => `${l}\n`).join(""));
  const lineText = (value: unknown): string => new TextDecoder().decode(encodeLine(value)).slice(0, -1);
  const header1 = lineText({ snapshot: 1, generation: 1, epoch: "e", collections: 1 });
  const usersLine = lineText({ collection: "users", revision: 1, highestId: 1, records: 1 });
  const header = lineText({ snapshot: 1, generation: 1, epoch: "e", collections: 0 });
  const cases: [string, string, number, RegExp][] = [
    ["cut short before the trailer", lines.slice(0, -1).map((l) => `${l}\n`).join(""), offsetOf(lines.length - 1), /ends before the trailer/],
    ["a flipped byte in a record", lines.map((l, i) => (i === 2 ? l.replace("Alan", "Alam") : l)).map((l) => `${l}\n`).join(""), offsetOf(2), /fails its checksum/],
    ["another format", [lineText({ snapshot: 2, generation: 1, epoch: "e", collections: 0 }), lineText({ end: 1 })].map((l) => `${l}\n`).join(""), 0, /format is 2, not 1/],
    ["a header without its epoch", [lineText({ snapshot: 1, generation: 1, collections: 0 })].map((l) => `${l}\n`).join(""), 0, /lacks its generation/],
    ["a bad collection line", [header1, lineText({ collection: "users", revision: -1, highestId: 0, records: 0 })].map((l) => `${l}\n`).join(""), header1.length + 1, /collection line/],
    ["a record above the revision", [header1, usersLine, lineText({ version: 2, record: { id: 1 } })].map((l) => `${l}\n`).join(""), header1.length + usersLine.length + 2, /a record of users/],
    ["a trailer that miscounts", [lineText({ snapshot: 1, generation: 1, epoch: "e", collections: 0 }), lineText({ end: 5 })].map((l) => `${l}\n`).join(""), header.length + 1, /trailer does not count/],
    ["data after the trailer", `${good.toString("utf8")}x`, good.length, /data follows the trailer/],
  ];
  for (const [name, content, offset, reason] of cases) {
    writeFileSync(path, content);
    assert.throws(
      () => readSnapshot(path),
      (error: unknown) => {
        assert.ok(error instanceof JournalDamageError, name);
        assert.equal(error.offset, offset, name);
        assert.equal(error.file, path);
        assert.match(error.message, reason, name);
        return true;
      },
    );
  }
});
