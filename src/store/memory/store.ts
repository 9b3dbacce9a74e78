// The memory store: every collection in a Map, answering at once; with a journal, each write is kept before it is answered.
import { newEpoch } from "../tags.ts";
import { StoreError } from "../errors.ts";
import { changeOf } from "../journal/changes.ts";
import type { Effect, JournalEntry } from "../journal/format.ts";
import type { CollectionState, DataState } from "../journal/state.ts";
import { isPlain, type ListQuery, selectPage } from "../query.ts";
import { type CollectionName, type RecordId, type SeedRecords, type Snapshot } from "../records.ts";
import type { Awaitable, Collections, CollectionDefinition, CollectionStore, Current, ListView, ReadView, Store, Written } from "../seam.ts";
import type { StoredRecord } from "../records.ts";
import { formatBytes, recordCost } from "./budget.ts";
import { createHolds, type Holds } from "./holds.ts";
import { ChildIndex, Collection, takePage } from "./collection.ts";
import type { Room } from "./list-indexes.ts";
import { createKeeping, type Keeping } from "./keeping.ts";

/** Options of createMemoryStore. */
export type MemoryStoreOptions = {
  /** The records to start with (unless `restored` is given), and to go back to on reset. */
  starting: SeedRecords;
  /** A state a journal restored: records, versions, revisions, highest ids and the epoch. */
  restored?: DataState;
  /**
   * Makes a write durable: called with the write's effects in the same synchronous step as
   * it is applied; the write is answered once the promise resolves. Without it, writes are
   * answered at once and kept only in memory.
   */
  keep?: (entry: JournalEntry) => Promise<void>;
  /**
   * The most the records may cost, as recordCost counts them (unbounded by default): a write
   * that would pass it is refused with 507 STORE_FULL, and starting records past it throw a
   * StoreLimitError. Data a journal restored is held whatever its cost; writes that would add
   * to it are refused until deletes make room.
   */
  limit?: number;
};

/** Starting records that cost more than the store's limit. */
export class StoreLimitError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "StoreLimitError";
  }
}

/** The memory store, with what a journal needs of it: its state, captured at once. */
export type MemoryStore = Store & {
  /** The whole state as a journal snapshot holds it; records are shared, the maps copied. */
  capture: () => DataState;
  /** The id the next record of a collection gets unless the client chooses one. */
  nextId: (name: CollectionName) => RecordId;
  /** Stops serving: what `keep` made durable may now lag behind memory, so every request for data gets 503. */
  fail: () => void;
  /** What the budget counts now, in bytes: the records (those answers still hold among them) and the list indexes kept. */
  costs: () => { records: number; indexes: number };
};

/** One collection and its links: the index of its records by parent, and its children's parts. */
type Part = {
  resource: CollectionDefinition;
  records: Collection;
  /** Which of this collection's records belong to each parent record; only for a child collection. */
  index: ChildIndex | undefined;
  parent: Part | undefined;
  children: Part[];
  /** The lists of this collection being written, which keep what the deleted records they list cost counted (holds.ts). */
  holds: Holds;
};

/**
 * A store that holds every collection in memory, built from the resources' descriptions
 * (id policy, parent). Every answer is synchronous unless `keep` is given: then each write
 * is answered after its entry is kept, and a read or a refusal made while writes are still
 * being kept waits for them, so that no answer shows what a crash could still take back.
 */
