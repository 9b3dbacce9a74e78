// The PostgreSQL store: every collection in two tables, each write one transaction that runs the resource's rules under row locks.
import pg from "pg";
import type {
  CollectionName,
  CollectionStore,
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
import { createSchema } from "./schema.ts";
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

/** A collection row as a write locks it. */
type Counters = { revision: number; size: number; highestId: number };

/** An error a resource's rules threw: answered as it is, after the transaction is rolled back. */
class Refusal {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

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
  const names = Object.keys(options.resources);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await createSchema(client);
    const epoch = options.newEpoch();
    // Inserted only where missing: a database that holds the rows already keeps its data.
    const inserted = await client.query(
      "INSERT INTO rest_collections (name, rank, epoch) SELECT * FROM unnest($1::text[], $2::int[], $3::text[]) ON CONFLICT (name) DO NOTHING",
      [names, names.map((_, rank) => rank), names.map(() => epoch)],
    );
    if (inserted.rowCount === names.length) {
      await load(client, options, new Map(names.map((name) => [name, 0])));
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

/**
 * Holds the starting records (or `starting`, records a reset loads instead), parents first, after every collection was emptied: each
 * collection's revision goes up by one for the clear and one per record, as in memory.
 */
async function load(client: Client, options: DatabaseStoreOptions, revisions: Map<string, number>, starting = options.starting): Promise<void> {
  for (const [name, before] of revisions) {
    const collection = name as CollectionName;
    const records = starting[collection] ?? [];
    let revision = before + 1;
    const versions = records.map(() => ++revision);
    const parentKey = options.resources[collection]!.parent?.key;
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
    // The highest whole-number id: a sequence goes on from it (string ids have none).
    const highest = records.reduce((most, { id }) => (typeof id === "number" ? Math.max(most, id) : most), 0);
    await client.query("UPDATE rest_collections SET revision = $2, size = $3, highest_id = $4 WHERE name = $1", [name, revision, records.length, highest]);
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

  /** Runs `work` on a connection of its own, outside a transaction; after a failure the connection is closed, so nothing it held stays. */
  const session = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    let client: Client;
    try {
      client = await pool.connect();
    } catch (error) {
      throw down(error);
    }
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
      let client: Client;
      try {
        client = await pool.connect();
      } catch (error) {
        throw down(error);
      }
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
    const tagOf = (version: number) => entityTag(epoch, version);
    // This collection and every one below it, parents first: what a delete locks.
    const tree = descendants(resource).map((part) => part.name);
    // Its filtered members and sorts kept in tables, so that such lists use indexes (docs/postgres.md).
    const kept = new KeptLists(resource, options, { transaction, session, query: (config) => pool.query(config).catch(failed) });
    keptLists.push(kept);

    /** Locks the collection's row against other writes to it (a write of a parent, or a create below it, may go on). */
    const lockOwn = async (client: Client): Promise<Counters> => {
      const { rows } = await client.query<{ revision: string; size: string; highest_id: string }>({
        name: "rest_lock_write",
        text: "SELECT revision, size, highest_id FROM rest_collections WHERE name = $1 FOR NO KEY UPDATE",
        values: [name],
      });
      const row = rows[0]!;
      return { revision: Number(row.revision), size: Number(row.size), highestId: Number(row.highest_id) };
    };

    /** The record with this id as a replace or delete sees it; the collection's lock keeps it from changing meanwhile. */
    const currentOf = async (client: Client, id: RecordId): Promise<Current> => {
      const { rows } = await client.query<{ version: string; body: string }>({
        name: "rest_current",
        text: "SELECT version, body FROM rest_records WHERE collection = $1 AND id = $2",
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
                   FROM rest_collections c WHERE c.name = $1`,
            values: [name, offset, limit],
          })
        : pool.query<ListRow>({
            name: "rest_list_children",
            text: `SELECT c.revision,
                     (SELECT count(*) FROM rest_records WHERE collection = $1 AND parent_id = $5) AS total,
                     EXISTS (SELECT 1 FROM rest_records WHERE collection = $4 AND id = $5) AS found,
                     (SELECT '[' || coalesce(string_agg(p.body, ',' ORDER BY p.place), '') || ']'
                        FROM (SELECT body, place FROM rest_records WHERE collection = $1 AND parent_id = $5 ORDER BY place OFFSET $2 LIMIT $3) p) AS items
                   FROM rest_collections c WHERE c.name = $1`,
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
      create: ({ parentId, chosenId, decide }) =>
        transaction(async (client): Promise<Written> => {
          // The parent's collection first (rank order): a delete there, which would take the
          // parent away, waits for this create, or this create for it.
          if (parent !== undefined) {
            await client.query({
              name: "rest_lock_parent",
              text: "SELECT 1 FROM rest_collections WHERE name = $1 FOR KEY SHARE",
              values: [parent.resource.name],
            });
          }
          const { revision, size, highestId } = await lockOwn(client);
          // Seed spec part 2, rule 1 for `count` (records held + 1); a sequence never gives an id twice.
          const id = chosenId ?? (resource.ids === "count" ? size + 1 : resource.ids === "random" ? options.randomId() : highestId + 1);
          const { rows } = await client.query<{ taken: boolean; found: boolean }>({
            name: "rest_check",
            text: `SELECT EXISTS (SELECT 1 FROM rest_records WHERE collection = $1 AND id = $2) AS taken,
                          EXISTS (SELECT 1 FROM rest_records WHERE collection = $3 AND id = $4) AS found`,
            values: [name, String(id), parent?.resource.name ?? name, String(parentId ?? "")],
          });
          const { taken, found } = rows[0]!;
          const record = refusing(() => decide({ parentFound: parent === undefined || found, listTag: () => tagOf(revision), id, taken }));
          const version = revision + 1;
          await client.query({
            name: "rest_insert",
            text: `WITH inserted AS (
                     INSERT INTO rest_records (collection, id, parent_id, place, version, body) VALUES ($1, $2, $3, $4, $4, $5))
                   UPDATE rest_collections SET revision = $4, size = size + 1, highest_id = GREATEST(highest_id, $6) WHERE name = $1`,
            values: [
              name,
              String(record.id),
              parent === undefined ? null : String(record[parent.key]),
              version,
              JSON.stringify(record),
              typeof record.id === "number" ? record.id : 0,
            ],
          });
          await kept.written(client, record);
          return { record, tag: tagOf(version) };
        }),
      replace: (id, decide) =>
        transaction(async (client): Promise<Written> => {
          const { revision } = await lockOwn(client);
          const current = await currentOf(client, id);
          // Keeps its place (creation order) and its parent; a new version.
          const record = refusing(() => decide(current));
          const version = revision + 1;
          await client.query({
            name: "rest_replace",
            text: `WITH replaced AS (UPDATE rest_records SET body = $3, version = $4 WHERE collection = $1 AND id = $2)
                   UPDATE rest_collections SET revision = $4 WHERE name = $1`,
            values: [name, id, JSON.stringify(record), version],
          });
          await kept.written(client, record);
          return { record, tag: tagOf(version) };
        }),
      remove: (id, decide) =>
        transaction(async (client) => {
          // This collection and those below it, parents first: the order every write takes them in.
          await client.query({
            name: "rest_lock_tree",
            text: "SELECT name FROM rest_collections WHERE name = ANY($1) ORDER BY rank FOR UPDATE",
            values: [tree],
          });
          const current = await currentOf(client, id);
          refusing(() => decide(current));
          const removed = new Map<string, number>([[name, 1]]);
          await client.query({ name: "rest_delete", text: "DELETE FROM rest_records WHERE collection = $1 AND id = $2", values: [name, id] });
          await removeChildren(client, resource, [id], removed);
          for (const [collection, count] of removed) {
            if (count === 0) continue;
            // A list's version moves on with each record deleted, and a new record's version stays above every one given.
            await client.query({
              name: "rest_removed",
              text: "UPDATE rest_collections SET revision = revision + $2, size = size - $2 WHERE name = $1",
              values: [collection, count],
            });
          }
        }),
    };
  }

  return {
    collection: (name) => collections.get(name)!,
    reset: (records) =>
      transaction(async (client) => {
        const { rows } = await client.query<{ name: string; revision: string }>(
          "SELECT name, revision FROM rest_collections ORDER BY rank FOR UPDATE",
        );
        await forgetKeptLists(client, keptLists);
        await client.query("DELETE FROM rest_records");
        await load(client, options, new Map(rows.map((row) => [row.name, Number(row.revision)])), records);
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
      const { rows } = await pool.query<{ name: string; size: string }>("SELECT name, size FROM rest_collections").catch(failed);
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
