// List controls shared by every list endpoint: page, sort, filters, Link and X-Total-Count (docs/spec.md#6-lists, docs/spec.md#10-browsers-caches-and-concurrent-editors).
import { HttpError } from "./errors.ts";
import { clip, parseWholeNumber } from "./input.ts";
import type { Filters, ListQuery, Page, SortKey } from "../store/query.ts";
import type { Reply } from "./reply.ts";

/** The most keys `sort` takes; more would only cost time, since ties after a few keys are rare. */
export const MAX_SORT_KEYS = 5;

/** The most different members a query may filter on; each costs a look-up per record. */
export const MAX_FILTERS = 20;

/** A list request without a query: every record, as held. Shared: its arrays are frozen, and nothing writes to its empty Map. */
const WHOLE_LIST: ListQuery = Object.freeze({
  offset: 0,
  limit: Infinity,
  sort: Object.freeze([]) as unknown as SortKey[],
  filters: new Map() as Filters,
  kept: Object.freeze([]) as unknown as Array<[string, string]>,
});

/** The names that control a list; every other query parameter is a filter. */
const CONTROLS = new Set(["limit", "offset", "sort"]);

/** Reads `limit` and `offset` from a query string; a bad or repeated value is a 400. */
export function readPage(query: URLSearchParams): Page {
  return {
    offset: readCount(query, "offset") ?? 0,
    limit: readCount(query, "limit") ?? Infinity,
  };
}

function readCount(query: URLSearchParams, name: string): number | undefined {
  const values = query.getAll(name);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new HttpError("INVALID_QUERY", `${name} must be given at most once`);
  const text = values[0]!;
  const count = parseWholeNumber(text);
  if (count === undefined) {
    throw new HttpError("INVALID_QUERY", `${name} must be a non-negative whole number, not "${clip(text)}"`);
  }
  return count;
}

/**
 * Reads a list request's query: the page, then `sort`, then the filters (every
 * other parameter). A bad page or filter is a 400 INVALID_QUERY, a bad sort a 400 INVALID_SORT.
 */
export function readList(query: URLSearchParams): ListQuery {
  // Most lists are asked for without a query: nothing to read.
  if (query.size === 0) return WHOLE_LIST;
  const page = readPage(query);
  const sorts = query.getAll("sort");
  if (sorts.length > 1) throw new HttpError("INVALID_SORT", "sort must be given at most once");
  const sort = sorts.length === 0 ? [] : readSort(sorts[0]!);
  const filters: Filters = new Map();
  const kept: Array<[string, string]> = [];
  for (const [name, value] of query) {
    if (name === "limit" || name === "offset") continue;
    kept.push([name, value]);
    if (CONTROLS.has(name)) continue;
    if (name === "") throw new HttpError("INVALID_QUERY", "A query parameter has an empty name; filter as member=value");
    let values = filters.get(name);
    if (values === undefined) {
      if (filters.size === MAX_FILTERS) {
        throw new HttpError("INVALID_QUERY", `A list can be filtered on at most ${MAX_FILTERS} members`);
      }
      values = new Set();
      filters.set(name, values);
    }
    values.add(value);
  }
  // Fast path: fields named one by one rather than spread from `page`
  // (docs/benchmarks.md, "Measurements behind fast paths in the code").
  return { offset: page.offset, limit: page.limit, sort, filters, kept };
}

/** Reads `sort=name,-id`: members separated by commas, `-` before a member for descending. */
export function readSort(text: string): SortKey[] {
  if (text === "") throw new HttpError("INVALID_SORT", "sort must name a member, such as sort=name or sort=-id");
  const keys: SortKey[] = [];
  const seen = new Set<string>();
  for (const key of text.split(",")) {
    const descending = key.startsWith("-");
    const member = descending ? key.slice(1) : key;
    if (member === "") {
      throw new HttpError("INVALID_SORT", `sort has an empty key in "${clip(text)}"; separate member names with single commas`);
    }
    // A `+` meant as "ascending" arrives as a space, since a query string reads `+` as one;
    // sorting on a member named " name" would silently sort on nothing.
    if (member.trim() !== member) {
      throw new HttpError("INVALID_SORT", `sort key "${clip(key)}" has white space at an end; write name, or -name for descending`);
    }
    if (seen.has(member)) throw new HttpError("INVALID_SORT", `sort names "${clip(member)}" more than once`);
    seen.add(member);
    keys.push({ member, descending });
  }
  if (keys.length > MAX_SORT_KEYS) throw new HttpError("INVALID_SORT", `sort takes at most ${MAX_SORT_KEYS} keys`);
  return keys;
}

/** Options of listReply: where the list lives and what was asked, to build its Link header. */
export type LinkOptions = { path: string; list: ListQuery };

/**
 * The reply for one page of a list: the items, the number of matches in
 * X-Total-Count, and, given where the list lives, a Link header when the page holds fewer.
 */
export function listReply(items: readonly unknown[], total: number, links?: LinkOptions): Reply {
  const headers: Record<string, string> = { "x-total-count": String(total) };
  // The common answer, the whole list, builds no links.
  if (links !== undefined && items.length < total) {
    const link = linkHeader(links.path, links.list, total);
    if (link !== undefined) headers.link = link;
  }
  return { status: 200, body: items, headers };
}

/**
 * The Link header (RFC 8288) of a page of `total` matches: `first` and `last`, `prev`
 * unless the page starts the list, `next` unless nothing follows it. Pages count
 * `limit` records from the start, so `last` is the page that holds the last match;
 * `prev` of a page past the end is that last page. Undefined when the page holds
 * every match, or for `limit=0`, whose pages have no neighbours.
 */
export function linkHeader(path: string, list: ListQuery, total: number): string | undefined {
  const { offset, limit } = list;
  if (limit === 0) return undefined;
  const shown = Math.max(0, Math.min(limit, total - offset));
  if (shown === total) return undefined;
  // Without a limit there is one page, the whole list, so first, prev and last are offset 0.
  const last = total === 0 || limit === Infinity ? 0 : Math.floor((total - 1) / limit) * limit;
  const links: Array<[rel: string, offset: number]> = [["first", 0]];
  if (offset > 0) links.push(["prev", Math.min(Math.max(0, offset - limit), last)]);
  if (offset + limit < total) links.push(["next", offset + limit]);
  links.push(["last", last]);
  return links.map(([rel, at]) => `<${linkTarget(path, list, at)}>; rel="${rel}"`).join(", ");
}

/**
 * A relative reference to the same list at another offset: the path, the other
 * query parameters in the order sent, then `limit` if one was sent, then `offset`.
 */
export function linkTarget(path: string, list: ListQuery, offset: number): string {
  // encodeURIComponent escapes `,` and `;` too: a client that splits a Link header
  // at commas (many do) then never cuts a target in two.
  const pairs = list.kept.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  if (list.limit !== Infinity) pairs.push(`limit=${list.limit}`);
  pairs.push(`offset=${offset}`);
  return `${path}?${pairs.join("&")}`;
}

