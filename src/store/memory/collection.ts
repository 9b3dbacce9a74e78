// The memory store's parts: Map-based collections with an id policy and versions, and parent -> children indexes.
import { formatEntityTag, newEpoch } from "../tags.ts";
import type { CollectionState } from "../journal/state.ts";
import type { IdPolicy, ReadView } from "../seam.ts";
import type { RecordId, StoredRecord } from "../records.ts";
import { randomId } from "../ids.ts";
import { PIECE_CHARS, shortListText } from "../list-text.ts";
import { Versions } from "./versions.ts";
import { CreationOrder } from "./order.ts";
import { ListIndexes, type Room, type Selected } from "./list-indexes.ts";
import { isPlain, type ListQuery, selectPage } from "../query.ts";

export type { IdPolicy, ReadView, StoredRecord };

/**
 * The most reads a collection keeps (readView): about 330 bytes each for a small record, so at
 * most about 21 MB, where keeping every record read doubled what a million records hold
 * (docs/benchmarks.md, "Memory per record"). Past it the oldest kept read is let go of.
 */
export const KEPT_READS = 65_536;

/** The most records a page's text is joined from kept texts: a page as clients ask for one, not a whole list. */
const PAGE_TEXT_ITEMS = 100;

/** Options of a Collection. */
export type CollectionOptions = {
  /**
   * The epoch its ETags begin with: the data set's, so that a store that counts
   * versions from 0 again in a new process never gives back an old ETag. A new
   * random one by default.
   */
  epoch?: string;
  /** The room its list indexes may take from the store's budget (list-indexes.ts); unbounded by default. */
  room?: Room;
};

/**
 * A collection of records by id, in creation order. It keeps a revision that
 * every insert, replace and delete raises and nothing lowers, not even clear();
 * each record's version is the revision of its last write. ETags are made of
 * these numbers (RFC 9110, section 8.8.3), so a read computes nothing from a body.
 */
export class Collection<R extends StoredRecord = StoredRecord> {
  readonly #records = new Map<RecordId, R>();
  // Versions sit apart, as numbers by id (see versions.ts). Fast path: no record is wrapped
  // with its version and ETag in an object, which left one more object and one more string
  // per record for the garbage collector
  // (docs/benchmarks.md, "Measurements behind fast paths in the code").
  readonly #versions = new Versions();
  // What a read of a record sends: the ETag and the JSON text. Fast path: a record's text is
  // kept from its first read until its next write, so a read neither formats the ETag nor
  // serialises the record (docs/benchmarks.md, "Measurements behind fast paths in the code").
  // Records written but never read keep nothing, and at most KEPT_READS are kept.
  readonly #reads = new Map<RecordId, ReadView>();
  // The ids by rank, so that a page at an offset costs the page, not the offset (order.ts).
  readonly #order = new CreationOrder();
  // Equality filters and sorts kept up to date, so that they cost the page too (list-indexes.ts).
  readonly #indexes: ListIndexes<R>;
  readonly #policy: IdPolicy;
  readonly #epoch: string;
  #highestId = 0;
  #revision = 0;
  #listTag = "";
  #listTagRevision = -1;
  // Fast path: the whole list's JSON text, kept until the next write like a record's, so a
  // list is not serialised again until then
  // (docs/benchmarks.md, "Measurements behind fast paths in the code").
  // A long list has none (shortListText), so a list never doubles what memory holds; it is
  // written in pieces.
  #listText: string | undefined;
  #listTextRevision = -1;
  // The whole list as the last one asked for it, while answers still write it: lists asked for
  // at once, before the next write, share one array, and so the counting of its bytes
  // (http/pieces.ts). Held weakly, so that it costs nothing once they are done.
  #whole: WeakRef<R[]> | undefined;
  #wholeRevision = -1;

  constructor(policy: IdPolicy, seed: readonly R[] = [], options: CollectionOptions = {}) {
    this.#policy = policy;
    this.#epoch = options.epoch ?? newEpoch();
    this.#indexes = new ListIndexes<R>((id) => this.#order.slotOf(id), options.room);
    for (const record of seed) this.insert(record);
  }

  /**
   * A collection holding a state a journal restored: its records with their versions, its
   * revision and its highest id, so that ids and ETags go on exactly where they were.
   */
  static restore<R extends StoredRecord>(policy: IdPolicy, state: CollectionState, epoch: string, room?: Room): Collection<R> {
    const collection = new Collection<R>(policy, [], { epoch, room });
    // The highest id is never below a held one: has() relies on it.
    let highestId = state.highestId;
    for (const { record, version } of state.records.values()) {
      collection.#records.set(record.id, record as R);
      collection.#versions.set(record.id, version);
      collection.#order.append(record.id);
      if (typeof record.id === "number" && record.id > highestId) highestId = record.id;
    }
    collection.#revision = state.revision;
    collection.#highestId = highestId;
    return collection;
  }

