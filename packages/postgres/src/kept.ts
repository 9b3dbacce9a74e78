// Filtered members and sorts a collection keeps in tables: registered by the first list that asks, filled once, kept up to date by every write.
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type pg from "pg";
import type { CollectionDefinition, DatabaseStoreOptions, ListQuery, SortKey, StoredRecord } from "rest-reference-server";

/** Sort key bytes past this many go to `sort_rest`, outside the index: a b-tree entry holds at most about 2,700 bytes. */
export const SORT_KEY_BYTES = 1024;

/** A filter text whose JSON takes more bytes than this is indexed by its SHA-256, and compared whole on a match. */
export const FILTER_BYTES = 512;

/** A member or a sort whose name takes more bytes than this as JSON is never kept: the unique index on names holds it whole. */
export const NAME_BYTES = 1024;

/** How many records a fill reads, and writes the rows of, per statement: each one well inside the query time-out. */
const FILL_CHUNK = 2_000;

/** How many times a fill's statement that PostgreSQL aborted for a deadlock is run. */
const ATTEMPTS = 5;

/**
 * A kept filtered member or sort, by the slot its rows are under, and whether its rows are
 * filled (`ready`); a slot is never given twice, so a stale one finds nothing.
 */
export type Kept = { slot: string; kind: "filter"; name: string; ready: boolean; member: string } | { slot: string; kind: "sort"; name: string; ready: boolean; keys: SortKey[] };

/** What the store hands the kept lists of a collection: a query on its pool, a transaction, and a connection of its own for a while. */
export type KeptDatabase = {
  query: <R extends pg.QueryResultRow>(config: pg.QueryConfig) => Promise<pg.QueryResult<R>>;
  transaction: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;
  /** Runs `work` on a connection outside any transaction; a connection that fails is closed, not reused, so nothing it held stays. */
  session: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;
};

/** The rows a record has under kept slots: a filter row where the member has a filter text, a sort row for every sort. */
type Rows = {
  filterSlots: string[];
  filters: string[];
  longFilters: Array<string | null>;
  sortSlots: string[];
  sortKeys: Uint8Array[];
  sortRests: Array<Uint8Array | null>;
};

/** The name a filter on `member` is kept under. */
export function filterName(member: string): string {
  return JSON.stringify(member);
}

/** The name a sort is kept under: its keys as JSON, so that `name` and `-name` are two sorts. */
export function sortName(keys: readonly SortKey[]): string {
  return JSON.stringify(keys.map(({ member, descending }) => [member, descending]));
}

/**
 * How a filter text is kept and looked for: its JSON text (which writes U+0000 and lone
 * surrogates as escapes, where PostgreSQL's text cannot hold them), or, past FILTER_BYTES, `#`
 * and its SHA-256 (no JSON string starts with `#`), with the JSON text to compare on a match.
 */
export function filterKey(text: string): { key: string; long: string | null } {
  const json = JSON.stringify(text);
  if (Buffer.byteLength(json) <= FILTER_BYTES) return { key: json, long: null };
  return { key: `#${createHash("sha256").update(json).digest("hex")}`, long: json };
}

/**
 * The kept lists of one collection, with what this process last read of them. That is only a
 * hint: a write checks it against the table inside its transaction, and a list in its own
 * statement, so a slot another process registered, or a reset removed, is never missed.
 */
export class KeptLists {
  readonly #name: string;
  readonly #options: DatabaseStoreOptions;
  readonly #database: KeptDatabase;
  /** What this process last read of the collection's kept lists, by kind and name; undefined before it read them. */
  #known: Map<string, Kept> | undefined;
  /** Fills this process runs, by slot: a list that needs one waits for it rather than run its own. */
  readonly #filling = new Map<string, Promise<void>>();

  constructor(resource: CollectionDefinition, options: DatabaseStoreOptions, database: KeptDatabase) {
    this.#name = resource.name;
    this.#options = options;
    this.#database = database;
  }

