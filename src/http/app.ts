// createApp: the API as a node:http request listener, behind the one error boundary.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
// Imported rather than read from the global, which Node makes a getter run on every use.
import { performance } from "node:perf_hooks";
import { type AccessOptions, hostCheck, isWrite, tokenCheck } from "./access.ts";
import { awaitBody, bufferedBody, checkBodyHeaders, ClientGoneError, DEFAULT_BODY_LIMIT } from "./body.ts";
import { parseJsonObject } from "../api/json.ts";
import { type CorsOrigins, createCorsPolicy, preflightHeaders } from "./cors.ts";
import { HttpError } from "../api/errors.ts";
import { StoreError } from "../store/errors.ts";
import type { ApiRoute, Handler } from "../api/handler.ts";
import { buildOpenApiDocument, type OpenApiDocument } from "../openapi/document.ts";
import { parseId } from "../api/ids.ts";
import { clip } from "../api/input.ts";
import { lingerOnClose } from "./linger.ts";
import { createLogger, LOG_FORMATS, type Logger, type LogFormat } from "../ops/log.ts";
import { createMetrics, type Metrics } from "../ops/metrics.ts";
import { requestIdOf } from "./request-id.ts";
import { metricsRoutes } from "../ops/metrics-route.ts";
import { shortListText } from "../store/list-text.ts";
import { internalErrorReply, send, sendInPieces } from "./respond.ts";
import { type Reply } from "../api/reply.ts";
import { resourceRoutes } from "../api/routes.ts";
import { healthRoutes } from "../ops/health.ts";
import { openApiRoutes } from "../openapi/route.ts";
import { createDataSet, type DataSet } from "../api/dataset.ts";
import { refuseUnknownOptions } from "../api/options.ts";
import { createRouter, pathOf } from "./router.ts";
import { type Route } from "../api/handler.ts";
import type { Awaitable } from "../store/seam.ts";
import { COLLECTIONS, type Seed } from "../store/records.ts";

/** Options of createApp and createListener; every one has a default. */
export type AppOptions = AccessOptions & {
  /** The largest request body in bytes; larger ones get 413. */
  bodyLimit?: number;
  /**
   * Which origins' pages may call the API and read the answers (CORS): pages on this machine
   * (`loopback`, the default), any (`*`), only those listed (`https://app.example.com`), or none
   * (`off`). A bad origin throws a TypeError.
   */
  corsOrigins?: CorsOrigins;
  /** The most the records may cost, in bytes as the store counts them (64 MiB); a write past it gets 507. */
  storeLimit?: number;
  /** Whether shutdown has begun: new requests then get 503 and `Connection: close`. */
  isDraining?: () => boolean;
  /** Where an unexpected error goes, with the request's id; stderr by default, in `logFormat`. */
  logError?: (error: unknown, requestLine: string, requestId: string) => void;
  /**
   * The access log, one line per answered request on stdout: `json`, `text`, or `off` (the
   * default, so that an app embedded in a test stays quiet). Errors go to stderr in this format.
   */
  logFormat?: LogFormat;
  /** Whether `GET /metrics` serves the instance's metrics (Prometheus text format); true by default. */
  metrics?: boolean;
  /** The records to start with instead of the two seeded users; checked by the API's rules (throws a SeedError). */
  seed?: Seed;
  /** Where `createdAt` comes from, so a test can fix it; the current time by default. */
  clock?: () => Date;
};

// Every name AppOptions has, so that a misspelt option is refused instead of ignored.
const APP_OPTIONS: Record<keyof AppOptions, true> = {
  allowedHosts: true,
  authTokens: true,
  authTokensFile: true,
  readOnly: true,
  storeLimit: true,
  bodyLimit: true,
  corsOrigins: true,
  isDraining: true,
  logError: true,
  logFormat: true,
  metrics: true,
  seed: true,
  clock: true,
};

/**
 * The whole API's route table, over a data set (a fresh one in memory by default), with
 * `GET /metrics` serving `metrics` (the data's by default), or without it for null.
 */
export function apiRoutes(isDraining: () => boolean = never, data: DataSet = createDataSet(), metrics: Metrics | null = recordMetrics(data)): ApiRoute[] {
  const { resources, store } = data;
  return [
    ...healthRoutes(isDraining, store.ready),
    ...(metrics === null ? [] : metricsRoutes(metrics)),
    ...openApiRoutes(openApiText),
    ...COLLECTIONS.flatMap((name) => resourceRoutes(resources[name], store.collection(name))),
  ];
}

