// The shape every route handler has: a parsed request in, a reply out, no socket in sight.
import type { IncomingHttpHeaders } from "node:http";
import type { JsonObject } from "./json.ts";
import type { ErrorCode } from "./errors.ts";
import type { Resource } from "./resource.ts";
import type { Reply } from "./reply.ts";
import type { Awaitable } from "../store/seam.ts";
import type { RecordId } from "../store/records.ts";

/** A JSON Schema (2020-12), as OpenAPI 3.1 takes it: what a custom route documents its answer with. */
export type Schema = { [keyword: string]: unknown };

/** One route as data: a method, a pattern such as `/users/:id`, and what handles it. */
export type Route<H> = { method: string; pattern: string; handler: H };
/** What a handler sees of a request: ids from the path, the query, the checked JSON body, and the headers. */
export type HandlerRequest = {
  /** Path parameters, every one already read as an id (see ids.ts). */
  params: Record<string, RecordId>;
  query: URLSearchParams;
  /** The JSON object body of a POST, PUT or PATCH; `{}` for other methods. */
  body: JsonObject;
  /** The request headers, names in lower case; handlers read the conditional ones (If-Match, If-None-Match). */
  headers: IncomingHttpHeaders;
};

/** Reads a write's body bytes into its object, in place of the JSON checks every native route has (the json-server dialect's forms and empty bodies). */
export type BodyReader = (bytes: Uint8Array, headers: IncomingHttpHeaders) => JsonObject;

/** Turns a request into a reply, or throws an HttpError; a reply may come later when the store answers later. */
export type Handler = (request: HandlerRequest) => Awaitable<Reply>;

/** The six operations every resource has; the OpenAPI document derives each from the resource. */
export type ResourceOperation = "list" | "create" | "read" | "replace" | "patch" | "delete";

/** A route that is not a resource's, described by hand: a GET that answers 200 with a JSON body. */
export type CustomOperation = {
  operationId: string;
  summary: string;
  /** The tag that groups it in the document, and what the tag holds. */
  tag: { name: string; description: string };
  /** The 200 answer: what it means, its body's media type (JSON unless said), and its schema under a component name. */
  answer: { description: string; name: string; schema: Schema; mediaType?: string };
  /** The codes the route itself answers with, beyond those every route can get. */
  errors?: ErrorCode[];
};

/** What a route does, as the OpenAPI document describes it. */
export type RouteOperation = { kind: ResourceOperation; resource: Resource } | { kind: "custom"; doc: CustomOperation };

/**
 * A route of this API: what the router needs, what the OpenAPI document is built
 * from, and whether it is still served normally once shutdown has begun.
 */
export type ApiRoute = Route<Handler> & {
  operation: RouteOperation;
  servedWhileDraining?: true;
  /** Served without a token when tokens are configured: the probes, which an orchestrator calls with none. */
  open?: true;
  /** Whether the path's id is a string id (of a collection a file gives string ids), read by parseStringId. */
  stringIds?: true;
};
