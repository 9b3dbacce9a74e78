// A collection's list indexes: equality filters and sorts answered from what is kept up to date on every write, not by a scan.
import { compareSortRows, filterText, type ListQuery, matchesFilters, type SortKey, sortRecords, sortRow } from "../query.ts";
import type { RecordId, StoredRecord } from "../records.ts";

/** The most members a collection keeps an equality index of; a filter on another member is answered by a scan. */
export const MAX_FILTER_INDEXES = 8;

/** The most sorts a collection keeps an order of; another sort is answered by sorting. */
export const MAX_SORT_ORDERS = 4;

/**
 * How much a value under a kept sort's keys may hold: string characters, plus one for each
 * value, member name character, element and member. A write puts its record in each kept
 * order with about 2 log n comparisons, each of which makes the held record's value
 * comparable again; a bound keeps that to microseconds. A sort whose values pass it is not
 * kept, and is answered by sorting, as before there were orders (docs/decisions.md, "Lists cost the page").
 */
export const SMALL_SORT_VALUE = 256;

/** A page of a list and how many records match in all, as selectPage answers. */
export type Selected<R> = { items: R[]; total: number };

/**
 * The room the store's budget leaves for what its indexes keep (store.ts): `take` counts bytes
 * if they fit under the limit with the records, and says whether they did; `give` hands bytes back.
 */
export type Room = { take: (bytes: number) => boolean; give: (bytes: number) => void };

/** Room without bound: a collection made alone, outside a store with a limit. */
const UNBOUNDED: Room = { take: () => true, give: () => undefined };

// What a kept index holds, in bytes, counted in the store's budget (docs/decisions.md, "Access
// and limits"). Each is an upper bound of the heap measured for it at 100,000 records: an id or
// a record in an index's array, a slot with room to grow (8 to 14 bytes measured); each text an
// equality index maps, its Map entry and its array of ids (92 bytes with one id, 115 with two),
// and the text itself where the index made it (a number's JSON text: 117 in all). A text costs
// the same whatever made it (`1` and `"1"` share one), so that what its first id took its last gives back.
const SLOT = 16;
const TEXT = 152;

/** How many records an index being made takes in before it asks the budget for the room they took. */
const MAKING_STEP = 1024;

/** An equality index: each filter text with the ids that have it, in creation order, and what it holds in bytes. */
type FilterIndex = { texts: Map<string, RecordId[]>; cost: number };

/** A kept sort: every record in its order; it holds SLOT bytes a record. */
type SortOrder<R> = { keys: readonly SortKey[]; records: R[] };

/**
 * The indexes of one collection, made the first time a list asks for them (docs/decisions.md,
 * "Lists cost the page"). An equality index maps a member's filter text to the ids that have
 * it, in creation order; a sort keeps every record in its order. Every write keeps both up to
 * date, at O(log n) comparisons and a move of the array's tail. `slotOf` gives an id's place in
 * creation order, which only ever grows with creation.
 *
 * What they hold is taken from `room`, the store's budget. An index the room cannot hold is not
 * kept, and its list is answered by a scan, as when more are asked for than are kept; one that a
 * write would grow past the room is let go of (docs/decisions.md, "Access and limits").
 */
export class ListIndexes<R extends StoredRecord> {
  readonly #filters = new Map<string, FilterIndex>();
  readonly #sorts = new Map<string, SortOrder<R>>();
  readonly #slotOf: (id: RecordId) => number;
  readonly #room: Room;

  constructor(slotOf: (id: RecordId) => number, room: Room = UNBOUNDED) {
    this.#slotOf = slotOf;
    this.#room = room;
  }

  /**
   * A page of the list `list` asks for, from an index, or undefined where none serves it (no
   * filter or sort, or one more than the indexes kept allow). `all` gives every record in creation
   * order, to build an index from; `get` a held record by id.
   */
  select(list: ListQuery, all: () => R[], get: (id: RecordId) => R): Selected<R> | undefined {
    const { filters, sort, offset, limit } = list;
    if (filters.size === 0) {
      const order = sort.length === 0 ? undefined : this.#order(sort, all);
      return order === undefined ? undefined : { items: order.slice(offset, offset + limit), total: order.length };
    }
    // The indexed member with the fewest candidates: its texts' id lists, which share no id, and
    // their sum. Only its lists are merged; the other filters are checked on its candidates.
    let fewest: RecordId[][] | undefined;
    let candidates = 0;
    for (const [member, texts] of filters) {
      const index = this.#index(member, all);
      if (index === undefined) continue;
      const lists: RecordId[][] = [];
      let count = 0;
      for (const text of texts) {
        const ids = index.get(text);
        if (ids === undefined) continue;
        lists.push(ids);
        count += ids.length;
      }
      if (fewest === undefined || count < candidates) {
        fewest = lists;
        candidates = count;
      }
    }
    if (fewest === undefined) return undefined;
    if (filters.size === 1 && sort.length === 0) {
      // One filter: its candidates are its matches, and only those up to the page's end are merged.
      const ids = this.#merged(fewest, offset + limit);
      const items: R[] = [];
      const end = Math.min(ids.length, offset + limit);
      for (let i = offset; i < end; i++) items.push(get(ids[i]!));
      return { items, total: candidates };
    }
    const matches = this.#merged(fewest, Infinity).map(get).filter((record) => matchesFilters(record, filters));
    const sorted = sort.length === 0 ? matches : sortRecords(matches, sort);
    return { items: sorted.slice(offset, offset + limit), total: matches.length };
  }