export function createMemoryStore(resources: Collections, options: MemoryStoreOptions): MemoryStore {
  const { starting, restored, keep, limit = Infinity } = options;
  if (!(limit > 0)) throw new TypeError("The store's limit must be a positive number of bytes");
  const epoch = restored?.epoch ?? newEpoch();
  // What the records held cost, and what the list indexes kept beside them hold; every write
  // keeps both exact (budget.ts, list-indexes.ts).
  const budget = { used: 0, kept: 0 };
  // The indexes take what the records leave: one that does not fit is not kept, and its list is
  // answered by a scan (docs/decisions.md, "Access and limits").
  const room: Room = {
    take: (bytes) => {
      if (budget.used + budget.kept + bytes > limit) return false;
      budget.kept += bytes;
      return true;
    },
    give: (bytes) => {
      budget.kept -= bytes;
    },
  };
  const parts = new Map<CollectionName, Part>();
  // The resources come parents first, and so do their parts.
  for (const resource of Object.values(resources)) {
    const { name } = resource;
    const state = restored?.collections.get(name);
    const records = state === undefined ? new Collection(resource.ids, [], { epoch, room }) : Collection.restore(resource.ids, state, epoch, room);
    const parent = resource.parent === undefined ? undefined : parts.get(resource.parent.resource.name);
    const part: Part = { resource, records, index: parent && new ChildIndex(), parent, children: [], holds: createHolds(budget) };
    parent?.children.push(part);
    parts.set(name, part);
    if (part.index !== undefined) {
      const key = resource.parent!.key;
      for (const record of records.page(0, Infinity)) part.index.add(record[key] as RecordId, record.id);
    }
  }
  if (restored === undefined) {
    load(parts, starting, budget);
    if (budget.used > limit) {
      throw new StoreLimitError(
        `The starting records take ${formatBytes(budget.used)}, more than STORE_LIMIT (${formatBytes(limit)}); raise STORE_LIMIT or start with fewer records`,
      );
    }
  } else for (const part of parts.values()) for (const record of part.records.page(0, Infinity)) budget.used += recordCost(record);
  /**
   * Refuses a write that would take the records past the limit; a write that frees room, or
   * adds none, always passes (a replace adds its whole record while a list of its collection
   * being written still holds the one it replaces). The list indexes never refuse a write: one
   * that fits the records' limit but not beside them lets go of them, a collection's at a time.
   */
  const afford = (added: number): void => {
    if (added > 0 && budget.used + budget.kept + added > limit) {
      if (budget.used + added > limit) {
        throw new StoreError(
          "STORE_FULL",
          `The store is full: this write would take the records past STORE_LIMIT (${formatBytes(limit)}); delete records to make room`,
        );
      }
      for (const part of parts.values()) {
        if (budget.used + budget.kept + added <= limit) break;
        part.records.dropIndexes();
      }
    }
    budget.used += added;
  };

  // A read, or a write refused, while writes are being kept is answered once they are (keeping.ts).
  const keeping = createKeeping(keep);

  // A list without its text made may be written in pieces, holding its records until the
  // last piece is out (http/pieces.ts): what they cost stays counted until it calls release.
  // It holds them at the collection's revision, all of them when it lists as many as are held.
  const held = ({ holds, records }: Part, view: ListView | undefined): ListView | undefined => {
    if (view !== undefined && view.text === undefined && view.items.length > 1) {
      view.release = holds.hold(view.items, records.revision, view.items.length === records.size);
    }
    return view;
  };

  const collections = new Map<CollectionName, CollectionStore>();
  for (const [name, part] of parts) {
    const { records, index, parent } = part;
    const listTag = () => records.listEntityTag();
    const current = (id: RecordId): Current => {
      const record = records.get(id);
      return record === undefined ? undefined : { record, tag: () => records.entityTag(id)! };
    };
    /** Answers a write; with a journal, once kept. `before` is the record a replace changed, at version `from`. */
    const written = (record: StoredRecord, before?: { record: StoredRecord; from: number }): Awaitable<Written> => {
      const version = records.version(record.id)!;
      const answer = { record, tag: records.versionTag(version) };
      if (keep === undefined) return answer;
      // What changed, not the whole record: a PATCH of one member of a large record journals that member.
      const change = before === undefined ? undefined : changeOf(before.record, record);
      const effect: Effect = change === undefined ? { put: name, record, version } : { update: name, id: record.id, from: before!.from, change, version };
      return keeping.kept({ effects: [effect] }, answer);
    };
    collections.set(name, {
      read: (id) => readRecord(records, keeping, id),
      list: (list, parentId) => keeping.after(held(part, listOf(part, list, parentId))),
      // Only `decide` may refuse; what follows it applies the change and cannot.
      create: ({ parentId, chosenId, decide }) => {
        keeping.check();
        const parentFound = parent === undefined || parent.records.has(parentId!);
        const id = chosenId ?? records.nextId();
        let record: StoredRecord;
        try {
          record = decide({ parentFound, listTag, id, taken: records.has(id) });
          afford(recordCost(record));
        } catch (error) {
          return keeping.refuseAfter(error);
        }
        // decide() saw whether the id was taken, in this same step.
        records.add(record);
        index?.add(parentId!, record.id);
        return written(record);
      },
      replace: (id, decide) => {
        keeping.check();
        let record: StoredRecord;
        let before: StoredRecord;
        try {
          record = decide(current(id));
          before = records.get(id)!;
          const taken = recordCost(before);
          const version = records.version(id)!;
          // A list being written may still hold the record replaced: its cost goes once the list is out.
          if (!part.holds.holding() || !part.holds.lists(before, version)) afford(recordCost(record) - taken);
          else {
            afford(recordCost(record));
            part.holds.free(before, version, taken);
          }
        } catch (error) {
          return keeping.refuseAfter(error);
        }
        const from = records.version(id)!;
        records.replace(record);
        return written(record, { record: before, from });
      },
      remove: (id, decide) => {
        keeping.check();
        const held = current(id);
        try {
          decide(held);
        } catch (error) {
          return keeping.refuseAfter(error);
        }
        if (index !== undefined) index.remove(held!.record[part.resource.parent!.key] as RecordId, id);
        const effects = keep === undefined ? undefined : [];
        removeTree(part, id, effects);
        return effects === undefined ? undefined : keeping.kept({ effects }, undefined);
      },
    });
  }

  const capture = (): DataState => {
    const states = new Map<string, CollectionState>();
    for (const [name, part] of parts) states.set(name, part.records.capture());
    return { epoch, collections: states };
  };

  return {
    collection: (name) => collections.get(name)!,
    reset: async (records = starting) => {
      keeping.check();
      // Records other than the starting ones, which were counted at start-up, must fit the limit.
      if (records !== starting) {
        let cost = 0;
        for (const name of parts.keys()) for (const record of records[name] ?? []) cost += recordCost(record);
        if (cost > limit) {
          throw new StoreError("STORE_FULL", `These records take ${formatBytes(cost)}, more than STORE_LIMIT (${formatBytes(limit)}); nothing was changed`);
        }
      }
      const effects = load(parts, records, budget, keep === undefined ? undefined : []);
      if (effects !== undefined) await keeping.kept({ effects }, undefined);
    },
    snapshot: async () => {
      // Copied first, then answered once what it holds is kept: later writes are not in it.
      const copy = {} as Record<string, unknown>;
      for (const [name, part] of parts) copy[name] = structuredClone(part.records.page(0, Infinity));
      return keeping.after(copy as Snapshot);
    },
    // What memory holds, writes still being kept among them: a gauge, not an answer from the data.
    counts: () => {
      const counts = {} as Record<CollectionName, number>;
      for (const [name, part] of parts) counts[name] = part.records.size;
      return counts;
    },
    ready: keeping.ready,
    fail: keeping.fail,
    close: keeping.settled,
    capture,
    nextId: (name) => parts.get(name)!.records.nextId(),
    costs: () => ({ records: budget.used, indexes: budget.kept }),
  };
}