  /**
   * The kept slots a list needs, registering and filling those missing while the collection's
   * bound allows; undefined when one of them cannot be kept, or is being filled by another
   * process, so that the list is answered by a scan. `reread` reads the table again, when a
   * list found a slot of this process's gone.
   */
  async resolve(query: ListQuery, reread: boolean): Promise<{ filters: Array<Kept & { kind: "filter" }>; sort: (Kept & { kind: "sort" }) | undefined } | undefined> {
    const wanted: Array<{ kind: Kept["kind"]; name: string }> = [...query.filters.keys()].map((member) => ({ kind: "filter", name: filterName(member) }));
    if (query.sort.length > 0) wanted.push({ kind: "sort", name: sortName(query.sort) });
    if (wanted.some(({ name }) => Buffer.byteLength(name) > NAME_BYTES)) return undefined;
    const find = () => wanted.map(({ kind, name }) => this.#known?.get(`${kind} ${name}`));
    if (reread || this.#known === undefined || find().some((entry) => entry?.ready !== true)) {
      this.#learn(await this.#read((config) => this.#database.query(config)));
      // A registration holds every counter row of the collection, which writes wait for: only when one has room.
      const missing = wanted.filter(({ kind, name }) => !this.#known!.has(`${kind} ${name}`));
      if (missing.some(({ kind }) => this.#count(kind) < this.#bound(kind))) await this.#register(missing);
      const unready = find().filter((entry): entry is Kept => entry !== undefined && !entry.ready);
      if (unready.length > 0) {
        await this.#fillOnce(unready);
        this.#learn(await this.#read((config) => this.#database.query(config)));
      }
    }
    const found = find();
    if (found.some((entry) => entry?.ready !== true)) return undefined;
    const kept = found as Kept[];
    return {
      filters: kept.filter((entry): entry is Kept & { kind: "filter" } => entry.kind === "filter"),
      sort: kept.find((entry): entry is Kept & { kind: "sort" } => entry.kind === "sort"),
    };
  }

  /**
   * Keeps a created or replaced record's rows, inside the write's transaction. It must come
   * after the write took its counter row: a registration takes them all, so either it came
   * first, and this statement sees its slots, or this write commits before it, and the fill
   * that follows it reads this record. The slots this process knows are checked against the
   * table in the same statement; where another process changed them, they are read and the
   * rows written again.
   */
  async written(client: pg.PoolClient, record: StoredRecord): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const { rows } = await client.query<{ fresh: boolean; registry: Array<[string, Kept["kind"], string, boolean]> }>(
        this.#writtenStatement(record, [...(this.#known?.values() ?? [])]),
      );
      const { fresh, registry } = rows[0]!;
      if (fresh) return;
      // Another process registered a slot, or a reset removed them: while this write holds its counter row, they stay as read now.
      if (attempt > 0) throw new Error(`The kept lists of ${this.#name} changed while a write held its counter row`);
      this.#learn(registry.map(([slot, kind, name, ready]) => keptOf({ slot, kind, name, ready })));
    }
  }

  /** The statement of `written`: whether the kept slots are still `kept`, with the slots as they are, and the record's rows under them. */
  #writtenStatement(record: StoredRecord, kept: Kept[]): pg.QueryConfig {
    const registry = "coalesce(json_agg(json_build_array(slot::text, kind, name, ready) ORDER BY slot), '[]') AS registry";
    // Nothing kept, as far as this process knows: only that is checked.
    if (kept.length === 0) {
      return { name: "rest_kept_none", text: `SELECT count(*) = 0 AS fresh, ${registry} FROM rest_kept_lists WHERE collection = $1`, values: [this.#name] };
    }
    const rows = this.#rowsOf([record], kept);
    return {
      name: "rest_kept_written",
      text: `WITH kept AS (
               SELECT coalesce(array_agg(slot ORDER BY slot), '{}') = $3::bigint[] AS fresh, ${registry}
               FROM rest_kept_lists WHERE collection = $1
             ), held AS (
               SELECT r.place, r.parent_id FROM rest_records r, kept WHERE r.collection = $1 AND r.id = $2 AND kept.fresh
             ), gone AS (
               DELETE FROM rest_list_filters f USING kept WHERE f.collection = $1 AND f.id = $2 AND kept.fresh AND f.slot <> ALL($4::bigint[])
             ), filters AS (
               INSERT INTO rest_list_filters (collection, id, slot, parent_id, place, filter, long_filter)
               SELECT $1, $2, u.slot, held.parent_id, held.place, u.filter, u.long_filter
               FROM held, unnest($4::bigint[], $5::text[], $6::text[]) AS u(slot, filter, long_filter)
               ON CONFLICT (collection, id, slot) DO UPDATE SET filter = excluded.filter, long_filter = excluded.long_filter
             ), sorts AS (
               INSERT INTO rest_list_sorts (collection, id, slot, parent_id, sort_key, sort_rest)
               SELECT $1, $2, u.slot, held.parent_id, u.sort_key, u.sort_rest
               FROM held, unnest($7::bigint[], $8::bytea[], $9::bytea[]) AS u(slot, sort_key, sort_rest)
               ON CONFLICT (collection, id, slot) DO UPDATE SET sort_key = excluded.sort_key, sort_rest = excluded.sort_rest
             )
             SELECT fresh, registry FROM kept`,
      values: [
        this.#name,
        String(record.id),
        kept.map((entry) => entry.slot).sort((a, b) => Number(a) - Number(b)),
        rows.filterSlots,
        rows.filters,
        rows.longFilters,
        rows.sortSlots,
        rows.sortKeys,
        rows.sortRests,
      ],
    };
  }

  /** The collection's name. */
  get collection(): string {
    return this.#name;
  }

  /** Forgets what this process read, after a reset removed the collection's kept lists. */
  forget(): void {
    this.#known = undefined;
  }

  /**
   * Registers the wanted slots the bound still allows, not yet filled, in a transaction that
   * holds every counter row of the collection, as a create that runs alone does. Every write
   * holds one of them from its first statement to its commit, so this orders the registration
   * with each: one that came first has committed before this begins, and the fill, which
   * starts after it, reads its record; every later one sees the slot in `written` and writes
   * its rows.
   */
  async #register(wanted: Array<{ kind: Kept["kind"]; name: string }>): Promise<void> {
    const registry = await this.#database.transaction(async (client) => {
      await client.query({
        name: "rest_kept_lock",
        text: "SELECT 1 FROM rest_counters WHERE collection = $1 ORDER BY stripe FOR NO KEY UPDATE",
        values: [this.#name],
      });
      const held = await this.#read((config) => client.query(config));
      const added: Kept[] = [];
      for (const { kind, name } of wanted) {
        if (held.some((entry) => entry.kind === kind && entry.name === name)) continue;
        if ([...held, ...added].filter((entry) => entry.kind === kind).length >= this.#bound(kind)) continue;
        const { rows } = await client.query<{ slot: string }>({
          name: "rest_kept_register",
          text: "INSERT INTO rest_kept_lists (collection, kind, name) VALUES ($1, $2, $3) RETURNING slot",
          values: [this.#name, kind, name],
        });
        added.push(keptOf({ slot: rows[0]!.slot, kind, name, ready: false }));
      }
      return [...held, ...added];
    });
    this.#learn(registry);
  }

  /** Fills slots, each once in this process: a list that finds one being filled here waits for that fill. */
  async #fillOnce(slots: Kept[]): Promise<void> {
    const own = slots.filter((entry) => !this.#filling.has(entry.slot));
    if (own.length > 0) {
      const fill = this.#database.session((client) => this.#fill(client, own)).finally(() => {
        for (const entry of own) this.#filling.delete(entry.slot);
      });
      for (const entry of own) this.#filling.set(entry.slot, fill);
    }
    await Promise.all(slots.map((entry) => this.#filling.get(entry.slot)));
  }

  /**
   * Writes the rows of unfilled slots for every record of the collection, a chunk at a time in
   * creation order, each chunk a statement of its own: writes go on meanwhile. A session lock
   * per slot (its number, negated, as the key) keeps a second process from filling it too; one
   * whose filler died is taken over, since a fill writes only rows that are missing.
   *
   * Why the rows are exact: each chunk's statement locks the records it writes rows of, and
   * writes them only where a record still has the version read (FOR SHARE waits for a write
   * under way and sees what it committed). A record written since has its rows from its
   * writer, which saw the slot: the fill skips it, or its writer's upsert comes after and
   * replaces them. Rows a writer wrote first are kept (ON CONFLICT DO NOTHING).
   */
  async #fill(client: pg.PoolClient, slots: Kept[]): Promise<void> {
    const mine: Kept[] = [];
    for (const entry of slots) {
      const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(-$1::bigint) AS locked", [entry.slot]);
      if (rows[0]!.locked) mine.push(entry);
    }
    try {
      // Another process may have filled one since this one read it.
      const { rows } = await client.query<{ slot: string }>("SELECT slot FROM rest_kept_lists WHERE slot = ANY($1::bigint[]) AND NOT ready", [mine.map((entry) => entry.slot)]);
      const filling = mine.filter((entry) => rows.some((row) => row.slot === entry.slot));
      if (filling.length === 0) return;
      for (let after = -1; ; ) {
        const last = await this.#fillChunk(client, filling, after);
        if (last === undefined) break;
        after = last;
      }
      // Statistics of the rows just written: until autovacuum gathers them, the planner would guess,
      // and a list of a large collection could get a plan that reads all of it for one page.
      for (const kind of new Set(filling.map((entry) => entry.kind))) await client.query(kind === "filter" ? "ANALYZE rest_list_filters" : "ANALYZE rest_list_sorts");
      await client.query("UPDATE rest_kept_lists SET ready = true WHERE slot = ANY($1::bigint[])", [filling.map((entry) => entry.slot)]);
    } catch (error) {
      // A reset removed the slot while it was filled, and its rows with it: nothing is left to do.
      if ((error as { code?: unknown }).code !== "23503") throw error;
      const { rows } = await client.query("SELECT 1 FROM rest_kept_lists WHERE slot = ANY($1::bigint[])", [slots.map((entry) => entry.slot)]);
      if (rows.length > 0) throw error;
    } finally {
      await client.query("SELECT pg_advisory_unlock_all()");
    }
  }

  /** Writes the rows of the records after place `after`, at most FILL_CHUNK of them; the last place written, or undefined past the end. */
  async #fillChunk(client: pg.PoolClient, slots: Kept[], after: number): Promise<number | undefined> {
    const { rows } = await client.query<{ id: string; version: string; place: string; body: string }>({
      name: "rest_kept_read",
      text: "SELECT id, version, place, body FROM rest_records WHERE collection = $1 AND place > $2 ORDER BY place LIMIT $3",
      values: [this.#name, after, FILL_CHUNK],
    });
    if (rows.length === 0) return undefined;
    const owners = { filters: [] as number[], sorts: [] as number[] };
    const made = this.#rowsOf(rows.map((row) => JSON.parse(row.body) as StoredRecord), slots, owners);
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query({
          name: "rest_kept_fill",
          text: `WITH held AS (
                   SELECT r.id, r.parent_id, r.place, u.owner FROM rest_records r
                     JOIN unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS u(id, version, owner) ON r.collection = $1 AND r.id = u.id AND r.version = u.version
                   FOR SHARE OF r
                 ), filters AS (
                   INSERT INTO rest_list_filters (collection, id, slot, parent_id, place, filter, long_filter)
                   SELECT $1, held.id, f.slot, held.parent_id, held.place, f.filter, f.long_filter
                   FROM unnest($4::int[], $5::bigint[], $6::text[], $7::text[]) AS f(owner, slot, filter, long_filter) JOIN held ON held.owner = f.owner
                   ON CONFLICT (collection, id, slot) DO NOTHING
                 )
                 INSERT INTO rest_list_sorts (collection, id, slot, parent_id, sort_key, sort_rest)
                 SELECT $1, held.id, s.slot, held.parent_id, s.sort_key, s.sort_rest
                 FROM unnest($8::int[], $9::bigint[], $10::bytea[], $11::bytea[]) AS s(owner, slot, sort_key, sort_rest) JOIN held ON held.owner = s.owner
                 ON CONFLICT (collection, id, slot) DO NOTHING`,
          values: [
            this.#name,
            rows.map((row) => row.id),
            rows.map((row) => row.version),
            owners.filters,
            made.filterSlots,
            made.filters,
            made.longFilters,
            owners.sorts,
            made.sortSlots,
            made.sortKeys,
            made.sortRests,
          ],
        });
        return Number(rows.at(-1)!.place);
      } catch (error) {
        // A cascading delete may lock the same records in another order: the chunk is written again.
        if ((error as { code?: unknown }).code !== "40P01" || attempt === ATTEMPTS) throw error;
      }
    }
  }

