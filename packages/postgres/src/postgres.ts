// The PostgreSQL store: every collection in three tables, each write one transaction that runs the resource's rules under row locks.
import pg from "pg";
import type {
  CollectionName,
  CollectionStore,
  CreateContext,
  CreateRequest,
  RecordId,
  Current,
  DatabaseStoreOptions,
  ListQuery,
  ListView,
  CollectionDefinition,
  Collections,
  Snapshot,
  Store,
  StoredRecord,
  Written,
} from "rest-reference-server";
import { addCollections, type CollectionLayout, createSchema, idSequence, STRIPES } from "./schema.ts";
import { forgetKeptLists, KeptLists } from "./kept.ts";
import { listKept, SCAN } from "./kept-list.ts";

export { createSchema, SCHEMA_SQL } from "./schema.ts";

/** How many connections each server process keeps open at most. */
export const POOL_SIZE = 10;

/** How long a connection may take to open, and a query to answer, before the request gets 503 (milliseconds). */
export const TIMEOUT = 5_000;

/** How many times a transaction that PostgreSQL aborted for a deadlock or a serialization failure is run. */
export const ATTEMPTS = 5;

type Client = pg.PoolClient;

/** An error a resource's rules threw: answered as it is, after the transaction is rolled back. */
class Refusal {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

/** Thrown by the list's ETag that a create running side by side with others offers: the create is run again, alone (createAlone). */
class NeedsExactList {}

/**
 * Opens the store of the database at `url`: creates the schema if it is missing (safe when
 * several processes start at once), fills a new database with the starting records, and
 * serves every request with queries through a pool of POOL_SIZE connections. Throws when
 * the database cannot be reached or set up. While it cannot be reached later, requests for
 * data get `options.unavailable` (503) and `ready()` is false; service resumes once it is back.
 */
export async function openPostgresStore(url: string, options: DatabaseStoreOptions): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: TIMEOUT,
    query_timeout: TIMEOUT,
    keepAlive: true,
    application_name: "rest-reference-server",
  });
  // A connection that breaks while idle, or between two queries, reports it here and in
  // the next query; without listeners the event would end the process.
  pool.on("error", ignore);
  pool.on("connect", (client) => client.on("error", ignore));
  try {
    const epochs = await initialise(pool, options);
    return createStore(pool, epochs, options);
  } catch (error) {
    await pool.end().catch(ignore);
    throw error;
  }
}

function ignore(): void {}

/** Creates the schema and the collection rows, and loads the starting records into a new database; answers each collection's epoch. */
async function initialise(pool: pg.Pool, options: DatabaseStoreOptions): Promise<Map<string, string>> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await createSchema(client);
    const fresh = await addCollections(client, layoutsOf(options.resources), options.newEpoch());
    if (fresh) {
      await load(client, options);
    } else if (options.seeded) {
      options.warn("The database holds data already, so the seed was not loaded; a seed fills only a new database");
    }
    const { rows } = await client.query<{ name: string; epoch: string }>("SELECT name, epoch FROM rest_collections");
    await client.query("COMMIT");
    client.release();
    return new Map(rows.map((row) => [row.name, row.epoch]));
  } catch (error) {
    client.release(true);
    throw error;
  }
}

/** How the schema keeps each collection. */
function layoutsOf(resources: Collections): CollectionLayout[] {
  return (Object.values(resources) as CollectionDefinition[]).map((resource) => ({
    name: resource.name,
    stripes: stripesOf(resource),
    sequence: resource.ids === "sequence",
  }));
}

/**
 * How many counter rows a collection has: one where every create takes them all anyway
 * (`count` ids are the records held + 1, docs/spec.md#users-create, so its creates run one at a
 * time), STRIPES where creates run side by side.
 */
function stripesOf(resource: CollectionDefinition): number {
  return resource.ids === "count" ? 1 : STRIPES;
}

