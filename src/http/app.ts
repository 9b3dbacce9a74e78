// createApp: the API as a node:http request listener over its own data: the route table, the log and the metrics put together.
import type { RequestListener } from "node:http";
import type { ApiRoute, Handler, Route } from "../api/handler.ts";
import { buildOpenApiDocument, type OpenApiDocument } from "../openapi/document.ts";
import { createLogger, LOG_FORMATS, type Logger, type LogFormat } from "../ops/log.ts";
import { createMetrics, type Metrics } from "../ops/metrics.ts";
import { metricsRoutes } from "../ops/metrics-route.ts";
import { resourceRoutes } from "../api/routes.ts";
import { createDataSet, createFileDataSet, type DataSet } from "../api/dataset.ts";
import { readResourcesFile } from "../api/resources-file.ts";
import { refuseUnknownOptions } from "../api/options.ts";
import { healthRoutes } from "../ops/health.ts";
import { controlRoutes } from "../ops/control.ts";
import { createRequestLog } from "../ops/request-log.ts";
import { openApiRoutes } from "../openapi/route.ts";
import type { Seed } from "../store/records.ts";
import { chooseServed, type Dialect } from "../api/json-server/data-set.ts";
import { checkStoreLimit } from "../api/dataset.ts";
import { createHandlers, type Handlers, type ListenerOptions } from "./listener.ts";
import { createFetchHandlers, type FetchHandlers, type FetchPlace, type RemoteOf } from "./fetch-front.ts";
import { DEFAULT_BODY_LIMIT } from "./body.ts";
import { crossSiteCheck } from "./cross-site.ts";

/** Options of createApp and createListener; every one has a default. */
export type AppOptions = Omit<
  ListenerOptions,
  "servedWhileDraining" | "open" | "stringIds" | "logger" | "metrics" | "stallTimeout" | "requestLog" | "quiet" | "writeOnly" | "bodiless" | "ownBodies" | "unknownMethod" | "readStringId"
> & {
  /**
   * How many requests the control log keeps for `GET /__control/requests` (1000), with `control`;
   * at most 8 MiB of their entries' JSON texts whatever the number.
   */
  controlLog?: number;
  /** The most the records may cost, in bytes as the store counts them (64 MiB); a write past it gets 507. */
  storeLimit?: number;
  /**
   * The access log, one line per answered request on stdout: `json`, `text`, or `off` (the
   * default, so that an app embedded in a test stays quiet). Errors go to stderr in this format.
   */
  logFormat?: LogFormat;
  /** Whether `GET /metrics` serves the instance's metrics (Prometheus text format); true by default. */
  metrics?: boolean;
  /** The records to start with instead of the two seeded users; checked by the API's rules (throws a SeedError). */
  seed?: Seed;
  /**
   * Collections to serve instead of the built-in ones, as a resources file defines them:
   * `{ "resources": { "todos": { "schema": {...}, "id": "integer", "parent": {...} } } }`
   * (docs/resources.md). A bad definition throws a ResourcesFileError naming it.
   */
  resources?: unknown;
  /** Where `createdAt` comes from, so a test can fix it; the current time by default. */
  clock?: () => Date;
  /**
   * A json-server `db.json` to serve: its parsed object, or the path of the file (never
   * written). Served in json-server's dialect unless `dialect` says `native` (docs/json-server.md).
   */
  db?: unknown;
  /** The HTTP spoken: `json-server` (the default with `db`) or `native` (the default without). */
  dialect?: Dialect;
};

// Every name AppOptions has, so that a misspelt option is refused instead of ignored.
export const APP_OPTIONS: Record<keyof AppOptions, true> = {
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
  resources: true,
  clock: true,
  db: true,
  dialect: true,
  control: true,
  controlLog: true,
  delay: true,
};

/**
 * The whole API's route table, over a data set (a fresh one in memory by default), with
 * `GET /metrics` serving `metrics` (the data's by default), or without it for null.
 */
