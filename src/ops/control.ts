// Test control over HTTP (CONTROL=on): reset, snapshot and load the data, and read the request log, under /__control/.
import { HttpError } from "../api/errors.ts";
import type { Handler, HandlerRequest, Route } from "../api/handler.ts";
import type { Reply } from "../api/reply.ts";
import { checkSeed, SeedError } from "../api/seed.ts";
import type { ResourceMap } from "../api/resource.ts";
import { parseWholeNumber } from "../api/input.ts";
import type { Store } from "../store/seam.ts";
import type { SeedRecords } from "../store/records.ts";
import type { RequestLog } from "./request-log.ts";

const DONE: Reply = { status: 204 };

/** The refusal of a request from a page on another site (http/cross-site.ts), or undefined. */
export type CrossSiteRefusal = (headers: HandlerRequest["headers"]) => HttpError | undefined;

/**
 * The control routes over one instance's data and request log. They are for a test suite, not
 * a client: the OpenAPI document leaves them out, DELAY and `Prefer` never touch them, the log
 * does not hold them, and with tokens every one needs a `write` token (docs/testing-clients.md).
 * Each refuses a page on another site first, with `crossSite`'s refusal: a form on any site
 * could otherwise post `POST /__control/reset`, which takes no body and so no Content-Type.
 */
export function controlRoutes(
  resources: ResourceMap,
  store: Store,
  log: RequestLog,
  crossSite: CrossSiteRefusal,
  // The data set's own check, where it is not the resources' seed check (json-server's dialect takes a db.json).
  check: (body: unknown) => SeedRecords = (body) => checkedData(body, resources),
): Array<Route<Handler>> {
  return sameSiteOnly(crossSite, [
    // The starting data again: the seed, or the two seeded users; id sequences start again.
    { method: "POST", pattern: "/__control/reset", handler: () => store.reset().then(() => DONE) },
    // Every record, in the seed's shape, so that PUT /__control/data takes it back.
    { method: "GET", pattern: "/__control/snapshot", handler: () => store.snapshot().then((body) => ({ status: 200, body })) },
    {
      method: "PUT",
      pattern: "/__control/data",
      handler: ({ body }) => store.reset(check(body)).then(() => DONE),
    },
    { method: "GET", pattern: "/__control/requests", handler: ({ query }) => ({ status: 200, json: log.answer(limitOf(query)) }) },
    {
      method: "DELETE",
      pattern: "/__control/requests",
      handler: () => {
        log.clear();
        return DONE;
      },
    },
  ]);
}

/** The routes, each of whose handlers throws `crossSite`'s refusal before it does anything. */
function sameSiteOnly(crossSite: CrossSiteRefusal, routes: Array<Route<Handler>>): Array<Route<Handler>> {
  return routes.map(({ handler, ...route }) => ({
    ...route,
    handler: (request) => {
      const refusal = crossSite(request.headers);
      if (refusal !== undefined) throw refusal;
      return handler(request);
    },
  }));
}

/** A body checked as a seed is, by the API's rules; every problem is reported in one 400. */
function checkedData(body: unknown, resources: ResourceMap): ReturnType<typeof checkSeed> {
  try {
    return checkSeed(body, resources);
  } catch (error) {
    if (!(error instanceof SeedError)) throw error;
    const errors = error.problems.map(fieldError);
    throw new HttpError("VALIDATION_FAILED", `The data is not valid: ${errors.length === 1 ? "1 problem" : `${errors.length} problems`}; nothing was changed`, { errors });
  }
}

/** A seed problem as a body's field error: its place (`users[0].email`) and what is wrong there. */
function fieldError(problem: string): { path: string; message: string } {
  // A seed problem that names a place starts with it: a collection, its index, then members.
  const place = /^([A-Za-z_$][\w$-]*\[\d+\](?:\.[^\s.]+)*) (.*)$/s.exec(problem);
  return place === null ? { path: "", message: problem } : { path: place[1]!, message: place[2]! };
}

/** `?limit=N`: the last N requests; every request held without it. */
function limitOf(query: URLSearchParams): number | undefined {
  const values = query.getAll("limit");
  if (values.length === 0) return undefined;
  const limit = values.length === 1 ? parseWholeNumber(values[0]!) : undefined;
  if (limit === undefined) throw new HttpError("INVALID_QUERY", "limit must be a non-negative whole number, given once");
  return limit;
}
