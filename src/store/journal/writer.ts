// An append-only journal file with group commit: an entry's promise resolves once its bytes are written and synced.
import { dirname } from "node:path";
import { clearTimeout, setTimeout } from "node:timers";
import { close, datasync, openPrivate, syncDirectory, writeAll } from "./files.ts";
import { encodeEntry, type JournalEntry } from "./format.ts";

/**
 * When appends are made durable. `always`: an append resolves only after an fdatasync
 * that covers it, so an answered write survives a power loss. `interval`: an append
 * resolves once written to the file, which survives the process being killed but not the
 * machine losing power; a sync follows at most once a second, so a power loss can drop
 * the writes answered in the last second or so.
 */
export type FsyncPolicy = "always" | "interval";

/** The sync policies, for checking configuration. */
export const FSYNC_POLICIES: readonly FsyncPolicy[] = ["always", "interval"];

/** Options of a JournalWriter. */
export type WriterOptions = {
  /** `always` by default. */
  fsync?: FsyncPolicy;
  /** The file's length when opened, so `size` counts from there (the loader knows it). */
  size?: number;
  /**
   * Nothing is written before this settles, and nothing at all if it rejects: the previous
   * journal's close, so that every entry of one generation is durable before any of the
   * next is written, and a torn tail can only ever be in the newest journal.
   */
  after?: Promise<unknown>;
  /** The most time between syncs with `interval`, in milliseconds: 1000 by default. */
  intervalMs?: number;
  /** Told how long each fdatasync took, in milliseconds (for the metrics). */
  onSync?: (milliseconds: number) => void;
  /** Told once of the first failure, which also rejects every waiting append: with `interval`, writes already answered may be lost. */
  onError?: (error: Error) => void;
};

/** Counters for metrics: what the writer has done so far. */
export type WriterStats = {
  /** Entries appended and written. */
  entries: number;
  /** write calls made, one per batch (more only for short writes). */
  batches: number;
  /** fdatasync calls made. */
  syncs: number;
  /** Bytes written. */
  bytes: number;
  /** How long the last fdatasync took, in milliseconds. */
  lastSyncMs: number;
  /** The longest fdatasync so far, in milliseconds. */
  maxSyncMs: number;
  /** How many entries the last batch held. */
  lastBatchEntries: number;
};

type Pending = { bytes: Uint8Array; resolve: () => void; reject: (error: Error) => void };

/**
 * Appends entries to one journal file, in order. While one write and sync are in flight,
 * later entries wait and then go together in the next single write and single sync (group
 * commit), so many concurrent requests share the cost of one fdatasync. A failed open,
 * write or sync is never reported as durable: every waiting append rejects with it, and so
 * does every later one; the process should then stop rather than answer more writes.
 */
export class JournalWriter {
  /** The journal file. */
  readonly path: string;
  readonly #policy: FsyncPolicy;
  readonly #intervalMs: number;
  readonly #onError: ((error: Error) => void) | undefined;
  readonly #onSync: ((milliseconds: number) => void) | undefined;
  readonly #opened: Promise<number>;
  #fd: number | undefined;
  #queue: Pending[] = [];
  #running: Promise<void> | undefined;
  #failed: Error | undefined;
  #closing: Promise<void> | undefined;
  // Written with `interval` but not yet synced.
  #dirty = false;
  #syncDue = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastSyncAt = 0;
  #size: number;
  readonly #stats: WriterStats = { entries: 0, batches: 0, syncs: 0, bytes: 0, lastSyncMs: 0, maxSyncMs: 0, lastBatchEntries: 0 };

