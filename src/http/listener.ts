// The listener: one request from routing to its answer, behind the one error boundary. Each step is
// a function of its own, at module level: what a request needs travels in its exchange, and what
// the listener was made with in the exchange's `serving` (serving.ts).
import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { answered, gone } from "./accounting.ts";
import { isWrite } from "./access.ts";
import { answerLong } from "./answer-long.ts";
import { checkBodyFraming, checkBodyHeaders, ClientGoneError } from "./body.ts";
import { parseJsonObject } from "../api/json.ts";
import { preflightHeaders } from "./cors.ts";
import { HttpError } from "../api/errors.ts";
import { StoreError } from "../store/errors.ts";
import type { Handler, Route } from "../api/handler.ts";
import { parseId } from "../api/ids.ts";
import { clip } from "../api/input.ts";
import { dropLater, later, preferredError } from "./faults.ts";
import { inOrder } from "./in-order.ts";
import { nodeFront } from "./node-front.ts";
import { redactQuery } from "../ops/redact.ts";
import { shortListText } from "../store/list-text.ts";
import { LONG_TEXT } from "./pieces.ts";
import { bodyText, internalErrorReply } from "./respond.ts";
import type { Reply } from "../api/reply.ts";
import { pathOf } from "./router.ts";
import { arrive, type Exchange, type Found, type ListenerOptions, servingOf } from "./serving.ts";
import type { Awaitable } from "../store/seam.ts";
import type { RecordId } from "../store/records.ts";
import { appliedText, drawDelay, readPreferences } from "./prefer.ts";

export type { ListenerOptions } from "./serving.ts";

/**
 * A listener, and how to answer with an error, closing the connection, a request the server
 * refuses before it reaches the listener (an `Expect` it cannot meet, whose body is never read).
 */
export type Handlers = {
  listener: RequestListener;
  refuse: (request: IncomingMessage, response: ServerResponse, error: HttpError) => void;
};

const NO_BODY = Object.freeze({});
const NO_QUERY = new URLSearchParams();

/**
 * Turns a route table into a request listener: routing (404, 405, OPTIONS, HEAD),
 * path ids, body checks, then the handler. Every throw ends here: an HttpError
 * becomes its JSON answer; anything else is logged and becomes a 500, and the
 * server goes on serving.
 */
export function createListener(routes: readonly Route<Handler>[], options: ListenerOptions = {}): RequestListener {
  return createHandlers(routes, options).listener;
}

/** createListener's work, exported for createApi: the listener, and the refusal of a request before routing, which shares its log and metrics. */
export function createHandlers(routes: readonly Route<Handler>[], options: ListenerOptions): Handlers {
  // Pipelined requests are answered in order: what arrives behind a request answered later waits for it.
  const serving = servingOf(routes, options, nodeFront, () => inOrder(handle));

  function listener(request: IncomingMessage, response: ServerResponse): void {
    serving.queue.serve(arrive(serving, request, response, request.method ?? "GET", request.url ?? "/", request.headers));
  }

  function refuse(request: IncomingMessage, response: ServerResponse, error: HttpError): void {
    refuseExchange(arrive(serving, request, response, request.method ?? "GET", request.url ?? "/", request.headers), error);
  }

  return { listener, refuse };
}

/** Answers with an error, closing the connection, a request refused before routing; it shares the log and the metrics. */
export function refuseExchange<R, S>(exchange: Exchange<R, S>, error: HttpError): void {
  const { serving } = exchange;
  exchange.close = true;
  const found = serving.match(exchange.method, exchange.url);
  exchange.logged = serving.requestLog !== undefined && !(found.kind !== "not-found" && serving.quietPatterns.has(found.pattern));
  fail(exchange, error);
}

/**
 * Answers one request, in its turn on its connection. Returns true when the answer comes later,
 * because its body is still being read, its store answers later or its list is written in pieces;
 * the queue then serves what waits behind it once it is answered.
 */
