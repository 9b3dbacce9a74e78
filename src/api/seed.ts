// Seeds: the records an instance starts with, checked by the API's own rules before any is held.
import { describeValue, MAX_DEPTH, treeProblem } from "./json.ts";
import { clientMembers, type Resource, serverMembers } from "./resource.ts";
import { type CollectionName, type RecordId, type Seed, type SeedRecords } from "../store/records.ts";
import type { StoredRecord } from "../store/records.ts";
import { checkFields, idRule } from "./validate.ts";
import { copyPlainJson, TOO_DEEP } from "../store/plain-json.ts";

/** A seed that breaks the API's rules; `problems` lists every one, each naming collection, record and member. */
export class SeedError extends TypeError {
  readonly problems: string[];
  /** The problems on one line: the first ten, and how many more there are. */
  readonly summary: string;

  constructor(problems: string[]) {
    // One line however many problems there are; all of them are in `problems`.
    const shown = problems.slice(0, MAX_SHOWN).join("; ");
    const summary = problems.length > MAX_SHOWN ? `${shown}; and ${problems.length - MAX_SHOWN} more` : shown;
    super(`The seed is not valid: ${summary}`);
    this.name = "SeedError";
    this.problems = problems;
    this.summary = summary;
  }
}

const MAX_SHOWN = 10;

// The exact form the API writes createdAt in (Date.prototype.toISOString).
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Checks a seed against the API's rules and returns deep copies of its records.
 * Client members follow the resource's rules and the body checks (forbidden names,
 * depth); server-set members are checked for their shape; ids are unique, and a
 * child's parent id names a record of the seed. Throws a SeedError naming every problem.
 */
export function checkSeed(seed: unknown, resources: Record<CollectionName, Resource>): SeedRecords {
  const problems: string[] = [];
  // The collections, parents first, as the resources come.
  const names = Object.keys(resources);
  const records: SeedRecords = Object.fromEntries(names.map((name) => [name, []]));
  if (typeof seed !== "object" || seed === null || Array.isArray(seed)) {
    throw new SeedError([`it must be an object such as { "users": [...], "posts": [...] }, not ${describeValue(seed)}`]);
  }
  for (const name of Object.keys(seed)) {
    if (!Object.hasOwn(resources, name)) problems.push(`"${name.slice(0, 40)}" is not a collection; use ${names.join(", ")}`);
  }
  const ids = new Map<CollectionName, Set<RecordId>>();
  for (const name of names) {
    // Own members only: a collection may be named `constructor`.
    const given = Object.hasOwn(seed, name) ? (seed as Record<string, unknown>)[name] : undefined;
    const held = new Set<RecordId>();
    ids.set(name, held);
    if (given === undefined) continue;
    if (!Array.isArray(given)) {
      problems.push(`${name} must be an array of records, not ${describeValue(given)}`);
      continue;
    }
    given.forEach((value: unknown, index) => {
      const where = `${name}[${index}]`;
      const record = copyRecord(value, where, problems);
      if (record === undefined) return;
      const resource = resources[name]!;
      const before = problems.length;
      checkRecord(record, resource, where, problems);
      const id = record.id;
      if (held.has(id)) problems.push(`${where}.id ${id} is the id of an earlier ${name.slice(0, -1)}`);
      // A record with other problems still lends its id to the parent checks, so that
      // each problem is reported once, where it is.
      else if (idRule(resource.ids)(id) === undefined) held.add(id);
      if (resource.parent !== undefined) {
        const parentName = resource.parent.resource.name;
        const parentId = record[resource.parent.key];
        if (idRule(resource.parent.resource.ids)(parentId) === undefined && !ids.get(parentName)!.has(parentId as RecordId)) {
          problems.push(`${where}.${resource.parent.key} must be the id of a ${parentName.slice(0, -1)} of the seed; none has id ${parentId}`);
        }
      }
      if (problems.length === before) records[name]!.push(record);
    });
  }
  if (problems.length > 0) throw new SeedError(problems);
  return records;
}

/** A deep copy of a record that is plain JSON, or undefined after noting why it is not. */
function copyRecord(value: unknown, where: string, problems: string[]): StoredRecord | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push(`${where} must be a record (a JSON object), not ${describeValue(value)}`);
    return undefined;
  }
  // Only what a round trip through JSON text would keep as it is: undefined and functions would
  // vanish, NaN and Infinity become null, a Date a string.
  const copy = copyPlainJson(value, MAX_DEPTH);
  if (copy === TOO_DEEP) {
    problems.push(`${where} must not be nested deeper than ${MAX_DEPTH} levels`);
    return undefined;
  }
  if (copy === undefined) {
    problems.push(`${where} must hold only JSON values (strings, finite numbers, booleans, null, arrays and plain objects)`);
    return undefined;
  }
  const problem = treeProblem(copy as object, where);
  if (problem !== undefined) {
    problems.push(problem.message);
    return undefined;
  }
  return copy as StoredRecord;
}

/** Notes what is wrong with one record by its resource's rules. */
function checkRecord(record: StoredRecord, resource: Resource, where: string, problems: string[]): void {
  const idProblem = idRule(resource.ids)(record.id);
  if (!Object.hasOwn(record, "id")) problems.push(`${where}.id is required`);
  else if (idProblem !== undefined) problems.push(`${where}.id ${idProblem}`);
  for (const member of serverMembers(resource)) {
    if (member === "id") continue;
    if (!Object.hasOwn(record, member)) {
      problems.push(`${where}.${member} is required`);
    } else if (member === "createdAt") {
      if (!isTimestamp(record.createdAt)) {
        problems.push(`${where}.createdAt must be a UTC timestamp such as 2026-01-31T09:30:00.000Z`);
      }
    } else {
      const parentProblem = idRule(resource.parent!.resource.ids)(record[member]);
      if (parentProblem !== undefined) problems.push(`${where}.${member} ${parentProblem}`);
    }
  }
  const errors = checkFields(record, resource.fields, { partial: false });
  resource.schema?.check(clientMembers(resource, record), "", errors);
  for (const { path, message } of errors) problems.push(`${where}.${path} ${message}`);
}

function isTimestamp(value: unknown): boolean {
  if (typeof value !== "string" || !TIMESTAMP.test(value)) return false;
  // The shape alone lets through dates that do not exist, such as February 30.
  const time = Date.parse(value);
  return !Number.isNaN(time) && new Date(time).toISOString() === value;
}