/** The OpenAPI document the server serves: built from the route table over fresh data (two seeded users, nothing else). */
export function openApiDocument(): OpenApiDocument {
  const data = createDataSet();
  return buildOpenApiDocument(apiRoutes(never, data), data.store.nextId);
}

/** The metrics of an instance over `data`: its records counted by the store at each scrape. */
export function recordMetrics(data: DataSet): Metrics {
  return createMetrics({ records: data.store.counts });
}

let documentText: string | undefined;

/** The OpenAPI document as JSON text, built on first use, then kept: every instance serves the same document, serialised once. */
function openApiText(): string {
  documentText ??= JSON.stringify(openApiDocument());
  return documentText;
}

/**
 * The API as a request listener with its own fresh data: mount it in any
 * node:http server. Two apps never share records.
 */
export function createApp(options: AppOptions = {}): RequestListener {
  return createApi(options).listener;
}

/** What startServer hands createApi beyond the app's options: the log and the metrics it shares with the server. */
export type Observers = { logger: Logger; metrics: Metrics | undefined };

/** The API as createApi makes it: the listener, its data, and how to answer a request refused before routing. */
export type Api = Handlers & { data: DataSet };

/**
 * The API as a request listener together with its data set, whose store startServer
 * offers (reset, snapshot) and closes; `data` is a fresh memory data set by default, and
 * the log and the metrics are made from the options unless given.
 */
export function createApi(options: AppOptions = {}, data?: DataSet, observers?: Observers): Api {
  refuseUnknownOptions(options, APP_OPTIONS, "createApp");
  const { seed, clock, storeLimit, logFormat = "off", metrics: metricsOn = true, ...listenerOptions } = options;
  data ??= createDataSet({ seed, clock, storeLimit });
  const logger = observers?.logger ?? createLogger(checkLogFormat(logFormat));
  const metrics = observers !== undefined ? observers.metrics : metricsOn ? recordMetrics(data) : undefined;
  const routes = apiRoutes(options.isDraining ?? never, data, metrics ?? null);
  // Liveness, readiness and metrics keep answering during shutdown; everything else gets 503.
  const servedWhileDraining = new Set(routes.filter((route) => route.servedWhileDraining).map((route) => route.handler));
  const open = new Set(routes.filter((route) => route.open).map((route) => route.handler));
  const handlers = createHandlers(routes, { ...listenerOptions, servedWhileDraining, open, logger, metrics });
  return { ...handlers, data };
}

/** A log format as given, or a TypeError naming the ones there are. */
export function checkLogFormat(format: LogFormat): LogFormat {
  if (!LOG_FORMATS.includes(format)) throw new TypeError(`logFormat must be ${LOG_FORMATS.join(", ")}`);
  return format;
}

/**
 * Options of createListener: the app's, but for its data, the handlers still served during
 * shutdown, and the log and metrics requests are told to.
 */
