// The listener: one request from routing to its answer, behind the one error boundary.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
// Imported rather than read from the global, which Node makes a getter run on every use.
import { performance } from "node:perf_hooks";
import { type AccessOptions, hostCheck, isWrite, tokenCheck } from "./access.ts";
import { awaitBody, bodyBudget, bufferedBody, checkBodyFraming, checkBodyHeaders, ClientGoneError, DEFAULT_BODY_LIMIT } from "./body.ts";
import { parseJsonObject } from "../api/json.ts";
import { type CorsOrigins, createCorsPolicy, preflightHeaders } from "./cors.ts";
import { HttpError, PREFERRED_STATUS } from "../api/errors.ts";
import { StoreError } from "../store/errors.ts";
import type { BodyReader, Handler } from "../api/handler.ts";
import { parseId, parseStringId } from "../api/ids.ts";
import { clip } from "../api/input.ts";
import { inOrder } from "./in-order.ts";
import { lingerOnClose } from "./linger.ts";
import { createLogger, type Logger } from "../ops/log.ts";
import { redactQuery } from "../ops/redact.ts";
import { type Metrics } from "../ops/metrics.ts";
import { requestIdOf } from "./request-id.ts";
import { shortListText } from "../store/list-text.ts";
import { createPacer, DEFAULT_STALL_TIMEOUT, LONG_TEXT, type LongBody } from "./pieces.ts";
import { bodyText, internalErrorReply, send, sendLong, type SendOptions } from "./respond.ts";
import { type Reply } from "../api/reply.ts";
import { createRouter, type Match, pathOf } from "./router.ts";
import { type Route } from "../api/handler.ts";
import type { Awaitable } from "../store/seam.ts";
import type { RecordId } from "../store/records.ts";
import { appliedText, type Delay, drawDelay, readDelay, readPreferences } from "./prefer.ts";
import type { RequestLog } from "../ops/request-log.ts";

/**
 * Options of createListener: who may call, the body limit, CORS, shutdown, where errors go, the
 * handlers still served during shutdown or without a token, and the log and metrics requests are told to.
 */
export type ListenerOptions = AccessOptions & {
  /** The largest request body in bytes; larger ones get 413. */
  bodyLimit?: number;
  /**
   * How long a list written in pieces waits for its reader to take one before its connection
   * is closed, in ms (0: no limit); 30 s by default, startServer's request time-out.
   */
  stallTimeout?: number;
  /**
   * Which origins' pages may call the API and read the answers (CORS): pages on this machine
   * (`loopback`, the default), any (`*`), only those listed (`https://app.example.com`), or none
   * (`off`). A bad origin throws a TypeError.
   */
  corsOrigins?: CorsOrigins;
  /** Whether shutdown has begun: new requests then get 503 and `Connection: close`. */
  isDraining?: () => boolean;
  /** Where an unexpected error goes, with the request's id; stderr by default, in `logFormat`. */
  logError?: (error: unknown, requestLine: string, requestId: string) => void;
  servedWhileDraining?: ReadonlySet<Handler>;
  /** The handlers served without a token (the probes). */
  open?: ReadonlySet<Handler>;
  /** The handlers whose path id is a string id (parseStringId), not a whole number. */
  stringIds?: ReadonlySet<Handler>;
  logger?: Logger;
  metrics?: Metrics;
  /** Test control (`CONTROL=on`): requests may ask for a delay, an error status or a dropped connection with `Prefer`. */
  control?: boolean;
  /** How long every API answer waits, in ms, or a range to draw from (`{ min, max }`); none by default. */
  delay?: number | Delay;
  /** Where the API's requests are logged for `GET /__control/requests`; none by default. */
  requestLog?: RequestLog;
  /** The operations routes (probes, metrics) and the control routes: no delay or preference reaches them, and the log leaves them out. */
  quiet?: ReadonlySet<Handler>;
  /** The handlers that need a `write` token whatever their method, when tokens are configured: the control routes. */
  writeOnly?: ReadonlySet<Handler>;
  /** The POST handlers that take no body, so none is asked for: control's reset. */
  bodiless?: ReadonlySet<Handler>;
  /** Handlers that read their bodies' media type and bytes themselves (the json-server dialect), and how. */
  ownBodies?: { handlers: ReadonlySet<Handler>; read: BodyReader };
  /** How the `stringIds` routes read a path's ids; parseStringId by default, any text in json-server's dialect. */
  readStringId?: (text: string) => RecordId;
  /** The answer, in place of 405, to a method no route of a path takes: json-server's dialect answers 404. */
  unknownMethod?: Reply;
};

