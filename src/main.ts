#!/usr/bin/env node
// The entry point and the `rest-reference-server` command: the only code that reads process.env
// and the arguments, starts listening and handles signals.
import { type Config, ConfigError, helpText, readConfig, readFlags, readJsonFile, readSeedFile } from "./config.ts";
import { looseTokensFile, TokenError, TOKENS_ON_COMMAND_LINE } from "./http/access.ts";
import { DatabaseError } from "./store/database.ts";
import { JournalDamageError } from "./store/journal/damage.ts";
import { LockedError } from "./store/journal/lock.ts";
import { DataDirError, DataMismatchError } from "./store/journal/store.ts";
import { type DbJson, dbJsonResources, readDbJson, ResourcesFileError } from "./api/resources-file.ts";
import { describeDb, readDbFile } from "./api/json-server/database.ts";
import { createLogger } from "./ops/log.ts";
import { startedByPackageManager, watchParent } from "./ops/parent-watch.ts";
import { StoreLimitError } from "./store/memory/store.ts";
import { SeedError } from "./api/seed.ts";
import { type Seed } from "./store/records.ts";
import { type RunningServer, startServer } from "./http/server.ts";
import { nativeServerName } from "./http/native.ts";
import { type NativeRunningServer, startNativeServer } from "./http/native-server.ts";

/** What the command runs: a node:http server, or the runtime's own. */
type Running = Pick<RunningServer | NativeRunningServer, "url" | "close">;
import { VERSION } from "./ops/version.ts";

const flags = readOrExit(() => readFlags(process.argv.slice(2)));
if (flags.help) {
  console.log(helpText("rest-reference-server"));
  process.exit(0);
}
if (flags.version) {
  console.log(VERSION);
  process.exit(0);
}
const config = readOrExit(() => readConfig(process.env, flags));
// A person at a terminal sees a line per request; output going to a pipe or a file (a test, a
// benchmark, a supervisor) stays quiet unless LOG_FORMAT asks. The container image asks for json.
const logFormat = config.logFormat === "auto" ? (process.stdout.isTTY ? "text" : "off") : config.logFormat;
const served = whatToServe(config);
warnOfExposedTokens(config);
const running = await listenOrExit(config, served);

// The handlers go in before the line that says the server is ready: whoever reads it may
// signal at once, and a signal with no handler yet would kill the process uncleanly.
const stop = () =>
  running.close().then(
    () => process.exit(0),
    (error: Error) => exitWith(`Stopping failed: ${error.message}`),
  );
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, stop);
// Under npm (npx, npm exec, a script), npm's shell does not hand a signal on: the server stops when npm goes.
if (startedByPackageManager(process.env)) {
  watchParent((parent) => {
    createLogger(logFormat).warn(`The process that started this server (pid ${parent}) has ended; stopping`);
    void stop();
  });
}
// Test control lets whoever reaches the port erase or replace the data, so its start says so,
// on stderr and before the listening line, naming the setting as it was given.
if (config.control) createLogger(logFormat).warn(controlWarning(flags.control !== undefined ? "--control on" : "CONTROL=on", running.url));
// In `json` these lines are JSON objects too, so that every line on stdout is one.
const startLogger = createLogger(logFormat);
for (const line of served.lines ?? []) startLogger.info(line);
startLogger.info(`Listening on ${running.url}`);

/** What the command serves: the starting records and collections, or a db.json in json-server's dialect with a line per collection. */
type Served = { seed: unknown; resources: unknown; db?: unknown; lines?: string[] };

/**
 * The starting records and the collections a file defines: a seed file, a resources file,
 * or a json-server db.json. In the native dialect, a db.json's top-level members that are not
 * arrays are told and left out; in json-server's, each collection is told how it is served.
 */
function whatToServe(config: Config): Served {
  const seed = config.seedFile === undefined ? undefined : readOrExit(() => readSeedFile(config.seedFile!));
  if (config.resourcesFile !== undefined) {
    return { seed, resources: readOrExit(() => readJsonFile(config.resourcesFile!, "resources file", "--resources or RESOURCES_FILE")) };
  }
  if (config.dbFile === undefined) return { seed, resources: undefined };
  const path = config.dbFile;
  const json = readOrExit(() => readJsonFile(path, "db.json", "the command's argument, --db or DB_FILE"));
  if (config.dialect !== "native") {
    try {
      return { seed, resources: undefined, db: json, lines: describeDb(readDbFile(json)).map((line) => `${path} ${line}`) };
    } catch (error) {
      if (!(error instanceof ResourcesFileError)) throw error;
      exitWith(`${path}: ${error.message}`);
    }
  }
  let db: DbJson;
  try {
    db = readDbJson(json);
  } catch (error) {
    if (!(error instanceof ResourcesFileError)) throw error;
    exitWith(`${path}: ${error.message}`);
  }
  for (const name of db.leftOut) createLogger(logFormat).warn(`${path}: "${name}" is not an array of records, so it is not served`);
  return { seed: db.records, resources: dbJsonResources(db) };
}

