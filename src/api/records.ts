// The rules of each write and read of a resource's records: create, replace, patch, delete and list, each a decision the store applies in one step.
import type { IncomingHttpHeaders } from "node:http";
import type { JsonObject } from "./json.ts";
import { evaluatePreconditions } from "./conditions.ts";
import { type FieldError, HttpError } from "./errors.ts";
import { type LinkOptions, readList } from "./lists.ts";
import { applyMergePatch } from "./merge-patch.ts";
import { andThen, type Awaitable, type CollectionStore, type Current, type ListView, type Written } from "../store/seam.ts";
import { type RecordId, type StoredRecord } from "../store/records.ts";
import { checkFields, idRule } from "./validate.ts";
import { clientMembers, type Resource, serverMembers } from "./resource.ts";

/** The 404 of a record that is not held. */
export function notFound(resource: Resource): HttpError {
  return new HttpError(resource.notFound, `${resource.label} not found`);
}

/** The record a replace, patch or delete found, or a 404 naming the resource. */
function found(resource: Resource, current: Current): NonNullable<Current> {
  if (current === undefined) throw notFound(resource);
  return current;
}

/**
 * Options of the writes: the request headers, whose If-Match and If-None-Match are evaluated,
 * and the most bytes the JSON text of a record a replace or patch makes may have (the body limit).
 */
export type WriteOptions = { headers?: IncomingHttpHeaders; recordLimit?: number };

/**
 * Throws 413 RECORD_TOO_LARGE, changing nothing, when a record a replace or patch would make is
 * longer as JSON than `limit` bytes. A create needs no such check: its record is its body, which
 * the body limit bounds, and the few members the server adds. Without it, writes could grow one
 * record without end, and every answer that sends it with it (docs/decisions.md, "Access and limits").
 */
function checkRecordSize(resource: Resource, record: StoredRecord, limit: number | undefined): void {
  if (limit === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(record));
  if (bytes <= limit) return;
  const message = `The ${resource.label.toLowerCase()} this write would make is ${bytes} bytes as JSON, more than the ${limit} a record may have (BODY_LIMIT); nothing was changed. Send smaller members, or remove some with PATCH`;
  throw new HttpError("RECORD_TOO_LARGE", message);
}

// Made once, not per request.
/** What a read asks of its preconditions (a GET or HEAD). */
export const READ = { read: true };
const WRITE = { read: false };
const CREATE_FIELDS = { partial: false };

/**
 * Evaluates a write's preconditions against an ETag (the record's, or the list's for a
 * create) and throws 412 PRECONDITION_FAILED, changing nothing, when they fail.
 */
function checkWrite(headers: IncomingHttpHeaders | undefined, tag: () => string, subject: string): void {
  // Most writes send no precondition, and then no ETag is looked up.
  if (headers === undefined || (headers["if-match"] === undefined && headers["if-none-match"] === undefined)) return;
  const etag = tag();
  const outcome = evaluatePreconditions(headers, etag, WRITE);
  if (outcome === "proceed") return;
  const message =
    outcome === "if-match-failed"
      ? `The ${subject} has changed since the ETag in If-Match; nothing was changed. Read it again and retry with its current ETag`
      : `The ${subject} matches If-None-Match; nothing was changed`;
  throw new HttpError("PRECONDITION_FAILED", message, { headers: { etag } });
}

/** The name of a resource's list in messages: `list of users`, `list of comments`. */
export function listName(resource: Resource): string {
  return `list of ${resource.path.slice(1)}`;
}

/**
 * Creates a record. Checks run in the order of docs/spec.md#3-request-bodies: the parent exists (404),
 * preconditions against the list's ETag (412), the body is valid (400), the id is
 * free (409); nothing is stored unless all pass.
 */
export function createRecord(
  resource: Resource,
  store: CollectionStore,
  body: JsonObject,
  parentId?: RecordId,
  options: WriteOptions = {},
): Awaitable<Written> {
  const parent = resource.parent;
  // A child without a parent would be stored where no list or cascade can reach it.
  if (parent !== undefined && parentId === undefined) throw new TypeError(`A ${resource.label.toLowerCase()} needs the id of its parent`);
  const errors = checkServerMembers(resource, body);
  errors.push(...checkFields(body, resource.fields, CREATE_FIELDS));
  resource.schema?.check(clientMembers(resource, body), "", errors);
  // The assigned id (docs/spec.md#users-create), replaced by the body's id if it has one.
  const chosen = resource.clientIds && Object.hasOwn(body, "id");
  if (chosen) {
    const message = idRule(resource.ids)(body.id);
    if (message !== undefined) errors.unshift({ path: "id", message });
  }
  const { headers } = options;
  return store.create({
    parentId,
    // Only a valid id reaches the store; an invalid one is a 400 below.
    chosenId: chosen && errors.length === 0 ? (body.id as RecordId) : undefined,
    decide: (context) => {
      if (!context.parentFound) throw notFound(parent!.resource);
      // A create changes the list it is sent to, so its preconditions are the list's.
      checkWrite(headers, context.listTag, listName(resource));
      if (errors.length > 0) throw invalid(resource, errors);
      const { id } = context;
      if (context.taken) throw idConflict(resource, id, chosen);
      const record: StoredRecord = parent ? { id, [parent.key]: parentId, ...body } : { id, ...body };
      if (resource.timestamps) record.createdAt = resource.clock().toISOString();
      return record;
    },
  });
}