/**
 * A listener, and how to answer with an error, closing the connection, a request the server
 * refuses before it reaches the listener (an `Expect` it cannot meet, whose body is never read).
 */
export type Handlers = {
  listener: RequestListener;
  refuse: (request: IncomingMessage, response: ServerResponse, error: HttpError) => void;
};

/**
 * One request on its way to its answer. It carries what the answer, the access line and
 * the metrics need, so the functions that serve it are made once, not once per request.
 */
type Exchange = {
  request: IncomingMessage;
  response: ServerResponse;
  /** performance.now() when the request arrived. */
  started: number;
  /** Its id: a sane incoming `X-Request-Id`, or a new one. */
  id: string;
  /** The pattern of the route that matched, for the metrics; `none` until one does. */
  route: string;
  /** Whether the answer closes the connection whatever else holds: a request refused before routing. */
  close: boolean;
  /** How long its answer waits still, in ms: DELAY or `Prefer: delay` (0 without test control or a delay). */
  delay: number;
  /** The `Preference-Applied` value its answer carries, when it honoured a `Prefer`. */
  applied: string | undefined;
  /** Whether the request log holds it, once answered: an API request while the log is on. */
  logged: boolean;
  /** Its body's bytes, kept for the request log only. */
  body: Uint8Array | undefined;
};

const NO_BODY = Object.freeze({});
const NO_QUERY = new URLSearchParams();

