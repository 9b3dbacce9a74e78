// The writes a journal is still keeping: what waits for them, and the stop once one could not be kept.
import { StoreError } from "../errors.ts";
import type { JournalEntry } from "../journal/format.ts";

/**
 * The writes of a memory store still being kept by its journal. Without a journal nothing
 * ever waits: every answer is given at once.
 */
export type Keeping = {
  /** `value` once every write still being kept is kept: at once when none is. Throws once a write could not be kept. */
  after: <T>(value: T) => T | Promise<T>;
  /** Throws `error` once every write still being kept is kept: at once when none is. */
  refuseAfter: (error: unknown) => Promise<never>;
  /** Hands the entry of a write just applied to the journal; `value` once it is kept. */
  kept: <T>(entry: JournalEntry, value: T) => Promise<T>;
  /** Throws STORE_UNAVAILABLE once the store has stopped serving. */
  check: () => void;
  /** Stops serving: what was kept may now lag behind memory. */
  fail: () => void;
  /** Whether the store still serves. */
  ready: () => boolean;
  /** Resolves once the newest write handed over is kept, or has failed. */
  settled: () => Promise<void>;
};

/** The keeping of a store whose writes go to `keep` (a journal's), or of one with none. */
export function createKeeping(keep: ((entry: JournalEntry) => Promise<void>) | undefined): Keeping {
  // The newest write still being kept: every earlier one is kept by the time it is.
  let unkept: Promise<void> | undefined;
  let failed = false;
  const unavailable = (): never => {
    throw new StoreError(
      "STORE_UNAVAILABLE",
      "The data could not be saved to disk, so this instance answers no more requests for data, and a write answered so may or may not have been kept; restart it and read before retrying",
    );
  };
  const fail = () => {
    failed = true;
  };
  return {
    after: (value) => {
      if (failed) unavailable();
      return unkept === undefined ? value : unkept.then(() => value, unavailable);
    },
    refuseAfter: (error) => {
      if (unkept === undefined) throw error;
      return unkept.then(() => {
        throw error;
      }, unavailable);
    },
    kept: (entry, value) => {
      let promise: Promise<void>;
      try {
        promise = keep!(entry);
      } catch {
        // Applied in memory but not journaled: memory is now ahead of the disk.
        fail();
        return new Promise(unavailable);
      }
      unkept = promise;
      promise.then(() => {
        if (unkept === promise) unkept = undefined;
      }, fail);
      return promise.then(() => value, unavailable);
    },
    check: () => {
      if (failed) unavailable();
    },
    fail,
    ready: () => !failed,
    settled: async () => {
      await unkept?.catch(() => undefined);
    },
  };
}