/**
 * Holds the starting records (or `starting`, records a reset loads instead), parents first,
 * in collections that were emptied: versions from rest_versions, so that no ETag given before
 * is given again; each list's revision raised; each id sequence started again after the
 * highest id held (ALTER SEQUENCE, unlike setval, is undone if the transaction is).
 */
async function load(client: Client, options: DatabaseStoreOptions, starting = options.starting): Promise<void> {
  for (const resource of Object.values(options.resources) as CollectionDefinition[]) {
    const { name } = resource;
    const records = starting[name] ?? [];
    const taken = await client.query<{ version: string }>("SELECT nextval('rest_versions') AS version FROM generate_series(1, $1)", [records.length]);
    const versions = taken.rows.map((row) => Number(row.version)).sort((a, b) => a - b);
    const parentKey = resource.parent?.key;
    await client.query(
      `INSERT INTO rest_records (collection, id, parent_id, place, version, body)
       SELECT $1, id, parent_id, version, version, body FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[]) AS t(id, parent_id, version, body)`,
      [
        name,
        records.map((record) => String(record.id)),
        records.map((record) => (parentKey === undefined ? null : String(record[parentKey]))),
        versions,
        records.map((record) => JSON.stringify(record)),
      ],
    );
    // The list's size is all in the first row; every row's revision goes up, so their sum does.
    await client.query("UPDATE rest_counters SET revision = revision + 1, size = CASE stripe WHEN 0 THEN $2::bigint ELSE 0 END WHERE collection = $1", [
      name,
      records.length,
    ]);
    if (resource.ids === "sequence") {
      // The highest whole-number id: the sequence goes on from it.
      const highest = records.reduce((most, { id }) => (typeof id === "number" ? Math.max(most, id) : most), 0);
      await client.query(`ALTER SEQUENCE ${idSequence(name)} RESTART WITH ${highest + 1}`);
    }
  }
}

