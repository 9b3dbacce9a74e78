// The package's public entry point: what `import ... from "rest-reference-server"` gives.
// It is the one module that only re-exports: a package needs a single entry, and the
// API it offers lives in the files that own it.
export { type AppOptions, createApp } from "./app.ts";
export type { CommentRecord, PostRecord, ReplyRecord, Seed, Snapshot, UserRecord } from "./seed.ts";
export { SeedError } from "./seed.ts";
export { type RunningServer, type ServerOptions, startServer } from "./server.ts";
export { JournalDamageError } from "./journal/damage.ts";
export { LockedError } from "./journal/lock.ts";
export { DataDirError } from "./journal/store.ts";
export type { FsyncPolicy } from "./journal/writer.ts";
// What a database adapter needs of the server: types only, since it gets everything else as arguments.
export { DatabaseError, type DatabaseStoreOptions, type OpenDatabaseStore } from "./database.ts";
export type { Resources } from "./dataset.ts";
export type { ListQuery } from "./lists.ts";
export type { Resource } from "./resource.ts";
export type { CollectionName, SeedRecords } from "./seed.ts";
export type { CollectionStore, CreateContext, CreateRequest, Current, ListView, ReadView, Store, StoredRecord, Written } from "./store.ts";
