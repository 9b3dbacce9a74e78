// The seam to a database adapter: what the server hands it, and how DATABASE_URL loads it (the core never imports it statically).
import { formatEntityTag, newEpoch } from "./tags.ts";
import { randomId } from "./ids.ts";
import { StoreError } from "./errors.ts";
import { filterText, isPlain, type ListQuery, selectPage, type SortKey } from "./query.ts";
import { sortKey } from "./sort-key.ts";
import { MAX_FILTER_INDEXES, MAX_SORT_ORDERS } from "./memory/list-indexes.ts";
import type { SeedRecords } from "./records.ts";
import type { Collections, Store } from "./seam.ts";
import type { StoredRecord } from "./records.ts";

/** Whether `text` is a PostgreSQL URL (`postgres://` or `postgresql://`), the only kind of database URL there is an adapter for. */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\/\S+$/.test(text);
}

/** The package name the server imports when a database URL is given. */
export const POSTGRES_ADAPTER = "rest-reference-server-postgres";

/**
 * Everything an adapter gets from the server, so that it needs the server's types only and
 * none of its modules: an adapter installed from the registry cannot reach them by path.
 */
export type DatabaseStoreOptions = {
  /** The four resources: names, id policies, parents and children. */
  resources: Collections;
  /** The records a new database starts with, and `reset()` goes back to. */
  starting: SeedRecords;
  /** Whether the starting records came from a seed, which is then worth a notice if the database holds data already. */
  seeded: boolean;
  /** Where notices go, one line each. */
  warn: (line: string) => void;
  /** The 503 `STORE_UNAVAILABLE` error to throw while the database cannot be reached. */
  unavailable: (message: string) => Error;
  /** The strong ETag of a version: the same form as the memory store's. */
  entityTag: (epoch: string, version: number) => string;
  /** A new epoch for a new data set's ETags. */
  newEpoch: () => string;
  /** A new string id, for a collection a file gives string ids: the same form as the memory store's. */
  randomId: () => string;
  /** Whether a list request asks for the list as held (no sort, no filters). */
  isPlain: (list: ListQuery) => boolean;
  /** Filters, sorts and pages records as the memory store does. */
  selectPage: <R extends StoredRecord>(records: readonly R[], list: ListQuery) => { items: R[]; total: number };
  /** The text an equality filter compares a member's value with, or undefined for a value no filter matches. */
  filterText: (value: unknown) => string | undefined;
  /** A record's bytes under sort keys: compared bytewise, they order records as the memory store sorts them, ties by id. */
  sortKey: (record: StoredRecord, keys: readonly SortKey[]) => Uint8Array;
  /** How many filtered members and sorts a collection keeps indexes of at most, as the memory store does; others are answered by a scan. */
  keptLists: { filters: number; sorts: number };
  /** Told how long a read (`query`) or a write's whole transaction (`transaction`) took, in milliseconds, for the metrics. */
  took?: (operation: "query" | "transaction", milliseconds: number) => void;
};

/** What an adapter package exports: opens its store on a URL, or throws if the database cannot be used. */
export type OpenDatabaseStore = (url: string, options: DatabaseStoreOptions) => Promise<Store>;

/** A database that cannot be used at start-up, or an adapter that is not installed: one line that says what to do. */
export class DatabaseError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "DatabaseError";
  }
}

/** Options of openDatabaseStore. */
export type OpenDatabaseOptions = {
  resources: Collections;
  /** The records a new database starts with. */
  starting: SeedRecords;
  seeded: boolean;
  warn: (line: string) => void;
  /** Told how long each database operation took. */
  took?: (operation: "query" | "transaction", milliseconds: number) => void;
  /** The package to load; the PostgreSQL adapter unless a test names another. */
  adapter?: string;
};

/**
 * Loads the adapter package and opens its store on `url`. An adapter that is not installed,
 * or a database that cannot be reached or set up, is a DatabaseError of one line.
 */
export async function openDatabaseStore(url: string, options: OpenDatabaseOptions): Promise<Store> {
  const name = options.adapter ?? POSTGRES_ADAPTER;
  let open: OpenDatabaseStore;
  try {
    ({ openPostgresStore: open } = (await import(name)) as { openPostgresStore: OpenDatabaseStore });
  } catch (error) {
    throw new DatabaseError(`DATABASE_URL needs the package ${name}, which cannot be loaded (${describe(error)}); install it beside the server: npm install ${name}`, error);
  }
  if (typeof open !== "function") throw new DatabaseError(`The package ${name} does not export openPostgresStore; install a version made for this server`);
  try {
    return await open(url, {
      resources: options.resources,
      starting: options.starting,
      seeded: options.seeded,
      warn: options.warn,
      unavailable: (message) => new StoreError("STORE_UNAVAILABLE", message),
      entityTag: formatEntityTag,
      newEpoch,
      randomId,
      isPlain,
      selectPage,
      filterText,
      sortKey,
      keptLists: { filters: MAX_FILTER_INDEXES, sorts: MAX_SORT_ORDERS },
      took: options.took,
    });
  } catch (error) {
    throw new DatabaseError(`Cannot use the database at ${redact(url)} (${describe(error)}); check DATABASE_URL and that the database server runs`, error);
  }
}

/**
 * Query parameters that hold a secret, compared without regard to case: `password`, which pg
 * reads in place of the URL's own; and `sslpassword` (the client key's passphrase) and
 * `oauth_client_secret`, which pg ignores but libpq (psql, and anything else the same URL is
 * given to) reads.
 */
const SECRET_PARAMETERS = new Set(["password", "sslpassword", "oauth_client_secret"]);

/**
 * The URL with its secrets hidden, as messages show it: the password in its user info and
 * the value of each query parameter in SECRET_PARAMETERS become `***`. The other parameters
 * are kept as written.
 */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    if (parsed.search !== "") {
      const pieces = parsed.search.slice(1).split("&").map((piece) => {
        // The name as URLSearchParams decodes it, which is how pg reads it (`pass%77ord` is `password`).
        const [name] = [...new URLSearchParams(piece).keys()];
        return name !== undefined && SECRET_PARAMETERS.has(name.toLowerCase()) ? `${piece.split("=")[0]}=***` : piece;
      });
      parsed.search = pieces.join("&");
    }
    return parsed.href;
  } catch {
    return "DATABASE_URL";
  }
}

/** An error's code, or the first line of its message. */
function describe(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string" && code !== "") return code;
  return String(message ?? error).split("\n")[0]!;
}
