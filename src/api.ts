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
