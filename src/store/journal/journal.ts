// A data directory's journal: appends to the current generation, and compacts into a snapshot when it passes a size bound.
import { rm } from "node:fs";
import { join } from "node:path";
import { syncDirectory } from "./files.ts";
import type { JournalEntry } from "./format.ts";
import { journalName, loadDataDir } from "./load.ts";
import { writeSnapshot } from "./snapshot.ts";
import type { DataState } from "./state.ts";
import { type FsyncPolicy, JournalWriter, type WriterStats } from "./writer.ts";

/** A journal's compaction bound by default: 64 MiB, read back in well under a second at start-up. */
export const DEFAULT_COMPACT_BYTES = 64 * 1024 * 1024;

/** Options of openJournal. */
export type JournalOptions = {
  /** `always` by default (see FsyncPolicy). */
  fsync?: FsyncPolicy;
  /** The journal length past which it is compacted into a snapshot; DEFAULT_COMPACT_BYTES by default. */
  compactBytes?: number;
  /** The state of a directory never used before (the seed); it becomes the first snapshot. */
  initial: () => DataState;
  /**
   * The current state, taken synchronously when a compaction starts: it must hold every
   * change appended so far and share nothing that later writes change in place (see copyState).
   */
  capture: () => DataState;
  /** Told of a failed open, write or sync of a journal: appends reject from then on, and the process should stop. */
  onError?: (error: Error) => void;
  /** Told how long each fdatasync took, in milliseconds. */
  onSync?: (milliseconds: number) => void;
  /**
   * Told of a failed compaction: every journal is kept, nothing is lost, and the next one is
   * tried when the journal passes its bound again; onError when absent.
   */
  onCompactionError?: (error: Error) => void;
};

/** A journal opened on a data directory, with the state to start from and the warnings to log. */
export type OpenedJournal = { journal: Journal; state: DataState; warnings: string[] };

/** What the journal has done, for metrics. */
export type JournalStats = WriterStats & { generation: number; compactions: number };

/**
 * Opens the journal of a data directory (which the caller has locked, see acquireLock):
 * loads it (loadDataDir; a damaged one throws a JournalDamageError), writes the first
 * snapshot of a directory never used, and appends from then on to the newest journal.
 */
export async function openJournal(dir: string, options: JournalOptions): Promise<OpenedJournal> {
  const loaded = loadDataDir(dir);
  let state = loaded.state;
  const journal = new Journal(dir, options, loaded);
  if (state === undefined) {
    try {
      state = options.initial();
      // Journal 1 first, then the snapshot that needs it: a snapshot is never on disk without
      // the journal after it, so a journal removed behind the server's back is noticed at start-up
      // (loadDataDir). A crash between the two leaves journal 1 empty and no snapshot: a new directory.
      await journal.opened();
      // Generation 0 covers no journal: the seed, with the epoch every later ETag begins with.
      await writeSnapshot(dir, state, 0);
    } catch (error) {
      await journal.close().catch(() => undefined);
      throw error;
    }
  }
  return { journal, state, warnings: loaded.warnings };
}

/**
 * Appends entries to the current journal generation and compacts. A compaction switches
 * appends to a new generation in the same synchronous step as it captures the state, so
 * the snapshot covers exactly the older generations; requests go on meanwhile.
 */
export class Journal {
  readonly #dir: string;
  readonly #options: JournalOptions;
  readonly #compactBytes: number;
  #writer: JournalWriter;
  #generation: number;
  // The oldest journal still on disk: every one from it to the current is replayed at start-up.
  #oldest: number;
  #compaction: Promise<void> | undefined;
  #compactions = 0;
  // Counters of closed writers, so stats count the whole life of the journal.
  #done: WriterStats = { entries: 0, batches: 0, syncs: 0, bytes: 0, lastSyncMs: 0, maxSyncMs: 0, lastBatchEntries: 0 };

