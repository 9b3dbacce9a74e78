// A list query as every store evaluates it: filters, a sort, a page, and the order of JSON values they compare by.

/** Which slice of a list to answer with; `limit` is Infinity when absent. */
export type Page = { offset: number; limit: number };

/** One key of `sort`: a top-level member, ascending unless written `-member`. */
export type SortKey = { member: string; descending: boolean };

/** Exact-match filters: each member with the texts it may match (any one of them). */
export type Filters = Map<string, Set<string>>;

/** Everything a list request asks for, read and checked. */
export type ListQuery = Page & {
  sort: SortKey[];
  filters: Filters;
  /** The query parameters other than `limit` and `offset`, in the order sent, for the Link targets. */
  kept: Array<[name: string, value: string]>;
};

/** The record shape a list holds: an id and any top-level members. */
export type ListRecord = { id: number | string } & Record<string, unknown>;

/** Ids in ascending order: numbers by value, string ids (one collection's are all strings) by code point, as their characters are ASCII. */
function compareIds(a: number | string, b: number | string): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether a list request asks for the list as held: no sort and no filters. */
export function isPlain(list: ListQuery): boolean {
  return list.sort.length === 0 && list.filters.size === 0;
}

/**
 * Filters, sorts and pages records; `total` counts every match. Costs time in
 * proportion to the records given, so a child list passes only its parent's children.
 */
export function selectPage<R extends ListRecord>(records: readonly R[], list: ListQuery): { items: R[]; total: number } {
  const matches = list.filters.size === 0 ? records : records.filter((record) => matchesFilters(record, list.filters));
  const sorted = list.sort.length === 0 ? matches : sortRecords(matches, list.sort);
  const end = list.offset + list.limit;
  return { items: sorted.slice(list.offset, end), total: matches.length };
}

/** Whether a record matches every filter: for each member, one of its texts. */
export function matchesFilters(record: ListRecord, filters: Filters): boolean {
  for (const [member, texts] of filters) {
    // Own members only: a member named `constructor` must not find Object.prototype's.
    if (!Object.hasOwn(record, member)) return false;
    const text = filterText(record[member]);
    if (text === undefined || !texts.has(text)) return false;
  }
  return true;
}

/**
 * The text a filter compares a member with: a string is itself; a number, boolean
 * or null is its JSON text as answers write it (`3`, `true`, `null`); an object or
 * an array has none, so it never matches.
 */
export function filterText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || value === null) return JSON.stringify(value);
  return undefined;
}

/** A missing member; it sorts after every present value, as SQL's NULL does by default. */
const MISSING = Symbol("missing");

/** Records sorted by the keys, ties broken by id ascending; the input is not changed. */
export function sortRecords<R extends ListRecord>(records: readonly R[], keys: readonly SortKey[]): R[] {
  // Each record's sort values are read, and made comparable, once, not once per comparison:
  // an object's members are put in jsonb's order then, so no comparison sorts or encodes them.
  const rows = records.map((record) => sortRow(record, keys));
  rows.sort((a, b) => compareSortRows(a, b, keys));
  return rows.map((row) => row.record);
}

/** A record with its values under sort keys, made comparable once: what sortRecords and a kept order compare. */
export type SortRow<R extends ListRecord> = { record: R; values: Array<Sortable | typeof MISSING> };

export function sortRow<R extends ListRecord>(record: R, keys: readonly SortKey[]): SortRow<R> {
  return { record, values: keys.map(({ member }) => (Object.hasOwn(record, member) ? sortable(record[member]) : MISSING)) };
}

/** The order of two rows under the keys, ties broken by id ascending: no two records compare equal. */
export function compareSortRows<R extends ListRecord>(a: SortRow<R>, b: SortRow<R>, keys: readonly SortKey[]): number {
  for (let i = 0; i < keys.length; i++) {
    const order = compareSortValues(a.values[i]!, b.values[i]!);
    if (order !== 0) return keys[i]!.descending ? -order : order;
  }
  return compareIds(a.record.id, b.record.id);
}

/**
 * A JSON value as a sort compares it: a string whose native order is its code-point order (units
 * from U+D800 up moved where code points put them), and an object as its members in jsonb's
 * order, names so moved beside their lengths in UTF-8, values made sortable too. Every
 * comparison is then native or numeric: nothing is sorted, encoded or walked unit by unit.
 */
type Sortable = null | boolean | number | string | Sortable[] | SortableObject;
type SortableObject = { names: string[]; lengths: number[]; values: Sortable[] };

// Units from U+D800 up: surrogates and U+E000..U+FFFF, which UTF-16 orders unlike code points.
const HIGH_UNITS = /[\ud800-\uffff]/g;

/** A string whose order by `<` is the code-point order of `text`. */
function inCodePointOrder(text: string): string {
  HIGH_UNITS.lastIndex = 0;
  if (!HIGH_UNITS.test(text)) return text;
  // Built from the units themselves: the moved ones may be lone surrogates, which a decoder would replace.
  let moved = "";
  for (let start = 0; start < text.length; start += 4096) {
    const units: number[] = [];
    for (let i = start; i < Math.min(text.length, start + 4096); i++) units.push(codePointOrder(text.charCodeAt(i)));
    moved += String.fromCharCode(...units);
  }
  return moved;
}

const EMPTY_OBJECT: SortableObject = Object.freeze({ names: [], lengths: [], values: [] });