/**
 * Merges the body over a record (docs/spec.md#users-update: shallow; members sent
 * replace, members not sent are kept). `{}` changes nothing. Preconditions (412)
 * come after the record's existence (404) and before validation (400).
 */
export function updateRecord(
  resource: Resource,
  store: CollectionStore,
  id: RecordId,
  body: JsonObject,
  options: WriteOptions = {},
): Awaitable<Written> {
  return store.replace(id, (current) => {
    const { record: stored, tag } = found(resource, current);
    checkWrite(options.headers, tag, resource.label.toLowerCase());
    const errors = [...checkServerMembers(resource, body), ...checkFields(body, resource.fields, { partial: true })];
    checkPathId(resource, body, id, errors);
    const updated = { ...stored, ...body, id };
    // A schema sees the record the update makes, whole.
    resource.schema?.check(clientMembers(resource, updated), "", errors);
    if (errors.length > 0) throw invalid(resource, errors);
    checkRecordSize(resource, updated, options.recordLimit);
    return updated;
  });
}

/**
 * Applies a JSON Merge Patch (RFC 7396) to a copy of a record and stores the result
 * if it passes the resource's rules: a required member cannot be removed, server-set
 * members cannot be sent (not even as null), and a user's `id`, if sent, must be the
 * path's. Every wrong member is reported at once; the stored record is never modified.
 */
export function patchRecord(
  resource: Resource,
  store: CollectionStore,
  id: RecordId,
  patch: JsonObject,
  options: WriteOptions = {},
): Awaitable<Written> {
  return store.replace(id, (current) => {
    const { record: stored, tag } = found(resource, current);
    checkWrite(options.headers, tag, resource.label.toLowerCase());
    const errors = checkServerMembers(resource, patch);
    checkPathId(resource, patch, id, errors);
    const merged = applyMergePatch(stored, patch) as JsonObject;
    // The whole result is checked, so removing a required member reports it as required;
    // the members the patch left alone were valid already.
    for (const error of checkFields(merged, resource.fields, { partial: false })) errors.push(error);
    resource.schema?.check(clientMembers(resource, merged), "", errors);
    if (errors.length > 0) throw invalid(resource, errors);
    const patched = { ...merged, id };
    checkRecordSize(resource, patched, options.recordLimit);
    return patched;
  });
}

/** Deletes a record and everything under it (the store cascades, in the same step). */
export function deleteRecord(resource: Resource, store: CollectionStore, id: RecordId, options: WriteOptions = {}): Awaitable<void> {
  return store.remove(id, (current) => {
    const { tag } = found(resource, current);
    checkWrite(options.headers, tag, resource.label.toLowerCase());
  });
}

/**
 * One page of a resource's records: all of them, or, for a child resource, those of one
 * parent (a 404 if that parent is not held). The query is checked (400) before the store is asked.
 */
export function listRecords(resource: Resource, store: CollectionStore, query: URLSearchParams, parentId?: RecordId): Awaitable<Listed> {
  const list = readList(query);
  const parent = resource.parent;
  if (parent !== undefined && parentId === undefined) throw new TypeError(`Listing ${resource.label.toLowerCase()}s needs the id of their parent`);
  const path = parent ? `${parent.resource.path}/${parentId}/${parent.segment}` : resource.path;
  return andThen(store.list(list, parentId), (view) => {
    if (view === undefined) throw notFound(parent!.resource);
    return { view, links: { path, list } };
  });
}

/** A list as the store gave it, and what its Link header is made from. */
export type Listed = { view: ListView; links: LinkOptions };

/**
 * The 409 of a create. Where the server chose the id, the client sent none, so
 * "send none" would be no advice: the message names the rule that chose the id
 * (docs/spec.md#users-create; only a count can collide, a sequence never does).
 */
function idConflict(resource: Resource, id: RecordId, chosen: boolean): HttpError {
  const name = resource.label.toLowerCase();
  const message = chosen || resource.ids !== "count"
    ? `A ${name} with id ${id} already exists; send another id or none`
    : `A new ${name} gets id ${id}, the number of ${name}s held plus one, but a ${name} with id ${id} already exists; send an id that is not taken`;
  return new HttpError("ID_CONFLICT", message);
}

/** Notes, first, an `id` sent to a resource whose creates may choose it that is not the path's. */
function checkPathId(resource: Resource, body: JsonObject, id: RecordId, errors: FieldError[]): void {
  if (resource.clientIds && Object.hasOwn(body, "id") && body.id !== id) {
    errors.unshift({ path: "id", message: `must equal the id in the path (${id})` });
  }
}

function checkServerMembers(resource: Resource, body: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  for (const path of serverMembers(resource)) {
    if (Object.hasOwn(body, path)) errors.push({ path, message: "is set by the server and must not be sent" });
  }
  return errors;
}

function invalid(resource: Resource, errors: FieldError[]): HttpError {
  return new HttpError(
    "VALIDATION_FAILED",
    `The ${resource.label.toLowerCase()} is not valid; fix the members listed in errors`,
    { errors },
  );
}