  /** The kept slots of the collection as the table holds them now. */
  async #read(query: KeptDatabase["query"]): Promise<Kept[]> {
    const { rows } = await query<{ slot: string; kind: Kept["kind"]; name: string; ready: boolean }>({
      name: "rest_kept_slots",
      text: "SELECT slot, kind, name, ready FROM rest_kept_lists WHERE collection = $1 ORDER BY slot",
      values: [this.#name],
    });
    return rows.map(keptOf);
  }

  /** How many filtered members, or sorts, a collection keeps at most. */
  #bound(kind: Kept["kind"]): number {
    return kind === "filter" ? this.#options.keptLists.filters : this.#options.keptLists.sorts;
  }

  /** How many filtered members, or sorts, this process last read the collection keeps. */
  #count(kind: Kept["kind"]): number {
    return [...(this.#known?.values() ?? [])].filter((entry) => entry.kind === kind).length;
  }

  #learn(registry: Kept[]): void {
    this.#known = new Map(registry.map((entry) => [`${entry.kind} ${entry.name}`, entry]));
  }

  /** The rows of records under slots; `owners`, when given, gets the 1-based index of each row's record, for a fill of many records. */
  #rowsOf(records: StoredRecord[], kept: Kept[], owners?: { filters: number[]; sorts: number[] }): Rows {
    const rows: Rows = { filterSlots: [], filters: [], longFilters: [], sortSlots: [], sortKeys: [], sortRests: [] };
    records.forEach((record, index) => {
      for (const entry of kept) {
        if (entry.kind === "filter") {
          // Own members only, as matchesFilters reads them; a value with no filter text (an object or an array) has no row.
          const text = Object.hasOwn(record, entry.member) ? this.#options.filterText(record[entry.member]) : undefined;
          if (text === undefined) continue;
          const { key, long } = filterKey(text);
          rows.filterSlots.push(entry.slot);
          rows.filters.push(key);
          rows.longFilters.push(long);
          owners?.filters.push(index + 1);
        } else {
          const bytes = this.#options.sortKey(record, entry.keys);
          rows.sortSlots.push(entry.slot);
          rows.sortKeys.push(bytes.subarray(0, SORT_KEY_BYTES));
          rows.sortRests.push(bytes.length > SORT_KEY_BYTES ? bytes.subarray(SORT_KEY_BYTES) : null);
          owners?.sorts.push(index + 1);
        }
      }
    });
    return rows;
  }
}

/** A registry row as a Kept entry, its name read back. */
function keptOf(row: { slot: string; kind: Kept["kind"]; name: string; ready: boolean }): Kept {
  const { slot, name, ready } = row;
  if (row.kind === "filter") return { slot, kind: "filter", name, ready, member: JSON.parse(name) as string };
  const keys = (JSON.parse(name) as Array<[string, boolean]>).map(([member, descending]) => ({ member, descending }));
  return { slot, kind: "sort", name, ready, keys };
}

/**
 * Removes the kept lists of the collections this process serves (`lists`, one per collection),
 * with their rows, inside a reset's transaction: lists register them again when they ask.
 */
export async function forgetKeptLists(client: pg.PoolClient, lists: readonly KeptLists[]): Promise<void> {
  await client.query("DELETE FROM rest_kept_lists WHERE collection = ANY($1)", [lists.map((list) => list.collection)]);
  for (const list of lists) list.forget();
}
