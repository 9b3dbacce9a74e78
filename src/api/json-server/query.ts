// A json-server list query, read from the URL into conditions, a sort, a slice and what to
// embed; both lines' parameters are read (0.17's `_gte`, `_like`, `_page` with `_limit`; 1.0's
// `field:op`, `_where`, `_page` with `_per_page`), and where they disagree 0.17's reading wins.
import { HttpError } from "../errors.ts";
import { clip } from "../input.ts";
import { compileLike } from "./like.ts";
import { hasPath, readPath, valueAt } from "./paths.ts";

/** A test of one record. `costly` tests (`_like`, `q`) make a list scan in slices. */
export type Condition = { test: (record: unknown) => boolean; costly: boolean };

/** A plain `member=value` filter, which json-server 0.17 drops when no record has the member. */
export type Filter = { path: string[]; values: string[] };

export type SortKey = { path: string[]; descending: boolean };

/** Everything a list request asks for. */
export type ListQuery = {
  filters: Filter[];
  conditions: Condition[];
  sort: SortKey[];
  /** 0.17's slice: `_start` with `_end` or `_limit`. */
  slice: { start: number; end: number } | undefined;
  /** A page: 0.17's (`_page`, `_limit`; an array with `Link`) or 1.0's (`_per_page`; a page object). */
  page: { number: number; size: number; style: "0.17" | "1.0" } | undefined;
  /** Whether the answer carries `X-Total-Count` (a slice or a page was asked for). */
  counted: boolean;
  embed: string[];
  expand: string[];
};

/** Parameters that are not filters. `callback` and `_` are JSONP's, which json-server also leaves out of filters. */
const RESERVED = new Set(["_sort", "_order", "_start", "_end", "_limit", "_page", "_per_page", "_embed", "_expand", "_delay", "_where", "_dependent", "q", "callback", "_"]);
const OPERATORS = new Set(["lt", "lte", "gt", "gte", "eq", "ne", "in", "contains", "startsWith", "endsWith", "like"]);
/** 0.17's suffixes (`views_gte`), with 1.0's `_lt` and `_gt`. */
const SUFFIX = /^(.+)_(gte|lte|ne|like|lt|gt)$/;
/** The most conditions one request may ask for, so that no query string makes a list cost more than it should. */
const MOST_CONDITIONS = 50;

/** Reads a list query; a value this server cannot take (a bad `_where`, a `_like` it refuses) is a 400. */
export function readListQuery(query: URLSearchParams): ListQuery {
  const filters: Filter[] = [];
  const conditions: Condition[] = [];
  const where = query.get("_where");
  if (where !== null) conditions.push(whereCondition(readWhere(where)));
  const grouped = new Map<string, string[]>();
  for (const [name, value] of query) {
    if (RESERVED.has(name)) continue;
    grouped.set(name, [...(grouped.get(name) ?? []), value]);
  }
  // A `_where` takes the place of every filter of the query string, as in json-server 1.0.
  if (where === null) {
    for (const [name, values] of grouped) {
      const colon = name.lastIndexOf(":");
      const suffix = SUFFIX.exec(name);
      if (colon > 0 && OPERATORS.has(name.slice(colon + 1))) {
        conditions.push(operatorCondition(readPath(name.slice(0, colon)), name.slice(colon + 1), values));
      } else if (suffix !== null) {
        conditions.push(suffixCondition(readPath(suffix[1]!), suffix[2]!, values));
      } else filters.push({ path: readPath(name), values });
    }
  }
  const q = query.get("q");
  if (q !== null && q !== "") conditions.push(searchCondition(q));
  if (filters.length + conditions.length > MOST_CONDITIONS) throw new HttpError("INVALID_QUERY", `A list takes at most ${MOST_CONDITIONS} filters`);
  const sort = readSort(query.get("_sort"), query.get("_order"));
  const start = whole(query.get("_start"));
  const end = whole(query.get("_end"));
  const limit = whole(query.get("_limit"));
  const pageNumber = whole(query.get("_page"));
  const perPage = whole(query.get("_per_page"));
  let page: ListQuery["page"];
  let slice: ListQuery["slice"];
  if (query.has("_page") && query.has("_per_page")) page = { number: Math.max(1, pageNumber ?? 1), size: perPage !== undefined && perPage > 0 ? perPage : 10, style: "1.0" };
  else if (query.has("_page")) page = { number: Math.max(1, pageNumber ?? 1), size: limit !== undefined && limit > 0 ? limit : 10, style: "0.17" };
  else if (query.has("_end")) slice = { start: start ?? 0, end: end ?? 0 };
  else if (query.has("_limit")) slice = { start: start ?? 0, end: (start ?? 0) + (limit ?? 0) };
  else if (query.has("_start")) slice = { start: start ?? 0, end: Infinity };
  const counted = query.has("_end") || query.has("_limit") || (query.has("_page") && page?.style === "0.17");
  return { filters, conditions, sort, slice, page, counted, embed: distinct(query.getAll("_embed")), expand: distinct(query.getAll("_expand")) };
}

