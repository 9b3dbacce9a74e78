// What every step of a request shares: the listener's options, read once into settings, and the
// exchange that carries one request from its arrival to its answer (listener.ts).
import type { IncomingHttpHeaders } from "node:http";
// Imported rather than read from the global, which Node makes a getter run on every use.
import { performance } from "node:perf_hooks";
import { type AccessOptions, hostCheck, tokenCheck } from "./access.ts";
import { type BodyBudget, bodyBudget, type BodyDone, type BodyOptions, DEFAULT_BODY_LIMIT } from "./body.ts";
import { type CorsOrigins, type CorsPolicy, createCorsPolicy } from "./cors.ts";
import { HttpError } from "../api/errors.ts";
import type { BodyReader, Handler, Route } from "../api/handler.ts";
import { parseStringId } from "../api/ids.ts";
import { createLogger, type Logger } from "../ops/log.ts";
import type { Metrics } from "../ops/metrics.ts";
import { requestIdOf } from "./request-id.ts";
import { createPacer, DEFAULT_STALL_TIMEOUT, type LongBody, type Pacer } from "./pieces.ts";
import type { Reply } from "../api/reply.ts";
import type { SendOptions } from "./respond.ts";
import { createRouter, type Match } from "./router.ts";
import type { RecordId } from "../store/records.ts";
import { type Delay, readDelay } from "./prefer.ts";
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

/** What routing found for a request. */
export type Found = Match<Handler>;

/**
 * How one kind of server takes a request's body and its answer: node:http's request and response
 * (node-front.ts), or the fetch API's Request and Response (fetch-front.ts). The steps of a request
 * (listener.ts) reach the connection, the body and the answer through these alone.
 */
export type FrontEnd<R, S> = {
  /** What identifies the request's connection: the in-order queue and the dropped connections are kept by it. */
  connection: (exchange: Exchange<R, S>) => object;
  /** The client's address, for the access log. */
  remoteAddress: (exchange: Exchange<R, S>) => string | undefined;
  /** The body when it has all arrived already, or undefined. */
  arrivedBody: (exchange: Exchange<R, S>) => Uint8Array | undefined;
  /** Reads the body within `limit` and the budget of the bodies being read at once, then calls `done` once. */
  readBody: (exchange: Exchange<R, S>, limit: number, budget: BodyBudget, done: BodyDone) => void;
  /** Whether an answer sent now leaves part of an announced body unread: the connection then closes once it is sent. */
  leavesBodyUnread: (exchange: Exchange<R, S>) => boolean;
  /** Sends a reply whole; the body bytes written, or -1 when nothing could be (the client has gone, or an answer has begun). */
  send: (exchange: Exchange<R, S>, reply: Reply, options: SendOptions, text: string | Uint8Array | undefined) => number;
  /** Hands a reply too long to write at once to the scheduler of long answers; false when it has too many. */
  sendLong: (exchange: Exchange<R, S>, reply: Reply, body: LongBody, options: SendOptions, done: (bytes: number) => void) => boolean;
  /** Breaks off an answer already begun, as its connection breaking would; false when none has begun. */
  breakOff: (exchange: Exchange<R, S>) => boolean;
  /** Drops the request's connection without an answer, as a reset does (`Prefer: fault=reset`). */
  drop: (exchange: Exchange<R, S>) => void;
};

/** A listener's settings, made once from its options: every step of every request reads them here. */
export type Serving<R = unknown, S = unknown> = {
  front: FrontEnd<R, S>;
  match: (method: string, url: string) => Found;
  readOptions: BodyOptions;
  readPatchOptions: BodyOptions;
  /** The bodies being read now on every connection, bounded together as each is alone (body.ts). */
  bodies: BodyBudget;
  stallTimeout: number;
  /** Every answer too long to write at once goes through one scheduler, which bounds how many there are and how long each turn holds the loop. */
  pacer: Pacer;
  isDraining: () => boolean;
  logger: Logger;
  logError: (error: unknown, requestLine: string, requestId: string) => void;
  metrics: Metrics | undefined;
  accessLog: boolean;
  servedWhileDraining: ReadonlySet<Handler>;
  cors: CorsPolicy | undefined;
  /** Who may call: the Host a request names (DNS rebinding), its token, and whether writes are taken at all. */
  checkHost: ((host: string | undefined) => HttpError | undefined) | undefined;
  checkToken: ((authorization: string | undefined, writes: boolean) => HttpError | undefined) | undefined;
  readOnly: boolean;
  open: ReadonlySet<Handler>;
  stringIds: ReadonlySet<Handler>;
  /** Test control, delays and the request log, looked at by one test per request when all are off (`shaping`). */
  control: boolean;
  delay: Delay | undefined;
  requestLog: RequestLog | undefined;
  shaping: boolean;
  writeOnly: ReadonlySet<Handler>;
  bodiless: ReadonlySet<Handler>;
  ownBodies: { handlers: ReadonlySet<Handler>; read: BodyReader } | undefined;
  unknownMethod: Reply | undefined;
  readStringId: (text: string) => RecordId;
  /**
   * The connections a `Prefer: fault=reset` dropped, whose queued requests are not carried out.
   * Fast path: counted, so that a server that never dropped one looks nothing up.
   */
  dropped: WeakSet<object>;
  drops: number;
  /** The patterns of the quiet routes: their OPTIONS and 405 answers are quiet too. */
  quietPatterns: ReadonlySet<string>;
  /** Pipelined requests are answered in order: what arrives behind a request answered later waits for it. */
  queue: { serve: (exchange: Exchange<R, S>) => void; proceed: (connection: object) => void };
};

