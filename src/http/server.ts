// startServer: an isolated instance on a port, with time-outs, graceful shutdown and raw-socket errors.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type Api, type AppOptions, checkLogFormat, createApi, recordMetrics } from "./app.ts";
import { refuseUnknownOptions } from "../api/options.ts";
import { isPostgresUrl, openDatabaseStore } from "../store/database.ts";
import { checkStoreLimit, createDataSet, createFileDataSet, type DataSet, defineData, defineFileData } from "../api/dataset.ts";
import { readResourcesFile } from "../api/resources-file.ts";
import { chooseServed } from "../api/json-server/data-set.ts";
import { tokenCheck } from "./access.ts";
import { openJournalStore } from "../store/journal/store.ts";
import { FSYNC_POLICIES, type FsyncPolicy } from "../store/journal/writer.ts";
import { type Logger, createLogger } from "../ops/log.ts";
import type { Metrics } from "../ops/metrics.ts";
import { answerRawErrors } from "./raw.ts";
import { trackConnections } from "./connections.ts";
import type { Snapshot } from "../store/records.ts";
import type { Store } from "../store/seam.ts";

/** The defaults of the time-outs, in milliseconds (docs/spec.md#7-configuration-and-process). */
export const TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  shutdownTimeout: 8_000,
} as const;

/** Options of startServer; every one has a default. Times are in milliseconds. */
export type ServerOptions = Omit<AppOptions, "isDraining"> & {
  /** The port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** The address to listen on; `127.0.0.1` by default, `0.0.0.0` in containers. */
  host?: string;
  /** A connection must deliver its complete headers within this time (10 s). */
  headersTimeout?: number;
  /** A connection must deliver its complete request within this time (30 s). */
  requestTimeout?: number;
  /** An idle keep-alive connection is closed after this time (5 s). */
  keepAliveTimeout?: number;
  /** Connections still busy this long after shutdown began are cut (8 s, inside a container's 10 s grace). */
  shutdownTimeout?: number;
  /**
   * A directory to keep the data in, across restarts and crashes (created if missing):
   * every write is journaled there and made durable before it is answered. Memory only when absent.
   */
  dataDir?: string;
  /**
   * A PostgreSQL URL (`postgres://user:password@host:5432/name`): the data lives in that
   * database, shared by every server on it, through the optional package
   * rest-reference-server-postgres (a DatabaseError if it is not installed or the database
   * cannot be used). Not with `dataDir`.
   */
  databaseUrl?: string;
  /** With `dataDir`: `always` (the default) syncs before each answer, `interval` at most once a second. */
  fsync?: FsyncPolicy;
  /** With `dataDir`: the journal length in bytes past which it is compacted into a snapshot (64 MiB). */
  compactBytes?: number;
  /** Where notices go, one line each (a torn journal tail dropped, a seed not loaded); stderr by default, in `logFormat`. */
  logWarning?: (line: string) => void;
  /**
   * Told once when a write could not be kept (a journal write or sync failed). The server
   * then answers 503 to requests for data and `/readyz`; the command line exits 1. Logged by default.
   */
  onStoreFailure?: (error: Error) => void;
};

// Every name ServerOptions has, so that a misspelt option is refused instead of ignored.
export const SERVER_OPTIONS: Record<keyof ServerOptions, true> = {
  allowedHosts: true,
  authTokens: true,
  authTokensFile: true,
  readOnly: true,
  storeLimit: true,
  port: true,
  host: true,
  bodyLimit: true,
  corsOrigins: true,
  logError: true,
  logFormat: true,
  metrics: true,
  seed: true,
  resources: true,
  clock: true,
  db: true,
  dialect: true,
  headersTimeout: true,
  requestTimeout: true,
  keepAliveTimeout: true,
  shutdownTimeout: true,
  dataDir: true,
  databaseUrl: true,
  fsync: true,
  compactBytes: true,
  logWarning: true,
  onStoreFailure: true,
  control: true,
  controlLog: true,
  delay: true,
};

