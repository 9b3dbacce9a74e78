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
 * The indexes of one collection, made the first time a list asks for them (docs/decisions.md,
 * "Lists cost the page"). An equality index maps a member's filter text to the ids that have
 * it, in creation order; a sort keeps every record in its order. Every write keeps both up to
 * date, at O(log n) comparisons and a move of the array's tail. `slotOf` gives an id's place in
 * creation order, which only ever grows with creation.
 */
export class ListIndexes<R extends StoredRecord> {
  readonly #filters = new Map<string, Map<string, RecordId[]>>();
  readonly #sorts = new Map<string, { keys: readonly SortKey[]; records: R[] }>();
  readonly #slotOf: (id: RecordId) => number;

  constructor(slotOf: (id: RecordId) => number) {
    this.#slotOf = slotOf;
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

  /** How many sort orders are kept now: what the bound on them and on their values leaves. */
  get sortsKept(): number {
    return this.#sorts.size;
  }

  /** A record just created, the newest in creation order. */
  added(record: R): void {
    // Fast path: a collection no filtered or sorted list has asked of walks no Map per write
    // (docs/benchmarks.md, "Lists at a million records").
    if (this.#filters.size === 0 && this.#sorts.size === 0) return;
    for (const [member, index] of this.#filters) {
      const text = textOf(record, member);
      if (text === undefined) continue;
      const ids = index.get(text);
      if (ids === undefined) index.set(text, [record.id]);
      else ids.push(record.id);
    }
    for (const [name, order] of this.#sorts) {
      if (isSmall(record, order.keys)) this.#place(order, record);
      else this.#sorts.delete(name);
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
      if (now !== undefined) this.#insert(index, now, after.id);
    }
    for (const [name, order] of this.#sorts) {
      this.#take(order, before);
      if (isSmall(after, order.keys)) this.#place(order, after);
      else this.#sorts.delete(name);
    }
  }

  /** A record about to be deleted, while its place in creation order is still known. */
  removed(record: R): void {
    if (this.#filters.size === 0 && this.#sorts.size === 0) return;
    for (const [member, index] of this.#filters) {
      const text = textOf(record, member);
      if (text !== undefined) this.#drop(index, text, record.id);
    }
    for (const order of this.#sorts.values()) this.#take(order, record);
  }

  /** Every record gone: the indexes are made again when next asked for. */
  cleared(): void {
    this.#filters.clear();
    this.#sorts.clear();
  }

  #index(member: string, all: () => R[]): Map<string, RecordId[]> | undefined {
    const kept = this.#filters.get(member);
    if (kept !== undefined || this.#filters.size >= MAX_FILTER_INDEXES) return kept;
    const index = new Map<string, RecordId[]>();
    for (const record of all()) {
      const text = textOf(record, member);
      if (text === undefined) continue;
      const ids = index.get(text);
      if (ids === undefined) index.set(text, [record.id]);
      else ids.push(record.id);
    }
    this.#filters.set(member, index);
    return index;
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

  #insert(index: Map<string, RecordId[]>, text: string, id: RecordId): void {
    const ids = index.get(text);
    if (ids === undefined) index.set(text, [id]);
    else ids.splice(this.#position(ids, id), 0, id);
  }

  #drop(index: Map<string, RecordId[]>, text: string, id: RecordId): void {
    const ids = index.get(text)!;
    ids.splice(this.#position(ids, id), 1);
    if (ids.length === 0) index.delete(text);
  }

  /** Where a record sits, or would sit, in a kept order: no two records compare equal, ties going by id. */
  #rank(order: { keys: readonly SortKey[]; records: R[] }, record: R): number {
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

  #place(order: { keys: readonly SortKey[]; records: R[] }, record: R): void {
    const rank = this.#rank(order, record);
    if (rank === order.records.length) order.records.push(record);
    else order.records.splice(rank, 0, record);
  }

  #take(order: { keys: readonly SortKey[]; records: R[] }, record: R): void {
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