/** A whole number from a query value, as parseInt reads it (`10abc` is 10); undefined when it holds none. */
function whole(text: string | null): number | undefined {
  if (text === null) return undefined;
  const number = Number.parseInt(text, 10);
  return Number.isNaN(number) ? undefined : Math.max(0, number);
}

/**
 * The names `_embed` or `_expand` asks for, each once and at most MOST_RELATED: each one makes
 * every record listed look through a collection, so a query naming one a thousand times would
 * cost a thousand times as much for the same answer.
 */
function distinct(values: string[]): string[] {
  return [...new Set(values.flatMap(split))].slice(0, MOST_RELATED);
}

/** The most collections one `_embed` or `_expand` names. */
const MOST_RELATED = 10;

function split(text: string): string[] {
  return text.split(",").map((part) => part.trim()).filter((part) => part !== "");
}

/** `_sort=a,b` with `_order=asc,desc` (0.17), or `_sort=-a` (1.0): a key's own `-` wins over its `_order`. */
function readSort(sort: string | null, order: string | null): SortKey[] {
  if (sort === null) return [];
  const orders = order === null ? [] : split(order.toLowerCase());
  return split(sort)
    .slice(0, 10)
    .map((key, index) => (key.startsWith("-") ? { path: readPath(key.slice(1)), descending: true } : { path: readPath(key), descending: orders[index] === "desc" }));
}

/** Whether a plain filter matches: the member's text is one of the values (0.17: `value === member.toString()`). */
export function filterMatches(record: unknown, filter: Filter): boolean {
  const value = valueAt(record, filter.path);
  const text = textOf(value);
  return text !== undefined && filter.values.includes(text);
}

/** Whether any record has the member a filter names; json-server 0.17 leaves out a filter none has. */
export function anyHas(records: readonly unknown[], filter: Filter): boolean {
  return records.some((record) => hasPath(record, filter.path));
}

/** A value as json-server 0.17 compares it with a query's text: `toString()`, nothing for null and absent members. */
function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "object") return Array.isArray(value) ? value.map((item) => (item === null || item === undefined ? "" : textOf(item) ?? "[object Object]")).join(",") : "[object Object]";
  return String(value);
}

/** 0.17's `_gte`, `_lte`, `_ne`, `_like` (and 1.0's `_lt`, `_gt`): the values of `_ne` must all differ, of the others one must hold. */
function suffixCondition(path: string[], operator: string, values: string[]): Condition {
  if (operator === "like") {
    const likes = values.map(compileLike);
    return { costly: true, test: (record) => {
      const text = textOf(valueAt(record, path));
      return text !== undefined && likes.some((like) => like(text));
    } };
  }
  if (operator === "ne") return { costly: false, test: (record) => {
    const text = textOf(valueAt(record, path));
    return text !== undefined && values.every((value) => value !== text);
  } };
  return { costly: false, test: (record) => {
    const value = valueAt(record, path);
    if (value === undefined || value === null) return false;
    return values.some((text) => inRange(compareLoose(value, text), operator));
  } };
}

function inRange(order: number, operator: string): boolean {
  if (Number.isNaN(order)) return false;
  if (operator === "gte") return order >= 0;
  if (operator === "lte") return order <= 0;
  if (operator === "gt") return order > 0;
  return order < 0;
}

/** A member compared with a query's text: as numbers when both are, otherwise as texts. */
function compareLoose(value: unknown, text: string): number {
  if (typeof value === "number" && text.trim() !== "" && Number.isFinite(Number(text))) return value - Number(text);
  const own = textOf(value);
  if (own === undefined) return Number.NaN;
  return own < text ? -1 : own > text ? 1 : 0;
}

/** 1.0's `field:op=value`: the text read as 1.0 reads it (`true`, `false`, `null`, numbers), then compared. */
function operatorCondition(path: string[], operator: string, values: string[]): Condition {
  if (operator === "like") return suffixCondition(path, "like", values);
  const expected = operator === "in" ? values.flatMap((value) => value.split(",").map((part) => coerce(part.trim()))) : values.map(coerce);
  const check = operatorTest(operator, operator === "in" ? [expected] : expected);
  return { costly: false, test: (record) => check(valueAt(record, path)) };
}

function coerce(text: string): unknown {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null") return null;
  if (text.trim() !== "" && Number.isFinite(Number(text))) return Number(text);
  return text;
}

