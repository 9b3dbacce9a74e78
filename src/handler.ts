// The shape every route handler has: a parsed request in, a reply out, no socket in sight.
import type { IncomingHttpHeaders } from "node:http";
import type { JsonObject } from "./body.ts";
import type { Reply } from "./respond.ts";
import type { Route } from "./router.ts";

/** What a handler sees of a request: ids from the path, the query, the checked JSON body, and the headers. */
export type HandlerRequest = {
  /** Path parameters, every one already read as an id (see ids.ts). */
  params: Record<string, number>;
  query: URLSearchParams;
  /** The JSON object body of a POST, PUT or PATCH; `{}` for other methods. */
  body: JsonObject;
  /** The request headers, names in lower case; handlers read the conditional ones (If-Match, If-None-Match). */
  headers: IncomingHttpHeaders;
};

/** Turns a request into a reply, or throws an HttpError. */
export type Handler = (request: HandlerRequest) => Reply;

/** A route of this API. */
export type ApiRoute = Route<Handler>;
