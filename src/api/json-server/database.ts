// The json-server dialect's data: a db.json's collections (top-level arrays) and singular
// resources (top-level objects), held in memory as json-server holds them: any record shape,
// ids of any type or none, and a client's own id kept. The file is read once and never written.
import { randomUUID } from "node:crypto";
import { StoreError } from "../../store/errors.ts";
import { StoreLimitError } from "../../store/memory/store.ts";
import type { Store } from "../../store/seam.ts";
import { treeProblem } from "../json.ts";
import { ResourcesFileError } from "../resources-file.ts";
import { foreignKey, pluralOf } from "./names.ts";

export type JsonRecord = Record<string, unknown>;

/** One collection: its records in creation order, and those with an id by the id's text (`1` and `"1"` are one id, as in json-server). */
type Collection = { records: JsonRecord[]; byId: Map<string, JsonRecord> };

/** What the routes ask of the data; every write replaces records whole, so a list being scanned never sees one change. */
export type JsonServerDb = {
  /** The collection's records, as held now (not to be changed by the caller); undefined when there is no such collection. */
  list: (name: string) => readonly JsonRecord[] | undefined;
  find: (name: string, id: string) => JsonRecord | undefined;
  singular: (name: string) => JsonRecord | undefined;
  isCollection: (name: string) => boolean;
  /** The whole data, collections and singular resources, in the file's order. */
  whole: () => Record<string, unknown>;
  names: () => { collections: string[]; singulars: string[] };
  /** Adds a record, its id kept when it has one, or the next (whole numbers count up from the highest, otherwise a random string); throws a conflict when the id is taken. */
  create: (name: string, record: JsonRecord) => JsonRecord | "taken";
  /** Replaces (or, with `merge`, shallowly merges into) the record; it keeps its id. */
  update: (name: string, id: string, body: JsonRecord, merge: boolean) => JsonRecord | undefined;
  setSingular: (name: string, body: JsonRecord, merge: boolean) => JsonRecord;
  /** Deletes the record and, as json-server 0.17 does, every record whose `<singular>Id` names it, and theirs in turn. */
  remove: (name: string, id: string) => boolean;
  store: Store;
};

/** The parts of a db.json: what it serves, and the top-level members it leaves out (with why), for the start-up lines. */
export type DbFile = { data: Record<string, unknown>; ignored: string[] };

/** A collection's or resource's name: a path segment (json-server refuses a `/` in one). */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Paths the server answers itself, which no collection may take. */
const RESERVED = new Set(["healthz", "readyz", "metrics", "db"]);

/**
 * Reads a db.json's parsed JSON: each top-level array is a collection, each object a
 * singular resource; `$schema` and other members are left out. Throws a ResourcesFileError
 * naming the first member it cannot serve.
 */
export function readDbFile(json: unknown): DbFile {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ResourcesFileError("A db.json holds an object, from each collection's name to an array of its records");
  }
  const data: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(json)) {
    if (name === "$schema") continue;
    if (typeof value !== "object" || value === null) {
      ignored.push(name);
      continue;
    }
    const where = `db.json "${name}"`;
    if (!NAME.test(name)) throw new ResourcesFileError(`${where}: a name is a path segment of 1 to 64 letters, digits, _ and -`);
    if (RESERVED.has(name)) throw new ResourcesFileError(`${where}: /${name} is the server's own path; name the collection otherwise`);
    const problem = treeProblem(value, name);
    if (problem !== undefined) throw new ResourcesFileError(`${where}: ${problem.message}`);
    if (Array.isArray(value)) {
      const index = value.findIndex((record) => typeof record !== "object" || record === null || Array.isArray(record));
      if (index !== -1) throw new ResourcesFileError(`${where}[${index}] is not an object`);
      const ids = new Set<string>();
      value.forEach((record: JsonRecord, at) => {
        if (record.id === undefined) return;
        if (typeof record.id !== "string" && typeof record.id !== "number") throw new ResourcesFileError(`${where}[${at}] has an id that is neither a string nor a number`);
        if (ids.has(String(record.id))) throw new ResourcesFileError(`${where} holds id ${JSON.stringify(record.id)} twice`);
        ids.add(String(record.id));
      });
    }
    data[name] = value;
  }
  return { data, ignored };
}

/** How each collection is served, one line each, for start-up: its records, and the parent its `<singular>Id` members name. */
export function describeDb(file: DbFile): string[] {
  const lines: string[] = [];
  const collections = new Set(Object.keys(file.data).filter((name) => Array.isArray(file.data[name])));
  for (const [name, value] of Object.entries(file.data)) {
    if (!Array.isArray(value)) {
      lines.push(`/${name}: a singular resource (GET, PUT, PATCH)`);
      continue;
    }
    const parents = [...new Set(value.flatMap((record: JsonRecord) => Object.keys(record)))]
      .map((member) => (member.endsWith("Id") && member.length > 2 ? { member, parent: pluralOf(member.slice(0, -2), collections) } : undefined))
      .filter((link) => link !== undefined && link.parent !== undefined && link.parent !== name)
      .map((link) => ` and at /${link!.parent}/:id/${name} (by ${link!.member})`);
    lines.push(`/${name}: ${value.length} record${value.length === 1 ? "" : "s"}, served at /${name}${parents.join("")}`);
  }
  for (const name of file.ignored) lines.push(`"${name}" is neither an array of records nor an object, so it is not served`);
  return lines;
}