  /**
   * The collection's state as a journal's snapshot holds it, copied at once: later writes
   * replace record objects and never change one, so the records themselves are shared.
   */
  capture(): CollectionState {
    const records = new Map<RecordId, { record: StoredRecord; version: number }>();
    for (const [id, record] of this.#records) records.set(id, { record, version: this.#versions.get(id)! });
    return { revision: this.#revision, highestId: this.#highestId, records };
  }

  /** How many records are held. */
  get size(): number {
    return this.#records.size;
  }

  /** The revision of the last write to any record: a list's version. */
  get revision(): number {
    return this.#revision;
  }

  /** The id the next record gets unless the client chooses one: a new random one for `random`. */
  nextId(): RecordId {
    if (this.#policy === "random") return randomId();
    return this.#policy === "count" ? this.#records.size + 1 : this.#highestId + 1;
  }

  /**
   * The version of the record with this id (the revision of its last write), if held.
   * A record deleted and created again gets a higher version than it had.
   */
  version(id: RecordId): number | undefined {
    return this.#versions.get(id);
  }

  /** The strong ETag of a version of this collection's records or lists: `"<epoch>-<version in base 36>"`. */
  versionTag(version: number): string {
    return formatEntityTag(this.#epoch, version);
  }

  /**
   * The strong ETag of the record with this id, if held.
   * A write's own answer should use versionTag instead, so that records written
   * but never read hold no ETag string.
   */
  entityTag(id: RecordId): string | undefined {
    const cached = this.#reads.get(id);
    if (cached !== undefined) return cached.tag;
    const version = this.#versions.get(id);
    return version === undefined ? undefined : formatEntityTag(this.#epoch, version);
  }

  /**
   * What a read of the record with this id sends, if it is held: its ETag and its
   * JSON text, made on the first read after a write and kept until the next one.
   */
  readView(id: RecordId): ReadView | undefined {
    const cached = this.#reads.get(id);
    if (cached !== undefined) return cached;
    const record = this.#records.get(id);
    if (record === undefined) return undefined;
    const view = { tag: formatEntityTag(this.#epoch, this.#versions.get(id)!), text: JSON.stringify(record) };
    // The first kept is the oldest: a Map iterates in insertion order.
    if (this.#reads.size >= KEPT_READS) this.#reads.delete(this.#reads.keys().next().value!);
    this.#reads.set(id, view);
    return view;
  }

  /** The strong ETag of the whole collection, and so of every list of its records: the epoch and the revision. */
  listEntityTag(): string {
    if (this.#listTagRevision !== this.#revision) {
      this.#listTag = this.versionTag(this.#revision);
      this.#listTagRevision = this.#revision;
    }
    return this.#listTag;
  }

  /**
   * The JSON text of every record in creation order, as a list answers with it, when it is
   * short enough to keep; undefined for a longer list, which is written in pieces. `all` is
   * that list as page(0, Infinity) gives it, which the caller has made already.
   */
  listText(all: readonly R[]): string | undefined {
    if (this.#listTextRevision === this.#revision) return this.#listText;
    const text = shortListText(all);
    this.#listText = text;
    this.#listTextRevision = this.#revision;
    return text;
  }

  /**
   * The JSON text of a page of this collection's records, exactly as JSON.stringify(items) makes
   * it, joined from the texts reads keep (readView); undefined for a page whose text is longer
   * than a piece, which is written in pieces. Fast path: a page read again costs no
   * serialisation, as a record read again costs none (docs/benchmarks.md, "Lists at a million records").
   */
  pageText(items: readonly R[]): string | undefined {
    if (items.length > PAGE_TEXT_ITEMS) return undefined;
    let text = "[";
    for (let i = 0; i < items.length; i++) {
      const view = this.readView(items[i]!.id)!;
      if (text.length + view.text.length > PIECE_CHARS) return undefined;
      text += i === 0 ? view.text : `,${view.text}`;
    }
    return `${text}]`;
  }

  /** The record with this id, if any. */
  get(id: RecordId): R | undefined {
    return this.#records.get(id);
  }

  /**
   * Whether a record has this id. Fast path: an id past the highest ever held is free without
   * a look-up, which a create of a new id misses in a large Map
   * (docs/benchmarks.md, "Measurements behind fast paths in the code").
   */
  has(id: RecordId): boolean {
    return typeof id === "number" ? id <= this.#highestId && this.#records.has(id) : this.#records.has(id);
  }

  /** Adds a new record; an id already taken is a programmer error, since creates never overwrite. */
  insert(record: R): void {
    if (this.#records.has(record.id)) throw new RangeError(`Record ${record.id} already exists`);
    this.add(record);
  }

  /**
   * Adds a record whose id the caller has just found free, as a create does. Fast path: no
   * second look-up in a large Map to check the id again
   * (docs/benchmarks.md, "Measurements behind fast paths in the code").
   */
  add(record: R): void {
    // The version first: a record is never held without one.
    // A new id has no kept ETag (delete() dropped it), so only the version is set.
    this.#versions.set(record.id, ++this.#revision);
    this.#records.set(record.id, record);
    this.#order.append(record.id);
    this.#indexes.added(record);
    if (typeof record.id === "number" && record.id > this.#highestId) this.#highestId = record.id;
  }

  /** Replaces a held record, keeping its place in creation order. */
  replace(record: R): void {
    const before = this.#records.get(record.id);
    if (before === undefined) throw new RangeError(`Record ${record.id} does not exist`);
    this.#indexes.replaced(before, record);
    this.#records.set(record.id, record);
    this.#written(record.id);
  }

  #written(id: RecordId): void {
    this.#versions.set(id, ++this.#revision);
    this.#reads.delete(id);
  }

  /** Removes a record; says whether there was one. */
  delete(id: RecordId): boolean {
    const record = this.#records.get(id);
    if (record === undefined) return false;
    this.#indexes.removed(record);
    this.#records.delete(id);
    this.#versions.delete(id);
    this.#order.remove(id);
    this.#reads.delete(id);
    this.#revision++;
    return true;
  }

  /**
   * Forgets every record and the highest id given, as a new collection would be,
   * but keeps the revision: a record held again after a clear must not get back
   * a version, and so an ETag, that it had before.
   */
  clear(): void {
    this.#records.clear();
    this.#versions.clear();
    this.#order.clear();
    this.#indexes.cleared();
    this.#reads.clear();
    this.#highestId = 0;
    this.#revision++;
  }

  /** Lets go of every list index, giving back the room they took: lists are answered by scans until they are made again. */
  dropIndexes(): void {
    this.#indexes.cleared();
  }

  /** What the list indexes kept now hold, in bytes, as taken from the room. */
  get indexCost(): number {
    return this.#indexes.cost;
  }

  /**
   * A page of a list with filters or a sort, and how many records match: from an index where one
   * serves it, by a scan of every record where none does (more members than the indexes kept).
   */
  select(list: ListQuery): Selected<R> {
    const selected = isPlain(list) ? undefined : this.#indexes.select(list, () => this.page(0, Infinity), (id) => this.#records.get(id)!);
    return selected ?? selectPage(this.page(0, Infinity), list);
  }

  /**
   * Every record in creation order, the same array until the next write while it is still in
   * use; the caller must not change it.
   */
  whole(): readonly R[] {
    if (this.#wholeRevision === this.#revision) {
      const kept = this.#whole?.deref();
      if (kept !== undefined) return kept;
    }
    // Copied in one native step rather than pushed one by one: at a million records, the one step of a whole list that holds the loop.
    const items = Array.from(this.#records.values());
    this.#whole = new WeakRef(items);
    this.#wholeRevision = this.#revision;
    return items;
  }

  /** Records in creation order, skipping `offset` and taking at most `limit`: the page is found by rank, not by walking past the offset. */
  page(offset: number, limit: number): R[] {
    if (offset === 0) return takePage(this.#records.values(), 0, limit);
    return this.#order.page(offset, limit).map((id) => this.#records.get(id)!);
  }
}

/** Which children belong to each parent, so a parent's list costs time in proportion to it. */
export class ChildIndex {
  readonly #children = new Map<RecordId, Set<RecordId>>();

  /** Records `child` under `parent`. */
  add(parent: RecordId, child: RecordId): void {
    let set = this.#children.get(parent);
    if (set === undefined) {
      set = new Set();
      this.#children.set(parent, set);
    }
    set.add(child);
  }

  /** Forgets `child` under `parent`. */
  remove(parent: RecordId, child: RecordId): void {
    const set = this.#children.get(parent);
    if (set === undefined) return;
    set.delete(child);
    if (set.size === 0) this.#children.delete(parent);
  }

  /** How many children `parent` has. */
  count(parent: RecordId): number {
    return this.#children.get(parent)?.size ?? 0;
  }

  /** The ids of `parent`'s children in the order they were added. */
  ids(parent: RecordId): Iterable<RecordId> {
    return this.#children.get(parent) ?? [];
  }

  /** Forgets every parent and child. */
  clear(): void {
    this.#children.clear();
  }

  /** Forgets `parent` and returns the ids of the children it had. */
  drop(parent: RecordId): RecordId[] {
    const set = this.#children.get(parent);
    this.#children.delete(parent);
    return set === undefined ? [] : [...set];
  }
}

/** Skips `offset` items and takes at most `limit`, stopping there instead of walking the rest. */
export function takePage<T>(items: Iterable<T>, offset: number, limit: number): T[] {
  const page: T[] = [];
  if (limit === 0) return page;
  let skipped = 0;
  for (const item of items) {
    if (skipped < offset) {
      skipped++;
      continue;
    }
    page.push(item);
    if (page.length >= limit) break;
  }
  return page;
}
