// What a resource is: one collection design (ids, fields, not-found, parent) that every resource is defined by.
import { type ErrorCode } from "./errors.ts";
import type { CollectionName } from "../store/records.ts";
import { type IdPolicy } from "../store/seam.ts";
import { type FieldSpec } from "./validate.ts";
import type { SchemaCheck } from "./schema.ts";

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
  /**
   * The JSON Schema a file gives the members a client sends (any object when it gives none),
   * its compiled check, which sees a record whole without the members the server sets, and a
   * body it accepts, for the OpenAPI document; none for a built-in resource.
   */
  schema?: { source: Record<string, unknown>; check: SchemaCheck; example: Record<string, unknown> };
  /** Whether a create may choose the id: users (docs/spec.md#users-create) and collections a file gives string ids. */
  clientIds: boolean;
  /** Whether records carry a server-set `createdAt`. */
  timestamps: boolean;
  /** Where `createdAt` comes from; a test can fix it. */
  clock: () => Date;
  parent: ParentLink | undefined;
  /** Resources whose records belong to this one's records and are deleted with them. */
  children: Resource[];
};

/** An instance's resources by name, parents first: the built-in four, or those a file defines. */
export type ResourceMap = Record<CollectionName, Resource>;

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

/** What a file's schema checks of a record or body: its members but the id and those the server sets. */
export function clientMembers(resource: Resource, record: Record<string, unknown>): Record<string, unknown> {
  const members = { ...record };
  delete members.id;
  for (const member of serverMembers(resource)) delete members[member];
  return members;
}

/** Members the server sets, which a client may never send (docs/spec.md#5-posts-comments-and-replies). */
export function serverMembers(resource: Resource): string[] {
  const members = resource.clientIds ? [] : ["id"];
  if (resource.parent) members.push(resource.parent.key);
  if (resource.timestamps) members.push("createdAt");
  return members;
}
