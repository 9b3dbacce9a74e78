// Collections defined in a file: a resources file (`--resources`), or those a json-server
// `db.json` implies. Both are read into the same definitions, checked whole at start-up.
import { compileSchema, type SchemaCheck, SchemaDefinitionError } from "./schema.ts";
import { STRING_ID } from "./ids.ts";

/** A definition the server cannot serve: its line names the place and what to change. */
export class ResourcesFileError extends TypeError {
  override name = "ResourcesFileError";
}

/** One collection a file defines. */
export type ResourceDefinition = {
  /** The collection's name, which is also its path: `todos` is served at `/todos`. */
  name: string;
  /** How its records are numbered: 1, 2, 3 (`integer`), or URL-safe strings (`string`). */
  id: "integer" | "string";
  /** The JSON Schema its members are checked by, as written (the OpenAPI document shows it); any object when absent. */
  schema: unknown;
  check: SchemaCheck | undefined;
  /** The collection its records belong to, and the member holding the parent's id. */
  parent: { resource: string; member: string } | undefined;
};

/** What a name must look like: it is a path segment and a seed's key. */
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** Paths the server answers itself, which no collection may take. */
const RESERVED = new Set(["healthz", "readyz", "metrics"]);
const DEFINITION_KEYS = new Set(["schema", "id", "parent"]);

/**
 * Reads a resources file's JSON (`{ "resources": { "todos": { "schema": …, "id": …, "parent": … } } }`)
 * into its definitions, parents before children. Throws a ResourcesFileError naming the first problem.
 */
export function readResourcesFile(json: unknown): ResourceDefinition[] {
  if (!isObject(json) || !isObject(json.resources)) throw new ResourcesFileError('A resources file holds an object with a "resources" object, from each collection\'s name to its definition');
  const extra = Object.keys(json).find((key) => key !== "resources");
  if (extra !== undefined) throw new ResourcesFileError(`A resources file holds only "resources"; "${extra}" is not known`);
  const definitions: ResourceDefinition[] = [];
  for (const [name, definition] of Object.entries(json.resources)) {
    const where = `resource "${name}"`;
    checkName(name, where);
    if (!isObject(definition)) throw new ResourcesFileError(`${where} must be an object with "schema", "id" or "parent"`);
    const unknown = Object.keys(definition).find((key) => !DEFINITION_KEYS.has(key));
    if (unknown !== undefined) throw new ResourcesFileError(`${where}: "${unknown}" is not known; a definition has "schema", "id" and "parent"`);
    const { schema, id = "integer", parent } = definition;
    if (id !== "integer" && id !== "string") throw new ResourcesFileError(`${where}: "id" must be "integer" or "string"`);
    if (schema !== undefined && !(isObject(schema) && (schema.type === undefined || schema.type === "object"))) {
      throw new ResourcesFileError(`${where}: "schema" must be a JSON Schema of an object (its "type", if given, "object")`);
    }
    if (isObject(schema) && ((isObject(schema.properties) && Object.hasOwn(schema.properties, "id")) || (Array.isArray(schema.required) && schema.required.includes("id")))) {
      throw new ResourcesFileError(`${where}: "id" is set by its "id" type, not the schema; leave it out of the schema`);
    }
    definitions.push({ name, id, schema, check: schema === undefined ? undefined : compile(schema, `${where}, schema`), parent: readParent(parent, where) });
  }
  if (definitions.length === 0) throw new ResourcesFileError('A resources file defines at least one collection under "resources"');
  return parentsFirst(definitions);
}

/** A schema's check; what the schema cannot be is a ResourcesFileError, as every problem of the file is. */
function compile(schema: unknown, where: string): SchemaCheck {
  try {
    return compileSchema(schema, where);
  } catch (error) {
    if (error instanceof SchemaDefinitionError) throw new ResourcesFileError(error.message);
    throw error;
  }
}

function readParent(parent: unknown, where: string): ResourceDefinition["parent"] {
  if (parent === undefined) return undefined;
  if (!isObject(parent) || typeof parent.resource !== "string" || typeof parent.member !== "string" || Object.keys(parent).length !== 2) {
    throw new ResourcesFileError(`${where}: "parent" must be { "resource": "<collection>", "member": "<member holding its id>" }`);
  }
  if (!NAME.test(parent.member) || parent.member === "id") {
    throw new ResourcesFileError(`${where}: the parent's member "${parent.member}" must be a name of letters, digits, _ and -, other than "id"`);
  }
  return { resource: parent.resource, member: parent.member };
}

function checkName(name: string, where: string): void {
  if (!NAME.test(name)) throw new ResourcesFileError(`${where}: a collection's name starts with a letter and holds at most 64 letters, digits, _ and -`);
  if (RESERVED.has(name)) throw new ResourcesFileError(`${where}: /${name} is the server's own path; name the collection otherwise`);
}

/**
 * The definitions with every parent before its children; a parent that is not defined, a
 * member the schema also defines, or a loop of parents is a ResourcesFileError.
 */
