// One collection design for every resource: ids, validation, not-found, lists, cascades and routes.
import type { IncomingHttpHeaders } from "node:http";
import type { JsonObject } from "./body.ts";
import { evaluatePreconditions } from "./conditions.ts";
import { type ErrorCode, type FieldError, HttpError } from "./errors.ts";
import type { ApiRoute } from "./handler.ts";
import { type LinkOptions, listReply, readList } from "./lists.ts";
import { applyMergePatch } from "./merge-patch.ts";
import type { Reply } from "./respond.ts";
import type { CollectionName } from "./seed.ts";
import { andThen, type Awaitable, type CollectionStore, type Current, type IdPolicy, type ListView, type ReadView, type StoredRecord, type Written } from "./store.ts";
import { checkFields, type FieldSpec, positiveSafeInteger } from "./validate.ts";

/** How a resource hangs under another: `comments` of a post keep its id in `postId`. */
export type ParentLink = {
  resource: Resource;
  /** The member of a child record that holds the parent's id, e.g. `postId`. */
  key: string;
  /** The path segment of the child list under a parent, e.g. `comments`. */
  segment: string;
};

/**
 * Everything that makes one resource differ from another; the behaviour is shared, and
 * the records live in a store (see store.ts), which this description does not know.
 */
export type Resource = {
  /** The collection its records are kept in and a seed names them by: `users`. */
  name: CollectionName;
  /** The singular name, capitalised, as messages use it: `User`. */
  label: string;
  /** Where its records live: `/users`; one record is `/users/{id}`. */
  path: string;
  notFound: ErrorCode;
  /** How a new record's id is picked when the client chooses none. */
  ids: IdPolicy;
  fields: Record<string, FieldSpec>;
  /** Whether a create may choose the id (seed spec part 2, rule 2: users only). */
  clientIds: boolean;
  /** Whether records carry a server-set `createdAt`. */
  timestamps: boolean;
  /** Where `createdAt` comes from; a test can fix it. */
  clock: () => Date;
  parent: ParentLink | undefined;
  /** Resources whose records belong to this one's records and are deleted with them. */
  children: Resource[];
};

/** What defineResource needs; a parent, if named, is linked both ways. */
export type ResourceOptions = Omit<Resource, "parent" | "children" | "clock"> & {
  parent?: ParentLink;
  /** The current time by default. */
  clock?: () => Date;
};

/** Creates a resource, linked to its parent if it has one. */
export function defineResource(options: ResourceOptions): Resource {
  const { parent, clock = now, ...rest } = options;
  const resource: Resource = { ...rest, clock, parent, children: [] };
  parent?.resource.children.push(resource);
  return resource;
}

function now(): Date {
  return new Date();
}

/** Members the server sets, which a client may never send (contract 5). */
export function serverMembers(resource: Resource): string[] {
  const members = resource.clientIds ? [] : ["id"];
  if (resource.parent) members.push(resource.parent.key);
  if (resource.timestamps) members.push("createdAt");
  return members;
}

/** The 404 of a record that is not held. */
function notFound(resource: Resource): HttpError {
  return new HttpError(resource.notFound, `${resource.label} not found`);
}

/** The record a replace, patch or delete found, or a 404 naming the resource. */
function found(resource: Resource, current: Current): NonNullable<Current> {
  if (current === undefined) throw notFound(resource);
  return current;
}

/** Options of the writes: the request headers, whose If-Match and If-None-Match are evaluated. */
export type WriteOptions = { headers?: IncomingHttpHeaders };

// Made once, not per request.
const READ = { read: true };
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
function listName(resource: Resource): string {
  return `list of ${resource.path.slice(1)}`;
}

/**
 * Creates a record. Checks run in the contract's order: the parent exists (404),
 * preconditions against the list's ETag (412), the body is valid (400), the id is
 * free (409); nothing is stored unless all pass.
 */