/** The data of one instance over a db.json's parts, a deep copy; `limit` bounds what its records may cost, in bytes of their JSON. */
export function openJsonServerDb(file: DbFile, limit: number): JsonServerDb {
  const starting = JSON.stringify(file.data);
  if (starting.length > limit) throw new StoreLimitError(`its records take ${starting.length} bytes, past the store limit of ${limit}; raise STORE_LIMIT`);
  let collections = new Map<string, Collection>();
  let singulars = new Map<string, JsonRecord>();
  let order: string[] = [];
  let cost = 0;

  function load(text: string): void {
    const data = JSON.parse(text) as Record<string, unknown>;
    collections = new Map();
    singulars = new Map();
    order = Object.keys(data);
    for (const [name, value] of Object.entries(data)) {
      if (Array.isArray(value)) {
        const records = value as JsonRecord[];
        collections.set(name, { records, byId: new Map(records.filter((record) => record.id !== undefined).map((record) => [String(record.id), record])) });
      } else singulars.set(name, value as JsonRecord);
    }
    cost = text.length;
  }
  load(starting);

  /** Data to load in place of all, when it fits the limit; 507, and nothing changed, when it does not. */
  function withinLimit(text: string): string {
    if (text.length > limit) throw new StoreError("STORE_FULL", `The data takes ${text.length} bytes, past the store limit of ${limit}; nothing was changed`);
    return text;
  }

  /** Takes `added` more bytes for a write, or refuses it with 507 as the native store does. */
  function charge(added: number): void {
    if (cost + added > limit) throw new StoreError("STORE_FULL", `This write would take the records past the store limit of ${limit} bytes; nothing was stored. Deleting records frees room`);
    cost += added;
  }

  function nextId(collection: Collection): string | number {
    let highest = 0;
    for (const record of collection.records) {
      if (record.id === undefined) continue;
      if (typeof record.id !== "number" || !Number.isFinite(record.id)) return randomUUID();
      if (record.id > highest) highest = record.id;
    }
    // Past 2^53 a number plus one is the same number: such a collection gets random ids, as one with string ids does.
    const next = Math.floor(highest) + 1;
    return Number.isSafeInteger(next) ? next : randomUUID();
  }

  function replaceAt(collection: Collection, old: JsonRecord, next: JsonRecord): void {
    // A new array, so that a list being scanned in slices keeps the records it began with.
    collection.records = collection.records.map((record) => (record === old ? next : record));
    collection.byId.set(String(next.id), next);
  }

  const db: JsonServerDb = {
    list: (name) => collections.get(name)?.records,
    find: (name, id) => collections.get(name)?.byId.get(id),
    singular: (name) => singulars.get(name),
    isCollection: (name) => collections.has(name),
    whole: () => Object.fromEntries(order.map((name) => [name, collections.get(name)?.records ?? singulars.get(name)])),
    names: () => ({ collections: order.filter((name) => collections.has(name)), singulars: order.filter((name) => singulars.has(name)) }),
    create(name, body) {
      const collection = collections.get(name)!;
      const given = body.id !== undefined && body.id !== null;
      if (given && collection.byId.has(String(body.id))) return "taken";
      const { id: _id, ...rest } = body;
      const record: JsonRecord = { id: given ? body.id : nextId(collection), ...rest };
      if (!given && collection.byId.has(String(record.id))) return "taken";
      charge(JSON.stringify(record).length);
      collection.records = [...collection.records, record];
      collection.byId.set(String(record.id), record);
      return record;
    },
    update(name, id, body, merge) {
      const collection = collections.get(name)!;
      const old = collection.byId.get(id);
      if (old === undefined) return undefined;
      // The record keeps its id, whatever the body says (json-server's rule in both lines).
      const next = merge ? { ...old, ...body, id: old.id } : { ...body, id: old.id };
      charge(JSON.stringify(next).length - JSON.stringify(old).length);
      replaceAt(collection, old, next);
      return next;
    },
    setSingular(name, body, merge) {
      const old = singulars.get(name)!;
      const next = merge ? { ...old, ...body } : { ...body };
      charge(JSON.stringify(next).length - JSON.stringify(old).length);
      singulars.set(name, next);
      return next;
    },
    remove(name, id) {
      const collection = collections.get(name)!;
      if (!collection.byId.has(id)) return false;
      // What goes: the record, then every record whose `<singular>Id` names one gone, until none does.
      let gone: Array<{ name: string; id: string }> = [{ name, id }];
      while (gone.length > 0) {
        const next: typeof gone = [];
        for (const item of gone) {
          const held = collections.get(item.name)!;
          const record = held.byId.get(item.id);
          if (record === undefined) continue;
          held.byId.delete(item.id);
          held.records = held.records.filter((each) => each !== record);
          cost -= JSON.stringify(record).length;
          const key = foreignKey(item.name);
          for (const [childName, child] of collections) {
            for (const each of child.records) {
              if (each[key] !== undefined && each[key] !== null && String(each[key]) === item.id && each.id !== undefined) next.push({ name: childName, id: String(each.id) });
            }
          }
        }
        gone = next;
      }
      return true;
    },
    store: {
      collection: () => {
        throw new TypeError("The json-server dialect's data has no native collections");
      },
      // PUT /__control/data's records (checked by checkDbData) in place of all, or the file's again.
      reset: async (records) => load(records === undefined ? starting : withinLimit(JSON.stringify(records))),
      snapshot: async () => structuredClone(db.whole()) as never,
      counts: () => Object.fromEntries([...collections].map(([name, collection]) => [name, collection.records.length])),
      ready: () => true,
      close: async () => {},
    },
  };
  return db;
}
