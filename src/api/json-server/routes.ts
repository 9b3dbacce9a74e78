// The dialect's routes: json-server's paths, methods, statuses and bodies over its data.
// Every path of one to three segments is taken by the dialect for every method, so that what
// json-server answers 404 (`POST /posts/1`, `PUT /posts`) is answered here, not by the router.
import { HttpError } from "../errors.ts";
import { clip } from "../input.ts";
import type { ApiRoute, Handler, HandlerRequest } from "../handler.ts";
import type { JsonObject } from "../json.ts";
import type { Reply } from "../reply.ts";
import { andThen, type Awaitable } from "../../store/seam.ts";
import { NOT_AN_OBJECT } from "./body.ts";
import type { JsonServerDb } from "./database.ts";
import { homePage, homeScript, homeStyle } from "./home.ts";
import { listReply, related } from "./lists.ts";
import { foreignKey } from "./names.ts";
import { readListQuery } from "./query.ts";

/** The longest `_delay` honoured, in ms: longer ones wait this long. */
export const MOST_DELAY = 30_000;

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const PATTERNS = ["/:a", "/:a/:b", "/:a/:b/:c"] as const;

/** json-server's headers on every answer it makes: no caching. */
const NO_CACHE = { "cache-control": "no-cache", pragma: "no-cache", expires: "-1" };

/** The dialect's route table over its data; every handler reads its body with readDialectBody. */
export function jsonServerRoutes(db: JsonServerDb): ApiRoute[] {
  const custom = (operationId: string, summary: string) => ({ kind: "custom" as const, doc: { operationId, summary, tag: { name: "json-server", description: "json-server's API" }, answer: { description: summary, name: operationId, schema: {} } } });
  const routes: ApiRoute[] = [
    { method: "GET", pattern: "/", operation: custom("home", "The home page"), handler: (request) => delayed(request, () => homePage(db.names())) },
    { method: "GET", pattern: "/db", operation: custom("db", "Every collection and singular resource"), handler: (request) => delayed(request, () => ({ status: 200, body: db.whole() })) },
    { method: "GET", pattern: "/style.css", operation: custom("style", "The home page's styles"), handler: () => homeStyle() },
    { method: "GET", pattern: "/script.js", operation: custom("script", "The home page's script"), handler: () => homeScript() },
  ];
  for (const method of METHODS.slice(1)) routes.push({ method, pattern: "/", operation: custom(`${method}-home`, "Not found"), handler: () => routeNotFound() });
  for (const pattern of PATTERNS) {
    for (const method of METHODS) {
      const handler: Handler = (request) => delayed(request, () => answer(db, method, segments(request), request));
      routes.push({ method, pattern, operation: custom(`${method}-${pattern}`, "json-server's API"), handler, stringIds: true });
    }
  }
  return routes;
}

/** The dialect's handlers, whose bodies are read as json-server reads them. */
export function dialectHandlers(routes: readonly ApiRoute[]): Handler[] {
  return routes.filter((route) => route.method === "POST" || route.method === "PUT" || route.method === "PATCH").map((route) => route.handler);
}

function segments({ params }: HandlerRequest): string[] {
  return [params.a, params.b, params.c].filter((segment) => segment !== undefined).map(String);
}

/** The reply, after `_delay` ms when the query asks (at most MOST_DELAY), with json-server's no-cache headers. */
function delayed(request: HandlerRequest, make: () => Awaitable<Reply>): Awaitable<Reply> {
  const asked = Number.parseInt(request.query.get("_delay") ?? "", 10);
  const reply = Number.isFinite(asked) && asked > 0 ? wait(Math.min(asked, MOST_DELAY)).then(make) : make();
  return andThen(reply, (made) => ({ ...made, headers: { ...NO_CACHE, ...made.headers } }));
}