/**
 * Reads a listener's options once, for a front end; `queue` serves each request in its turn on its
 * connection (in-order.ts on node:http; a fetch server keeps its requests apart itself).
 */
export function servingOf<R, S>(routes: readonly Route<Handler>[], options: ListenerOptions, front: FrontEnd<R, S>, queue: (serving: Serving<R, S>) => Serving<R, S>["queue"]): Serving<R, S> {
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const logger = options.logger ?? createLogger("off");
  const control = options.control === true;
  const delay = readDelay(options.delay);
  const requestLog = options.requestLog;
  const quiet = options.quiet ?? new Set();
  const serving: Serving<R, S> = {
    front,
    match: createRouter(routes),
    readOptions: { limit },
    readPatchOptions: { limit, patch: true },
    bodies: bodyBudget(limit),
    stallTimeout: options.stallTimeout ?? DEFAULT_STALL_TIMEOUT,
    pacer: createPacer(),
    isDraining: options.isDraining ?? never,
    logger,
    logError:
      options.logError ??
      ((error: unknown, requestLine: string, requestId: string) => logger.error(`Unexpected error while answering ${requestLine}`, requestId, error)),
    metrics: options.metrics,
    accessLog: logger.format !== "off",
    servedWhileDraining: options.servedWhileDraining ?? new Set(),
    cors: createCorsPolicy(options.corsOrigins ?? "loopback"),
    checkHost: hostCheck(options.allowedHosts),
    checkToken: tokenCheck(options),
    readOnly: options.readOnly === true,
    open: options.open ?? new Set(),
    stringIds: options.stringIds ?? new Set(),
    control,
    delay,
    requestLog,
    shaping: control || delay !== undefined || requestLog !== undefined,
    writeOnly: options.writeOnly ?? new Set(),
    bodiless: options.bodiless ?? new Set(),
    ownBodies: options.ownBodies,
    unknownMethod: options.unknownMethod,
    readStringId: options.readStringId ?? parseStringId,
    dropped: new WeakSet<object>(),
    drops: 0,
    quietPatterns: new Set(routes.filter((route) => quiet.has(route.handler)).map((route) => route.pattern)),
    queue: NO_QUEUE,
  };
  serving.queue = queue(serving);
  return serving;
}

const NO_QUEUE = { serve: () => {}, proceed: () => {} };

/**
 * One request on its way to its answer. It carries what the answer, the access line and
 * the metrics need, and the listener serving it, so the functions that serve it are made
 * once, at module level, not once per request.
 */
export type Exchange<R = unknown, S = unknown> = {
  /** The listener's settings, the same object for every request it serves. */
  serving: Serving<R, S>;
  /** The front end's request and answer: node:http's, or a fetch Request and what resolves its Response. */
  request: R;
  response: S;
  method: string;
  /** The request's target as sent: its path and query. */
  url: string;
  /** Its headers, by lower-case name, repeated ones joined with commas. */
  headers: IncomingHttpHeaders;
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

/** A request as it arrives: counted, timed, and given its id. */
export function arrive<R, S>(serving: Serving<R, S>, request: R, response: S, method: string, url: string, headers: IncomingHttpHeaders): Exchange<R, S> {
  serving.metrics?.arrived();
  return {
    serving,
    request,
    response,
    method,
    url,
    headers,
    started: performance.now(),
    id: requestIdOf(headers["x-request-id"]),
    route: "none",
    close: false,
    delay: 0,
    applied: undefined,
    logged: false,
    body: undefined,
  };
}

function never(): boolean {
  return false;
}
