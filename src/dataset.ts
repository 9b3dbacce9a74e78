// The data of one instance: its four resources, its starting records, and reset and snapshot.
import { newEpoch } from "./conditions.ts";
import type { Resource } from "./resource.ts";
import { definePostFamily } from "./resources/posts.ts";
import { defineUsers, SEED_USERS } from "./resources/users.ts";
import { checkSeed, COLLECTIONS, type Seed, type SeedRecords, type Snapshot } from "./seed.ts";

/** Options of createDataSet. */
export type DataSetOptions = {
  /** The records to start with; the two seeded users when absent. */
  seed?: Seed;
  /** Where `createdAt` comes from; the current time by default. */
  clock?: () => Date;
};

/** One instance's resources over fresh stores, and the two operations a test needs on them. */
export type DataSet = {
  resources: Record<(typeof COLLECTIONS)[number], Resource>;
  /** Puts every collection back to the starting records; id sequences start again from them. */
  reset: () => Promise<void>;
  /** A deep copy of every record held, by collection, in creation order. */
  snapshot: () => Promise<Snapshot>;
};

/**
 * Creates the resources of one instance, loaded with the seed (checked first: a
 * SeedError names every problem) or with the two seeded users.
 */
export function createDataSet(options: DataSetOptions = {}): DataSet {
  const { clock } = options;
  if (clock !== undefined && typeof clock !== "function") throw new TypeError("clock must be a function that returns a Date");
  // One epoch for the data set, in every ETag its records and lists get (see Collection):
  // this memory store counts versions from 0 in every new process. A store that keeps
  // versions across restarts would keep its epoch beside them.
  const epoch = newEpoch();
  const users = defineUsers({ epoch });
  const { posts, comments, replies } = definePostFamily({ clock, epoch });
  const resources = { users, posts, comments, replies };
  const starting: SeedRecords =
    options.seed === undefined
      ? { users: SEED_USERS.map((user) => ({ ...user })), posts: [], comments: [], replies: [] }
      : checkSeed(options.seed, resources);
  load(resources, starting);
  return {
    resources,
    reset: async () => load(resources, starting),
    snapshot: async () => {
      const copy = {} as Record<string, unknown>;
      for (const name of COLLECTIONS) copy[name] = structuredClone(resources[name].records.page(0, Infinity));
      return copy as Snapshot;
    },
  };
}

/** Empties every collection and index, then holds copies of the records, parents first. */
function load(resources: DataSet["resources"], records: SeedRecords): void {
  for (const name of COLLECTIONS) {
    const resource = resources[name];
    resource.records.clear();
    resource.parent?.index.clear();
    for (const record of records[name]) {
      // Copies, so that nothing a test does to what it is answered can reach the starting records.
      const copy = structuredClone(record);
      resource.records.insert(copy);
      if (resource.parent) resource.parent.index.add(copy[resource.parent.key] as number, copy.id);
    }
  }
}
