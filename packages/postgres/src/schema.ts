// The adapter's tables, made once per database under an advisory lock so that processes starting together do not race.
import type { ClientBase } from "pg";

/**
 * A fixed key for pg_advisory_xact_lock: every process that sets up the schema takes it,
 * inside its transaction, so a second process waits and then finds the tables made.
 */
export const SCHEMA_LOCK = 7_260_412;

/**
 * One row per collection: its rank (parents before children, the order in which writes
 * lock rows, so that no two writes wait on each other in a cycle), the epoch its ETags
 * begin with, its revision (raised by every write; a list's version), how many records it
 * holds (the seed spec's count for the next user id) and the highest id it gave.
 * Records keep their JSON text exactly as written, so that members keep their order
 * (jsonb would sort them), and `place`, the collection's revision when they were created,
 * which orders lists in creation order. Ids are text: whole numbers written in digits, or
 * the string ids of a collection a file gives them; a database made with whole-number
 * columns is moved to text once (MIGRATE_SQL).
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS rest_collections (
  name text PRIMARY KEY,
  rank integer NOT NULL,
  epoch text NOT NULL,
  revision bigint NOT NULL DEFAULT 0,
  size bigint NOT NULL DEFAULT 0,
  highest_id bigint NOT NULL DEFAULT 0
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

/** Creates the tables and indexes if they are missing, and migrates old ones; the caller runs it inside a transaction. */
export async function createSchema(client: ClientBase): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [SCHEMA_LOCK]);
  await client.query(SCHEMA_SQL);
  await client.query(MIGRATE_SQL);
  await client.query(LISTS_SQL);
}