function parentsFirst(definitions: ResourceDefinition[]): ResourceDefinition[] {
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  for (const { name, parent, schema } of definitions) {
    if (parent === undefined) continue;
    if (!byName.has(parent.resource)) throw new ResourcesFileError(`resource "${name}": its parent "${parent.resource}" is not defined in the file`);
    const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
    const required = isObject(schema) && Array.isArray(schema.required) ? schema.required : [];
    if (Object.hasOwn(properties, parent.member) || required.includes(parent.member)) {
      throw new ResourcesFileError(`resource "${name}": "${parent.member}" holds the parent's id, which the server sets; leave it out of the schema`);
    }
  }
  const ordered: ResourceDefinition[] = [];
  const placed = new Set<string>();
  for (const definition of definitions) {
    const chain: ResourceDefinition[] = [];
    for (let at: ResourceDefinition | undefined = definition; at !== undefined && !placed.has(at.name); at = at.parent && byName.get(at.parent.resource)) {
      if (chain.includes(at)) throw new ResourcesFileError(`resource "${at.name}": its parents loop back to it (${[...chain, at].map((item) => item.name).join(" -> ")})`);
      chain.push(at);
    }
    for (const item of chain.reverse()) {
      ordered.push(item);
      placed.add(item.name);
    }
  }
  return ordered;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a json-server `db.json` implies: its collections, their records, and the top-level members left out. */
export type DbJson = {
  definitions: ResourceDefinition[];
  records: Record<string, Array<Record<string, unknown>>>;
  /** Top-level members that are not arrays (json-server's singular resources, such as `profile`): not served. */
  leftOut: string[];
};

/** The resources file that serves what a db.json implies (its records go in as the seed). */
export function dbJsonResources(db: DbJson): { resources: Record<string, unknown> } {
  const resources: Record<string, unknown> = {};
  for (const { name, id, parent } of db.definitions) resources[name] = parent === undefined ? { id } : { id, parent };
  return { resources };
}

/**
 * Reads a json-server `db.json`: each top-level array is a collection whose records are its
 * seed, numbered by their ids' type; a member `<singular>Id` whose every value names a record
 * of `<singular>s` links each record to its parent. Throws a ResourcesFileError naming the
 * first collection it cannot serve.
 */
export function readDbJson(json: unknown): DbJson {
  if (!isObject(json)) throw new ResourcesFileError("A db.json holds an object, from each collection's name to an array of its records");
  const records: DbJson["records"] = {};
  const leftOut: string[] = [];
  const ids = new Map<string, Set<unknown>>();
  const definitions: ResourceDefinition[] = [];
  for (const [name, value] of Object.entries(json)) {
    if (!Array.isArray(value)) {
      leftOut.push(name);
      continue;
    }
    const where = `db.json "${name}"`;
    checkName(name, where);
    const held = new Set<unknown>();
    let kind: "integer" | "string" | undefined;
    value.forEach((record: unknown, index) => {
      if (!isObject(record)) throw new ResourcesFileError(`${where}[${index}] is not an object`);
      const id = record.id;
      const type = Number.isSafeInteger(id) && (id as number) >= 1 ? "integer" : typeof id === "string" && STRING_ID.test(id) ? "string" : undefined;
      if (type === undefined) {
        throw new ResourcesFileError(`${where}[${index}] has ${id === undefined ? "no id" : "an id that is neither a whole number from 1 nor 1 to 64 of A-Z, a-z, 0-9, _ and -"}; give every record one`);
      }
      if (kind !== undefined && type !== kind) throw new ResourcesFileError(`${where} mixes ${kind} and ${type} ids; a collection's ids are all numbers or all strings`);
      kind = type;
      if (held.has(id)) throw new ResourcesFileError(`${where} holds id ${JSON.stringify(id)} twice`);
      held.add(id);
    });
    ids.set(name, held);
    records[name] = value as Array<Record<string, unknown>>;
    definitions.push({ name, id: kind ?? "integer", schema: undefined, check: undefined, parent: undefined });
  }
  if (definitions.length === 0) throw new ResourcesFileError("A db.json defines at least one collection: a top-level array of records");
  for (const definition of definitions) definition.parent = linkOf(definition.name, records, ids, definitions);
  return { definitions: parentsFirst(definitions), records, leftOut };
}

/**
 * The parent link json-server's convention gives a collection: its first member, in the order
 * its records hold them, named `<singular>Id` where `<singular>s` is another collection, and
 * whose value in every record names a record there; none that would close a loop of parents.
 */
function linkOf(name: string, records: DbJson["records"], ids: Map<string, Set<unknown>>, definitions: ResourceDefinition[]): ResourceDefinition["parent"] {
  const list = records[name]!;
  if (list.length === 0) return undefined;
  for (const member of Object.keys(list[0]!)) {
    const match = /^(.+)Id$/.exec(member);
    // `postId` names `posts`; `categoryId` names `categories`.
    const parent = match === null ? undefined : [`${match[1]}s`, `${match[1]!.replace(/y$/, "")}ies`].find((plural) => ids.has(plural));
    if (parent === undefined || parent === name) continue;
    const parentIds = ids.get(parent)!;
    if (!list.every((record) => parentIds.has(record[member]))) continue;
    if (loops(name, parent, definitions)) continue;
    return { resource: parent, member };
  }
  return undefined;
}

/** Whether linking `child` under `parent` would make a loop with the links made so far. */
function loops(child: string, parent: string, definitions: ResourceDefinition[]): boolean {
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  for (let at: string | undefined = parent; at !== undefined; at = byName.get(at)?.parent?.resource) if (at === child) return true;
  return false;
}
