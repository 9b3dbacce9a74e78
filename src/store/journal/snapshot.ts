// Snapshot files: the whole state in self-checking lines, written to a temporary file, synced, renamed and the directory synced.
import { Buffer } from "node:buffer";
import { readFileSync, rename, rm } from "node:fs";
import { join } from "node:path";
import type { StoredRecord } from "../records.ts";
import { JournalDamageError } from "./damage.ts";
import { close, fsync, openPrivate, syncDirectory, writeAll } from "./files.ts";
import { decodeLine, encodeLine, isObject, isRecordId, isVersion } from "./format.ts";
import type { CollectionState, DataState } from "./state.ts";

/** The snapshot file's name in a data directory. */
export const SNAPSHOT_FILE = "snapshot";
/** Where a snapshot is written before it is complete and synced; never read at start-up. */
export const SNAPSHOT_TEMP_FILE = "snapshot.tmp";
/** The version of the snapshot format, in its first line. */
export const SNAPSHOT_FORMAT = 1;

// Lines are gathered into writes of about this size: few system calls, little memory held.
const CHUNK_BYTES = 256 * 1024;

/** A snapshot read back: the state and the journal generation it covers. */
export type LoadedSnapshot = { state: DataState; generation: number };

/**
 * Writes `state` as the directory's snapshot covering journals up to `generation`, so that a
 * crash at any moment leaves either the old snapshot or the new one, each whole: write
 * `snapshot.tmp`, fsync it, rename it over `snapshot` (atomic), then fsync the directory so
 * the rename itself survives. Only after that may the journals it covers be removed.
 * The writes are asynchronous and chunked, so requests go on meanwhile.
 */
export async function writeSnapshot(dir: string, state: DataState, generation: number): Promise<void> {
  const temp = join(dir, SNAPSHOT_TEMP_FILE);
  try {
    await writeWhole(temp, state, generation);
    await new Promise<void>((resolve, reject) => rename(temp, join(dir, SNAPSHOT_FILE), (error) => (error ? reject(error) : resolve())));
  } catch (error) {
    // A snapshot cut short (a full disk, most often) leaves nothing behind: the space it took is
    // freed now, not at the next start, which could otherwise fail for want of it.
    await new Promise<void>((resolve) => rm(temp, { force: true }, () => resolve()));
    throw error;
  }
  await syncDirectory(dir);
}

/** Writes the snapshot's lines to `temp` and syncs it. */
async function writeWhole(temp: string, state: DataState, generation: number): Promise<void> {
  // "w": a temporary file left by an earlier crash is overwritten, never appended to. Mode
  // 0600, which the rename carries over to the snapshot.
  const fd = await openPrivate(temp, "w");
  try {
    let chunk: Uint8Array[] = [];
    let chunkBytes = 0;
    let lines = 0;
    const add = async (value: unknown): Promise<void> => {
      const line = encodeLine(value);
      chunk.push(line);
      chunkBytes += line.length;
      lines++;
      if (chunkBytes >= CHUNK_BYTES) await flush();
    };
    const flush = async (): Promise<void> => {
      await writeAll(fd, Buffer.concat(chunk));
      chunk = [];
      chunkBytes = 0;
    };
    await add({ snapshot: SNAPSHOT_FORMAT, generation, epoch: state.epoch, collections: state.collections.size });
    for (const [name, collection] of state.collections) {
      const { revision, highestId, records } = collection;
      await add({ collection: name, revision, highestId, records: records.size });
      for (const { record, version } of records.values()) await add({ version, record });
    }
    // The trailer proves the file is whole: a snapshot cut short by anything lacks it.
    await add({ end: lines + 1 });
    await flush();
    await fsync(fd);
  } finally {
    await close(fd);
  }
}

/**
 * Reads a snapshot file. It is only ever renamed into place whole and synced, so unlike a
 * journal's tail nothing in it may be torn: any bad line, or a missing trailer, throws a
 * JournalDamageError naming the file and the byte offset.
 */
export function readSnapshot(path: string): LoadedSnapshot {
  const bytes = readFileSync(path);
  let offset = 0;
  let lineStart = 0;
  let lines = 0;
  const next = (what: string): Record<string, unknown> => {
    lineStart = offset;
    const newline = bytes.indexOf(0x0a, offset);
    const value = newline === -1 ? undefined : decodeLine(bytes.subarray(offset, newline));
    if (!isObject(value)) {
      throw new JournalDamageError(path, offset, offset === bytes.length ? `the snapshot ends before ${what}` : `${what} fails its checksum`);
    }
    offset = newline + 1;
    lines++;
    return value;
  };
  const damaged = (reason: string): JournalDamageError => new JournalDamageError(path, lineStart, reason);

  const header = next("the header");
  if (header.snapshot !== SNAPSHOT_FORMAT) throw damaged(`the snapshot format is ${JSON.stringify(header.snapshot)}, not ${SNAPSHOT_FORMAT}`);
  const { generation, epoch, collections: count } = header;
  if (!Number.isSafeInteger(generation) || (generation as number) < 0 || typeof epoch !== "string" || !Number.isSafeInteger(count)) {
    throw damaged("the header lacks its generation, epoch or collection count");
  }
  const state: DataState = { epoch, collections: new Map() };
  for (let c = 0; c < (count as number); c++) {
    const head = next("a collection");
    const { collection: name, revision, highestId, records: size } = head;
    if (typeof name !== "string" || ![revision, highestId, size].every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) {
      throw damaged("a collection line lacks its name, revision, highest id or record count");
    }
    const collection: CollectionState = { revision: revision as number, highestId: highestId as number, records: new Map() };
    for (let r = 0; r < (size as number); r++) {
      const { version, record } = next("a record");
      if (!isVersion(version) || !isObject(record) || !isRecordId(record.id) || version > collection.revision) {
        throw damaged(`a record of ${name} lacks its id or a version within the revision`);
      }
      collection.records.set(record.id, { record: record as StoredRecord, version });
    }
    state.collections.set(name, collection);
  }
  const trailer = next("the trailer");
  if (trailer.end !== lines) throw damaged("the trailer does not count the lines before it");
  if (offset !== bytes.length) throw new JournalDamageError(path, offset, "data follows the trailer");
  return { state, generation: generation as number };
}