/**
 * A record's view as a read answers it, from its collection (collection.ts, readView): at once,
 * unless writes a journal is still keeping must be kept first (keeping.ts).
 */
export function readRecord(records: Collection, keeping: Keeping, id: RecordId): Awaitable<ReadView | undefined> {
  return keeping.after(records.readView(id));
}

/** A page of a part's list, or of one parent's children; undefined when that parent is not held. */
function listOf(part: Part, list: ListQuery, parentId: RecordId | undefined): ListView | undefined {
  const { records, index, parent } = part;
  const { offset, limit } = list;
  const tag = records.listEntityTag();
  if (index === undefined) {
    if (isPlain(list)) {
      const items = offset === 0 && limit >= records.size ? records.whole() : records.page(offset, limit);
      // A page that holds every record is the whole list, whose text the collection keeps.
      return { items, total: records.size, tag, text: items.length === records.size ? records.listText(items) : records.pageText(items) };
    }
    // Filters and sorts from the collection's indexes, so they cost the page (list-indexes.ts).
    const { items, total } = records.select(list);
    return { items, total, tag, text: records.pageText(items) };
  }
  if (!parent!.records.has(parentId!)) return undefined;
  if (isPlain(list)) {
    const ids = takePage(index.ids(parentId!), offset, limit);
    return { items: ids.map((childId) => records.get(childId)!), total: index.count(parentId!), tag };
  }
  // Only this parent's children are read, so the cost follows their number (docs/spec.md#5-posts-comments-and-replies).
  return { ...selectPage(Array.from(index.ids(parentId!), (childId) => records.get(childId)!), list), tag };
}

/** Deletes a record and, depth first, every record below it; notes each delete's effect when asked. */
function removeTree(part: Part, id: RecordId, effects: Effect[] | undefined): void {
  const record = part.records.get(id)!;
  part.holds.free(record, part.records.version(id)!, recordCost(record));
  part.records.delete(id);
  effects?.push({ delete: part.resource.name, id, version: part.records.revision });
  for (const child of part.children) {
    for (const childId of child.index!.drop(id)) removeTree(child, childId, effects);
  }
}

/**
 * Empties every collection and index, then holds copies of the records, parents first, and
 * counts what they cost; notes the effects (a clear, then a put per record) when asked.
 */
function load(parts: Map<CollectionName, Part>, records: SeedRecords, budget: { used: number }, effects?: Effect[]): Effect[] | undefined {
  for (const { holds, records: held } of parts.values()) {
    for (const record of held.page(0, Infinity)) holds.free(record, held.version(record.id)!, recordCost(record));
  }
  for (const [name, part] of parts) {
    part.records.clear();
    part.index?.clear();
    effects?.push({ clear: name, version: part.records.revision });
    // The records themselves, not copies: they are the store's own (a seed is copied when it is
    // checked), and no held record is ever changed, since a write replaces it. So a reset shares
    // them with the starting records safely. Fast path: a million records load without a
    // million copies (docs/benchmarks.md, "Start-up at a million records").
    for (const record of records[name] ?? []) {
      budget.used += recordCost(record);
      part.records.insert(record);
      if (part.index !== undefined) part.index.add(record[part.resource.parent!.key] as RecordId, record.id);
      effects?.push({ put: name, record, version: part.records.version(record.id)! });
    }
  }
  return effects;
}
