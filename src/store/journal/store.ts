// The journal store: the memory store over a data directory, every write kept in the journal before it is answered.
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createMemoryStore, type MemoryStore } from "../memory/store.ts";
import type { SeedRecords } from "../records.ts";
import type { Collections } from "../seam.ts";
import { DIR_MODE, syncDirectory } from "./files.ts";
import { type JournalStats, openJournal } from "./journal.ts";
import { JournalDamageError } from "./damage.ts";
import { acquireLock, type Lock, LockedError } from "./lock.ts";
import type { FsyncPolicy } from "./writer.ts";
import type { DataState } from "./state.ts";

/** Options of openJournalStore. */
export type JournalStoreOptions = {
  /** `always` by default. */
  fsync?: FsyncPolicy;
  /** The journal length past which it is compacted into a snapshot (64 MiB by default). */
  compactBytes?: number;
  /** Whether the starting records came from a seed, which is then worth a notice if the directory holds data already. */
  seeded?: boolean;
  /** Where notices go, one line each: a torn tail dropped, a seed not loaded, a compaction that failed. */
  warn: (line: string) => void;
  /** Told once when a write could not be kept (a journal write or sync failed); the store answers 503 from then on. */
  onFailure: (error: Error) => void;
  /** Told how long each fdatasync took, in milliseconds (for the metrics). */
  onSync?: (milliseconds: number) => void;
  /** The most the records may cost (the memory store's `limit`). */
  limit?: number;
};

/** A store whose data lives in a directory, with the journal's counters for metrics. */
export type JournalStore = MemoryStore & { stats: () => JournalStats; dir: string };

/**
 * Opens the store of a data directory, created if missing: takes its lock (a LockedError if
 * another live process holds it), loads the snapshot and journals (a JournalDamageError if they
 * are damaged), and serves from memory, appending every write to the journal and answering it
 * once kept. A new directory starts with the starting records (the seed, or the two seeded
 * users); one that holds data starts with its data, and the seed is not loaded.
 */