export function createRecord(
  resource: Resource,
  store: CollectionStore,
  body: JsonObject,
  parentId?: number,
  options: WriteOptions = {},
): Awaitable<Written> {
  const parent = resource.parent;
  // A child without a parent would be stored where no list or cascade can reach it.
  if (parent !== undefined && parentId === undefined) throw new TypeError(`A ${resource.label.toLowerCase()} needs the id of its parent`);
  const errors = checkServerMembers(resource, body);
  errors.push(...checkFields(body, resource.fields, CREATE_FIELDS));
  // Seed spec part 2, rules 1 and 2: the assigned id, replaced by the body's id if it has one.
  const chosen = resource.clientIds && Object.hasOwn(body, "id");
  if (chosen) {
    const message = positiveSafeInteger(body.id);
    if (message !== undefined) errors.unshift({ path: "id", message });
  }
  const { headers } = options;
  return store.create({
    parentId,
    // Only a valid id reaches the store; an invalid one is a 400 below.
    chosenId: chosen && errors.length === 0 ? (body.id as number) : undefined,
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
 * Merges the body over a record (seed spec part 2, rule 3: shallow; members sent
 * replace, members not sent are kept). `{}` changes nothing. Preconditions (412)
 * come after the record's existence (404) and before validation (400).
 */
export function updateRecord(
  resource: Resource,
  store: CollectionStore,
  id: number,
  body: JsonObject,
  options: WriteOptions = {},
): Awaitable<Written> {
  return store.replace(id, (current) => {
    const { record: stored, tag } = found(resource, current);
    checkWrite(options.headers, tag, resource.label.toLowerCase());
    const errors = [...checkServerMembers(resource, body), ...checkFields(body, resource.fields, { partial: true })];
    if (resource.clientIds && Object.hasOwn(body, "id") && body.id !== id) {
      errors.unshift({ path: "id", message: `must equal the id in the path (${id})` });
    }
    if (errors.length > 0) throw invalid(resource, errors);
    return { ...stored, ...body, id };
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
  id: number,
  patch: JsonObject,
  options: WriteOptions = {},
): Awaitable<Written> {
  return store.replace(id, (current) => {
    const { record: stored, tag } = found(resource, current);
    checkWrite(options.headers, tag, resource.label.toLowerCase());
    const errors = checkServerMembers(resource, patch);
    if (resource.clientIds && Object.hasOwn(patch, "id") && patch.id !== id) {
      errors.unshift({ path: "id", message: `must equal the id in the path (${id})` });
    }
    const merged = applyMergePatch(stored, patch) as JsonObject;
    // The whole result is checked, so removing a required member reports it as required;
    // the members the patch left alone were valid already.
    for (const error of checkFields(merged, resource.fields, { partial: false })) errors.push(error);
    if (errors.length > 0) throw invalid(resource, errors);
    return { ...merged, id };
  });
}

/** Deletes a record and everything under it (the store cascades, in the same step). */
export function deleteRecord(resource: Resource, store: CollectionStore, id: number, options: WriteOptions = {}): Awaitable<void> {
  return store.remove(id, (current) => {
    const { tag } = found(resource, current);
    checkWrite(options.headers, tag, resource.label.toLowerCase());
  });
}

/**
 * One page of a resource's records: all of them, or, for a child resource, those of one
 * parent (a 404 if that parent is not held). The query is checked (400) before the store is asked.
 */
export function listRecords(resource: Resource, store: CollectionStore, query: URLSearchParams, parentId?: number): Awaitable<Listed> {
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
 * (seed spec part 2, rule 1; only a count can collide, a sequence never does).
 */
function idConflict(resource: Resource, id: number, chosen: boolean): HttpError {
  const name = resource.label.toLowerCase();
  const message = chosen
    ? `A ${name} with id ${id} already exists; send another id or none`
    : `A new ${name} gets id ${id}, the number of ${name}s held plus one, but a ${name} with id ${id} already exists; send an id that is not taken`;
  return new HttpError("ID_CONFLICT", message);
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

/**
 * The routes of a resource: its list and create (under its parent, if it has one),
 * and GET, PUT, PATCH and DELETE of one record. Every record and list answer has a
 * strong ETag; GET and HEAD answer 304 when If-None-Match matches it.
 */
export function resourceRoutes(resource: Resource, store: CollectionStore): ApiRoute[] {
  const list = resource.parent ? `${resource.parent.resource.path}/:id/${resource.parent.segment}` : resource.path;
  const item = `${resource.path}/:id`;
  // A read of a missing record is common enough to answer without throwing: the same
  // 404 a write would throw, built once. Throwing and catching an HttpError made
  // `GET /users/999999` cost 8.1 µs of CPU instead of 6.2 (bench/in-memory.mjs).
  const missing = notFound(resource).toReply();
  const noun = resource.label.toLowerCase();
  const subject = listName(resource);
  const replied = (written: Written): Reply => ({ status: 200, body: written.record, etag: written.tag });
  const created = (written: Written): Reply => ({
    status: 201,
    body: written.record,
    etag: written.tag,
    headers: { location: `${resource.path}/${written.record.id}` },
  });
  const deleted = (): Reply => ({ status: 204 });
  // The ETag and the JSON text come from the store, made once per version.
  const readReply = (view: ReadView | undefined, headers: IncomingHttpHeaders): Reply => {
    if (view === undefined) return missing;
    return checkRead(headers, view.tag, noun) ?? { status: 200, json: view.text, etag: view.tag };
  };
  return [
    {
      method: "GET",
      pattern: list,
      operation: { kind: "list", resource },
      handler: ({ query, params, headers }) =>
        andThen(listRecords(resource, store, query, params.id), ({ view, links }) => {
          // Checked once the list exists and its query is valid (a 404 or 400 comes first).
          const notModified = checkRead(headers, view.tag, subject);
          if (notModified !== undefined) return notModified;
          const reply = listReply(view.items, view.total, links);
          reply.etag = view.tag;
          reply.json = view.text;
          return reply;
        }),
    },
    {
      method: "POST",
      pattern: list,
      operation: { kind: "create", resource },
      handler: ({ params, body, headers }) => andThen(createRecord(resource, store, body, params.id, { headers }), created),
    },
    {
      method: "GET",
      pattern: item,
      operation: { kind: "read", resource },
      handler: ({ params, headers }) => {
        const view = store.read(params.id!);
        // A store that answers at once, as memory does, costs no closure per read.
        return view instanceof Promise ? view.then((held) => readReply(held, headers)) : readReply(view, headers);
      },
    },
    {
      method: "PUT",
      pattern: item,
      operation: { kind: "replace", resource },
      handler: ({ params, body, headers }) => andThen(updateRecord(resource, store, params.id!, body, { headers }), replied),
    },
    {
      method: "PATCH",
      pattern: item,
      operation: { kind: "patch", resource },
      handler: ({ params, body, headers }) => andThen(patchRecord(resource, store, params.id!, body, { headers }), replied),
    },
    {
      method: "DELETE",
      pattern: item,
      operation: { kind: "delete", resource },
      handler: ({ params, headers }) => andThen(deleteRecord(resource, store, params.id!, { headers }), deleted),
    },
  ];
}

/**
 * The preconditions of a GET or HEAD: the 304 reply (no body, with the ETag) when
 * If-None-Match matches, a 412 thrown when If-Match does not, or undefined to answer in full.
 */
function checkRead(headers: IncomingHttpHeaders, etag: string, subject: string): Reply | undefined {
  const outcome = evaluatePreconditions(headers, etag, READ);
  if (outcome === "proceed") return undefined;
  if (outcome === "not-modified") return { status: 304, etag };
  throw new HttpError(
    "PRECONDITION_FAILED",
    `The ${subject} has changed since the ETag in If-Match; read it again for its current ETag`,
    { headers: { etag } },
  );
}