/** The test of one 1.0 operator against each expected value (all must hold, as repeated conditions of a `_where` do). */
function operatorTest(operator: string, expected: unknown[]): (value: unknown) => boolean {
  return (value) => {
    if (value === undefined) return false;
    return expected.every((wanted) => {
      switch (operator) {
        case "eq":
          return value === wanted;
        case "ne":
          return value !== wanted;
        case "lt":
          return ordered(value, wanted) && (value as number) < (wanted as number);
        case "lte":
          return ordered(value, wanted) && (value as number) <= (wanted as number);
        case "gt":
          return ordered(value, wanted) && (value as number) > (wanted as number);
        case "gte":
          return ordered(value, wanted) && (value as number) >= (wanted as number);
        case "in":
          return (Array.isArray(wanted) ? wanted : [wanted]).some((one) => one === value);
        case "contains":
          return typeof value === "string" ? value.toLowerCase().includes(String(wanted).toLowerCase()) : Array.isArray(value) && value.some((item) => item === wanted);
        case "startsWith":
          return typeof value === "string" && value.toLowerCase().startsWith(String(wanted).toLowerCase());
        case "endsWith":
          return typeof value === "string" && value.toLowerCase().endsWith(String(wanted).toLowerCase());
        default:
          return false;
      }
    });
  };
}

/** Whether two values compare by `<`: two numbers, or two strings. */
function ordered(a: unknown, b: unknown): boolean {
  return (typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string");
}

/** A `_where` JSON object, or a 400. */
function readWhere(text: string): Record<string, unknown> {
  let where: unknown;
  try {
    where = JSON.parse(text);
  } catch {
    throw new HttpError("INVALID_QUERY", `_where must be a JSON object such as {"title":{"eq":"foo"}}, not ${clip(text)}`);
  }
  if (typeof where !== "object" || where === null || Array.isArray(where)) throw new HttpError("INVALID_QUERY", '_where must be a JSON object such as {"title":{"eq":"foo"}}');
  if (text.length > 4096) throw new HttpError("INVALID_QUERY", "_where must be at most 4096 characters");
  return where as Record<string, unknown>;
}

/**
 * 1.0's `_where`: each member names a field (or, holding no operator, a nested object's fields),
 * whose operators must all hold; `or` holds a list of which one must.
 */
function whereCondition(where: Record<string, unknown>): Condition {
  const test = compileWhere(where, [], 0);
  return { costly: false, test };
}

function compileWhere(where: Record<string, unknown>, prefix: string[], depth: number): (record: unknown) => boolean {
  if (depth > 8) throw new HttpError("INVALID_QUERY", "_where is nested deeper than 8 levels");
  const tests: Array<(record: unknown) => boolean> = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === "or") {
      if (!Array.isArray(value) || value.length === 0) return () => false;
      const options = value.filter(isObject).map((option) => compileWhere(option, prefix, depth + 1));
      tests.push((record) => options.some((option) => option(record)));
      continue;
    }
    const path = [...prefix, key];
    if (!isObject(value)) {
      tests.push(() => false);
      continue;
    }
    const operators = Object.keys(value).filter((name) => OPERATORS.has(name) && name !== "like");
    if (operators.length === 0) {
      tests.push(compileWhere(value, path, depth + 1));
      continue;
    }
    const checks = operators.map((operator) => operatorTest(operator, [value[operator]]));
    tests.push((record) => {
      const member = valueAt(record, path);
      return checks.every((check) => check(member));
    });
  }
  return (record) => tests.every((test) => test(record));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `q`: a case-insensitive search of every value of a record, nested ones too, as texts (0.17 leaves out `0`, `false` and empty strings). */
function searchCondition(q: string): Condition {
  const wanted = q.toLowerCase();
  const holds = (value: unknown, depth: number): boolean => {
    if (typeof value === "object" && value !== null) {
      if (depth > 64) return false;
      for (const member of Object.values(value)) if (holds(member, depth + 1)) return true;
      return false;
    }
    return Boolean(value) && includesFolded(String(value), wanted);
  };
  return { costly: true, test: (record) => holds(record, 0) };
}

/** How much of a long value `q` lowers at once: a value of tens of megabytes is searched whole, but never copied whole. */
const SEARCH_CHUNK = 65_536;

/** Whether `text`, lowered, holds `wanted` (already lowered); read in overlapping chunks, so its lowered copy is at most a chunk. */
function includesFolded(text: string, wanted: string): boolean {
  if (text.length <= SEARCH_CHUNK) return text.toLowerCase().includes(wanted);
  for (let at = 0; at < text.length; at += SEARCH_CHUNK) {
    // Each chunk reaches into the next by the search's length, so a match across the seam is found.
    if (text.slice(at, at + SEARCH_CHUNK + wanted.length).toLowerCase().includes(wanted)) return true;
  }
  return false;
}

/** json-server's order: numbers by value, texts by code unit, absent members last when ascending; ties keep the held order. */
export function compareBy(keys: readonly SortKey[]): (a: unknown, b: unknown) => number {
  return (a, b) => {
    for (const key of keys) {
      const order = compareValues(valueAt(a, key.path), valueAt(b, key.path));
      if (order !== 0) return key.descending ? -order : order;
    }
    return 0;
  };
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return b === undefined || b === null ? 0 : 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const x = typeof a === "object" ? JSON.stringify(a) : String(a);
  const y = typeof b === "object" ? JSON.stringify(b) : String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
