// The store seam: what the resource routes ask of whatever holds the records (memory, a journal on disk, a database).
import type { ListQuery } from "./query.ts";
import type { CollectionName, RecordId, SeedRecords, Snapshot, StoredRecord } from "./records.ts";

/**
 * What a store knows of a collection: its name, how it numbers new ids, the member that links
 * a record to its parent's, and the collections below it. An API resource is one.
 */
export type CollectionDefinition = {
  name: CollectionName;
  ids: IdPolicy;
  parent: { resource: CollectionDefinition; key: string } | undefined;
  children: CollectionDefinition[];
};

/** Every collection of a data set, by name. */
export type Collections = Record<CollectionName, CollectionDefinition>;

/**
 * How a collection picks the id of a new record:
 * `count` is the users' rule (records held + 1, docs/spec.md#users-create), so ids can repeat after deletes;
 * `sequence` counts up from 1 and never gives an id twice, even after deletes;
 * `random` makes a string of 128 random bits (a collection a file gives string ids).
 */
export type IdPolicy = "count" | "sequence" | "random";

/** A value now, or later: the memory store answers at once, a store on disk or over the network later. */
export type Awaitable<T> = T | Promise<T>;

/** What a read of one record sends: its strong ETag and its JSON text. */
export type ReadView = { tag: string; text: string };

/**
 * One page of a list: its records, how many match in all, the list's strong ETag, and the
 * records' JSON text when the store keeps it (the memory store keeps a whole list's).
 */
export type ListView = {
  items: readonly StoredRecord[];
  total: number;
  tag: string;
  text?: string;
  /**
   * For a list whose text is not made yet: lets go of its records, whose cost the memory
   * store keeps counted, deleted ones among them, until the answer is written or abandoned.
   */
  release?: () => void;
};

/** What a write answers with: the record as stored, and the strong ETag of its new version. */
export type Written = { record: StoredRecord; tag: string };

/**
 * What a create sees at the moment it is applied, in one step with the insert: whether the
 * parent exists (always true without a parent), the list's ETag (looked up only when asked,
 * for If-Match and If-None-Match), the id the record would get (the one chosen, or the next
 * by the collection's policy), and whether that id is taken.
 */
export type CreateContext = { parentFound: boolean; listTag: () => string; id: RecordId; taken: boolean };

/** A held record as a replace, patch or delete sees it, with its current ETag (looked up only when asked); undefined if none has the id. */
export type Current = { record: StoredRecord; tag: () => string } | undefined;

/**
 * A create: the parent's id (for a child collection), the id the client chose (if it may),
 * and the resource's rules, which see the CreateContext and return the record to insert
 * or throw an HttpError, changing nothing.
 */
export type CreateRequest = { parentId?: RecordId; chosenId?: RecordId; decide: (context: CreateContext) => StoredRecord };

/**
 * One collection of a store. Every write runs its `decide` (the resource's rules) and applies
 * what it returns as one step that no other write of the store interleaves with: a store
 * that answers later (a journal, a database) runs it where its own atomicity holds, and
 * answers only once the change is kept as it promises.
 */
export type CollectionStore = {
  /** The ETag and JSON text of the record with this id, if held. */
  read: (id: RecordId) => Awaitable<ReadView | undefined>;
  /** A page of the list (of one parent's children, for a child collection); undefined when that parent is not held. */
  list: (list: ListQuery, parentId?: RecordId) => Awaitable<ListView | undefined>;
  create: (request: CreateRequest) => Awaitable<Written>;
  /** Replaces the record with what `decide` returns (keeping its place in creation order). */
  replace: (id: RecordId, decide: (current: Current) => StoredRecord) => Awaitable<Written>;
  /** Deletes the record and, with it, every record below it (comments of a post, replies of those comments). */
  remove: (id: RecordId, decide: (current: Current) => void) => Awaitable<void>;
};

/** Everything an instance's data lives in: its collections, and the operations a test or the process needs. */
export type Store = {
  collection: (name: CollectionName) => CollectionStore;
  /**
   * Puts every collection back to the starting records, or holds `records` instead (checked by
   * the API's rules first, as a seed is); id sequences start again from them.
   */
  reset: (records?: SeedRecords) => Promise<void>;
  /** A deep copy of every record held, by collection, in creation order. */
  snapshot: () => Promise<Snapshot>;
  /** How many records each collection holds, for the metrics. */
  counts: () => Awaitable<Record<CollectionName, number>>;
  /** Whether requests for data can be served now (`/readyz`): false once a journal write or sync has failed, or while a database is unreachable. */
  ready: () => Awaitable<boolean>;
  /** Waits until every write answered is kept, then lets go of files and connections. */
  close: () => Promise<void>;
};

/**
 * Applies `next` to a value now, or once it arrives: the memory store's answers stay
 * synchronous, with no promise and no microtask, and a later store's go through `then`.
 */
export function andThen<T, U>(value: Awaitable<T>, next: (value: T) => U): Awaitable<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
