// The shape every route handler has: a parsed request in, a reply out, no socket in sight.
import type { JsonObject } from "./body.ts";
import type { Reply } from "./respond.ts";
import type { Route } from "./router.ts";

/** What a handler sees of a request: ids from the path, the query, and the checked JSON body. */
export type HandlerRequest = {
  /** Path parameters, every one already read as an id (see ids.ts). */
  params: Record<string, number>;
  query: URLSearchParams;
  /** The JSON object body of a POST or PUT; `{}` for other methods. */
  body: JsonObject;
};

/** Turns a request into a reply, or throws an HttpError. */
export type Handler = (request: HandlerRequest) => Reply;

/** A route of this API. */
export type ApiRoute = Route<Handler>;