  /** Use openJournal, which loads the directory first. */
  constructor(dir: string, options: JournalOptions, loaded: { generation: number; size: number; journals: number[] }) {
    this.#dir = dir;
    this.#options = options;
    this.#compactBytes = options.compactBytes ?? DEFAULT_COMPACT_BYTES;
    this.#generation = loaded.generation;
    this.#oldest = loaded.journals[0] ?? loaded.generation;
    this.#writer = this.#newWriter(loaded.size);
  }

  /** Resolves once the current journal exists on disk, its directory synced. */
  opened(): Promise<void> {
    return this.#writer.opened();
  }

  /** The generation appends go to. */
  get generation(): number {
    return this.#generation;
  }

  /** Counters over every generation written since opening. */
  get stats(): JournalStats {
    const now = this.#writer.stats;
    const done = this.#done;
    return {
      entries: done.entries + now.entries,
      batches: done.batches + now.batches,
      syncs: done.syncs + now.syncs,
      bytes: done.bytes + now.bytes,
      lastSyncMs: now.syncs > 0 ? now.lastSyncMs : done.lastSyncMs,
      maxSyncMs: Math.max(done.maxSyncMs, now.maxSyncMs),
      lastBatchEntries: now.batches > 0 ? now.lastBatchEntries : done.lastBatchEntries,
      generation: this.#generation,
      compactions: this.#compactions,
    };
  }

  /**
   * Appends one entry (see JournalWriter.append): answer the request once it resolves.
   * Starts a compaction when the journal passes its bound.
   */
  append(entry: JournalEntry): Promise<void> {
    const appended = this.#writer.append(entry);
    if (this.#writer.size >= this.#compactBytes && this.#compaction === undefined) {
      this.compact().catch((error: Error) => (this.#options.onCompactionError ?? this.#options.onError)?.(error));
    }
    return appended;
  }

  /**
   * Compacts now: captures the state, sends later appends to the next generation, waits
   * until the old journal is durable, writes the snapshot covering it, then removes the
   * journals it covers. Resolves when done; one compaction runs at a time.
   */
  compact(): Promise<void> {
    this.#compaction ??= this.#compact().finally(() => {
      this.#compaction = undefined;
    });
    return this.#compaction;
  }

  async #compact(): Promise<void> {
    // One synchronous step: the state holds every entry of this generation and none of the next.
    const state = this.#options.capture();
    const old = this.#writer;
    const covered = this.#generation;
    this.#generation = covered + 1;
    this.#writer = this.#newWriter(0, old.close());
    // A failed old journal fails the compaction: its waiting entries were refused, so a
    // snapshot must not make them durable behind their callers' backs.
    await old.close();
    this.#retire(old);
    // The next journal exists, its directory synced, before the snapshot that it follows is in
    // place: a snapshot without the journal after it then means that journal was lost (loadDataDir).
    await this.#writer.opened();
    await writeSnapshot(this.#dir, state, covered);
    // Only now, with the snapshot durable, may the journals it covers go.
    for (let generation = this.#oldest; generation <= covered; generation++) {
      await new Promise<void>((resolve, reject) =>
        rm(join(this.#dir, journalName(generation)), { force: true }, (error) => (error ? reject(error) : resolve())),
      );
    }
    this.#oldest = covered + 1;
    await syncDirectory(this.#dir);
    this.#compactions++;
  }

  /** Waits for a running compaction, then writes, syncs and closes the current journal. */
  async close(): Promise<void> {
    await this.#compaction?.catch(() => undefined);
    await this.#writer.close();
  }

  #newWriter(size: number, after?: Promise<unknown>): JournalWriter {
    const { fsync, onError, onSync } = this.#options;
    return new JournalWriter(join(this.#dir, journalName(this.#generation)), { fsync, size, after, onError, onSync });
  }

  #retire(writer: JournalWriter): void {
    const s = writer.stats;
    const done = this.#done;
    done.entries += s.entries;
    done.batches += s.batches;
    done.syncs += s.syncs;
    done.bytes += s.bytes;
    if (s.syncs > 0) done.lastSyncMs = s.lastSyncMs;
    done.maxSyncMs = Math.max(done.maxSyncMs, s.maxSyncMs);
    if (s.batches > 0) done.lastBatchEntries = s.lastBatchEntries;
  }
}