  /** How many sort orders are kept now: what the bound on them, on their values and the room leave. */
  get sortsKept(): number {
    return this.#sorts.size;
  }

  /** How many equality indexes are kept now. */
  get filtersKept(): number {
    return this.#filters.size;
  }

  /** What the kept indexes hold, in bytes, as taken from the room. */
  get cost(): number {
    let cost = 0;
    for (const index of this.#filters.values()) cost += index.cost;
    for (const order of this.#sorts.values()) cost += SLOT * order.records.length;
    return cost;
  }

  /** A record just created, the newest in creation order. */
  added(record: R): void {
    // Fast path: a collection no filtered or sorted list has asked of walks no Map per write
    // (docs/benchmarks.md, "Lists at a million records").
    if (this.#filters.size === 0 && this.#sorts.size === 0) return;
    for (const [member, index] of this.#filters) {
      const text = textOf(record, member);
      if (text === undefined) continue;
      const ids = index.texts.get(text);
      const cost = ids === undefined ? SLOT + TEXT : SLOT;
      if (!this.#grow(index, cost)) this.#dropFilter(member, index);
      else if (ids === undefined) index.texts.set(text, [record.id]);
      else ids.push(record.id);
    }
    for (const [name, order] of this.#sorts) {
      if (isSmall(record, order.keys) && this.#room.take(SLOT)) this.#place(order, record);
      else this.#dropSort(name, order);
    }
  }

  /** A record replaced, keeping its id and its place in creation order. */
  replaced(before: R, after: R): void {
    if (this.#filters.size === 0 && this.#sorts.size === 0) return;
    for (const [member, index] of this.#filters) {
      const was = textOf(before, member);
      const now = textOf(after, member);
      if (was === now) continue;
      if (was !== undefined) this.#drop(index, was, before.id);
      if (now !== undefined && !this.#insert(index, now, after.id)) this.#dropFilter(member, index);
    }
    for (const [name, order] of this.#sorts) {
      // The record keeps its slot: the order holds no more than before.
      this.#take(order, before);
      if (isSmall(after, order.keys)) this.#place(order, after);
      else this.#dropSort(name, order, SLOT);
    }
  }

  /** A record about to be deleted, while its place in creation order is still known. */
  removed(record: R): void {
    if (this.#filters.size === 0 && this.#sorts.size === 0) return;
    for (const [member, index] of this.#filters) {
      const text = textOf(record, member);
      if (text !== undefined) this.#drop(index, text, record.id);
    }
    for (const order of this.#sorts.values()) {
      this.#take(order, record);
      this.#room.give(SLOT);
    }
  }

  /** Every index let go of, as when every record is gone: each is made again when next asked for, if the room holds it. */
  cleared(): void {
    this.#room.give(this.cost);
    this.#filters.clear();
    this.#sorts.clear();
  }

  #index(member: string, all: () => R[]): Map<string, RecordId[]> | undefined {
    const kept = this.#filters.get(member);
    if (kept !== undefined || this.#filters.size >= MAX_FILTER_INDEXES) return kept?.texts;
    // Made a step at a time, each step's bytes taken before the next: an index the room cannot
    // hold is given up having held at most a step past it, and its list is answered by a scan.
    const index: FilterIndex = { texts: new Map(), cost: 0 };
    const records = all();
    let counted = 0;
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      const text = textOf(record, member);
      if (text !== undefined) {
        const ids = index.texts.get(text);
        if (ids === undefined) {
          index.texts.set(text, [record.id]);
          index.cost += SLOT + TEXT;
        } else {
          ids.push(record.id);
          index.cost += SLOT;
        }
      }
      if ((i + 1) % MAKING_STEP === 0 || i === records.length - 1) {
        if (!this.#room.take(index.cost - counted)) {
          this.#room.give(counted);
          return undefined;
        }
        counted = index.cost;
      }
    }
    this.#filters.set(member, index);
    return index.texts;
  }

  /** Takes `cost` more bytes for `index` from the room; false, nothing taken, if they do not fit. */
  #grow(index: FilterIndex, cost: number): boolean {
    if (!this.#room.take(cost)) return false;
    index.cost += cost;
    return true;
  }

  /** Lets go of an equality index, giving back what it held. */
  #dropFilter(member: string, index: FilterIndex): void {
    this.#filters.delete(member);
    this.#room.give(index.cost);
  }

  /** Lets go of a kept order, giving back what it held and `taken` more bytes counted for it but not placed. */
  #dropSort(name: string, order: SortOrder<R>, taken = 0): void {
    this.#sorts.delete(name);
    this.#room.give(SLOT * order.records.length + taken);
  }

  /**
   * The first `count` ids of lists each in creation order, in creation order: merged two by two,
   * each merge stopping at `count`, so O(min(count x lists, all ids) x log lists). A single list
   * is the index's own array, which callers only read.
   */
  #merged(lists: RecordId[][], count: number): RecordId[] {
    if (lists.length === 0) return [];
    let merging = lists;
    while (merging.length > 1) {
      const next: RecordId[][] = [];
      for (let i = 0; i < merging.length; i += 2) next.push(i + 1 < merging.length ? this.#merge(merging[i]!, merging[i + 1]!, count) : merging[i]!);
      merging = next;
    }
    return merging[0]!;
  }

  #merge(a: RecordId[], b: RecordId[], count: number): RecordId[] {
    const merged: RecordId[] = [];
    let i = 0;
    let j = 0;
    while (merged.length < count && (i < a.length || j < b.length)) {
      if (j === b.length || (i < a.length && this.#slotOf(a[i]!) < this.#slotOf(b[j]!))) merged.push(a[i++]!);
      else merged.push(b[j++]!);
    }
    return merged;
  }

  #order(keys: readonly SortKey[], all: () => R[]): R[] | undefined {
    const name = keys.map(({ member, descending }) => `${descending ? "-" : ""}${JSON.stringify(member)}`).join(",");
    const kept = this.#sorts.get(name);
    if (kept !== undefined) return kept.records;
    if (this.#sorts.size >= MAX_SORT_ORDERS) return undefined;
    const records = all();
    if (!records.every((record) => isSmall(record, keys))) return undefined;
    // Only the order kept is taken from the room: the rows a sort makes while it runs are made
    // by the scan that answers without it too, and let go of once it is done.
    if (!this.#room.take(SLOT * records.length)) return undefined;
    const order = { keys, records: sortRecords(records, keys) };
    this.#sorts.set(name, order);
    return order.records;
  }

  /** Where a record's id sits, or would sit, among ids in creation order. */
  #position(ids: RecordId[], id: RecordId): number {
    const slot = this.#slotOf(id);
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#slotOf(ids[middle]!) < slot) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Puts an id under `text`; false, nothing changed, if the room cannot hold it. */
  #insert(index: FilterIndex, text: string, id: RecordId): boolean {
    const ids = index.texts.get(text);
    if (!this.#grow(index, ids === undefined ? SLOT + TEXT : SLOT)) return false;
    if (ids === undefined) index.texts.set(text, [id]);
    else ids.splice(this.#position(ids, id), 0, id);
    return true;
  }

  /** Takes an id from under `text`, giving back what it held: exactly what putting it there took. */
  #drop(index: FilterIndex, text: string, id: RecordId): void {
    const ids = index.texts.get(text)!;
    ids.splice(this.#position(ids, id), 1);
    let cost = SLOT;
    if (ids.length === 0) {
      index.texts.delete(text);
      cost += TEXT;
    }
    index.cost -= cost;
    this.#room.give(cost);
  }

  /** Where a record sits, or would sit, in a kept order: no two records compare equal, ties going by id. */
  #rank(order: SortOrder<R>, record: R): number {
    const { keys, records } = order;
    const row = sortRow(record, keys);
    let low = 0;
    let high = records.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareSortRows(sortRow(records[middle]!, keys), row, keys) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  #place(order: SortOrder<R>, record: R): void {
    const rank = this.#rank(order, record);
    if (rank === order.records.length) order.records.push(record);
    else order.records.splice(rank, 0, record);
  }

  #take(order: SortOrder<R>, record: R): void {
    order.records.splice(this.#rank(order, record), 1);
  }
}

/** The text a filter on `member` matches a record by, if it has one (query.ts's filterText). */
function textOf(record: StoredRecord, member: string): string | undefined {
  return Object.hasOwn(record, member) ? filterText(record[member]) : undefined;
}

/** Whether a record's values under a sort's keys are within SMALL_SORT_VALUE, found without walking past it. */
function isSmall(record: StoredRecord, keys: readonly SortKey[]): boolean {
  let left = SMALL_SORT_VALUE;
  for (const { member } of keys) {
    if (Object.hasOwn(record, member)) left = spend(record[member], left);
    if (left < 0) return false;
  }
  return true;
}

/** What is left of `left` once `value` is counted; below 0, the walk stopped early. */
function spend(value: unknown, left: number): number {
  if (typeof value === "string") return left - 1 - value.length;
  if (value === null || typeof value !== "object") return left - 1;
  left--;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && left >= 0; i++) left = spend(value[i], left);
    return left;
  }
  for (const name in value) {
    left -= 1 + name.length;
    if (left < 0) return left;
    left = spend((value as Record<string, unknown>)[name], left);
    if (left < 0) return left;
  }
  return left;
}
