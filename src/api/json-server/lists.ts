// A json-server list answered: filtered (in slices, yielding to other requests, when a
// condition must read every value), sorted, sliced or paged, then embedded and expanded.
import { performance } from "node:perf_hooks";
import type { Reply } from "../reply.ts";
import type { Awaitable } from "../../store/seam.ts";
import type { JsonRecord, JsonServerDb } from "./database.ts";
import { foreignKey, pluralOf } from "./names.ts";
import { anyHas, compareBy, type Filter, filterMatches, type ListQuery } from "./query.ts";

/** How long a scan runs before it lets other requests in, in ms. */
const SLICE_MS = 8;

/**
 * The records that pass every test; when some test is costly (`_like`, `q`), in slices of about
 * SLICE_MS, so /healthz and others are answered between. The clock is read after every record,
 * since one record's long values may cost what thousands of short ones do, however few the records.
 */
export function selectRecords(records: readonly JsonRecord[], tests: Array<(record: unknown) => boolean>, costly: boolean): Awaitable<JsonRecord[]> {
  if (tests.length === 0) return [...records];
  const passes = (record: JsonRecord) => tests.every((test) => test(record));
  if (!costly) return records.filter(passes);
  return new Promise((resolve, reject) => {
    const kept: JsonRecord[] = [];
    let at = 0;
    const step = () => {
      try {
        const started = performance.now();
        while (at < records.length) {
          const record = records[at++]!;
          if (passes(record)) kept.push(record);
          // A timer, not setImmediate: on Deno an immediate runs again before the sockets are
          // read, so /healthz waited for the whole scan; on Node a timer costs ~1 ms a slice.
          if (performance.now() - started > SLICE_MS) return setTimeout(step, 0);
        }
        resolve(kept);
      } catch (error) {
        reject(error);
      }
    };
    step();
  });
}

/** What a list answers with: its records (or a 1.0 page object), and X-Total-Count and Link when asked for a slice or page. */
export function listReply(db: JsonServerDb, name: string, query: ListQuery, parentFilter: Filter | undefined, link: (page: number) => string): Awaitable<Reply> {
  const records = db.list(name)!;
  // 0.17 leaves out a filter on a member no record has; a parent's link always applies.
  const filters = query.filters.filter((filter) => anyHas(records, filter));
  if (parentFilter !== undefined) filters.push(parentFilter);
  const tests = [...filters.map((filter) => (record: unknown) => filterMatches(record, filter)), ...query.conditions.map((condition) => condition.test)];
  const selected = selectRecords(records, tests, query.conditions.some((condition) => condition.costly));
  return selected instanceof Promise ? selected.then((kept) => shape(db, name, query, kept, link)) : shape(db, name, query, selected, link);
}

function shape(db: JsonServerDb, name: string, query: ListQuery, records: JsonRecord[], link: (page: number) => string): Reply {
  // Array.prototype.sort is stable: ties keep the order held, as lodash's orderBy does.
  if (query.sort.length > 0) records.sort(compareBy(query.sort));
  const total = records.length;
  const headers: Record<string, string> = {};
  if (query.counted) {
    headers["x-total-count"] = String(total);
    headers["access-control-expose-headers"] = query.page?.style === "0.17" ? "X-Total-Count, Link" : "X-Total-Count";
  }
  const { page, slice } = query;
  if (page?.style === "1.0") {
    const pages = Math.max(1, Math.ceil(total / page.size));
    const current = Math.min(page.number, pages);
    const children = childrenBy();
    const data = records.slice((current - 1) * page.size, current * page.size).map((record) => related(db, name, record, query, children));
    const body = { first: 1, prev: current > 1 ? current - 1 : null, next: current < pages ? current + 1 : null, last: pages, pages, items: total, data };
    return { status: 200, body, headers };
  }
  let items = records;
  if (page !== undefined) {
    items = records.slice((page.number - 1) * page.size, page.number * page.size);
    const links = pageLinks(page.number, page.size, total, items.length);
    if (links.length > 0) headers.link = links.map(([rel, number]) => `<${link(number)}>; rel="${rel}"`).join(", ");
  } else if (slice !== undefined) items = records.slice(slice.start, slice.end);
  const children = childrenBy();
  return { status: 200, body: items.map((record) => related(db, name, record, query, children)), headers };
}

/** 0.17's page links: none for an empty page or one that holds the whole list. */
function pageLinks(number: number, size: number, total: number, held: number): Array<[string, number]> {
  if (held === 0 || held === total) return [];
  const links: Array<[string, number]> = [["first", 1]];
  if (number > 1) links.push(["prev", number - 1]);
  if (number * size < total) links.push(["next", number + 1]);
  links.push(["last", Math.ceil(total / size)]);
  return links;
}

/**
 * A record with what `_embed` and `_expand` ask for, as a copy: `_embed=comments` adds the
 * comments whose `postId` names it; `_expand=post` (or 1.0's `_embed=post`) the post its `postId` names.
 */
export function related(
  db: JsonServerDb,
  name: string,
  record: JsonRecord,
  query: { embed: string[]; expand: string[] },
  children: ChildrenBy = childrenBy(),
): JsonRecord {
  if (query.embed.length === 0 && query.expand.length === 0) return record;
  const copy: JsonRecord = { ...record };
  const collections = { has: db.isCollection };
  for (const child of query.embed) {
    if (db.isCollection(child)) copy[child] = record.id === undefined ? [] : (children(db, child, foreignKey(name)).get(String(record.id)) ?? []);
    else expand(db, copy, record, child, collections);
  }
  for (const parent of query.expand) expand(db, copy, record, parent, collections);
  return copy;
}

/** A collection's records by the parent id their `key` names, grouped once per answer and then looked up. */
type ChildrenBy = (db: JsonServerDb, child: string, key: string) => Map<string, JsonRecord[]>;

/**
 * Groups made for one answer: a list embedding children groups each child collection once,
 * so that it costs its records and the children, not their product.
 */
function childrenBy(): ChildrenBy {
  const groups = new Map<string, Map<string, JsonRecord[]>>();
  return (db, child, key) => {
    let group = groups.get(`${child}\u0000${key}`);
    if (group === undefined) {
      group = new Map();
      for (const each of db.list(child)!) {
        const parent = each[key];
        if (parent === undefined || parent === null) continue;
        const id = String(parent);
        const list = group.get(id);
        if (list === undefined) group.set(id, [each]);
        else list.push(each);
      }
      groups.set(`${child}\u0000${key}`, group);
    }
    return group;
  };
}

function expand(db: JsonServerDb, copy: JsonRecord, record: JsonRecord, parent: string, collections: { has: (name: string) => boolean }): void {
  const plural = pluralOf(parent, collections);
  const id = record[`${parent}Id`];
  if (plural === undefined || id === undefined || id === null) return;
  const found = db.find(plural, String(id));
  if (found !== undefined) copy[parent] = found;
}
