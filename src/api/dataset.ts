// The data of one instance: its four resources, its starting records, and the store that holds them.
import { DEFAULT_STORE_LIMIT } from "../store/memory/budget.ts";
import { createMemoryStore, type MemoryStore } from "../store/memory/store.ts";
import type { ApiRoute, BodyReader, Handler } from "./handler.ts";
import type { Reply } from "./reply.ts";
import type { Resource, ResourceMap } from "./resource.ts";
import { defineFileResources } from "./resources/defined.ts";
import type { ResourceDefinition } from "./resources-file.ts";
import { definePostFamily } from "./resources/posts.ts";
import { defineUsers, SEED_USERS } from "./resources/users.ts";
import { checkSeed } from "./seed.ts";
import { type CollectionName, type COLLECTIONS, type RecordId, type Seed, type SeedRecords } from "../store/records.ts";
import type { Store } from "../store/seam.ts";

/** Options of createDataSet. */
export type DataSetOptions = {
  /** The records to start with; the two seeded users when absent. */
  seed?: Seed;
  /** Where `createdAt` comes from; the current time by default. */
  clock?: () => Date;
  /** The most the records may cost, in bytes (DEFAULT_STORE_LIMIT by default); see the memory store's `limit`. */
  storeLimit?: number;
};

/** The four built-in resources, as described to the routes and the stores. */
export type Resources = Record<(typeof COLLECTIONS)[number], Resource>;

/**
 * One instance's resources and the store behind them. For a file's collections, `firstIds`
 * gives the id each collection's first create gets on a fresh start, which the OpenAPI
 * document's examples use; the built-in resources have none, their document being the same
 * for every instance.
 */
export type DataSet = { resources: ResourceMap; store: Store; firstIds?: (name: CollectionName) => RecordId; dialect?: DialectRoutes };

/**
 * What json-server's dialect serves in place of the resources' routes: its own route table, the
 * handlers whose bodies it reads itself (a form, or none), with how, how it reads a path's ids
 * (any text), its answer to a method no route takes, and its check of the data
 * `PUT /__control/data` loads (api/json-server/).
 */
export type DialectRoutes = {
  routes: ApiRoute[];
  bodyHandlers: ReadonlySet<Handler>;
  readBody: BodyReader;
  readId: (text: string) => string;
  unknownMethod: Reply;
  checkData: (body: unknown) => SeedRecords;
};

/** The resources, and the starting records (the seed, checked first: a SeedError names every problem, or the two seeded users). */
export function defineData(options: DataSetOptions = {}): { resources: Resources; starting: SeedRecords } {
  const { clock } = options;
  if (clock !== undefined && typeof clock !== "function") throw new TypeError("clock must be a function that returns a Date");
  const users = defineUsers();
  const { posts, comments, replies } = definePostFamily({ clock });
  const resources = { users, posts, comments, replies };
  const starting: SeedRecords =
    options.seed === undefined
      ? { users: SEED_USERS.map((user) => ({ ...user })), posts: [], comments: [], replies: [] }
      : checkSeed(options.seed, resources);
  return { resources, starting };
}

/** Creates the resources of one instance over a fresh memory store, loaded with the seed or the two seeded users. */
export function createDataSet(options: DataSetOptions = {}): DataSet & { resources: Resources; store: MemoryStore } {
  const { resources, starting } = defineData(options);
  return { resources, store: createMemoryStore(resources, { starting, limit: checkStoreLimit(options.storeLimit) }) };
}

/**
 * The data of collections a file defines, in a fresh memory store: their resources, and the
 * seed's records checked by their rules (a SeedError names every problem), or none.
 */
export function createFileDataSet(definitions: readonly ResourceDefinition[], options: { seed?: Seed; storeLimit?: number } = {}): DataSet & { store: MemoryStore } {
  const { resources, starting, firstIds } = defineFileData(definitions, options);
  return { resources, store: createMemoryStore(resources, { starting, limit: checkStoreLimit(options.storeLimit) }), firstIds };
}

/**
 * The resources a file defines, and the starting records (the seed checked by their rules, or
 * none), with the id each collection's first create gets from them (DataSet's `firstIds`).
 */
export function defineFileData(
  definitions: readonly ResourceDefinition[],
  options: { seed?: Seed } = {},
): { resources: ResourceMap; starting: SeedRecords; firstIds: NonNullable<DataSet["firstIds"]> } {
  const resources = defineFileResources(definitions);
  const starting = checkSeed(options.seed ?? {}, resources);
  // Integer ids count up from the highest held; a string id is chosen by the examples.
  const highest = new Map(Object.entries(starting).map(([name, records]) => [name, records.reduce((most, { id }) => (typeof id === "number" && id > most ? id : most), 0)]));
  return { resources, starting, firstIds: (name) => (highest.get(name) ?? 0) + 1 };
}

/** A store limit as given, the default when absent, or a TypeError. */
export function checkStoreLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_STORE_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new TypeError("storeLimit must be a positive whole number of bytes");
  return limit;
}
