// The adapter's tables and sequences, made once per database under an advisory lock so that processes starting together do not race.
import type { ClientBase } from "pg";

/**
 * A fixed key for pg_advisory_xact_lock: every process that sets up the schema takes it,
 * inside its transaction, so a second process waits and then finds the tables made.
 */
export const SCHEMA_LOCK = 7_260_412;

/**
 * How many counter rows a collection whose creates run side by side spreads its revision and
 * size over: a write adds to one that no other write holds, so that writes do not queue on
 * one row; only when this many are under way in the collection does the next one wait.
 */
export const STRIPES = 16;

/**
 * One row per collection: its rank (parents before children, the order in which writes
 * lock rows, so that no two writes wait on each other in a cycle) and the epoch its ETags
 * begin with. Its revision (raised by every write; a list's version) and size (records
 * held: the count for the next user id, docs/spec.md#users-create) are the sums of its rows in
 * rest_counters, each write adding to one of them. Records keep their JSON text exactly as
 * written, so that members keep their order (jsonb would sort them); `version`, a number
 * from rest_versions taken by their last write, which their ETag is made of; and `place`,
 * the version their create took, which orders lists in creation order. Ids are text: whole
 * numbers written in digits, or the string ids of a collection a file gives them; a
 * collection whose ids count up takes them from a sequence of its own (idSequence).
 * A database made by an earlier version is moved to this layout once (MIGRATE_SQL, and
 * migrate in addCollections).
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS rest_collections (
  name text PRIMARY KEY,
  rank integer NOT NULL,
  epoch text NOT NULL
);
CREATE TABLE IF NOT EXISTS rest_counters (
  collection text NOT NULL,
  stripe integer NOT NULL,
  revision bigint NOT NULL DEFAULT 0,
  size bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (collection, stripe)
);
CREATE TABLE IF NOT EXISTS rest_records (
  collection text NOT NULL,
  id text NOT NULL,
  parent_id text,
  place bigint NOT NULL,
  version bigint NOT NULL,
  body text NOT NULL,
  PRIMARY KEY (collection, id)
);
CREATE INDEX IF NOT EXISTS rest_records_order ON rest_records (collection, place);
CREATE INDEX IF NOT EXISTS rest_records_children ON rest_records (collection, parent_id, place);
CREATE SEQUENCE IF NOT EXISTS rest_versions;
`;

/** Moves a database whose record ids were whole-number columns to text ids, once. */
export const MIGRATE_SQL = `
DO $$ BEGIN
  IF (SELECT data_type FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'rest_records' AND column_name = 'id') = 'bigint' THEN
    ALTER TABLE rest_records ALTER COLUMN id TYPE text USING id::text, ALTER COLUMN parent_id TYPE text USING parent_id::text;
  END IF;
END $$;
`;

/**
 * What filtered and sorted lists are answered from (docs/postgres.md, "Filtered and sorted
 * lists"). `rest_kept_lists` names each filtered member (`filter`, its name as JSON text) and
 * each sort (`sort`, its keys as JSON) that a collection keeps, under a `slot` never given
 * twice. For each slot and each record: in `rest_list_filters`, the member's filter text as
 * JSON (`filter`; a long one as `#` and its SHA-256, the text then in `long_filter`), where the
 * record has one; in `rest_list_sorts`, the record's sort key bytes (the first 1024 in
 * `sort_key`, any more in `sort_rest`). Made after the migration, since the rows refer to
 * rest_records' text ids: a record's rows go with it, and a slot's with the slot.
 */
export const LISTS_SQL = `
CREATE TABLE IF NOT EXISTS rest_kept_lists (
  slot bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection text NOT NULL,
  kind text NOT NULL,
  name text NOT NULL,
  ready boolean NOT NULL DEFAULT false,
  UNIQUE (collection, kind, name)
);
CREATE TABLE IF NOT EXISTS rest_list_filters (
  collection text NOT NULL,
  id text NOT NULL,
  slot bigint NOT NULL REFERENCES rest_kept_lists ON DELETE CASCADE,
  parent_id text,
  place bigint NOT NULL,
  filter text COLLATE "C" NOT NULL,
  long_filter text,
  PRIMARY KEY (collection, id, slot),
  FOREIGN KEY (collection, id) REFERENCES rest_records ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS rest_list_filters_order ON rest_list_filters (slot, filter, place);
CREATE INDEX IF NOT EXISTS rest_list_filters_children ON rest_list_filters (slot, parent_id, filter, place) WHERE parent_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS rest_list_sorts (
  collection text NOT NULL,
  id text NOT NULL,
  slot bigint NOT NULL REFERENCES rest_kept_lists ON DELETE CASCADE,
  parent_id text,
  sort_key bytea NOT NULL,
  sort_rest bytea,
  PRIMARY KEY (collection, id, slot),
  FOREIGN KEY (collection, id) REFERENCES rest_records ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS rest_list_sorts_order ON rest_list_sorts (slot, sort_key);
CREATE INDEX IF NOT EXISTS rest_list_sorts_children ON rest_list_sorts (slot, parent_id, sort_key) WHERE parent_id IS NOT NULL;
`;