/** The store over an initialised database. */
function createStore(pool: pg.Pool, epochs: Map<string, string>, options: DatabaseStoreOptions): Store {
  const { resources, entityTag, unavailable } = options;
  const all = Object.values(resources) as CollectionDefinition[];

  const down = (error: unknown): Error =>
    unavailable(`The database cannot be used now (${describe(error)}); retry shortly, and read first where a write may have been kept`);
  const failed = (error: unknown): never => {
    throw isUnavailable(error) ? down(error) : error;
  };

  /**
   * Runs `work` in a transaction. A deadlock or serialization failure runs it again, a
   * broken connection is a 503, and a refusal by the resource's rules is thrown as it is.
   */
  const transaction = <T>(work: (client: Client) => Promise<T>): Promise<T> => timed("transaction", () => attempts(work));

  /** Runs a store operation and tells the server how long it took (the metrics' rest_store_duration_seconds). */
  const timed = <T>(operation: "query" | "transaction", run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    return run().finally(() => options.took?.(operation, performance.now() - started));
  };

  /** A connection from the pool; a 503 when none can be opened. */
  const connect = async (): Promise<Client> => {
    try {
      return await pool.connect();
    } catch (error) {
      throw down(error);
    }
  };

  /**
   * Runs `work` on a connection of its own, outside a transaction, after the sessions asked for
   * before it: the fills of kept lists, which last seconds on a large collection, hold one of the
   * pool's connections at a time, and requests keep the rest (a dozen first lists at once had
   * held every connection, and reads waited 3.7 s). After a failure the connection is closed, so nothing it held stays.
   */
  let sessions: Promise<unknown> = Promise.resolve();
  const session = <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    const turn = sessions.then(() => alone(work));
    sessions = turn.catch(ignore);
    return turn;
  };
  const alone = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    const client = await connect();
    try {
      const result = await work(client);
      client.release();
      return result;
    } catch (error) {
      client.release(true);
      return failed(error);
    }
  };

  const attempts = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      const client = await connect();
      try {
        await client.query("BEGIN");
        const result = await work(client);
        await client.query("COMMIT");
        client.release();
        return result;
      } catch (error) {
        if (hasSqlState(error) || error instanceof Refusal) {
          // The connection is sound: roll back and give it back to the pool.
          await client.query("ROLLBACK").then(
            () => client.release(),
            () => client.release(true),
          );
        } else {
          client.release(true);
        }
        if (error instanceof Refusal) throw error.error;
        if (isRetryable(error) && attempt < ATTEMPTS) continue;
        failed(error);
      }
    }
  };

  const keptLists: KeptLists[] = [];
  const collections = new Map<string, CollectionStore>();
  for (const resource of all) collections.set(resource.name, collectionStore(resource));

  function collectionStore(resource: CollectionDefinition): CollectionStore {
    const { name } = resource;
    const epoch = epochs.get(name)!;
    const parent = resource.parent;
    const stripes = stripesOf(resource);
    const sequence = resource.ids === "sequence" ? idSequence(name) : null;
    const tagOf = (version: number) => entityTag(epoch, version);
    // This collection and every one below it: what a delete changes.
    const tree = descendants(resource);
    const treeNames = tree.map((part) => part.name);
    const treeStripes = tree.map(stripesOf);
    // Its filtered members and sorts kept in tables, so that such lists use indexes (docs/postgres.md).
    const kept = new KeptLists(resource, options, { transaction, session, query: (config) => pool.query(config).catch(failed) });
    keptLists.push(kept);

    /**
     * Adds a write to one of the collection's counter rows (the list's revision + 1, its size
     * + `grows`), held until the commit: the first that no other write holds, starting from
     * this connection's own, so that writes of the collection run side by side. It waits, for
     * its own row, only when every row is held: by as many writes, or by a create that needs
     * the collection to stand still (createAlone), or by a reset.
     */
    const claim = async (client: Client, grows: number): Promise<void> => {
      const values = [name, stripes, grows];
      const free = await client.query({
        name: "rest_claim",
        text: `UPDATE rest_counters SET revision = revision + 1, size = size + $3
               WHERE (collection, stripe) = (SELECT collection, stripe FROM rest_counters WHERE collection = $1
                                             ORDER BY (stripe + $2 - pg_backend_pid() % $2) % $2 LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED)`,
        values,
      });
      if (free.rowCount === 0) {
        await client.query({
          name: "rest_claim_own",
          text: "UPDATE rest_counters SET revision = revision + 1, size = size + $3 WHERE collection = $1 AND stripe = pg_backend_pid() % $2",
          values,
        });
      }
    };

    /**
     * Takes every counter row of the collection, in order, waiting for the writes that hold
     * one: until the commit no other write of the collection runs, so its revision and size,
     * answered here, stay exact.
     */
    const lockAll = async (client: Client): Promise<{ revision: number; size: number }> => {
      const { rows } = await client.query<{ revision: string; size: string }>({
        name: "rest_lock_all",
        text: "SELECT sum(revision) AS revision, sum(size) AS size FROM (SELECT revision, size FROM rest_counters WHERE collection = $1 ORDER BY stripe FOR NO KEY UPDATE) c",
        values: [name],
      });
      const row = rows[0]!;
      return { revision: Number(row.revision), size: Number(row.size) };
    };

    /**
     * What a create's rules see, in one statement after its counter rows are taken: whether
     * the parent is held, locked FOR KEY SHARE until the commit (which a delete's FOR UPDATE
     * of it waits for, and the other way round); the id, `given` or, if `take`, the next of
     * the collection's sequence (taken only where the parent is held and the rules pass,
     * since a sequence does not take a number back when a transaction rolls back); and
     * whether a record holds that id.
     */
    const check = async (client: Client, parentId: RecordId | undefined, given: RecordId | undefined, take: boolean): Promise<Checked> => {
      const { rows } = await client.query<{ found: boolean; id: string | null; taken: boolean }>({
        name: "rest_check",
        text: `WITH parent AS MATERIALIZED (SELECT 1 FROM rest_records WHERE collection = $3 AND id = $4 FOR KEY SHARE),
                    held AS MATERIALIZED (SELECT $3::text IS NULL OR EXISTS (SELECT 1 FROM parent) AS found),
                    chosen AS MATERIALIZED (SELECT found, CASE WHEN found AND $5::text IS NOT NULL THEN nextval($5::regclass)::text ELSE $2 END AS id FROM held)
               SELECT found, id, EXISTS (SELECT 1 FROM rest_records r WHERE r.collection = $1 AND r.id = chosen.id) AS taken FROM chosen`,
        values: [name, given === undefined ? null : String(given), parent?.resource.name ?? null, parentId === undefined ? null : String(parentId), take ? sequence : null],
      });
      const row = rows[0]!;
      return { found: row.found, id: given ?? (row.id === null ? undefined : Number(row.id)), taken: row.taken };
    };

    /**
     * Runs the rules on what `check` saw and inserts the record they return, with a version
     * from rest_versions (its ETag, and its place in creation order). `counted` also adds the
     * create to the collection's counter row, for a create that holds them all.
     */
    const insert = async (client: Client, { parentId, decide }: CreateRequest, checked: Checked, listTag: () => string, counted: boolean): Promise<Written> => {
      let context: CreateContext = { parentFound: checked.found, listTag, id: checked.id ?? 0, taken: checked.taken };
      let record = refusing(() => decide(context));
      if (checked.id === undefined) {
        // Rules that refused the create with its parent held and its id free let it pass now: it takes its number here.
        const { rows } = await client.query<{ id: string }>({ name: "rest_next_id", text: "SELECT nextval($1::regclass)::text AS id", values: [sequence] });
        context = { ...context, id: Number(rows[0]!.id) };
        record = refusing(() => decide(context));
      }
      const values = [name, String(record.id), parent === undefined ? null : String(record[parent.key]), JSON.stringify(record)];
      const { rows } = counted
        ? await client.query<{ version: string }>({
            name: "rest_insert_counted",
            text: `WITH inserted AS (
                     INSERT INTO rest_records (collection, id, parent_id, place, version, body)
                     SELECT $1, $2, $3, v, v, $4 FROM nextval('rest_versions') AS v ON CONFLICT (collection, id) DO NOTHING RETURNING version),
                   counted AS (UPDATE rest_counters SET revision = revision + 1, size = size + 1 WHERE collection = $1 AND stripe = pg_backend_pid() % $5)
                   SELECT version FROM inserted`,
            values: [...values, stripes],
          })
        : await client.query<{ version: string }>({
            name: "rest_insert",
            text: `INSERT INTO rest_records (collection, id, parent_id, place, version, body)
                   SELECT $1, $2, $3, v, v, $4 FROM nextval('rest_versions') AS v ON CONFLICT (collection, id) DO NOTHING RETURNING version`,
            values,
          });
      if (rows.length === 0) {
        // A create of the same id, chosen by its client, committed since the check: a 409 in the rules' words.
        refusing(() => decide({ ...context, taken: true }));
        throw new TypeError(`The rules of ${name} let a create of the taken id ${String(record.id)} pass`);
      }
      await kept.written(client, record);
      return { record, tag: tagOf(Number(rows[0]!.version)) };
    };

    /**
     * A create that runs side by side with the collection's other writes: it holds one counter
     * row. Its rules must not ask for the list's ETag, which only a collection standing still
     * gives exactly; if they do, the create is run again, alone.
     */
    const createShared = (request: CreateRequest, given: RecordId | undefined, passes: boolean): Promise<Written> =>
      transaction(async (client) => {
        await claim(client, 1);
        const checked = await check(client, request.parentId, given, passes && given === undefined);
        return insert(client, request, checked, askedForListTag, false);
      });

    /**
     * A create for which the collection stands still: one whose id is the count of records held
     * + 1, or whose rules check the list's ETag (If-Match, If-None-Match), which must be the
     * ETag of the list it is added to, with no other create between.
     */
    const createAlone = (request: CreateRequest, given: RecordId | undefined): Promise<Written> =>
      transaction(async (client) => {
        const { revision, size } = await lockAll(client);
        const listTag = () => tagOf(revision);
        // For `count`, records held + 1 (docs/spec.md#users-create).
        const id = given ?? (resource.ids === "count" ? size + 1 : undefined);
        const take = id === undefined && probe(request.decide, listTag) === "passes";
        return insert(client, request, await check(client, request.parentId, id, take), listTag, true);
      });

    /** The record with this id as a replace or delete sees it, locked (`lock`) until the commit so that it cannot change meanwhile. */
    const currentOf = async (client: Client, id: RecordId, lock: "FOR NO KEY UPDATE" | "FOR UPDATE"): Promise<Current> => {
      const { rows } = await client.query<{ version: string; body: string }>({
        name: lock === "FOR UPDATE" ? "rest_current_delete" : "rest_current_replace",
        text: `SELECT version, body FROM rest_records WHERE collection = $1 AND id = $2 ${lock}`,
        values: [name, id],
      });
      const row = rows[0];
      if (row === undefined) return undefined;
      return { record: JSON.parse(row.body) as StoredRecord, tag: () => tagOf(Number(row.version)) };
    };

    const read: CollectionStore["read"] = async (id) => {
      const { rows } = await timed("query", () =>
        pool.query<{ version: string; body: string }>({
          name: "rest_read",
          text: "SELECT version, body FROM rest_records WHERE collection = $1 AND id = $2",
          values: [name, id],
        }),
      ).catch(failed);
      const row = rows[0];
      return row === undefined ? undefined : { tag: tagOf(Number(row.version)), text: row.body };
    };

    const list = async (query: ListQuery, parentId?: RecordId): Promise<ListView | undefined> => {
      const plain = options.isPlain(query);
      if (!plain) {
        const answer = await listKept(kept, query, {
          collection: name,
          parent: parent === undefined ? undefined : { collection: parent.resource.name, id: String(parentId) },
          tagOf,
          run: (config) => timed("query", () => pool.query(config)).catch(failed),
        });
        if (answer !== SCAN) return answer;
      }
      const offset = plain ? query.offset : 0;
      const limit = plain && Number.isFinite(query.limit) ? query.limit : null;
      // One statement, so one snapshot: the total, the tag and the page agree.
      const { rows } = await timed("query", () => parent === undefined
        ? pool.query<ListRow>({
            name: "rest_list",
            text: `SELECT c.revision, c.size AS total, true AS found,
                     (SELECT '[' || coalesce(string_agg(p.body, ',' ORDER BY p.place), '') || ']'
                        FROM (SELECT body, place FROM rest_records WHERE collection = $1 ORDER BY place OFFSET $2 LIMIT $3) p) AS items
                   FROM (SELECT sum(revision) AS revision, sum(size) AS size FROM rest_counters WHERE collection = $1) c`,
            values: [name, offset, limit],
          })
        : pool.query<ListRow>({
            name: "rest_list_children",
            text: `SELECT c.revision,
                     (SELECT count(*) FROM rest_records WHERE collection = $1 AND parent_id = $5) AS total,
                     EXISTS (SELECT 1 FROM rest_records WHERE collection = $4 AND id = $5) AS found,
                     (SELECT '[' || coalesce(string_agg(p.body, ',' ORDER BY p.place), '') || ']'
                        FROM (SELECT body, place FROM rest_records WHERE collection = $1 AND parent_id = $5 ORDER BY place OFFSET $2 LIMIT $3) p) AS items
                   FROM (SELECT sum(revision) AS revision FROM rest_counters WHERE collection = $1) c`,
            values: [name, offset, limit, parent.resource.name, parentId],
          }),
      ).catch(failed);
      const row = rows[0]!;
      if (!row.found) return undefined;
      const items = JSON.parse(row.items) as StoredRecord[];
      const tag = tagOf(Number(row.revision));
      if (plain) return { items, total: Number(row.total), tag };
      return { ...options.selectPage(items, query), tag };
    };

    return {
      read,
      list,
      create: (request) => {
        // A user's id is the count held + 1 (docs/spec.md#users-create), which two creates side by side would both count.
        if (resource.ids === "count") return createAlone(request, request.chosenId);
        const given = request.chosenId ?? (resource.ids === "random" ? options.randomId() : undefined);
        // The rules, asked first: a create whose preconditions are checked against the list's ETag runs alone.
        const outcome = probe(request.decide, askedForListTag, given);
        if (outcome === "asks") return createAlone(request, given);
        return createShared(request, given, outcome === "passes").catch((error: unknown) => {
          if (error instanceof NeedsExactList) return createAlone(request, given);
          throw error;
        });
      },
      replace: (id, decide) =>
        transaction(async (client): Promise<Written> => {
          await claim(client, 0);
          const current = await currentOf(client, id, "FOR NO KEY UPDATE");
          // Keeps its place (creation order) and its parent; a new version.
          const record = refusing(() => decide(current));
          const { rows } = await client.query<{ version: string }>({
            name: "rest_replace",
            text: "UPDATE rest_records SET body = $3, version = nextval('rest_versions') WHERE collection = $1 AND id = $2 RETURNING version",
            values: [name, id, JSON.stringify(record)],
          });
          await kept.written(client, record);
          return { record, tag: tagOf(Number(rows[0]!.version)) };
        }),
      remove: (id, decide) =>
        transaction(async (client) => {
          // A counter row of this collection and of each below it, in rank order, before any record.
          await client.query({
            name: "rest_claim_tree",
            text: `SELECT 1 FROM rest_counters c
                     JOIN unnest($1::text[], $2::int[]) AS t(name, stripes) ON c.collection = t.name AND c.stripe = pg_backend_pid() % t.stripes
                     JOIN rest_collections r ON r.name = c.collection
                   ORDER BY r.rank, r.name FOR NO KEY UPDATE OF c`,
            values: [treeNames, treeStripes],
          });
          const current = await currentOf(client, id, "FOR UPDATE");
          refusing(() => decide(current));
          const removed = new Map<string, number>([[name, 1]]);
          await client.query({ name: "rest_delete", text: "DELETE FROM rest_records WHERE collection = $1 AND id = $2", values: [name, id] });
          await removeChildren(client, resource, [id], removed);
          for (const [index, collection] of treeNames.entries()) {
            const count = removed.get(collection) ?? 0;
            if (count === 0) continue;
            // A list's version moves on with each record deleted.
            await client.query({
              name: "rest_removed",
              text: "UPDATE rest_counters SET revision = revision + $2, size = size - $2 WHERE collection = $1 AND stripe = pg_backend_pid() % $3",
              values: [collection, count, treeStripes[index]],
            });
          }
        }),
    };
  }

  return {
    collection: (name) => collections.get(name)!,
    reset: (records) =>
      transaction(async (client) => {
        // Every counter row, in rank order: every write holds one from its first statement, so the reset waits for those under way and holds off the rest.
        await client.query("SELECT 1 FROM rest_counters c JOIN rest_collections r ON r.name = c.collection ORDER BY r.rank, r.name, c.stripe FOR UPDATE OF c");
        // Only the collections this process serves, whose counters load() raises: another's records stay, with their counts.
        await forgetKeptLists(client, keptLists);
        await client.query("DELETE FROM rest_records WHERE collection = ANY($1)", [all.map((resource) => resource.name)]);
        await load(client, options, records);
      }),
    snapshot: async () => {
      // One statement, so one consistent snapshot of every collection.
      const { rows } = await pool
        .query<{ collection: string; body: string }>("SELECT collection, body FROM rest_records ORDER BY collection, place")
        .catch(failed);
      const copy: Record<string, StoredRecord[]> = {};
      for (const resource of all) copy[resource.name] = [];
      for (const row of rows) copy[row.collection]?.push(JSON.parse(row.body) as StoredRecord);
      return copy as Snapshot;
    },
    counts: async () => {
      const { rows } = await pool.query<{ name: string; size: string }>("SELECT collection AS name, sum(size) AS size FROM rest_counters GROUP BY collection").catch(failed);
      const counts = {} as Record<CollectionName, number>;
      for (const row of rows) counts[row.name as CollectionName] = Number(row.size);
      return counts;
    },
    ready: () => pool.query("SELECT 1").then(
      () => true,
      () => false,
    ),
    close: () => pool.end(),
  };
}

