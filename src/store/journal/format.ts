// The journal's line format: `<crc32 as 8 hex digits> <JSON>\n`, its entries, and the scan that finds valid, torn and damaged lines.
import { readFileSync } from "node:fs";
import type { RecordId, StoredRecord } from "../records.ts";
import { crc32 } from "./crc32.ts";
import { STRING_ID } from "../ids.ts";
import { JournalDamageError } from "./damage.ts";
import { type Change, isChange } from "./changes.ts";

/** A record created or replaced; `version` is the collection's revision after the write, and so the record's version. */
export type PutEffect = { put: string; record: StoredRecord; version: number };
/**
 * A held record changed: `change` turns the record at version `from` into the new one, so an
 * update of one member journals that member, not the whole record. `version` as for a put.
 */
export type UpdateEffect = { update: string; id: RecordId; from: number; change: Change; version: number };
/** A record removed; `version` is the collection's revision after the delete. */
export type DeleteEffect = { delete: string; id: RecordId; version: number };
/** Every record of a collection forgotten, and its highest id with them; `version` is the revision after the clear. */
export type ClearEffect = { clear: string; version: number };
/** One change to one collection, carrying the revision it leaves, so replay restores revisions and versions exactly. */
export type Effect = PutEffect | UpdateEffect | DeleteEffect | ClearEffect;

/**
 * One journal entry: the effects of one request, applied together or not at all
 * (a cascading delete of a post and its comments and replies is one entry).
 */
export type JournalEntry = { effects: Effect[] };

/** What scanJournal found: the valid entries and where the valid bytes end. */
export type JournalScan = {
  entries: JournalEntry[];
  /** The byte offset of each entry's line, for messages about it. */
  offsets: number[];
  /** The byte offset just after the last valid entry: the length to truncate a torn file to. */
  end: number;
  /** The file's length in bytes. */
  size: number;
  /** Whether the file ends with a torn entry (a crash mid-append) that starts at `end`. */
  torn: boolean;
};

const NEWLINE = 0x0a;
const SPACE = 0x20;
// 8 hex digits and a space before the JSON.
const PREFIX = 9;
const encoder = new TextEncoder();
// fatal: a line cut in the middle of a multi-byte character must fail, not decode to U+FFFD.
const decoder = new TextDecoder("utf-8", { fatal: true });

/** One self-checking line: the CRC-32 of the JSON's UTF-8 bytes as 8 lower-case hex digits, a space, the JSON, a newline. */
export function encodeLine(value: unknown): Uint8Array {
  // JSON.stringify escapes control characters, so the JSON never holds a raw newline.
  const json = encoder.encode(JSON.stringify(value));
  const line = new Uint8Array(PREFIX + json.length + 1);
  line.set(encoder.encode(crc32(json).toString(16).padStart(8, "0")), 0);
  line[8] = SPACE;
  line.set(json, PREFIX);
  line[line.length - 1] = NEWLINE;
  return line;
}

/** The value of one line (without its newline), or undefined when its checksum, UTF-8 or JSON fails. */
export function decodeLine(line: Uint8Array): unknown {
  if (line.length < PREFIX + 1 || line[8] !== SPACE) return undefined;
  const hex = String.fromCharCode(...line.subarray(0, 8));
  if (!/^[0-9a-f]{8}$/.test(hex)) return undefined;
  const json = line.subarray(PREFIX);
  if (crc32(json) !== Number.parseInt(hex, 16)) return undefined;
  try {
    return JSON.parse(decoder.decode(json));
  } catch {
    return undefined;
  }
}

/** The line holding one journal entry. */
export function encodeEntry(entry: JournalEntry): Uint8Array {
  return encodeLine(entry);
}

/** Whether a decoded line is a journal entry this server could have written. */
export function isEntry(value: unknown): value is JournalEntry {
  if (!isObject(value) || !Array.isArray(value.effects) || value.effects.length === 0) return false;
  return value.effects.every(isEffect);
}

function isEffect(value: unknown): value is Effect {
  if (!isObject(value) || !isVersion(value.version)) return false;
  if (typeof value.put === "string") return isObject(value.record) && isRecordId(value.record.id);
  if (typeof value.update === "string") return isRecordId(value.id) && isVersion(value.from) && isChange(value.change);
  if (typeof value.delete === "string") return isRecordId(value.id);
  return typeof value.clear === "string";
}

/** Whether `value` is a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `value` is a record's id: a positive safe integer, or a string id. */
export function isRecordId(value: unknown): value is number | string {
  return isVersion(value) || (typeof value === "string" && STRING_ID.test(value));
}

/** Whether `value` is a positive safe integer, as ids, versions and revisions are. */
export function isVersion(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/**
 * Reads a journal (its bytes, or its path) and returns its valid entries. The last line
 * may be torn by a crash mid-append: cut short with no newline, or failing its checksum,
 * UTF-8 or JSON with nothing after it; then `torn` is true and `end` is where the caller
 * truncates. A bad line anywhere before the last is damage that no crash mid-append
 * explains, since entries are appended in order and only the last can be cut: it throws
 * a JournalDamageError naming the file and the line's byte offset.
 */
export function scanJournal(input: Uint8Array | string, options: { file?: string } = {}): JournalScan {
  const bytes = typeof input === "string" ? readFileSync(input) : input;
  const file = options.file ?? (typeof input === "string" ? input : "journal");
  const entries: JournalEntry[] = [];
  const offsets: number[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, offset);
    const lineEnd = newline === -1 ? bytes.length : newline;
    const value = newline === -1 ? undefined : decodeLine(bytes.subarray(offset, lineEnd));
    // A line whose checksum holds was written whole: if it is no entry, no tear explains it.
    if (value !== undefined && !isEntry(value)) throw new JournalDamageError(file, offset, "a line is not a journal entry");
    if (value === undefined) {
      // Only the last line can be torn; anything after a bad line means it is not a tear.
      if (lineEnd + 1 < bytes.length) {
        throw new JournalDamageError(file, offset, "an entry fails its checksum and more data follows it");
      }
      return { entries, offsets, end: offset, size: bytes.length, torn: true };
    }
    entries.push(value);
    offsets.push(offset);
    offset = newline + 1;
  }
  return { entries, offsets, end: offset, size: bytes.length, torn: false };
}