/** What routing found for a request. */
type Found = Match<Handler>;

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
  const match = createRouter(routes);
  const readOptions = { limit: options.bodyLimit ?? DEFAULT_BODY_LIMIT };
  const readPatchOptions = { ...readOptions, patch: true };
  // The bodies being read now on every connection, bounded together as each is alone (body.ts).
  const bodies = bodyBudget(readOptions.limit);
  const stallTimeout = options.stallTimeout ?? DEFAULT_STALL_TIMEOUT;
  // Every answer too long to write at once goes through one scheduler, which bounds how many there are and how long each turn holds the loop.
  const pacer = createPacer();
  const isDraining = options.isDraining ?? never;
  const logger = options.logger ?? createLogger("off");
  const logError =
    options.logError ??
    ((error: unknown, requestLine: string, requestId: string) => logger.error(`Unexpected error while answering ${requestLine}`, requestId, error));
  const metrics = options.metrics;
  const accessLog = logger.format !== "off";
  const servedWhileDraining = options.servedWhileDraining ?? new Set();
  const cors = createCorsPolicy(options.corsOrigins ?? "loopback");
  // Who may call: the Host a request names (DNS rebinding), its token, and whether writes are taken at all.
  const checkHost = hostCheck(options.allowedHosts);
  const checkToken = tokenCheck(options);
  const readOnly = options.readOnly === true;
  const open = options.open ?? new Set();
  const stringIds = options.stringIds ?? new Set();
  // Test control and delays, looked at by one test per request when all are off (docs/testing-clients.md).
  const control = options.control === true;
  const delay = readDelay(options.delay);
  const requestLog = options.requestLog;
  const shaping = control || delay !== undefined || requestLog !== undefined;
  const quiet = options.quiet ?? new Set();
  const writeOnly = options.writeOnly ?? new Set();
  const bodiless = options.bodiless ?? new Set();
  const ownBodies = options.ownBodies;
  const unknownMethod = options.unknownMethod;
  const readStringId = options.readStringId ?? parseStringId;
  // The connections a `Prefer: fault=reset` dropped, whose queued requests are not carried out.
  // Fast path: counted, so that a server that never dropped one looks nothing up.
  const dropped = new WeakSet<object>();
  let drops = 0;
  // The patterns of the quiet routes: their OPTIONS and 405 answers are quiet too.
  const quietPatterns = new Set(routes.filter((route) => quiet.has(route.handler)).map((route) => route.pattern));

  // Fast path: answer and fail are made once here, not once per request: what a request needs
  // travels in their arguments, so serving a request builds no closures but those a
  // body read or a store that answers later needs
  // (docs/benchmarks.md, "Measurements behind fast paths in the code").
  /**
   * Sends a reply; returns true when its body goes out later, in pieces (a long list), and
   * the requests behind it on its connection wait until it has.
   */
  function answer(exchange: Exchange, reply: Reply): boolean {
    if (exchange.delay > 0) return answerLater(exchange, reply);
    const { request, response } = exchange;
    if (exchange.applied !== undefined) reply = { ...reply, headers: { ...reply.headers, "preference-applied": exchange.applied } };
    // During shutdown every answer closes its connection (docs/spec.md#7-configuration-and-process). An answer
    // sent before the whole body arrived also closes it, so no client can make
    // the server go on reading a body it has already refused.
    const unread = !request.complete && hasBody(request);
    if (unread) lingerOnClose(request.socket);
    // Every answer, errors included, carries the CORS headers of the request's origin;
    // here, where every answer passes, a request without Origin costs one header lookup.
    const headers = cors?.headersFor(request.headers.origin);
    const options = { head: request.method === "HEAD", close: unread || exchange.close || isDraining(), headers, requestId: exchange.id };
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
    answered(exchange, reply.status, send(response, reply, options, text));
    return false;
  }

  /**
   * Sends a reply too long to write at once through the scheduler of long answers (pieces.ts);
   * says whether it goes out later, holding back the requests behind it on its connection until
   * it has. With too many long answers in flight already, the request gets 503 instead.
   */
  function answerLong(exchange: Exchange, reply: Reply, body: LongBody, options: SendOptions): boolean {
    const { request, response } = exchange;
    // An answer whose pieces all go out in this call is answered now, like any other.
    let now = true;
    let done = false;
    const release = reply.release;
    const taken = sendLong(pacer, response, reply, body, options, stallTimeout, (bytes) => {
      release?.();
      answered(exchange, reply.status, bytes);
      done = true;
      if (!now) queue.proceed(request.socket);
    });
    now = false;
    if (taken) return !done;
    release?.();
    const busy = new HttpError("SERVER_BUSY", "Too many long answers are being written at once; retry in a second", { headers: { "retry-after": "1" } });
    answered(exchange, busy.status, send(response, busy.toReply(), options));
    return false;
  }

  /** Sends a reply once the request's delay has passed; the requests behind it on its connection wait for it. */
  function answerLater(exchange: Exchange, reply: Reply): true {
    const wait = exchange.delay;
    exchange.delay = 0;
    later(() => conclude(exchange, reply), wait);
    return true;
  }

  /** Counts and logs an answer once its bytes are written, or counts it gone (-1). */
  function answered(exchange: Exchange, status: number, bytes: number): void {
    if (bytes < 0) return gone(exchange);
    const { request } = exchange;
    if (exchange.logged) logRequest(exchange, status);
    const milliseconds = performance.now() - exchange.started;
    const method = request.method ?? "GET";
    metrics?.answered(method, exchange.route, status, milliseconds);
    if (accessLog) {
      const path = request.url ?? "/";
      logger.access({ method, path, status, bytes, milliseconds, requestId: exchange.id, remote: request.socket.remoteAddress });
    }
  }

  /** A request that will get no answer: its client hung up, its answer broke off, or it asked for a reset. */
  function gone(exchange: Exchange): void {
    metrics?.abandoned();
    if (exchange.logged) logRequest(exchange, null);
  }

  function logRequest(exchange: Exchange, status: number | null): void {
    const { request } = exchange;
    const time = new Date(performance.timeOrigin + exchange.started).toISOString();
    requestLog!.add({ method: request.method ?? "GET", path: request.url ?? "/", headers: request.headers, body: exchange.body, status, time });
  }

  /** Answers with the error a thrown value stands for; says whether the answer comes later (a delay). */
  function fail(exchange: Exchange, error: unknown): boolean {
    if (error instanceof HttpError) {
      return answer(exchange, error.toReply());
    } else if (error instanceof StoreError) {
      // The store's own refusals (full, or unable to keep writes) are catalogued codes too.
      return answer(exchange, new HttpError(error.code, error.message).toReply());
    } else if (error instanceof ClientGoneError) {
      // The client hung up mid-body: there is no one left to answer.
      gone(exchange);
    } else {
      const { request, response } = exchange;
      try {
        logError(error, `${request.method ?? "GET"} ${redactQuery(request.url ?? "/")}`, exchange.id);
      } catch {
        // A failing logger must not turn one failed request into a crashed process.
      }
      if (response.headersSent) {
        response.destroy();
        gone(exchange);
      } else return answer(exchange, internalErrorReply(exchange.id));
    }
    return false;
  }

  /**
   * Ends a request answered later (its body was read, or its store answered), then serves
   * the requests that arrived behind it on its connection.
   */
  function conclude(exchange: Exchange, reply: Reply | undefined, error?: unknown): void {
    let later = false;
    try {
      later = reply !== undefined ? answer(exchange, reply) : fail(exchange, error);
    } catch (thrown) {
      later = fail(exchange, thrown);
    } finally {
      // An answer written in pieces serves what waits behind it once it is written.
      if (!later) queue.proceed(exchange.request.socket);
    }
  }

  /** Concludes a request answered later with its reply: now, or once its store has answered. */
  function concludeWith(exchange: Exchange, reply: Awaitable<Reply>): void {
    if (!(reply instanceof Promise)) return conclude(exchange, reply);
    reply.then(
      (value) => conclude(exchange, value),
      (error: unknown) => conclude(exchange, undefined, error),
    );
  }

  /** Sends a reply now, or once a store that answers later has answered; says which (true: later). */
  function deliver(exchange: Exchange, reply: Awaitable<Reply>): boolean {
    if (reply instanceof Promise) {
      concludeWith(exchange, reply);
      return true;
    }
    return answer(exchange, reply);
  }

  /**
   * Answers one request. Returns true when the answer comes later, because its body is still
   * being read, its store answers later or its list is written in pieces; the queue then serves
   * what waits behind it once it is answered.
   */
  function handle(exchange: Exchange): boolean {
    const { request } = exchange;
    const method = request.method ?? "GET";
    const url = request.url ?? "/";
    // A request queued behind one that dropped its connection (Prefer: fault=reset) is not carried
    // out. One whose client merely hung up still is, having arrived whole (docs/decisions.md, "Speed").
    if (drops !== 0 && dropped.has(request.socket)) {
      gone(exchange);
      return false;
    }
    const found = match(method, url);
    if (found.kind !== "not-found") exchange.route = found.pattern;
    // An API request may be slowed, shaped and logged; the operations and control routes never are, nor a 503 of shutdown.
    const api = shaping && !(found.kind !== "not-found" && quietPatterns.has(found.pattern)) && !isDraining();
    if (api) {
      exchange.logged = requestLog !== undefined;
      if (delay !== undefined) exchange.delay = drawDelay(delay);
    }
    // Who may call comes first: a Host not allowed, then a missing or wrong token.
    const refusal = admit(request, method, found);
    if (refusal !== undefined) return fail(exchange, refusal);
    // What a request asks for with Prefer, honoured only with test control on (docs/spec.md#15-test-control).
    if (api && control) {
      const preferences = readPreferences(header(request.headers.prefer));
      if (preferences !== undefined) {
        exchange.applied = appliedText(preferences);
        if (preferences.delay !== undefined) exchange.delay = preferences.delay;
        if (preferences.fault === "reset") return dropLater(exchange);
        if (preferences.status !== undefined) return answer(exchange, preferredError(preferences.status));
      }
    }
    if (found.kind !== "found") return answerUnrouted(exchange, method, url, found);
    if (isDraining() && !servedWhileDraining.has(found.handler)) {
      return fail(exchange, new HttpError("SHUTTING_DOWN", "Server is shutting down; retry on a new connection"));
    }
    if (readOnly && isWrite(method)) {
      return fail(exchange, new HttpError("READ_ONLY", "This server is read-only: it stores no writes"));
    }
    try {
      return run(exchange, found.handler, found.params, url);
    } catch (error) {
      return fail(exchange, error);
    }
  }

  /**
   * Drops a request's connection without an answer (`Prefer: fault=reset`), once its delay has
   * passed; the request is not carried out. Says whether that comes later.
   */
  function dropLater(exchange: Exchange): boolean {
    const wait = exchange.delay;
    exchange.delay = 0;
    if (wait === 0) {
      drop(exchange);
      return false;
    }
    later(() => {
      drop(exchange);
      // What was pipelined behind it finds its connection gone, and is counted so.
      queue.proceed(exchange.request.socket);
    }, wait);
    return true;
  }

  /** Drops a request's connection, as a reset does, for a client that must survive one. */
  function drop(exchange: Exchange): void {
    const socket = exchange.request.socket as typeof exchange.request.socket & { resetAndDestroy?: () => void };
    dropped.add(socket);
    drops++;
    // A TCP reset where the runtime can send one (Node), a plain close elsewhere.
    if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
    else socket.destroy();
    gone(exchange);
  }

  /** Answers a request no handler takes: an unknown path (404), OPTIONS (204, or a CORS preflight), another method (405). */
  function answerUnrouted(exchange: Exchange, method: string, url: string, found: Exclude<Found, { kind: "found" }>): boolean {
    if (found.kind === "not-found") {
      return fail(exchange, new HttpError("ROUTE_NOT_FOUND", `No route for ${clip(method)} ${clip(pathOf(url, { keepSlash: true }))}`));
    }
    exchange.route = found.pattern;
    if (isDraining()) {
      return fail(exchange, new HttpError("SHUTTING_DOWN", "Server is shutting down; retry on a new connection"));
    } else if (found.kind === "options") {
      // A CORS preflight (Fetch standard, section 3.2.2) from an allowed origin also
      // learns what it may send; any other OPTIONS, or one from an origin not allowed, gets Allow alone.
      const origin = exchange.request.headers.origin;
      const preflight = cors !== undefined && origin !== undefined && isPreflight(exchange.request) && cors.allows(origin);
      return answer(exchange, { status: 204, headers: preflight ? preflightHeaders(found.allow) : { allow: found.allow } });
    }
    if (unknownMethod !== undefined) return answer(exchange, unknownMethod);
    const message = `Method ${clip(method)} is not allowed here; use ${found.allow}`;
    return fail(exchange, new HttpError("METHOD_NOT_ALLOWED", message, { headers: { allow: found.allow } }));
  }

  /**
   * Runs a request's handler: its path ids checked, then its query, then, for a write, its body
   * (the order of docs/spec.md#3-request-bodies); says whether the answer comes later. Throws what the checks refuse.
   */
  function run(exchange: Exchange, handler: Handler, found: Record<string, string>, url: string): boolean {
    const { request } = exchange;
    const params: Record<string, RecordId> = {};
    // Every path parameter of this API is an id (docs/spec.md#path-ids), checked before the body.
    for (const name in found) params[name] = stringIds.size !== 0 && stringIds.has(handler) ? readStringId(found[name]!) : parseId(found[name]!);
    const queryStart = url.indexOf("?");
    const query = queryStart === -1 ? NO_QUERY : new URLSearchParams(url.slice(queryStart + 1));
    const headers = request.headers;
    const method = request.method;
    if ((method !== "POST" && method !== "PUT" && method !== "PATCH") || (bodiless.size !== 0 && bodiless.has(handler))) {
      return deliver(exchange, handler({ params, query, body: NO_BODY, headers }));
    }
    const options = method === "PATCH" ? readPatchOptions : readOptions;
    const read = ownBodies !== undefined && ownBodies.handlers.has(handler) ? ownBodies.read : undefined;
    if (read === undefined) checkBodyHeaders(request, options);
    else checkBodyFraming(request, options);
    // A pipelined request's body has often arrived whole by the time it is served: it is answered now.
    const arrived = bufferedBody(request);
    if (exchange.logged) exchange.body = arrived;
    if (arrived !== undefined) return deliver(exchange, handler({ params, query, body: read === undefined ? parseJsonObject(arrived) : read(arrived, headers), headers }));
    awaitBody(request, options.limit, bodies, (error, bytes) => {
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
   * The refusal of a request that may not be served at all, before routing answers it: a Host
   * not allowed (docs/spec.md#13-access-and-limits), then, with tokens, a missing, unknown or read-only token. The
   * probes and CORS preflights (which browsers send without credentials) need no token.
   */
  function admit(request: IncomingMessage, method: string, found: Found): HttpError | undefined {
    const hostRefusal = checkHost?.(request.headers.host);
    if (hostRefusal !== undefined || checkToken === undefined) return hostRefusal;
    if (found.kind === "found" && open.has(found.handler)) return undefined;
    if (found.kind === "options" && isPreflight(request)) return undefined;
    return checkToken(request.headers.authorization, isWrite(method) || (found.kind === "found" && writeOnly.has(found.handler)));
  }

  function arrive(request: IncomingMessage, response: ServerResponse): Exchange {
    metrics?.arrived();
    return {
      request,
      response,
      started: performance.now(),
      id: requestIdOf(request.headers["x-request-id"]),
      route: "none",
      close: false,
      delay: 0,
      applied: undefined,
      logged: false,
      body: undefined,
    };
  }

  // Pipelined requests are answered in order: what arrives behind a request answered later waits for it.
  const queue = inOrder(handle);

  function listener(request: IncomingMessage, response: ServerResponse): void {
    queue.serve(arrive(request, response));
  }

  function refuse(request: IncomingMessage, response: ServerResponse, error: HttpError): void {
    const exchange = arrive(request, response);
    exchange.close = true;
    const found = match(request.method ?? "GET", request.url ?? "/");
    exchange.logged = requestLog !== undefined && !(found.kind !== "not-found" && quietPatterns.has(found.pattern));
    fail(exchange, error);
  }

  return { listener, refuse };
}

/** A header's value as one text: node:http joins a repeated `Prefer` with commas already, and a list, which its type allows, is joined so too. */
function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

/** The answer to `Prefer: status=NNN`: that status, with the error shape. */
function preferredError(status: number): Reply {
  const message = `Answered ${status} because the request asked for it with Prefer: status=${status}; nothing was read or changed`;
  return { status, body: { message, code: PREFERRED_STATUS } };
}

/** Runs `work` after `wait` ms, on a timer that keeps no process alive: a server's own handle does, and an app closed owes nothing. */
function later(work: () => void, wait: number): void {
  setTimeout(work, wait).unref?.();
}

/** Whether an OPTIONS request is a CORS preflight: it names an origin and the method it asks for. */
function isPreflight(request: IncomingMessage): boolean {
  return request.headers.origin !== undefined && request.headers["access-control-request-method"] !== undefined;
}

/** Whether the request announced a body (a non-zero length, or chunked). */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

function never(): boolean {
  return false;
}
