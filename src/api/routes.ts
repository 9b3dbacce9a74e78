// A resource's routes: its list and create, and GET, PUT, PATCH and DELETE of one record, with their ETags.
import type { IncomingHttpHeaders } from "node:http";
import { evaluatePreconditions, type Outcome } from "./conditions.ts";
import { HttpError } from "./errors.ts";
import type { ApiRoute } from "./handler.ts";
import { listReply } from "./lists.ts";
import type { Reply } from "./reply.ts";
import { andThen, type CollectionStore, type ReadView, type Written } from "../store/seam.ts";
import { createRecord, deleteRecord, listName, listRecords, notFound, patchRecord, READ, updateRecord } from "./records.ts";
import type { Resource } from "./resource.ts";

/**
 * The routes of a resource: its list and create (under its parent, if it has one),
 * and GET, PUT, PATCH and DELETE of one record. Every record and list answer has a
 * strong ETag; GET and HEAD answer 304 when If-None-Match matches it. A replace or patch may
 * make a record of at most `recordLimit` bytes as JSON.
 */
export function resourceRoutes(resource: Resource, store: CollectionStore, recordLimit?: number): ApiRoute[] {
  const list = resource.parent ? `${resource.parent.resource.path}/:id/${resource.parent.segment}` : resource.path;
  const item = `${resource.path}/:id`;
  // Fast path: a read of a missing record is common enough to answer without throwing: the
  // same 404 a write would throw, built once
  // (docs/benchmarks.md, "Measurements behind fast paths in the code").
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
  const routes: ApiRoute[] = [
    {
      method: "GET",
      pattern: list,
      operation: { kind: "list", resource },
      handler: ({ query, params, headers }) =>
        andThen(listRecords(resource, store, query, params.id), ({ view, links }) => {
          // Checked once the list exists and its query is valid (a 404 or 400 comes first).
          const outcome = evaluatePreconditions(headers, view.tag, READ);
          if (outcome !== "proceed") {
            // A list not sent lets go of its records at once.
            view.release?.();
            return readRefusal(outcome, view.tag, subject);
          }
          const reply = listReply(view.items, view.total, links);
          reply.etag = view.tag;
          reply.json = view.text;
          reply.release = view.release;
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
      handler: ({ params, body, headers }) => andThen(updateRecord(resource, store, params.id!, body, { headers, recordLimit }), replied),
    },
    {
      method: "PATCH",
      pattern: item,
      operation: { kind: "patch", resource },
      handler: ({ params, body, headers }) => andThen(patchRecord(resource, store, params.id!, body, { headers, recordLimit }), replied),
    },
    {
      method: "DELETE",
      pattern: item,
      operation: { kind: "delete", resource },
      handler: ({ params, headers }) => andThen(deleteRecord(resource, store, params.id!, { headers }), deleted),
    },
  ];
  // A path id of a collection with string ids is read as one: the parent's on a child list, the record's own on an item.
  for (const route of routes) {
    const owner = route.pattern === item ? resource : route.pattern === list ? resource.parent?.resource : undefined;
    if (owner?.ids === "random") route.stringIds = true;
  }
  return routes;
}

/**
 * The preconditions of a GET or HEAD: the 304 reply (no body, with the ETag) when
 * If-None-Match matches, a 412 thrown when If-Match does not, or undefined to answer in full.
 */
function checkRead(headers: IncomingHttpHeaders, etag: string, subject: string): Reply | undefined {
  const outcome = evaluatePreconditions(headers, etag, READ);
  return outcome === "proceed" ? undefined : readRefusal(outcome, etag, subject);
}

/** A read's 304, or its 412 thrown. */
function readRefusal(outcome: Exclude<Outcome, "proceed">, etag: string, subject: string): Reply {
  if (outcome === "not-modified") return { status: 304, etag };
  throw new HttpError(
    "PRECONDITION_FAILED",
    `The ${subject} has changed since the ETag in If-Match; read it again for its current ETag`,
    { headers: { etag } },
  );
}