/** A listening instance: where it is, what it holds, and how to stop it. */
export type RunningServer = {
  /** The base URL, such as `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  server: Server;
  /** Puts every collection back to the starting records (the seed, or the two seeded users); id sequences start again. */
  reset: () => Promise<void>;
  /** A deep copy of every record the instance holds, by collection, in creation order. */
  snapshot: () => Promise<Snapshot>;
  /** Stops accepting, lets in-flight requests finish, and resolves once every connection is gone and the data is kept. */
  close: () => Promise<void>;
};

/**
 * Starts an isolated instance with its own fresh data: the seed's records, or the
 * two seeded users; or, with `dataDir`, the data kept there. In a test:
 * `const api = await startServer(); ... await api.close();`
 * A misspelt option is a TypeError, and a seed that breaks the API's rules a SeedError;
 * a data directory in use is a LockedError, and a damaged one a JournalDamageError.
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  refuseUnknownOptions(options, SERVER_OPTIONS, "startServer");
  const instance = await openInstance(options);
  try {
    const api = createApi(instance.appOptions, instance.data, { logger: instance.logger, metrics: instance.metrics, stallTimeout: instance.settings.requestTimeout });
    return await serve(api, instance.data.store, instance.state, instance.settings, instance);
  } catch (error) {
    // A start that fails once the data is open lets go of it, so that its directory is free for a retry.
    await instance.data.store.close();
    throw error;
  }
}

/** What startServer and startNativeServer share: the data opened, the log, the metrics, the app's options and the time-outs. */
export type Instance = {
  data: DataSet;
  logger: Logger;
  metrics: Metrics | undefined;
  state: { draining: boolean };
  appOptions: AppOptions;
  settings: Listening;
};

/** Reads the options, checks the tokens, and opens the data; the caller lets go of the data if it fails after. */
export async function openInstance(options: ServerOptions): Promise<Instance> {
  const { port = 0, host = "127.0.0.1", bodyLimit, corsOrigins, logError, logFormat = "off", metrics: metricsOn = true, seed, resources, db, dialect, clock, ...rest } = options;
  const { control, controlLog, delay, ...unshaped } = rest;
  const { allowedHosts, authTokens, authTokensFile, readOnly, storeLimit, ...stored } = unshaped;
  const logger = createLogger(checkLogFormat(logFormat));
  const { dataDir, databaseUrl, fsync, compactBytes, logWarning = logger.warn, onStoreFailure, ...times } = stored;
  const requestTimeout = times.requestTimeout ?? TIMEOUTS.requestTimeout;
  // Node refuses a headers time-out longer than the request time-out, and so would docs/spec.md#7-configuration-and-process.
  const headersTimeout = times.headersTimeout ?? Math.min(TIMEOUTS.headersTimeout, requestTimeout);
  const keepAliveTimeout = times.keepAliveTimeout ?? TIMEOUTS.keepAliveTimeout;
  const shutdownTimeout = times.shutdownTimeout ?? TIMEOUTS.shutdownTimeout;
  const state = { draining: false };
  const access = { allowedHosts, authTokens, authTokensFile, readOnly };
  const appOptions = { ...access, bodyLimit, corsOrigins, logError, seed, clock, control, controlLog, delay, isDraining: () => state.draining };
  // Tokens are read and checked before the data is opened: a bad entry must not leave a directory locked.
  tokenCheck(access);
  // The store tells its latency to the metrics, made once the store is open (they count its records).
  let metrics: Metrics | undefined;
  const storeTook = (operation: string, milliseconds: number) => metrics?.storeTook(operation, milliseconds);
  // The access lines batched so far go out before the store failure is told: the command exits on it.
  const toldFailure =
    onStoreFailure === undefined
      ? undefined
      : (error: Error) => {
          logger.flush();
          onStoreFailure(error);
        };
  const data = await openData({ seed, resources, db, dialect, clock, storeLimit, dataDir, databaseUrl, fsync, compactBytes, logWarning, onStoreFailure: toldFailure, storeTook });
  metrics = metricsOn ? recordMetrics(data) : undefined;
  return { data, logger, metrics, state, appOptions, settings: { port, host, headersTimeout, requestTimeout, keepAliveTimeout, shutdownTimeout } };
}