export function handle<R, S>(exchange: Exchange<R, S>): boolean {
  const { method, url, serving } = exchange;
  // A request queued behind one that dropped its connection (Prefer: fault=reset) is not carried
  // out. One whose client merely hung up still is, having arrived whole (docs/decisions.md, "Speed").
  if (serving.drops !== 0 && serving.dropped.has(serving.front.connection(exchange))) {
    gone(exchange);
    return false;
  }
  const found = serving.match(method, url);
  if (found.kind !== "not-found") exchange.route = found.pattern;
  // An API request may be slowed, shaped and logged; the operations and control routes never are, nor a 503 of shutdown.
  const api = serving.shaping && !(found.kind !== "not-found" && serving.quietPatterns.has(found.pattern)) && !serving.isDraining();
  if (api) {
    exchange.logged = serving.requestLog !== undefined;
    if (serving.delay !== undefined) exchange.delay = drawDelay(serving.delay);
  }
  // Who may call comes first: a Host not allowed, then a missing or wrong token.
  const refusal = admit(exchange, method, found);
  if (refusal !== undefined) return fail(exchange, refusal);
  // What a request asks for with Prefer, honoured only with test control on (docs/spec.md#15-test-control).
  if (api && serving.control) {
    const preferences = readPreferences(header(exchange.headers.prefer));
    if (preferences !== undefined) {
      exchange.applied = appliedText(preferences);
      if (preferences.delay !== undefined) exchange.delay = preferences.delay;
      if (preferences.fault === "reset") return dropLater(exchange);
      if (preferences.status !== undefined) return answer(exchange, preferredError(preferences.status));
    }
  }
  if (found.kind !== "found") return answerUnrouted(exchange, method, url, found);
  if (serving.isDraining() && !serving.servedWhileDraining.has(found.handler)) {
    return fail(exchange, new HttpError("SHUTTING_DOWN", "Server is shutting down; retry on a new connection"));
  }
  if (serving.readOnly && isWrite(method)) {
    return fail(exchange, new HttpError("READ_ONLY", "This server is read-only: it stores no writes"));
  }
  try {
    return run(exchange, found.handler, found.params, url);
  } catch (error) {
    return fail(exchange, error);
  }
}

/**
 * The refusal of a request that may not be served at all, before routing answers it: a Host
 * not allowed (docs/spec.md#13-access-and-limits), then, with tokens, a missing, unknown or read-only token. The
 * probes and CORS preflights (which browsers send without credentials) need no token.
 */
function admit<R, S>(exchange: Exchange<R, S>, method: string, found: Found): HttpError | undefined {
  const { headers, serving } = exchange;
  const hostRefusal = serving.checkHost?.(headers.host);
  if (hostRefusal !== undefined || serving.checkToken === undefined) return hostRefusal;
  if (found.kind === "found" && serving.open.has(found.handler)) return undefined;
  if (found.kind === "options" && isPreflight(headers)) return undefined;
  return serving.checkToken(headers.authorization, isWrite(method) || (found.kind === "found" && serving.writeOnly.has(found.handler)));
}

/** Answers a request no handler takes: an unknown path (404), OPTIONS (204, or a CORS preflight), another method (405). */
function answerUnrouted<R, S>(exchange: Exchange<R, S>, method: string, url: string, found: Exclude<Found, { kind: "found" }>): boolean {
  const { serving } = exchange;
  if (found.kind === "not-found") {
    return fail(exchange, new HttpError("ROUTE_NOT_FOUND", `No route for ${clip(method)} ${clip(pathOf(url, { keepSlash: true }))}`));
  }
  exchange.route = found.pattern;
  if (serving.isDraining()) {
    return fail(exchange, new HttpError("SHUTTING_DOWN", "Server is shutting down; retry on a new connection"));
  } else if (found.kind === "options") {
    // A CORS preflight (Fetch standard, section 3.2.2) from an allowed origin also
    // learns what it may send; any other OPTIONS, or one from an origin not allowed, gets Allow alone.
    const origin = exchange.headers.origin;
    const preflight = serving.cors !== undefined && origin !== undefined && isPreflight(exchange.headers) && serving.cors.allows(origin);
    return answer(exchange, { status: 204, headers: preflight ? preflightHeaders(found.allow) : { allow: found.allow } });
  }
  if (serving.unknownMethod !== undefined) return answer(exchange, serving.unknownMethod);
  const message = `Method ${clip(method)} is not allowed here; use ${found.allow}`;
  return fail(exchange, new HttpError("METHOD_NOT_ALLOWED", message, { headers: { allow: found.allow } }));
}

