// Which dialect an instance speaks, and the dialect's data set: a db.json (its parsed object,
// or a path to read) served as json-server serves it.
import { readFileSync } from "node:fs";
import type { DataSet } from "../dataset.ts";
import { dbJsonResources, readDbJson, ResourcesFileError } from "../resources-file.ts";
import { SEED_USERS } from "../resources/users.ts";
import { readDialectBody } from "./body.ts";
import { type DbFile, describeDb, openJsonServerDb, readDbFile } from "./database.ts";
import { dialectHandlers, jsonServerRoutes, readSegment, unknownMethod } from "./routes.ts";
import { HttpError } from "../errors.ts";
import { clip } from "../input.ts";
import type { SeedRecords } from "../../store/records.ts";

/** The HTTP an instance speaks: its own API, or json-server's over a db.json. */
export const DIALECTS = ["native", "json-server"] as const;
export type Dialect = (typeof DIALECTS)[number];

/** The dialect asked for, checked; json-server's when a db.json is given and none is named, the native API otherwise. */
export function dialectOf(dialect: unknown, db: unknown): Dialect {
  if (dialect === undefined) return db === undefined ? "native" : "json-server";
  if (!DIALECTS.includes(dialect as Dialect)) throw new TypeError(`dialect must be ${DIALECTS.join(" or ")}`);
  return dialect as Dialect;
}

/** A db.json option: its parsed object, or the path of a file to read (a ResourcesFileError when it cannot be read). */
export function readDbOption(db: unknown): unknown {
  if (typeof db !== "string") return db;
  let text: string;
  try {
    text = readFileSync(db, "utf8");
  } catch (error) {
    throw new ResourcesFileError(`Cannot read the db.json ${db} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ResourcesFileError(`The db.json ${db} is not valid JSON`);
  }
}

/**
 * The data json-server's dialect serves with no db.json: the built-in collections (the seed's
 * records, or the two seeded users) as a db.json would hold them.
 */
export function builtInDb(seed: Record<string, unknown> | undefined): Record<string, unknown> {
  return { users: SEED_USERS.map((user) => ({ ...user })), posts: [], comments: [], replies: [], ...structuredClone(seed ?? {}) };
}

/** The dialect's data set over a db.json's parts, its records costing at most `storeLimit` bytes. */
export function createJsonServerDataSet(file: DbFile, storeLimit: number): DataSet {
  const db = openJsonServerDb(file, storeLimit);
  const routes = jsonServerRoutes(db);
  const dialect = { routes, bodyHandlers: new Set(dialectHandlers(routes)), readBody: readDialectBody, readId: readSegment, unknownMethod: unknownMethod(), checkData: checkDbData };
  return { resources: {}, store: db.store, dialect };
}

/**
 * The data `PUT /__control/data` loads in json-server's dialect: a db.json's whole object,
 * checked as the file is at start-up, which takes the place of everything held; what it
 * leaves out is no longer served. A member it could not serve is a 400, and nothing changes.
 */
export function checkDbData(body: unknown): SeedRecords {
  let file: DbFile;
  try {
    file = readDbFile(body);
  } catch (error) {
    if (!(error instanceof ResourcesFileError)) throw error;
    throw new HttpError("VALIDATION_FAILED", `The data is not a db.json: ${error.message}; nothing was changed`, { errors: [{ path: "", message: error.message }] });
  }
  if (file.ignored.length > 0) {
    const errors = file.ignored.map((name) => ({ path: clip(name), message: "is neither an array of records nor an object" }));
    throw new HttpError("VALIDATION_FAILED", `The data is not a db.json: ${errors.map((error) => `"${error.path}"`).join(", ")} ${errors.length === 1 ? "is" : "are"} neither an array of records nor an object; nothing was changed`, { errors });
  }
  return file.data as SeedRecords;
}

/** What an instance serves: json-server's dialect over a db.json's data, or the native API's resources and seed. */
export type Served = { dialect: DataSet; lines: string[] } | { dialect: undefined; resources: unknown; seed: unknown };

/**
 * Reads what the options ask to serve. The json-server dialect gets its data set, over the
 * db.json or, with none, the built-in collections; the native API gets the resources and seed
 * to serve, a db.json read into them as `--resources` would define its collections.
 */
export function chooseServed(options: { db?: unknown; dialect?: unknown; seed?: unknown; resources?: unknown; storeLimit: number }): Served {
  const { db, seed, resources } = options;
  const dialect = dialectOf(options.dialect, db);
  if (db !== undefined && (seed !== undefined || resources !== undefined)) throw new TypeError("db holds its own records and collections; leave seed and resources unset");
  if (dialect === "native") {
    if (db === undefined) return { dialect: undefined, resources, seed };
    const read = readDbJson(readDbOption(db));
    return { dialect: undefined, resources: dbJsonResources(read), seed: read.records };
  }
  if (resources !== undefined) throw new TypeError("The json-server dialect serves a db.json or the built-in collections, not a resources file; set dialect to native");
  const file = readDbFile(db === undefined ? builtInDb(seed as Record<string, unknown> | undefined) : readDbOption(db));
  return { dialect: createJsonServerDataSet(file, options.storeLimit), lines: describeDb(file) };
}
