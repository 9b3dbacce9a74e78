// White-box tests of src/journal/format.ts: lines, entries, and scanJournal on clean, torn and damaged files.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { JournalDamageError } from "../../src/store/journal/damage.ts";
import { decodeLine, encodeEntry, encodeLine, isEntry, scanJournal } from "../../src/store/journal/format.ts";
import { putUser, tempDir } from "./support.ts";

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

function join2(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const first = encodeEntry(putUser(1, 1));
const second = encodeEntry({ effects: [{ put: "users", record: { id: 2, name: "Zoë — ✓" }, version: 2 }] });
const third = encodeEntry({ effects: [{ delete: "users", id: 1, version: 3 }, { clear: "posts", version: 1 }] });

test("encodeLine writes the CRC-32 of the JSON's UTF-8 bytes, a space, the JSON and a newline", () => {
  const line = text(encodeLine({ a: "é\n" }));
  assert.match(line, /^[0-9a-f]{8} \{"a":"é\\n"\}\n$/);
  assert.equal(line.split("\n").length, 2, "a newline inside a value is escaped, so one entry is one line");
  assert.deepEqual(decodeLine(encodeLine({ a: "é\n" }).subarray(0, -1)), { a: "é\n" });
});

test("decodeLine refuses a short line, a missing space, non-hex digits, a wrong checksum and bad JSON", () => {
  const good = encodeLine({ b: 1 }).subarray(0, -1);
  const bad = (line: string): unknown => decodeLine(utf8(line));
  assert.equal(bad("1234"), undefined);
  assert.equal(bad(`${text(good.subarray(0, 8))}x${text(good.subarray(9))}`), undefined);
  assert.equal(bad(`ABCDEFGH ${text(good.subarray(9))}`), undefined);
  assert.equal(bad(`00000000 ${text(good.subarray(9))}`), undefined);
  // A checksum that holds over bytes that are not JSON.
  const notJson = text(encodeLine("x").subarray(0, -1)).replace('"x"', "x");
  assert.equal(decodeLine(utf8(notJson)), undefined);
});

test("isEntry accepts puts, updates, deletes and clears, and refuses anything else", () => {
  assert.equal(isEntry(putUser(1, 1)), true);
  assert.equal(isEntry({ effects: [{ update: "users", id: 1, from: 1, change: { set: [["name", "b"]], unset: ["x"], in: [["o", {}]] }, version: 2 }] }), true);
  assert.equal(isEntry({ effects: [{ delete: "users", id: 1, version: 2 }, { clear: "users", version: 3 }] }), true);
  // A collection a file gives string ids keeps them as they are.
  assert.equal(isEntry({ effects: [{ put: "notes", record: { id: "a-1" }, version: 1 }, { delete: "notes", id: "a-1", version: 2 }] }), true);
  for (const value of [
    null,
    [],
    {},
    { effects: [] },
    { effects: [{ put: "users", record: { id: 0 }, version: 1 }] },
    { effects: [{ put: "users", record: [], version: 1 }] },
    { effects: [{ put: "users", record: { id: 1 }, version: 0 }] },
    { effects: [{ delete: "users", id: "no good", version: 1 }] },
    { effects: [{ put: "notes", record: { id: "" }, version: 1 }] },
    { effects: [{ other: "users", version: 1 }] },
    { effects: [{ update: "users", id: 1, change: {}, version: 2 }] },
    { effects: [{ update: "users", id: 1, from: 1, change: { set: [["name"]] }, version: 2 }] },
    { effects: [{ update: "users", id: 0, from: 1, change: {}, version: 2 }] },
    { effects: ["put"] },
  ]) {
    assert.equal(isEntry(value), false, JSON.stringify(value));
  }
});

test("scanJournal reads a clean journal to its end", () => {
  const bytes = join2(first, second, third);
  const scan = scanJournal(bytes);
  assert.equal(scan.entries.length, 3);
  assert.deepEqual(scan.entries[1], { effects: [{ put: "users", record: { id: 2, name: "Zoë — ✓" }, version: 2 }] });
  assert.deepEqual(scan.offsets, [0, first.length, first.length + second.length]);
  assert.equal(scan.torn, false);
  assert.equal(scan.end, bytes.length);
  assert.deepEqual(scanJournal(new Uint8Array()), { entries: [], offsets: [], end: 0, size: 0, torn: false });
});

test("scanJournal reports a last entry cut short as a torn tail, at every cut", () => {
  for (let cut = 1; cut < third.length; cut++) {
    const bytes = join2(first, second, third.subarray(0, cut));
    const scan = scanJournal(bytes);
    assert.equal(scan.torn, true, `cut at ${cut}`);
    assert.equal(scan.end, first.length + second.length);
    assert.equal(scan.entries.length, 2);
  }
});

test("scanJournal reports an entry torn in the middle of a multi-byte UTF-8 character as a torn tail", () => {
  // "✓" is 3 bytes in UTF-8: cut after its first byte, and after its second.
  const at = text(second).indexOf("✓");
  const byteAt = utf8(text(second).slice(0, at)).length;
  for (const cut of [byteAt + 1, byteAt + 2]) {
    const scan = scanJournal(join2(first, second.subarray(0, cut)));
    assert.equal(scan.torn, true);
    assert.equal(scan.end, first.length);
    // And with its newline kept (a tear that lost the middle of the line), it still fails.
    const withNewline = join2(first, second.subarray(0, cut), utf8("\n"));
    assert.equal(scanJournal(withNewline).torn, true);
  }
});

test("scanJournal treats a last line that fails its checksum, with its newline, as torn", () => {
  const flipped = third.slice();
  flipped[20]! ^= 0x01;
  const scan = scanJournal(join2(first, flipped));
  assert.deepEqual([scan.torn, scan.end, scan.entries.length], [true, first.length, 1]);
});

test("scanJournal throws a one-line JournalDamageError naming the file and offset for a bad entry before the last", () => {
  const flipped = second.slice();
  flipped[15]! ^= 0x01;
  const cases: [string, Uint8Array][] = [
    ["followed by a valid entry", join2(first, flipped, third)],
    ["followed by a torn one", join2(first, flipped, third.subarray(0, 10))],
    ["an empty line", join2(first, utf8("\n"), third)],
  ];
  for (const [name, bytes] of cases) {
    assert.throws(
      () => scanJournal(bytes, { file: "data/journal-3.log" }),
      (error: unknown) => {
        assert.ok(error instanceof JournalDamageError, name);
        assert.equal(error.file, "data/journal-3.log");
        assert.equal(error.offset, first.length);
        assert.match(error.message, new RegExp(`^data/journal-3\\.log is damaged at byte ${first.length}: `));
        assert.doesNotMatch(error.message, /\n/);
        return true;
      },
    );
  }
});

test("scanJournal refuses a line whose checksum holds but which is no entry, even last", () => {
  const bytes = join2(first, encodeLine({ effects: "none" }));
  assert.throws(() => scanJournal(bytes), (error: unknown) => error instanceof JournalDamageError && error.offset === first.length && /not a journal entry/.test(error.message));
});

test("scanJournal reads a file by its path and names it in errors", (t) => {
  const dir = tempDir(t);
  const path = join(dir, "journal-1.log");
  writeFileSync(path, join2(first, second));
  assert.equal(scanJournal(path).entries.length, 2);
  writeFileSync(path, join2(utf8("garbage\n"), first));
  assert.throws(() => scanJournal(path), (error: unknown) => error instanceof JournalDamageError && error.file === path && error.offset === 0);
  // Bytes without a path are named "journal" unless the caller names them.
  assert.throws(() => scanJournal(join2(utf8("garbage\n"), first)), { message: /^journal is damaged at byte 0: / });
});
