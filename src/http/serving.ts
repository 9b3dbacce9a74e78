// What every step of a request shares: the listener's options, read once into settings, and the
// exchange that carries one request from its arrival to its answer (listener.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
// Imported rather than read from the global, which Node makes a getter run on every use.
import { performance } from "node:perf_hooks";
import { type AccessOptions, hostCheck, tokenCheck } from "./access.ts";
import { type BodyBudget, bodyBudget, type BodyOptions, DEFAULT_BODY_LIMIT } from "./body.ts";
import { type CorsOrigins, type CorsPolicy, createCorsPolicy } from "./cors.ts";
import { HttpError } from "../api/errors.ts";
import type { BodyReader, Handler, Route } from "../api/handler.ts";
import { parseStringId } from "../api/ids.ts";
import { inOrder } from "./in-order.ts";
import { createLogger, type Logger } from "../ops/log.ts";
import type { Metrics } from "../ops/metrics.ts";
import { requestIdOf } from "./request-id.ts";
import { createPacer, DEFAULT_STALL_TIMEOUT, type Pacer } from "./pieces.ts";
import type { Reply } from "../api/reply.ts";
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

/** A listener's settings, made once from its options: every step of every request reads them here. */
export type Serving = {
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
  queue: { serve: (exchange: Exchange) => void; proceed: (connection: object) => void };
};

/** Reads a listener's options once; `handle` is the step that serves a request in its turn on its connection. */
export function servingOf(routes: readonly Route<Handler>[], options: ListenerOptions, handle: (exchange: Exchange) => boolean): Serving {
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const logger = options.logger ?? createLogger("off");
  const control = options.control === true;
  const delay = readDelay(options.delay);
  const requestLog = options.requestLog;
  const quiet = options.quiet ?? new Set();
  return {
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
    queue: inOrder(handle),
  };
}

/**
 * One request on its way to its answer. It carries what the answer, the access line and
 * the metrics need, and the listener serving it, so the functions that serve it are made
 * once, at module level, not once per request.
 */
export type Exchange = {
  /** The listener's settings, the same object for every request it serves. */
  serving: Serving;
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

/** A request as it arrives: counted, timed, and given its id. */
export function arrive(serving: Serving, request: IncomingMessage, response: ServerResponse): Exchange {
  serving.metrics?.arrived();
  return {
    serving,
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

function never(): boolean {
  return false;
}