export function apiRoutes(
  isDraining: () => boolean = never,
  data: DataSet = createDataSet(),
  metrics: Metrics | null = recordMetrics(data),
  documentText: () => string = data.firstIds === undefined ? openApiText : fileDocumentText(data),
  recordLimit: number = DEFAULT_BODY_LIMIT,
): ApiRoute[] {
  const { resources, store } = data;
  // json-server's dialect has its own routes, and no OpenAPI document (docs/json-server.md).
  if (data.dialect !== undefined) return [...healthRoutes(isDraining, store.ready), ...(metrics === null ? [] : metricsRoutes(metrics)), ...data.dialect.routes];
  return [
    ...healthRoutes(isDraining, store.ready),
    ...(metrics === null ? [] : metricsRoutes(metrics)),
    ...openApiRoutes(documentText),
    ...Object.values(resources).flatMap((resource) => resourceRoutes(resource, store.collection(resource.name), recordLimit)),
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

/**
 * The OpenAPI document of a file's collections as JSON text, built at once, so that a
 * collection whose name the document cannot take ends start-up (a ResourcesFileError).
 */
function fileDocumentText(data: DataSet): () => string {
  const routes = apiRoutes(never, data, recordMetrics(data), () => "");
  const text = JSON.stringify(buildOpenApiDocument(routes, data.firstIds!, true));
  return () => text;
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

/**
 * What startServer hands createApi beyond the app's options: the log and the metrics it shares
 * with the server, and its request time-out, which also bounds how long a list in pieces waits for its reader.
 */
export type Observers = { logger: Logger; metrics: Metrics | undefined; stallTimeout?: number };

/** The API as createApi makes it: the listener, its data, and how to answer a request refused before routing. */
export type Api = Handlers & { data: DataSet };

/**
 * The API as a request listener together with its data set, whose store startServer
 * offers (reset, snapshot) and closes; `data` is a fresh memory data set by default, and
 * the log and the metrics are made from the options unless given.
 */
export function createApi(options: AppOptions = {}, data?: DataSet, observers?: Observers): Api {
  const api = apiOf(options, data, observers);
  return { ...createHandlers(api.routes, api.listenerOptions), data: api.data };
}

/** The API as a fetch handler together with its data set (createFetchApp, and Deno.serve and Bun.serve for the command). */
export function createFetchApi(options: AppOptions = {}, data?: DataSet, observers?: Observers & { place?: FetchPlace; remoteOf?: RemoteOf }): FetchHandlers & { data: DataSet } {
  const api = apiOf(options, data, observers);
  return { ...createFetchHandlers(api.routes, api.listenerOptions, observers?.place, observers?.remoteOf), data: api.data };
}

/** The route table of an app's options and data, and the options of the listener that serves it, for either front end. */
function apiOf(options: AppOptions, data: DataSet | undefined, observers: Observers | undefined): { routes: Route<Handler>[]; listenerOptions: ListenerOptions; data: DataSet } {
  refuseUnknownOptions(options, APP_OPTIONS, "createApp");
  const { seed, clock, storeLimit, resources, db, dialect, logFormat = "off", metrics: metricsOn = true, controlLog, ...listenerOptions } = options;
  data ??= openData({ seed, clock, storeLimit, resources, db, dialect });
  const logger = observers?.logger ?? createLogger(checkLogFormat(logFormat));
  const metrics = observers !== undefined ? observers.metrics : metricsOn ? recordMetrics(data) : undefined;
  // A record a write makes may be as long as a body may: the body limit bounds both.
  const routes = apiRoutes(options.isDraining ?? never, data, metrics ?? null, undefined, options.bodyLimit);
  // Liveness, readiness and metrics keep answering during shutdown; everything else gets 503.
  const servedWhileDraining = new Set(routes.filter((route) => route.servedWhileDraining).map((route) => route.handler));
  const open = new Set(routes.filter((route) => route.open).map((route) => route.handler));
  const stringIds = new Set(routes.filter((route) => route.stringIds).map((route) => route.handler));
  // Test control's routes, outside the OpenAPI document, when it is on (ops/control.ts).
  const requestLog = options.control === true ? createRequestLog(controlLog) : undefined;
  const control = requestLog === undefined ? [] : controlRoutes(data.resources, data.store, requestLog, crossSiteCheck(options.corsOrigins), data.dialect?.checkData);
  const controlHandlers = control.map((route) => route.handler);
  // No delay, preference or log entry for the operations routes, which are served while draining, nor for control's own.
  const quiet = new Set([...servedWhileDraining, ...controlHandlers]);
  const writeOnly = new Set(controlHandlers);
  const bodiless = new Set(control.filter((route) => route.method === "POST").map((route) => route.handler));
  // The dialect's `/:a/:b` patterns would take `/__control/...` first: there control goes first.
  const table = data.dialect === undefined ? [...routes, ...control] : [...control, ...routes];
  return {
    routes: table,
    listenerOptions: {
      ...listenerOptions,
      servedWhileDraining,
      open,
      stringIds,
      logger,
      metrics,
      stallTimeout: observers?.stallTimeout,
      requestLog,
      quiet,
      writeOnly,
      bodiless,
      ownBodies: data.dialect === undefined ? undefined : { handlers: data.dialect.bodyHandlers, read: data.dialect.readBody },
      unknownMethod: data.dialect?.unknownMethod,
      readStringId: data.dialect?.readId,
    },
    data,
  };
}

/** An app's own data, in memory: json-server's dialect over a db.json, a file's collections, or the built-in ones. */
function openData(options: Pick<AppOptions, "seed" | "clock" | "storeLimit" | "resources" | "db" | "dialect">): DataSet {
  const { clock, storeLimit } = options;
  const served = chooseServed({ ...options, storeLimit: checkStoreLimit(storeLimit) });
  if (served.dialect !== undefined) return served.dialect;
  const seed = served.seed as Seed | undefined;
  return served.resources === undefined ? createDataSet({ seed, clock, storeLimit }) : createFileDataSet(readResourcesFile(served.resources), { seed, storeLimit });
}

/** A log format as given, or a TypeError naming the ones there are. */
export function checkLogFormat(format: LogFormat): LogFormat {
  if (!LOG_FORMATS.includes(format)) throw new TypeError(`logFormat must be ${LOG_FORMATS.join(", ")}`);
  return format;
}

function never(): boolean {
  return false;
}