/** What a create's check saw: whether the parent is held, the id (none where the sequence's number was not taken) and whether it is taken. */
type Checked = { found: boolean; id: RecordId | undefined; taken: boolean };

/** The list's ETag offered to the rules of a create that runs side by side with others: asking for it runs the create again, alone. */
function askedForListTag(): never {
  throw new NeedsExactList();
}

/**
 * How a create's rules answer were its parent held and its id free (`id`, or a stand-in):
 * whether they ask for the list's ETag (`askedForListTag`), let it pass, or refuse it.
 * They are synchronous and change nothing, so asking them first costs no statement.
 */
function probe(decide: CreateRequest["decide"], listTag: () => string, id: RecordId = 0): "asks" | "passes" | "refuses" {
  try {
    decide({ parentFound: true, listTag, id, taken: false });
    return "passes";
  } catch (error) {
    return error instanceof NeedsExactList ? "asks" : "refuses";
  }
}

/** One list query's row: the collection's revision, the list's size, whether its parent is held, and the page as JSON text. */
type ListRow = { revision: string; total: string; found: boolean; items: string };

/** Deletes the records below the given ones, depth first, counting them by collection. */
async function removeChildren(client: Client, resource: CollectionDefinition, ids: RecordId[], removed: Map<string, number>): Promise<void> {
  for (const child of resource.children) {
    const { rows } = await client.query<{ id: string }>({
      name: "rest_delete_children",
      text: "DELETE FROM rest_records WHERE collection = $1 AND parent_id = ANY($2::text[]) RETURNING id",
      values: [child.name, ids.map(String)],
    });
    removed.set(child.name, (removed.get(child.name) ?? 0) + rows.length);
    if (rows.length > 0) await removeChildren(client, child, rows.map((row) => row.id), removed);
  }
}