/** Says on stderr, before listening, where other users of this machine could read the tokens: in `ps`, or in a file open to them. */
function warnOfExposedTokens(config: Config): void {
  const warn = createLogger(logFormat).warn;
  if (flags.authTokens !== undefined) warn(TOKENS_ON_COMMAND_LINE);
  const loose = config.authTokensFile === undefined ? undefined : looseTokensFile(config.authTokensFile);
  if (loose !== undefined) warn(loose);
}

function readOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    exitWith(error.message);
  }
}

async function listenOrExit(config: Config, { seed, resources, db }: Served): Promise<Running> {
  const { seedFile, resourcesFile, dbFile, fsync, compactBytes, logFormat: _auto, dialect, httpServer, ...options } = config;
  // The journal's settings go with a data directory only (readConfig refuses them without one).
  const journal = config.dataDir === undefined ? {} : { fsync, compactBytes };
  // node:http unless HTTP_SERVER=native on Deno or Bun, whose own server owns some of the rules of a connection (docs/runtimes.md).
  const start = httpServer === "native" && nativeServerName() !== undefined ? startNativeServer : startServer;
  try {
    // startServer checks what the records hold, and says what is wrong with each.
    return await start({
      ...options,
      ...journal,
      logFormat,
      seed: seed as Seed | undefined,
      resources,
      // A db.json in json-server's dialect; in the native one, it came in as resources and seed.
      ...(db === undefined ? { dialect } : { db, dialect }),
      // A write that cannot be kept leaves memory ahead of the disk: a supervisor's restart
      // replays the journal and serves only what was kept.
      onStoreFailure: (error) => exitWith(`A write could not be kept in ${config.dataDir} (${error.message}); stopping`),
    });
  } catch (error) {
    if (error instanceof SeedError) exitWith(`The ${dbFile === undefined ? "seed file" : "db.json"} ${seedFile ?? dbFile} is not valid: ${error.summary}; fix the file`);
    if (error instanceof ResourcesFileError) exitWith(`${resourcesFile ?? dbFile}: ${error.message}`);
    // Each says in one line what is wrong and what to do.
    if (error instanceof StoreLimitError && seedFile !== undefined) exitWith(`The seed file ${seedFile} is too large: ${error.message}`);
    if (
      error instanceof JournalDamageError ||
      error instanceof LockedError ||
      error instanceof DataDirError ||
      error instanceof DataMismatchError ||
      error instanceof ResourcesFileError ||
      error instanceof DatabaseError ||
      error instanceof StoreLimitError ||
      error instanceof TokenError
    ) {
      exitWith(error.message);
    }
    exitWith(describeListenError(error as NodeJS.ErrnoException, config));
  }
}

function describeListenError(error: NodeJS.ErrnoException, { host, port }: Config): string {
  // The setting named is the one the user gave: the flag wins over the variable, as it did here.
  const portSetting = flags.port !== undefined ? "--port" : "PORT";
  const hostSetting = flags.host !== undefined ? "--host" : "HOST";
  switch (error.code) {
    case "EADDRINUSE":
      return `Port ${port} on ${host} is already in use; set ${portSetting} to a free port`;
    case "EACCES":
      return `Port ${port} needs more privileges than this process has; set ${portSetting} to 1024 or above`;
    case "EADDRNOTAVAIL":
      return `${hostSetting} ${host} is not an address of this machine; set ${hostSetting} to 127.0.0.1 or 0.0.0.0`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `${hostSetting} ${host} cannot be resolved to an address; set ${hostSetting} to 127.0.0.1 or 0.0.0.0`;
    default:
      return `Cannot listen on ${host}:${port} (${error.code ?? error.message}); check ${hostSetting} and ${portSetting}`;
  }
}

/** The start-up warning of test control: what anyone who reaches `url` can do, and when to turn it off. */
function controlWarning(setting: string, url: string): string {
  return `Warning: test control is on (${setting}): anyone who can reach ${url} can erase or replace every record; turn it off wherever others can reach the server`;
}

function exitWith(line: string): never {
  console.error(line);
  process.exit(1);
}