/**
 * Runs a request's handler: its path ids checked, then its query, then, for a write, its body
 * (the order of docs/spec.md#3-request-bodies); says whether the answer comes later. Throws what the checks refuse.
 */
function run<R, S>(exchange: Exchange<R, S>, handler: Handler, found: Record<string, string>, url: string): boolean {
  const { method, headers, serving } = exchange;
  const params: Record<string, RecordId> = {};
  // Every path parameter of this API is an id (docs/spec.md#path-ids), checked before the body.
  const stringIds = serving.stringIds.size !== 0 && serving.stringIds.has(handler);
  for (const name in found) params[name] = stringIds ? serving.readStringId(found[name]!) : parseId(found[name]!);
  const queryStart = url.indexOf("?");
  const query = queryStart === -1 ? NO_QUERY : new URLSearchParams(url.slice(queryStart + 1));
  if ((method !== "POST" && method !== "PUT" && method !== "PATCH") || (serving.bodiless.size !== 0 && serving.bodiless.has(handler))) {
    return deliver(exchange, handler({ params, query, body: NO_BODY, headers }));
  }
  const options = method === "PATCH" ? serving.readPatchOptions : serving.readOptions;
  const read = serving.ownBodies !== undefined && serving.ownBodies.handlers.has(handler) ? serving.ownBodies.read : undefined;
  if (read === undefined) checkBodyHeaders(headers, options);
  else checkBodyFraming(headers, options);
  // A pipelined request's body has often arrived whole by the time it is served: it is answered now.
  const arrived = serving.front.arrivedBody(exchange);
  if (exchange.logged) exchange.body = arrived;
  if (arrived !== undefined) return deliver(exchange, handler({ params, query, body: read === undefined ? parseJsonObject(arrived) : read(arrived, headers), headers }));
  serving.front.readBody(exchange, options.limit, serving.bodies, (error, bytes) => {
    if (error !== undefined) return conclude(exchange, undefined, error);
    if (exchange.logged) exchange.body = bytes;
    let reply: Awaitable<Reply>;
    try {
      reply = handler({ params, query, body: read === undefined ? parseJsonObject(bytes) : read(bytes, headers), headers });
    } catch (thrown) {
      return conclude(exchange, undefined, thrown);
    }
    // Outside the try: what conclude() serves next on the connection is not this request's to fail.
    concludeWith(exchange, reply);
  });
  return true;
}

/**
 * Sends a reply; returns true when its body goes out later, in pieces (a long list), and
 * the requests behind it on its connection wait until it has.
 */