/** A resource and every resource below it, parents first. */
function descendants(resource: CollectionDefinition): CollectionDefinition[] {
  return [resource, ...resource.children.flatMap(descendants)];
}

/** Runs the resource's rules; what they throw leaves the transaction as a Refusal. */
function refusing<T>(decide: () => T): T {
  try {
    return decide();
  } catch (error) {
    throw new Refusal(error);
  }
}

/** Whether an error came from PostgreSQL itself (it has a five-character SQLSTATE), so the connection is sound. */
function hasSqlState(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith("E");
}

/** A deadlock or a serialization failure: the transaction is worth running again. */
function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "40P01" || code === "40001";
}

/**
 * Whether an error means the database cannot be used now (503), not a fault of this code (500):
 * a connection refused, broken or timed out, the server shutting down or out of connections.
 */
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // A system error (ECONNREFUSED, ECONNRESET, ETIMEDOUT, EAI_AGAIN), not one of Node's own ERR_ codes, which would be a fault here.
  if (typeof code === "string") return hasSqlState(error) ? /^(08|53|57|58|40)/.test(code) : /^E[A-Z_]+$/.test(code) && !code.startsWith("ERR_");
  return /connect|terminat|timeout|ended|not queryable/i.test(error.message);
}

/** An error's code, or the first line of its message. */
function describe(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string" && code !== "") return code;
  return String(message ?? error).split("\n")[0]!;
}