function wait(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/**
 * A path segment as json-server reads it: any text, percent-decoded, since a db.json's ids (and
 * paths such as `/favicon.ico`) are not bound to the native API's id characters. What is not
 * valid percent-encoding is a 400, as Express answers it.
 */
export function readSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch (cause) {
    throw new HttpError("INVALID_ID", `A path segment must be valid percent-encoding, not "${clip(text)}"`, { cause });
  }
}

/** What a method no route takes gets, as json-server answers it (an unknown method is a path it has no route for). */
export function unknownMethod(): Reply {
  return { ...routeNotFound(), headers: { ...NO_CACHE } };
}

/** A path json-server has no route for: 1.0's body (0.17 sends an HTML page). */
function routeNotFound(): Reply {
  return { status: 404, body: { error: "Not Found" } };
}

/** A record json-server does not hold: 0.17's empty object. */
function recordNotFound(): Reply {
  return { status: 404, body: {} };
}

function notAnObject(): Reply {
  return { status: 400, body: { error: "Body must be a JSON object" } };
}

function answer(db: JsonServerDb, method: string, path: string[], request: HandlerRequest): Awaitable<Reply> {
  const [name = "", id, child] = path;
  const { query, body } = request;
  const collection = db.isCollection(name);
  const singular = !collection && db.singular(name) !== undefined;
  if (body === NOT_AN_OBJECT && (collection || singular)) return notAnObject();
  if (path.length === 1 && singular) {
    if (method === "GET") return { status: 200, body: db.singular(name) };
    // 0.17 answers a POST to a singular resource by replacing it, with 201.
    if (method === "POST") return { status: 201, body: db.setSingular(name, body, false) };
    if (method === "PUT" || method === "PATCH") return { status: 200, body: db.setSingular(name, body, method === "PATCH") };
    return routeNotFound();
  }
  if (!collection) return routeNotFound();
  if (path.length === 1) {
    if (method === "GET") return listReply(db, name, readListQuery(query), undefined, pageLink(request, path));
    if (method === "POST") return create(db, name, body);
    return routeNotFound();
  }
  if (path.length === 2) {
    const record = db.find(name, id!);
    if (method === "POST") return routeNotFound();
    if (record === undefined) return recordNotFound();
    if (method === "GET") {
      const { embed, expand } = readListQuery(query);
      return { status: 200, body: related(db, name, record, { embed, expand }) };
    }
    if (method === "DELETE") {
      db.remove(name, id!);
      return { status: 200, body: {} };
    }
    return { status: 200, body: db.update(name, id!, body, method === "PATCH") };
  }
  // /posts/1/comments: the comments whose postId is 1, listed or created.
  if (!db.isCollection(child!)) return routeNotFound();
  const key = foreignKey(name);
  if (method === "GET") return listReply(db, child!, readListQuery(query), { path: [key], values: [id!] }, pageLink(request, path));
  if (method === "POST") return create(db, child!, { ...body, [key]: id });
  return routeNotFound();
}

function create(db: JsonServerDb, name: string, body: JsonObject): Reply {
  const { id } = body;
  if (id !== undefined && id !== null && typeof id !== "string" && typeof id !== "number") {
    throw new HttpError("VALIDATION_FAILED", "A record's id is a string or a number", { errors: [{ path: "id", message: "must be a string or a number" }] });
  }
  const record = db.create(name, body);
  if (record === "taken") throw new HttpError("ID_CONFLICT", `${name} already holds a record with id ${JSON.stringify(id)}; leave id out for a new one`);
  return {
    status: 201,
    body: record,
    headers: { location: `/${name}/${encodeURIComponent(String(record.id))}`, "access-control-expose-headers": "Location" },
  };
}

/** The URL of another page of this list, as 0.17's Link header gives it: this request's, with `_page` set. */
function pageLink(request: HandlerRequest, path: string[]): (page: number) => string {
  return (page) => {
    const query = new URLSearchParams(request.query);
    query.set("_page", String(page));
    const host = request.headers.host ?? "localhost";
    return `http://${host}/${path.map(encodeURIComponent).join("/")}?${query}`;
  };
}
