// Calls the resource rules directly over a fresh memory store, checking on the way that the memory store answers at once.
import assert from "node:assert/strict";
import { createDataSet, type DataSetOptions } from "../../src/api/dataset.ts";
import { createRecord, deleteRecord, listRecords, patchRecord, updateRecord, type WriteOptions } from "../../src/api/records.ts";
import type { CollectionName, RecordId } from "../../src/store/records.ts";
import type { Awaitable } from "../../src/store/seam.ts";
import type { StoredRecord } from "../../src/store/records.ts";

/** The value the memory store gave, which must not be a promise: its path stays synchronous. */
export function now<T>(value: Awaitable<T>): T {
  assert.ok(!(value instanceof Promise), "the memory store answers at once");
  return value as T;
}

/** A fresh memory data set, and the rules of each collection called by its name. */
export function memoryData(options: DataSetOptions = {}) {
  const data = createDataSet(options);
  const on = (name: CollectionName) => ({ resource: data.resources[name]!, store: data.store.collection(name) });
  const list = (name: CollectionName, parentId?: RecordId, query = "") => {
    const { resource, store } = on(name);
    return now(listRecords(resource, store, new URLSearchParams(query), parentId)).view;
  };
  return {
    data,
    create: (name: CollectionName, body: Record<string, unknown>, parentId?: RecordId, options?: WriteOptions): StoredRecord => {
      const { resource, store } = on(name);
      return now(createRecord(resource, store, body, parentId, options)).record;
    },
    update: (name: CollectionName, id: RecordId, body: Record<string, unknown>, options?: WriteOptions): StoredRecord => {
      const { resource, store } = on(name);
      return now(updateRecord(resource, store, id, body, options)).record;
    },
    patch: (name: CollectionName, id: RecordId, body: Record<string, unknown>, options?: WriteOptions): StoredRecord => {
      const { resource, store } = on(name);
      return now(patchRecord(resource, store, id, body, options)).record;
    },
    remove: (name: CollectionName, id: RecordId, options?: WriteOptions): void => {
      const { resource, store } = on(name);
      now(deleteRecord(resource, store, id, options));
    },
    list,
    /** The record with this id as a read sends it, parsed; undefined if none. */
    get: (name: CollectionName, id: RecordId): StoredRecord | undefined => {
      const view = now(on(name).store.read(id));
      return view === undefined ? undefined : (JSON.parse(view.text) as StoredRecord);
    },
    /** The ETag a read of this record sends. */
    tag: (name: CollectionName, id: RecordId): string | undefined => now(on(name).store.read(id))?.tag,
    /** How many records a collection holds. */
    size: (name: CollectionName): number => data.store.capture().collections.get(name)!.records.size,
  };
}