  constructor(path: string, options: WriterOptions = {}) {
    this.path = path;
    this.#policy = options.fsync ?? "always";
    this.#intervalMs = options.intervalMs ?? 1000;
    this.#onError = options.onError;
    this.#onSync = options.onSync;
    this.#size = options.size ?? 0;
    this.#opened = Promise.resolve(options.after).then(async () => {
      // O_APPEND|O_CREAT, mode 0600; the directory is synced so that a journal just created
      // is still there after a crash, with the entries acknowledged in it.
      const fd = await openPrivate(path, "a");
      this.#fd = fd;
      await syncDirectory(dirname(path));
      return fd;
    });
    this.#opened.catch((error: Error) => this.#fail(error, []));
  }

  /** Resolves once the file exists and its directory is synced; rejects if it cannot be opened. */
  opened(): Promise<void> {
    return this.#opened.then(() => undefined);
  }

  /** The file's length in bytes, counting entries appended but not yet written. */
  get size(): number {
    return this.#size;
  }

  /** A copy of the counters. */
  get stats(): WriterStats {
    return { ...this.#stats };
  }

  /**
   * Appends one entry. Resolves once it is written and (with `always`) covered by an
   * fdatasync, so the caller answers only after that; rejects if that cannot be done.
   * Call it in the same synchronous step that applies the change in memory, so that
   * the journal's order is the order the changes were made.
   */
  append(entry: JournalEntry): Promise<void> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    if (this.#closing !== undefined) return Promise.reject(new Error(`${this.path} is closed`));
    const bytes = encodeEntry(entry);
    this.#size += bytes.length;
    return new Promise((resolve, reject) => {
      this.#queue.push({ bytes, resolve, reject });
      this.#kick();
    });
  }

  /** Writes and syncs what is waiting, then closes the file; rejects with the writer's failure if it had one. */
  close(): Promise<void> {
    this.#closing ??= this.#finish();
    return this.#closing;
  }

  async #finish(): Promise<void> {
    await this.#opened.catch(() => undefined);
    while (this.#running !== undefined) await this.#running;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    try {
      if (this.#fd !== undefined && this.#dirty && this.#failed === undefined) await this.#sync();
    } catch (error) {
      this.#fail(error as Error, []);
    }
    if (this.#fd !== undefined) await close(this.#fd);
    this.#fd = undefined;
    if (this.#failed !== undefined) throw this.#failed;
  }

  #kick(): void {
    if (this.#running !== undefined) return;
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
      // Callers woken by the last batch may have appended before this ran, while the
      // loop still looked busy: start again for them.
      if (this.#failed === undefined && (this.#queue.length > 0 || this.#syncDue)) this.#kick();
    });
  }

  async #run(): Promise<void> {
    let batch: Pending[] = [];
    try {
      const fd = await this.#opened;
      while (this.#failed === undefined && (this.#queue.length > 0 || this.#syncDue)) {
        batch = this.#queue;
        this.#queue = [];
        if (batch.length > 0) {
          const bytes = concat(batch);
          await writeAll(fd, bytes);
          this.#stats.bytes += bytes.length;
          this.#stats.entries += batch.length;
          this.#stats.batches++;
          this.#stats.lastBatchEntries = batch.length;
          if (this.#policy === "always") await this.#sync();
          else this.#written();
          for (const pending of batch) pending.resolve();
          batch = [];
        }
        if (this.#syncDue) {
          this.#syncDue = false;
          if (this.#dirty) await this.#sync();
        }
      }
    } catch (error) {
      this.#fail(error as Error, batch);
    }
  }

  // With `interval`: the write is answered now, and a sync is due at most a second after the last one.
  #written(): void {
    this.#dirty = true;
    if (this.#timer !== undefined) return;
    const wait = Math.max(0, this.#lastSyncAt + this.#intervalMs - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#syncDue = true;
      this.#kick();
    }, wait);
    // A pending sync must not keep the process alive; close() syncs what is left.
    this.#timer.unref();
  }

  async #sync(): Promise<void> {
    const started = performance.now();
    this.#dirty = false;
    await datasync(this.#fd!);
    const took = performance.now() - started;
    this.#lastSyncAt = started;
    this.#stats.syncs++;
    this.#stats.lastSyncMs = took;
    this.#onSync?.(took);
    if (took > this.#stats.maxSyncMs) this.#stats.maxSyncMs = took;
  }

  #fail(error: Error, batch: Pending[]): void {
    const first = this.#failed === undefined;
    this.#failed ??= error;
    const waiting = [...batch, ...this.#queue];
    this.#queue = [];
    for (const pending of waiting) pending.reject(this.#failed);
    if (first) this.#onError?.(error);
  }
}

function concat(batch: Pending[]): Uint8Array {
  if (batch.length === 1) return batch[0]!.bytes;
  let length = 0;
  for (const pending of batch) length += pending.bytes.length;
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const pending of batch) {
    bytes.set(pending.bytes, at);
    at += pending.bytes.length;
  }
  return bytes;
}
