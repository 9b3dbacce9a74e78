// The data a journal restores: per collection its revision, highest id and versioned records, and replay of one entry onto it.
import type { RecordId, StoredRecord } from "../records.ts";
import { applyChange } from "./changes.ts";
import type { Effect, JournalEntry } from "./format.ts";

/** A record with the version (the collection revision of its last write) its ETag is made of. */
export type VersionedRecord = { record: StoredRecord; version: number };

/**
 * One collection as a Collection holds it: its revision (raised by every write, never lowered),
 * the highest id it has given (for the `sequence` id policy, reset only by a clear), and its
 * records by id in creation order (a Map keeps insertion order, and a replace keeps a record's place).
 */
export type CollectionState = { revision: number; highestId: number; records: Map<RecordId, VersionedRecord> };

/** Everything a data directory holds: the epoch its ETags begin with, and each collection. */
export type DataState = { epoch: string; collections: Map<string, CollectionState> };

/** A state with this epoch and these collections, all empty. */
export function emptyState(epoch: string, names: readonly string[]): DataState {
  return { epoch, collections: new Map(names.map((name) => [name, emptyCollection()])) };
}

function emptyCollection(): CollectionState {
  return { revision: 0, highestId: 0, records: new Map() };
}

/**
 * A copy of `state` that later applyEntry calls on either do not reach. Records are shared,
 * not cloned: applyEntry and the store replace a record object on every write rather than
 * change it, and sharing them keeps a compaction's synchronous copy cheap.
 */
export function copyState(state: DataState): DataState {
  const collections = new Map<string, CollectionState>();
  for (const [name, c] of state.collections) {
    collections.set(name, { revision: c.revision, highestId: c.highestId, records: new Map(c.records) });
  }
  return { epoch: state.epoch, collections };
}

/**
 * Applies a journal entry's effects in order, as the store applied them. Returns a reason
 * when the entry does not follow the state (a version that does not raise its collection's
 * revision, a delete of a record not held): replaying it would mean an entry was applied
 * twice or one is missing, which the caller reports as damage.
 */
export function applyEntry(state: DataState, entry: JournalEntry): string | undefined {
  for (const effect of entry.effects) {
    const name = collectionOf(effect);
    let collection = state.collections.get(name);
    if (collection === undefined) {
      collection = emptyCollection();
      state.collections.set(name, collection);
    }
    // Revisions only grow (see Collection), so an effect at or below the revision was applied already.
    if (effect.version <= collection.revision) {
      return `version ${effect.version} of ${name} does not follow its revision ${collection.revision}`;
    }
    if ("put" in effect) {
      const { record } = effect;
      collection.records.set(record.id, { record, version: effect.version });
      if (typeof record.id === "number" && record.id > collection.highestId) collection.highestId = record.id;
    } else if ("update" in effect) {
      const held = collection.records.get(effect.id);
      if (held === undefined) return `record ${effect.id} of ${name} is updated but not held`;
      // The change was made against this very version: another one means an entry is missing.
      if (held.version !== effect.from) return `record ${effect.id} of ${name} is updated from version ${effect.from} but is at version ${held.version}`;
      const record = applyChange(held.record, effect.change);
      if (typeof record === "string") return `record ${effect.id} of ${name} does not take its update: ${record}`;
      if (record.id !== effect.id) return `record ${effect.id} of ${name} is given the id ${JSON.stringify(record.id)} by its update`;
      collection.records.set(effect.id, { record: record as typeof held.record, version: effect.version });
    } else if ("delete" in effect) {
      if (!collection.records.delete(effect.id)) return `record ${effect.id} of ${name} is deleted but not held`;
    } else {
      collection.records.clear();
      collection.highestId = 0;
    }
    collection.revision = effect.version;
  }
  return undefined;
}

function collectionOf(effect: Effect): string {
  if ("put" in effect) return effect.put;
  if ("update" in effect) return effect.update;
  return "delete" in effect ? effect.delete : effect.clear;
}