function sortable(value: unknown): Sortable {
  if (typeof value === "string") return inCodePointOrder(value);
  if (value === null || typeof value !== "object") return value as Sortable;
  if (Array.isArray(value)) return value.map(sortable);
  const names = jsonbKeyOrder(Object.keys(value));
  // One for every empty object: a list of many `{}` made four objects of each.
  if (names.length === 0) return EMPTY_OBJECT;
  return {
    names: names.map(inCodePointOrder),
    lengths: names.map(utf8Length),
    values: names.map((name) => sortable((value as Record<string, unknown>)[name])),
  };
}

function compareSortValues(a: Sortable | typeof MISSING, b: Sortable | typeof MISSING): number {
  // Missing is greater than every value: last ascending, first descending, as
  // PostgreSQL orders NULL with ASC and DESC unless told otherwise.
  if (a === MISSING) return b === MISSING ? 0 : 1;
  if (b === MISSING) return -1;
  return compareSortable(a, b);
}

/** compareJson's order, on values made sortable. */
function compareSortable(a: Sortable, b: Sortable): number {
  // A sortable value has the type of the value it was made from: an object stays an object.
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA - rankB;
  if (typeof a === "string") return a < (b as string) ? -1 : a > (b as string) ? 1 : 0;
  if (typeof a === "number") return a < (b as number) ? -1 : a > (b as number) ? 1 : 0;
  if (typeof a === "boolean") return Number(a) - Number(b);
  if (Array.isArray(a)) {
    const other = b as Sortable[];
    if (a.length !== other.length) return a.length - other.length;
    for (let i = 0; i < a.length; i++) {
      const order = compareSortable(a[i]!, other[i]!);
      if (order !== 0) return order;
    }
    return 0;
  }
  if (a === null) return 0;
  const x = a as SortableObject;
  const y = b as SortableObject;
  if (x.names.length !== y.names.length) return x.names.length - y.names.length;
  for (let i = 0; i < x.names.length; i++) {
    if (x.lengths[i] !== y.lengths[i]) return x.lengths[i]! - y.lengths[i]!;
    if (x.names[i] !== y.names[i]) return x.names[i]! < y.names[i]! ? -1 : 1;
    const order = compareSortable(x.values[i]!, y.values[i]!);
    if (order !== 0) return order;
  }
  return 0;
}

/**
 * A total order on JSON values, the one PostgreSQL's jsonb uses: by type
 * (null < string < number < boolean < array < object), then by value. Numbers
 * compare numerically, strings by Unicode code point (PostgreSQL's "C" collation;
 * no locale, so the order is the same everywhere), false before true; arrays by
 * length, then element by element; objects by number of members, then member by
 * member, names ordered as jsonb stores them (shorter first).
 */
export function compareJson(a: unknown, b: unknown): number {
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA - rankB;
  if (typeof a === "string") return compareCodePoints(a, b as string);
  if (typeof a === "number") return a < (b as number) ? -1 : a > (b as number) ? 1 : 0;
  if (typeof a === "boolean") return Number(a) - Number(b);
  if (Array.isArray(a)) return compareArrays(a, b as unknown[]);
  if (a !== null && typeof a === "object") return compareObjects(a as Record<string, unknown>, b as Record<string, unknown>);
  return 0;
}

function typeRank(value: unknown): number {
  if (value === null) return 0;
  if (typeof value === "string") return 1;
  if (typeof value === "number") return 2;
  if (typeof value === "boolean") return 3;
  if (Array.isArray(value)) return 4;
  return 5;
}

/**
 * Compares strings by Unicode code point, which is UTF-8 byte order. JavaScript's
 * `<` compares UTF-16 code units, which puts U+10000 and above before U+E000..U+FFFF;
 * shifting the units from U+D800 up fixes that without decoding the strings.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointOrder(x) - codePointOrder(y);
  }
  return a.length - b.length;
}

/** Where a UTF-16 unit sorts in code-point order: units from U+D800 up moved so that `-` of two of them compares as compareCodePoints does. */
export function codePointOrder(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

function compareArrays(a: unknown[], b: unknown[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const order = compareJson(a[i], b[i]);
    if (order !== 0) return order;
  }
  return 0;
}

function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const namesA = jsonbKeyOrder(Object.keys(a));
  const namesB = jsonbKeyOrder(Object.keys(b));
  if (namesA.length !== namesB.length) return namesA.length - namesB.length;
  for (let i = 0; i < namesA.length; i++) {
    const name = compareJsonbKeys(namesA[i]!, namesB[i]!);
    if (name !== 0) return name;
    const value = compareJson(a[namesA[i]!], b[namesB[i]!]);
    if (value !== 0) return value;
  }
  return 0;
}

/** Member names in the order jsonb stores them: shorter (in UTF-8 bytes) first, then bytewise; sorts `names` in place. */
export function jsonbKeyOrder(names: string[]): string[] {
  return names.sort(compareJsonbKeys);
}

function compareJsonbKeys(a: string, b: string): number {
  const lengths = utf8Length(a) - utf8Length(b);
  return lengths !== 0 ? lengths : compareCodePoints(a, b);
}

/** How many bytes a string takes in UTF-8, as jsonb's key order counts them (a lone surrogate counts 2), without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A unit from U+0080 takes 2 bytes, from U+0800 3; a surrogate pair, 2 units, takes 4.
    if (unit >= 0x80) bytes += unit >= 0x800 && (unit < 0xd800 || unit > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