/** Where and how long: the settings serve needs, time-outs in milliseconds. */
export type Listening = {
  port: number;
  host: string;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  shutdownTimeout: number;
};

/** Listens with `api` and returns the running instance, whose close() drains it, then closes the store. */
async function serve(
  api: Api,
  store: Store,
  state: { draining: boolean },
  settings: Listening,
  { logger, metrics }: { logger: Logger; metrics: Metrics | undefined },
): Promise<RunningServer> {
  const app: RequestListener = api.listener;
  const { port, host, headersTimeout, requestTimeout, keepAliveTimeout, shutdownTimeout } = settings;
  // Every open connection, with the answers it still owes: shutdown closes each once it owes none.
  const connections = trackConnections(state);
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      // Node checks the two time-outs above only this often (30 s by default),
      // which would let a stalled client hold a connection far past them.
      connectionsCheckingInterval: checkingInterval(headersTimeout, requestTimeout),
      // HTTP/1.0 clients and raw probes send no Host; this API does not depend on it.
      requireHostHeader: false,
    },
    (request: IncomingMessage, response: ServerResponse) => {
      connections.owe(request, response);
      app(request, response);
    },
  );
  server.keepAliveTimeout = keepAliveTimeout;
  // A client that half-closes its side after asking (HTTP/1.0 tools, `nc`) gets its answer whole,
  // then the connection closes: by default node:http ends such a connection at once, cutting an
  // answer still being written in pieces (pieces.ts). Deno and Bun keep no such setting.
  (server as Server & { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;
  server.on("connection", (socket: Socket) => {
    if (!connections.all.has(socket)) connections.track(socket);
  });
  // Bad bytes, time-outs, an Expect it cannot meet and CONNECT get JSON answers too.
  answerRawErrors(server, api, connections, { logger, metrics });

  await listen(server, port, host);
  const address = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const shutdown = async () => {
    state.draining = true;
    connections.drain();
    let cut: () => void = () => undefined;
    const deadlinePassed = new Promise<void>((resolve) => (cut = resolve));
    const deadline = setTimeout(() => {
      for (const socket of connections.all.keys()) socket.destroy();
      cut();
    }, shutdownTimeout);
    deadline.unref();
    // Node's server.close() destroys a connection whose answer has ended at once, even while that
    // answer's last bytes still wait in its socket for a slow reader: such answers are sent first,
    // until the deadline, past which a reader that never reads (a pipelined answer queued behind
    // another may never report its close) holds the shutdown no longer.
    await Promise.race([connections.sent(), deadlinePassed]);
    // server.close() also closes the idle connections at once, on Node, Deno and Bun alike.
    // Busy ones get their answer with `Connection: close`, then go (see settled). On Node and
    // Bun, whose parser knows which connections have begun a request, so do those; Deno's
    // server.close() closes them too (docs/runtimes.md).
    await new Promise<void>((resolve) => server.close(() => resolve()));
    clearTimeout(deadline);
    // Then the store waits for writes still being kept (connections cut at the deadline may
    // have left some) and lets go of its files; the last access lines go out.
    try {
      await store.close();
    } finally {
      logger.flush();
    }
  };

  return {
    url: `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`,
    port: address.port,
    server,
    reset: store.reset,
    snapshot: store.snapshot,
    close: () => (closing ??= shutdown()),
  };
}

type DataOptions = Pick<ServerOptions, "seed" | "resources" | "db" | "dialect" | "clock" | "storeLimit" | "dataDir" | "databaseUrl" | "fsync" | "compactBytes" | "onStoreFailure"> & {
  logWarning: (line: string) => void;
  /** Told how long each store operation took: a journal's write and sync, a database's query or transaction. */
  storeTook: (operation: string, milliseconds: number) => void;
};

/** The instance's data: in memory, or, with `dataDir`, in a journal store opened on it, or, with `databaseUrl`, in that database. */
async function openData(options: DataOptions): Promise<DataSet> {
  const { dataDir, databaseUrl, fsync, compactBytes } = options;
  // json-server's dialect holds its data in memory, as json-server does (docs/json-server.md).
  const served = chooseServed({ ...options, storeLimit: checkStoreLimit(options.storeLimit) });
  if (served.dialect !== undefined) {
    if (dataDir !== undefined || databaseUrl !== undefined) throw new TypeError("The json-server dialect keeps its records in memory; leave dataDir and databaseUrl unset, or set dialect to native");
    return served.dialect;
  }
  const seed = served.seed as ServerOptions["seed"];
  // Collections a file defines, checked whole before any store is opened; the built-in ones otherwise.
  const definitions = served.resources === undefined ? undefined : readResourcesFile(served.resources);
  const define = () => (definitions === undefined ? { ...defineData({ ...options, seed }), firstIds: undefined } : defineFileData(definitions, { seed }));
  if (databaseUrl !== undefined) {
    if (typeof databaseUrl !== "string" || !isPostgresUrl(databaseUrl)) {
      throw new TypeError("databaseUrl must be a PostgreSQL URL such as postgres://user:password@localhost:5432/name");
    }
    // One store at a time: each would hold a different data set.
    if (dataDir !== undefined) throw new TypeError("databaseUrl and dataDir cannot be given together; choose one store");
    if (fsync !== undefined || compactBytes !== undefined) throw new TypeError("fsync and compactBytes need dataDir");
    const { resources, starting, firstIds } = define();
    const store = await openDatabaseStore(databaseUrl, {
      resources,
      starting,
      seeded: seed !== undefined,
      warn: options.logWarning,
      took: options.storeTook,
    });
    return { resources, store, firstIds };
  }
  if (dataDir === undefined) {
    if (fsync !== undefined || compactBytes !== undefined) throw new TypeError("fsync and compactBytes need dataDir");
    return definitions === undefined ? createDataSet({ ...options, seed }) : createFileDataSet(definitions, { ...options, seed });
  }
  if (typeof dataDir !== "string" || dataDir === "") throw new TypeError("dataDir must be the path of a directory");
  if (fsync !== undefined && !FSYNC_POLICIES.includes(fsync)) throw new TypeError(`fsync must be ${FSYNC_POLICIES.join(" or ")}`);
  if (compactBytes !== undefined && !(Number.isSafeInteger(compactBytes) && compactBytes > 0)) {
    throw new TypeError("compactBytes must be a positive whole number of bytes");
  }
  const { resources, starting, firstIds } = define();
  const onFailure =
    options.onStoreFailure ??
    ((error: Error) => options.logWarning(`A write could not be kept in ${dataDir} (${error.message}); answering 503 from now on`));
  const store = await openJournalStore(dataDir, resources, starting, {
    fsync,
    compactBytes,
    seeded: seed !== undefined,
    warn: options.logWarning,
    onFailure,
    onSync: (milliseconds) => options.storeTook("sync", milliseconds),
    limit: checkStoreLimit(options.storeLimit),
  });
  return { resources, store, firstIds };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** How often Node checks the time-outs: a quarter of the shortest, between 10 ms and 1 s. */
function checkingInterval(...timeouts: number[]): number {
  const shortest = Math.min(...timeouts.filter((timeout) => timeout > 0));
  return Number.isFinite(shortest) ? Math.max(10, Math.min(1000, Math.floor(shortest / 4))) : 1000;
}