function answer<R, S>(exchange: Exchange<R, S>, reply: Reply): boolean {
  if (exchange.delay > 0) return answerLater(exchange, reply);
  const { serving } = exchange;
  if (exchange.applied !== undefined) reply = { ...reply, headers: { ...reply.headers, "preference-applied": exchange.applied } };
  // During shutdown every answer closes its connection (docs/spec.md#7-configuration-and-process). An answer
  // sent before the whole body arrived also closes it, so no client can make
  // the server go on reading a body it has already refused.
  const unread = serving.front.leavesBodyUnread(exchange);
  // Every answer, errors included, carries the CORS headers of the request's origin;
  // here, where every answer passes, a request without Origin costs one header lookup.
  const headers = serving.cors?.headersFor(exchange.headers.origin);
  const options = { head: exchange.method === "HEAD", close: unread || exchange.close || serving.isDraining(), headers, requestId: exchange.id };
  // A long list is written in pieces, so that it holds neither the event loop nor its whole text (pieces.ts).
  if (reply.json === undefined && Array.isArray(reply.body) && reply.body.length > 1) {
    const text = shortListText(reply.body);
    if (text === undefined) return answerLong(exchange, reply, reply.body, options);
    // The list's text is made: the store may count its records gone (store/memory/holds.ts).
    reply.release?.();
    reply = { ...reply, json: text };
  }
  const text = bodyText(reply);
  // So is a text longer than any record, a snapshot or the request log, so that a reader who stops cannot hold it for ever.
  if (text !== undefined && text.length > LONG_TEXT && !options.head) return answerLong(exchange, reply, text, options);
  answered(exchange, reply.status, serving.front.send(exchange, reply, options, text));
  return false;
}

/** Sends a reply once the request's delay has passed; the requests behind it on its connection wait for it. */
function answerLater<R, S>(exchange: Exchange<R, S>, reply: Reply): true {
  const wait = exchange.delay;
  exchange.delay = 0;
  later(() => conclude(exchange, reply), wait);
  return true;
}

/** Answers with the error a thrown value stands for; says whether the answer comes later (a delay). */
function fail<R, S>(exchange: Exchange<R, S>, error: unknown): boolean {
  if (error instanceof HttpError) {
    return answer(exchange, error.toReply());
  } else if (error instanceof StoreError) {
    // The store's own refusals (full, or unable to keep writes) are catalogued codes too.
    return answer(exchange, new HttpError(error.code, error.message).toReply());
  } else if (error instanceof ClientGoneError) {
    // The client hung up mid-body: there is no one left to answer.
    gone(exchange);
  } else {
    try {
      exchange.serving.logError(error, `${exchange.method} ${redactQuery(exchange.url)}`, exchange.id);
    } catch {
      // A failing logger must not turn one failed request into a crashed process.
    }
    if (exchange.serving.front.breakOff(exchange)) gone(exchange);
    else return answer(exchange, internalErrorReply(exchange.id));
  }
  return false;
}

/**
 * Ends a request answered later (its body was read, or its store answered), then serves
 * the requests that arrived behind it on its connection.
 */
function conclude<R, S>(exchange: Exchange<R, S>, reply: Reply | undefined, error?: unknown): void {
  let later = false;
  try {
    later = reply !== undefined ? answer(exchange, reply) : fail(exchange, error);
  } catch (thrown) {
    later = fail(exchange, thrown);
  } finally {
    // An answer written in pieces serves what waits behind it once it is written.
    if (!later) exchange.serving.queue.proceed(exchange.serving.front.connection(exchange));
  }
}

/** Concludes a request answered later with its reply: now, or once its store has answered. */
function concludeWith<R, S>(exchange: Exchange<R, S>, reply: Awaitable<Reply>): void {
  if (!(reply instanceof Promise)) return conclude(exchange, reply);
  reply.then(
    (value) => conclude(exchange, value),
    (error: unknown) => conclude(exchange, undefined, error),
  );
}

/** Sends a reply now, or once a store that answers later has answered; says which (true: later). */
function deliver<R, S>(exchange: Exchange<R, S>, reply: Awaitable<Reply>): boolean {
  if (reply instanceof Promise) {
    concludeWith(exchange, reply);
    return true;
  }
  return answer(exchange, reply);
}

/** A header's value as one text: node:http joins a repeated `Prefer` with commas already, and a list, which its type allows, is joined so too. */
function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

/** Whether an OPTIONS request is a CORS preflight: it names an origin and the method it asks for. */
function isPreflight(headers: IncomingHttpHeaders): boolean {
  return headers.origin !== undefined && headers["access-control-request-method"] !== undefined;
}