/** What the schema keeps for one collection: its name, how many counter rows it has, and whether a sequence numbers its ids. */
export type CollectionLayout = { name: string; stripes: number; sequence: boolean };

/** Creates the tables, indexes and sequences if they are missing, and migrates old ones; the caller runs it inside a transaction. */
export async function createSchema(client: ClientBase): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [SCHEMA_LOCK]);
  await client.query(SCHEMA_SQL);
  await client.query(MIGRATE_SQL);
  await client.query(LISTS_SQL);
}

/**
 * Makes the rows and sequences of the collections that lack them, after moving the counts
 * of a database an earlier version made, inside createSchema's transaction; answers whether
 * every collection row was new, that is, whether the data set is.
 */
export async function addCollections(client: ClientBase, layouts: CollectionLayout[], epoch: string): Promise<boolean> {
  await migrate(client, layouts);
  const names = layouts.map((layout) => layout.name);
  // Inserted only where missing: a database that holds the rows already keeps its data.
  const inserted = await client.query(
    "INSERT INTO rest_collections (name, rank, epoch) SELECT name, rank - 1, $2 FROM unnest($1::text[]) WITH ORDINALITY AS t(name, rank) ON CONFLICT (name) DO NOTHING",
    [names, epoch],
  );
  await client.query(
    `INSERT INTO rest_counters (collection, stripe)
     SELECT name, stripe FROM unnest($1::text[], $2::int[]) AS t(name, stripes), generate_series(0, stripes - 1) AS stripe
     ON CONFLICT DO NOTHING`,
    [names, layouts.map((layout) => layout.stripes)],
  );
  for (const layout of layouts) {
    if (layout.sequence) await client.query(`CREATE SEQUENCE IF NOT EXISTS ${idSequence(layout.name)}`);
  }
  return inserted.rowCount === layouts.length;
}

/**
 * The sequence that numbers a collection's ids, as a quoted identifier (a collection's name
 * keeps its case): `rest_ids_` and the name, which is cut and given a hash of the whole name
 * where it would pass PostgreSQL's 63 bytes.
 */
export function idSequence(collection: string): string {
  const whole = `rest_ids_${collection}`;
  const name = whole.length <= 63 ? whole : `${whole.slice(0, 54)}_${fnv1a(collection)}`;
  return `"${name.replaceAll('"', '""')}"`;
}

/** The 32-bit FNV-1a hash of a text's UTF-16 code units, as 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/**
 * Moves a database made when each collection's row held its revision, size and highest id
 * (every write of a collection then locked that row) to the counter rows and sequences, once:
 * the revision and size go to the collection's first counter row, the highest revision
 * starts rest_versions (so that no version, and no ETag, is given twice), and the highest id
 * starts the collection's id sequence (so that no id is given twice). The old columns are
 * dropped, so that a process of the earlier version still running fails its writes rather
 * than keeping counts no one reads.
 */
async function migrate(client: ClientBase, layouts: CollectionLayout[]): Promise<void> {
  const { rowCount } = await client.query(
    "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'rest_collections' AND column_name = 'highest_id'",
  );
  if (rowCount === 0) return;
  // A process of the earlier version locks its collection's row for every write: this waits for
  // those under way and holds off the rest until the columns are gone, so that no count read here
  // goes stale, and no version or id is given twice, even if one still runs.
  await client.query("LOCK TABLE rest_collections IN ACCESS EXCLUSIVE MODE");
  const { rows } = await client.query<{ name: string; revision: string; size: string; highest_id: string }>(
    "SELECT name, revision, size, highest_id FROM rest_collections",
  );
  await client.query("INSERT INTO rest_counters (collection, stripe, revision, size) SELECT name, 0, revision, size FROM rest_collections ON CONFLICT DO NOTHING");
  await client.query("SELECT setval('rest_versions', max(revision)) FROM rest_collections HAVING max(revision) > 0");
  for (const row of rows) {
    // A collection served now whose ids are counted (users) or random has no use for one.
    if (Number(row.highest_id) === 0 || layouts.some((layout) => layout.name === row.name && !layout.sequence)) continue;
    const sequence = idSequence(row.name);
    await client.query(`CREATE SEQUENCE IF NOT EXISTS ${sequence}`);
    await client.query(`ALTER SEQUENCE ${sequence} RESTART WITH ${Number(row.highest_id) + 1}`);
  }
  await client.query("ALTER TABLE rest_collections DROP COLUMN revision, DROP COLUMN size, DROP COLUMN highest_id");
}