export async function openJournalStore(dir: string, resources: Collections, starting: SeedRecords, options: JournalStoreOptions): Promise<JournalStore> {
  const path = resolve(dir);
  let lock: Lock;
  try {
    const made = mkdirSync(path, { recursive: true, mode: DIR_MODE });
    if (made !== undefined) {
      restrictMade(path, made);
      // A directory just made is durable only once its own parent is synced.
      await syncDirectory(dirname(made));
    } else {
      const notice = tightenOpen(path);
      if (notice !== undefined) options.warn(notice);
    }
    lock = acquireLock(path);
  } catch (error) {
    throw error instanceof LockedError ? error : new DataDirError(dir, error);
  }
  let store: MemoryStore | undefined;
  let fresh = false;
  let failure: Error | undefined;
  try {
    const { journal, state, warnings } = await openJournal(path, {
      fsync: options.fsync,
      compactBytes: options.compactBytes,
      onSync: options.onSync,
      initial: () => {
        fresh = true;
        return createMemoryStore(resources, { starting, limit: options.limit }).capture();
      },
      capture: () => store!.capture(),
      onError: (error) => {
        // Each journal generation reports its own failure, and a failed one fails the next: tell once.
        if (failure !== undefined) return;
        failure = error;
        store?.fail();
        options.onFailure(error);
      },
      onCompactionError: (error) => {
        // A compaction that failed because the journal failed is part of that one failure.
        if (failure === undefined) {
          options.warn(`Compacting the journal in ${path} failed (${error.message}); nothing is lost, and it is tried again as the journal grows`);
        }
      },
    });
    // Data the resources do not describe would be dropped by the next compaction, or held
    // where no route reaches it: refuse instead.
    const mismatch = mismatchOf(state, resources);
    if (mismatch !== undefined) {
      await journal.close();
      throw new DataMismatchError(`The data directory ${path} holds ${mismatch}; serve the resources it was made with, or use another directory`);
    }
    for (const warning of warnings) options.warn(warning);
    if (options.seeded && !fresh) options.warn(`${path} holds data already, so the seed was not loaded; a seed fills only a new data directory`);
    store = createMemoryStore(resources, { starting, restored: state, keep: (entry) => journal.append(entry), limit: options.limit });
    const memory = store;
    return {
      ...memory,
      dir: path,
      stats: () => journal.stats,
      close: async () => {
        await memory.close();
        try {
          await journal.close();
        } catch (error) {
          // A journal that failed was reported once, through onFailure; closing it fails the same way.
          if (failure === undefined) throw error;
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error instanceof JournalDamageError || error instanceof DataMismatchError ? error : new DataDirError(dir, error);
  }
}

/** A data directory that holds data the resources served do not describe. One line, saying what to do. */
export class DataMismatchError extends Error {
  override name = "DataMismatchError";
}

/**
 * What a data directory holds that the resources do not describe: a collection they do not
 * define, ids of another kind, or records without the member that links them to their parent.
 */
function mismatchOf(state: DataState, resources: Collections): string | undefined {
  for (const [name, collection] of state.collections) {
    if (!Object.hasOwn(resources, name)) return `the collection ${name}, which the resources served here do not define`;
    const resource = resources[name]!;
    const first = collection.records.values().next().value?.record;
    if (first === undefined) continue;
    if ((typeof first.id === "string") !== (resource.ids === "random")) {
      return `the collection ${name} with ${typeof first.id === "string" ? "string" : "integer"} ids, which the resources served here give ${resource.ids === "random" ? "string" : "integer"} ids`;
    }
    if (resource.parent !== undefined && !Object.hasOwn(first, resource.parent.key)) {
      return `the collection ${name} without the member ${resource.parent.key}, which the resources served here link it to its parent by`;
    }
  }
  return undefined;
}

/**
 * Gives DIR_MODE to the directories mkdir just made, from `path` up to `made` (the first one
 * it made), whatever the umask. A directory that existed is left as its owner set it: the
 * files the server writes in it are FILE_MODE all the same. A failed chmod is ignored, as in
 * setFileMode: mkdir was given DIR_MODE, so the directory is never open to group or others.
 */
function restrictMade(path: string, made: string): void {
  for (let dir = path; ; dir = dirname(dir)) {
    try {
      chmodSync(dir, DIR_MODE);
    } catch {
      // Never more open than DIR_MODE (see above).
    }
    if (dir === made || dirname(dir) === dir) return;
  }
}

/**
 * Gives DIR_MODE to a data directory that existed and that group or others may write to: they
 * could remove or replace its journals and snapshot, whose own modes do not stop that. Says so
 * in one line, or that it could not be done (a directory another user owns, a volume mounted
 * 0777); the server goes on either way, since the files in it are FILE_MODE all the same. A
 * directory others may only read or enter keeps its owner's mode: the files are closed to them.
 */
function tightenOpen(path: string): string | undefined {
  if (process.platform === "win32") return undefined;
  const mode = statSync(path).mode & 0o7777;
  if ((mode & 0o022) === 0) return undefined;
  const was = mode.toString(8).padStart(4, "0");
  try {
    chmodSync(path, DIR_MODE);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
    return `The data directory ${path} (mode ${was}) can be written by other users, who could remove or replace its data, and its mode could not be changed (${reason}); make it 0700 or owned by the user the server runs as`;
  }
  return `The data directory ${path} could be written by other users (mode ${was}); its mode is now 0700`;
}

/** A data directory that cannot be used: made, locked, read or written. One line, with the system's code. */
export class DataDirError extends Error {
  constructor(dir: string, cause: unknown) {
    // Deno refuses a write without --allow-write with an error that has a name but no code.
    const reason = (cause as NodeJS.ErrnoException).code ?? (cause as Error).name;
    super(`Cannot use the data directory ${dir} (${reason}); check DATA_DIR and its permissions`, { cause });
    this.name = "DataDirError";
  }
}