export type ListenerOptions = Omit<AppOptions, "seed" | "clock" | "logFormat" | "metrics" | "storeLimit"> & {
  servedWhileDraining?: ReadonlySet<Handler>;
  /** The handlers served without a token (the probes). */
  open?: ReadonlySet<Handler>;
  logger?: Logger;
  metrics?: Metrics;
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

/** createListener's work: the listener, and the refusal of a request before routing, which shares its log and metrics. */
function createHandlers(routes: readonly Route<Handler>[], options: ListenerOptions): Handlers {
  const match = createRouter(routes);
  const readOptions = { limit: options.bodyLimit ?? DEFAULT_BODY_LIMIT };
  const readPatchOptions = { ...readOptions, patch: true };
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
  // The requests waiting on each connection behind one answered later. HTTP/1.1 answers
  // pipelined requests in order (RFC 9112, section 9.3.2), so a request that arrives behind
  // one still reading its body, or waiting for its store, waits for it instead of overtaking it.
  // A connection is here from its first request answered later until its socket is collected,
  // marked busy and free again rather than added and removed: a POST on a keep-alive
  // connection then costs a look-up, where adding and removing it cost 41 ns more (57 against
  // 16 ns in a micro-benchmark) and rehashed the WeakMap as it went. A request on a free
  // connection runs at once.
  const lines = new WeakMap<object, Line>();

  // answer and fail are made once here, not once per request: what a request needs
  // travels in their arguments, so serving a request builds no closures but those a
  // body read or a store that answers later needs (3% less CPU time for `GET /users/1`,
  // bench/in-memory.mjs).
  /**
   * Sends a reply; returns true when its body goes out later, in pieces (a long list), and
   * the requests behind it on its connection wait until it has.
   */
  function answer(exchange: Exchange, reply: Reply): boolean {
    const { request, response } = exchange;
    // Contract 7: during shutdown every answer closes its connection. An answer
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
      if (text === undefined) {
        sendInPieces(response, reply, reply.body, options, (bytes) => {
          answered(exchange, reply.status, bytes);
          proceed(request.socket);
        });
        return true;
      }
      reply = { ...reply, json: text };
    }
    answered(exchange, reply.status, send(response, reply, options));
    return false;
  }

  /** Counts and logs an answer once its bytes are written, or counts it gone (-1). */
  function answered(exchange: Exchange, status: number, bytes: number): void {
    if (bytes < 0) return gone();
    const { request } = exchange;
    const milliseconds = performance.now() - exchange.started;
    const method = request.method ?? "GET";
    metrics?.answered(method, exchange.route, status, milliseconds);
    if (accessLog) {
      const path = request.url ?? "/";
      logger.access({ method, path, status, bytes, milliseconds, requestId: exchange.id, remote: request.socket.remoteAddress });
    }
  }

  /** A request that will get no answer: its client hung up, or its answer broke off. */
  function gone(): void {
    metrics?.abandoned();
  }

  function fail(exchange: Exchange, error: unknown): void {
    if (error instanceof HttpError) {
      answer(exchange, error.toReply());
    } else if (error instanceof StoreError) {
      // The store's own refusals (full, or unable to keep writes) are catalogued codes too.
      answer(exchange, new HttpError(error.code, error.message).toReply());
    } else if (error instanceof ClientGoneError) {
      // The client hung up mid-body: there is no one left to answer.
      gone();
    } else {
      const { request, response } = exchange;
      try {
        logError(error, `${request.method ?? "GET"} ${request.url ?? "/"}`, exchange.id);
      } catch {
        // A failing logger must not turn one failed request into a crashed process.
      }
      if (response.headersSent) {
        response.destroy();
        gone();
      } else answer(exchange, internalErrorReply(exchange.id));
    }
  }

  /**
   * Ends a request answered later (its body was read, or its store answered), then serves
   * the requests that arrived behind it on its connection.
   */
  function conclude(exchange: Exchange, reply: Reply | undefined, error?: unknown): void {
    let later = false;
    try {
      if (reply !== undefined) later = answer(exchange, reply);
      else fail(exchange, error);
    } catch (thrown) {
      fail(exchange, thrown);
    } finally {
      // An answer written in pieces serves what waits behind it once it is written.
      if (!later) proceed(exchange.request.socket);
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
   * being read or its store answers later; conclude() then serves what waits behind it.
   */
  function handle(exchange: Exchange): boolean {
    const { request } = exchange;
    const method = request.method ?? "GET";
    const url = request.url ?? "/";

    const found = match(method, url);
    const refusal = admit(request, method, found);
    if (refusal !== undefined) {
      fail(exchange, refusal);
      return false;
    }
    if (found.kind === "not-found") {
      const error = new HttpError("ROUTE_NOT_FOUND", `No route for ${clip(method)} ${clip(pathOf(url, { keepSlash: true }))}`);
      fail(exchange, error);
      return false;
    }
    exchange.route = found.pattern;
    if (isDraining() && (found.kind !== "found" || !servedWhileDraining.has(found.handler))) {
      fail(exchange, new HttpError("SHUTTING_DOWN", "Server is shutting down; retry on a new connection"));
      return false;
    }
    if (found.kind === "options") {
      // A CORS preflight (Fetch standard, section 3.2.2) from an allowed origin also
      // learns what it may send; any other OPTIONS, or one from an origin not allowed, gets Allow alone.
      const origin = request.headers.origin;
      const preflight =
        cors !== undefined &&
        origin !== undefined &&
        request.headers["access-control-request-method"] !== undefined &&
        cors.allows(origin);
      const headers = preflight ? preflightHeaders(found.allow) : { allow: found.allow };
      answer(exchange, { status: 204, headers });
      return false;
    }
    if (found.kind === "method-not-allowed") {
      const error = new HttpError("METHOD_NOT_ALLOWED", `Method ${clip(method)} is not allowed here; use ${found.allow}`, {
        headers: { allow: found.allow },
      });
      fail(exchange, error);
      return false;
    }
    if (readOnly && isWrite(method)) {
      fail(exchange, new HttpError("READ_ONLY", "This server is read-only: it stores no writes"));
      return false;
    }

    try {
      const params: Record<string, number> = {};
      // Every path parameter of this API is an id (contract 2), checked before the body.
      for (const name in found.params) params[name] = parseId(found.params[name]!);
      const queryStart = url.indexOf("?");
      const query = queryStart === -1 ? NO_QUERY : new URLSearchParams(url.slice(queryStart + 1));
      const handler = found.handler;
      const headers = request.headers;
      if (method === "POST" || method === "PUT" || method === "PATCH") {
        const options = method === "PATCH" ? readPatchOptions : readOptions;
        checkBodyHeaders(request, options);
        // A pipelined request's body has often arrived whole by the time it is served: it is answered now.
        const arrived = bufferedBody(request);
        if (arrived !== undefined) return deliver(exchange, handler({ params, query, body: parseJsonObject(arrived), headers }));
        awaitBody(request, options.limit, (error, bytes) => {
          if (error !== undefined) return conclude(exchange, undefined, error);
          let reply: Awaitable<Reply>;
          try {
            reply = handler({ params, query, body: parseJsonObject(bytes), headers });
          } catch (thrown) {
            return conclude(exchange, undefined, thrown);
          }
          // Outside the try: what conclude() serves next on the connection is not this request's to fail.
          concludeWith(exchange, reply);
        });
        return true;
      }
      return deliver(exchange, handler({ params, query, body: NO_BODY, headers }));
    } catch (error) {
      fail(exchange, error);
      return false;
    }
  }

  /**
   * The refusal of a request that may not be served at all, before routing answers it: a Host
   * not allowed (contract 13), then, with tokens, a missing, unknown or read-only token. The
   * probes and CORS preflights (which browsers send without credentials) need no token.
   */
  function admit(request: IncomingMessage, method: string, found: ReturnType<typeof match>): HttpError | undefined {
    const hostRefusal = checkHost?.(request.headers.host);
    if (hostRefusal !== undefined || checkToken === undefined) return hostRefusal;
    if (found.kind === "found" && open.has(found.handler)) return undefined;
    if (found.kind === "options" && request.headers.origin !== undefined && request.headers["access-control-request-method"] !== undefined) {
      return undefined;
    }
    return checkToken(request.headers.authorization, isWrite(method));
  }

  function arrive(request: IncomingMessage, response: ServerResponse): Exchange {
    metrics?.arrived();
    return { request, response, started: performance.now(), id: requestIdOf(request.headers["x-request-id"]), route: "none", close: false };
  }

  function listener(request: IncomingMessage, response: ServerResponse): void {
    const exchange = arrive(request, response);
    const connection = request.socket;
    const line = lines.get(connection);
    if (line?.busy) line.waiting.push(exchange);
    else if (handle(exchange)) {
      if (line === undefined) lines.set(connection, { busy: true, waiting: [] });
      else line.busy = true;
    }
  }

  /** Serves the requests waiting on a connection, in order, until one is answered later or none is left. */
  function proceed(connection: object): void {
    const line = lines.get(connection);
    if (line === undefined) return;
    for (let next = line.waiting.shift(); next !== undefined; next = line.waiting.shift()) {
      if (handle(next)) return;
    }
    line.busy = false;
  }

  function refuse(request: IncomingMessage, response: ServerResponse, error: HttpError): void {
    const exchange = arrive(request, response);
    exchange.close = true;
    fail(exchange, error);
  }

  return { listener, refuse };
}

/** A connection as the listener sees it: whether a request on it is being answered later, and the requests waiting behind that one. */
type Line = { busy: boolean; waiting: Exchange[] };

/** Whether the request announced a body (a non-zero length, or chunked). */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

function never(): boolean {
  return false;
}
