// The package's public entry point: what `import ... from "rest-reference-server"` gives.
// It is the one module that only re-exports: a package needs a single entry, and the
// API it offers lives in the files that own it.
export { type AppOptions, createApp } from "./http/app.ts";
export { createFetchApp, type FetchApp } from "./http/fetch-app.ts";
export type { CommentRecord, PostRecord, ReplyRecord, Seed, Snapshot, UserRecord } from "./store/records.ts";
export { SeedError } from "./api/seed.ts";
export { type RunningServer, type ServerOptions, startServer } from "./http/server.ts";
export { JournalDamageError } from "./store/journal/damage.ts";
export { LockedError } from "./store/journal/lock.ts";
export { DataDirError, DataMismatchError } from "./store/journal/store.ts";
export { ResourcesFileError } from "./api/resources-file.ts";
export type { FsyncPolicy } from "./store/journal/writer.ts";
// What a database adapter needs of the server: types only, since it gets everything else as arguments.
export { DatabaseError, type DatabaseStoreOptions, type OpenDatabaseStore } from "./store/database.ts";
export type { ListQuery, SortKey } from "./store/query.ts";
export type { CollectionName, RecordId, SeedRecords, StoredRecord } from "./store/records.ts";
export type {
  CollectionDefinition,
  Collections,
  CollectionStore,
  CreateContext,
  CreateRequest,
  Current,
  ListView,
  ReadView,
  Store,
  Written,
} from "./store/seam.ts";
