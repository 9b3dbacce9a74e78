// A filtered or sorted list answered from kept rows, in one statement: its total, its page and its revision see one snapshot.
import type pg from "pg";
import type { ListQuery, ListView, StoredRecord } from "rest-reference-server";
import { filterKey, type Kept, type KeptLists } from "./kept.ts";

/** What listKept answers when the list's members or sort are not kept: the caller scans. */
export const SCAN = Symbol("scan");

/** Where a list lives, and how its statement is run. */
export type KeptListContext = {
  collection: string;
  /** The parent's collection and id, for a child list. */
  parent: { collection: string; id: string } | undefined;
  tagOf: (revision: number) => string;
  run: (config: pg.QueryConfig) => Promise<pg.QueryResult<KeptListRow>>;
};

/** The statement's row: the collection's revision (the sum of its counter rows), the list's size, whether the parent is held, how many of the slots are kept still, and the page. */
type KeptListRow = { revision: string; total: string; found: boolean; kept: string; items: string };

/**
 * A page of a filtered or sorted list from the kept rows, registering its members and sort
 * the first time; SCAN where one cannot be kept. A slot that a reset removed since this
 * process read it is noticed in the same statement, and the kept lists are read again.
 */
export async function listKept(kept: KeptLists, query: ListQuery, context: KeptListContext): Promise<ListView | undefined | typeof SCAN> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const slots = await kept.resolve(query, attempt > 0);
    if (slots === undefined) return SCAN;
    const { rows } = await context.run(keptListStatement(context, slots, query));
    const row = rows[0]!;
    if (Number(row.kept) !== slots.filters.length + (slots.sort === undefined ? 0 : 1)) continue;
    if (!row.found) return undefined;
    return { items: JSON.parse(row.items) as StoredRecord[], total: Number(row.total), tag: context.tagOf(Number(row.revision)) };
  }
  return SCAN;
}

/**
 * A list's statement over its kept slots; member names and texts are parameters. It is not a
 * prepared statement: its best plan depends on its values (how many records a text matches,
 * the page's limit), and a prepared statement may move to a generic plan made for none, which
 * plans a page of ten as if a tenth of the matches were wanted (docs/postgres.md, "Filtered
 * and sorted lists"). A filter with one short text compares with `=`, which lets the index on
 * (slot, filter, place) give its matches in creation order; several texts compare with
 * `= ANY`, and long ones are compared whole on a match of their hash.
 */
function keptListStatement(
  context: Pick<KeptListContext, "collection" | "parent">,
  slots: { filters: Array<Kept & { kind: "filter" }>; sort: (Kept & { kind: "sort" }) | undefined },
  query: ListQuery,
): pg.QueryConfig {
  const { sort } = slots;
  const filters = slots.filters.map((slot) => ({ slot, texts: query.filters.get(slot.member)! }));
  const kept = [...filters.map(({ slot }) => slot.slot), ...(sort === undefined ? [] : [sort.slot])];
  const values: unknown[] = [context.collection, query.offset, Number.isFinite(query.limit) ? query.limit : null, kept];
  const param = (value: unknown, type: string): string => {
    values.push(value);
    return `$${values.length}::${type}`;
  };
  const parent = context.parent === undefined ? undefined : { collection: param(context.parent.collection, "text"), id: param(context.parent.id, "text") };
  // Filters with one text first: the first filter leads a list in creation order.
  const ordered = [...filters].sort((a, b) => Number(a.texts.size > 1) - Number(b.texts.size > 1));
  const conditions = ordered.map(({ slot, texts }, index) => {
    const alias = `f${index}`;
    const keys = [...texts].map(filterKey);
    const longs = keys.flatMap(({ long }) => (long === null ? [] : [long]));
    const own = `${alias}.slot = ${param(slot.slot, "bigint")}`;
    if (keys.length === 1 && longs.length === 0) return `${own} AND ${alias}.filter = ${param(keys[0]!.key, "text")}`;
    const any = `${own} AND ${alias}.filter = ANY(${param(keys.map(({ key }) => key), "text[]")})`;
    if (longs.length === 0) return any;
    return `${any} AND (${alias}.long_filter IS NULL OR ${alias}.long_filter = ANY(${param(longs, "text[]")}))`;
  });
  const sortSlot = sort === undefined ? undefined : param(sort.slot, "bigint");
  /** The filters joined to the row `lead` by id, with conditions on them. */
  const joined = (lead: string, from: number) =>
    conditions.slice(from).map((condition, index) => `JOIN rest_list_filters f${from + index} ON f${from + index}.collection = $1 AND f${from + index}.id = ${lead}.id AND ${condition}`).join(" ");
  const ofParent = (alias: string) => (parent === undefined ? "" : ` AND ${alias}.parent_id = ${parent.id}`);

  let total: string;
  if (conditions.length > 0) total = `(SELECT count(*) FROM rest_list_filters f0 ${joined("f0", 1)} WHERE ${conditions[0]}${ofParent("f0")})`;
  else if (parent === undefined) total = "c.size";
  else total = `(SELECT count(*) FROM rest_records WHERE collection = $1 AND parent_id = ${parent.id})`;

  let page: string;
  let order: string;
  if (sortSlot !== undefined) {
    page = `SELECT r.body, o.sort_key, o.sort_rest FROM rest_list_sorts o ${joined("o", 0)}
              JOIN rest_records r ON r.collection = $1 AND r.id = o.id
            WHERE o.slot = ${sortSlot}${ofParent("o")} ORDER BY o.sort_key, o.sort_rest OFFSET $2 LIMIT $3`;
    order = "p.sort_key, p.sort_rest";
  } else {
    page = `SELECT r.body, f0.place FROM rest_list_filters f0 ${joined("f0", 1)}
              JOIN rest_records r ON r.collection = $1 AND r.id = f0.id
            WHERE ${conditions[0]}${ofParent("f0")} ORDER BY f0.place OFFSET $2 LIMIT $3`;
    order = "p.place";
  }
  const found = parent === undefined ? "true" : `EXISTS (SELECT 1 FROM rest_records WHERE collection = ${parent.collection} AND id = ${parent.id})`;
  return {
    text: `SELECT c.revision, ${total} AS total, ${found} AS found,
             (SELECT count(*) FROM rest_kept_lists WHERE slot = ANY($4::bigint[]) AND ready) AS kept,
             (SELECT '[' || coalesce(string_agg(p.body, ',' ORDER BY ${order}), '') || ']' FROM (${page}) p) AS items
           FROM (SELECT sum(revision) AS revision, sum(size) AS size FROM rest_counters WHERE collection = $1) c`,
    values,
  };
}
