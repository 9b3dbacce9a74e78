// readConfig: the flags and the environment read and checked into a typed Config, from one table of settings.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DEFAULT_BODY_LIMIT } from "./http/body.ts";
import { TIMEOUTS } from "./http/server.ts";
import { DEFAULT_ALLOWED_HOSTS, hostCheck, parseTokens, readTokensFile } from "./http/access.ts";
import { type CorsOrigins, normaliseOrigin } from "./http/cors.ts";
import { isPostgresUrl } from "./store/database.ts";
import { parseWholeNumber } from "./api/input.ts";
import { syntaxErrorPlace } from "./api/json-syntax.ts";
import { DEFAULT_COMPACT_BYTES } from "./store/journal/journal.ts";
import { FSYNC_POLICIES, type FsyncPolicy } from "./store/journal/writer.ts";
import { LOG_FORMATS, type LogFormat } from "./ops/log.ts";
import { DEFAULT_STORE_LIMIT } from "./store/memory/budget.ts";
import { DEFAULT_LOG_ENTRIES } from "./ops/request-log.ts";
import { type Delay, DELAY_FORMAT, readDelay } from "./http/prefer.ts";
import { type Dialect, DIALECTS } from "./api/json-server/data-set.ts";

/** Everything the process takes from its flags and environment. Times are in milliseconds. */
/** The servers the command can answer through on Deno and Bun. */
export const HTTP_SERVERS = ["native", "node"] as const;
export type HttpServer = (typeof HTTP_SERVERS)[number];

export type Config = {
  port: number;
  host: string;
  /** Which server answers on Deno and Bun: their own (`native`) or their node:http layer (`node`); Node has only node:http. */
  httpServer: HttpServer;
  bodyLimit: number;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  shutdownTimeout: number;
  /** Which origins a browser may call the API from: loopback pages, any (`*`), none (`off`), or these. */
  corsOrigins: CorsOrigins;
  /** The Host names requests may carry (DNS rebinding is refused); `*` for any. */
  allowedHosts: readonly string[];
  /** `SCOPE:TOKEN` entries from `AUTH_TOKENS`, checked; unset for none. */
  authTokens: string | undefined;
  /** A file of `SCOPE:TOKEN` lines, read and checked at start-up. */
  authTokensFile: string | undefined;
  /** Whether every write is refused with 403 READ_ONLY. */
  readOnly: boolean;
  /** The most the records held may cost, in bytes as the store counts them; a write past it gets 507. */
  storeLimit: number;
  /** A JSON file of starting records (the `seed` option's shape), if one is named. */
  seedFile: string | undefined;
  /** A resources file: the collections to serve instead of the built-in ones. */
  resourcesFile: string | undefined;
  /** A json-server `db.json` to serve: its arrays are the collections and their starting records. */
  dbFile: string | undefined;
  /** The HTTP spoken, when named: json-server's or the native API; unset, json-server's with a db.json. */
  dialect: Dialect | undefined;
  /** The directory the data is kept in across restarts; memory only when unset. */
  dataDir: string | undefined;
  /** The PostgreSQL database the data lives in, shared with other processes; unset for memory or a data directory. */
  databaseUrl: string | undefined;
  /** When a journal write is synced (with `dataDir`). */
  fsync: FsyncPolicy;
  /** The journal length that starts a compaction (with `dataDir`). */
  compactBytes: number;
  /** The access log's format on stdout, and that of errors and notices on stderr; `auto` is `text` on a terminal, else `off`. */
  logFormat: LogFormat | "auto";
  /** Whether `GET /metrics` is served. */
  metrics: boolean;
  /** Whether test control is on: the `/__control/` routes, and `Prefer` honoured. */
  control: boolean;
  /** How many requests the control log keeps. */
  controlLog: number;
  /** How long every API answer waits; unset for none. */
  delay: Delay | undefined;
};

/** A flag or environment variable with a value the server cannot use; the message says what to set. */
export class ConfigError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** One setting: its variable, its flag, its default as the docs show it, and how its text is read. */
export type Setting = {
  key: keyof Config;
  variable: string;
  flag: string;
  /** The default, as docs/configuration.md and `--help` show it; empty when there is none. */
  shown: string;
  meaning: string;
  /** Reads the text of the variable or flag named `source`; undefined text means unset. */
  read: (text: string | undefined, source: string) => Config[keyof Config];
  /** What `--help` calls the flag's value: `value` unless said. */
  placeholder?: string;
  /**
   * Why a value set but blank is refused, where it would otherwise count as unset: a tokens
   * setting left blank by a mistake (an empty secret, a template with nothing in it) would
   * start the server with no token at all.
   */
  blank?: string;
};

// A time-out is at least 1 ms (0 would switch it off, which docs/spec.md#7-configuration-and-process forbids) and at most an hour.
const MILLISECONDS = { min: 1, max: 3_600_000 };

/**
 * Every setting, in the order docs/configuration.md's table, `--help` and readConfig list them.
 * That table is this list (test/docs.test.ts).
 */
export const SETTINGS: readonly Setting[] = [
  {
    key: "port",
    variable: "PORT",
    flag: "--port",
    shown: "3000",
    meaning: "The port to listen on, 0 to 65535; `0` picks a free port.",
    read: wholeNumber(3000, { min: 0, max: 65535 }),
  },
  {
    key: "host",
    variable: "HOST",
    flag: "--host",
    shown: "127.0.0.1",
    meaning: "The address to listen on; containers set `0.0.0.0`.",
    read: readHost,
  },
  {
    key: "httpServer",
    variable: "HTTP_SERVER",
    flag: "--http-server",
    shown: "node",
    meaning:
      "Which server answers on Deno and Bun: `node`, the runtime's node:http compatibility layer, which keeps every rule of docs/spec.md, or `native`, the runtime's own (`Deno.serve`, `Bun.serve`): faster, but it owns the time-outs, bad bytes and dropped connections, and Deno's has no time-outs at all (see docs/runtimes.md). Node has node:http alone, whatever this says.",
    read: oneOf(HTTP_SERVERS, "node"),
    placeholder: "name",
  },
  {
    key: "bodyLimit",
    variable: "BODY_LIMIT",
    flag: "--body-limit",
    shown: String(DEFAULT_BODY_LIMIT),
    meaning: "The largest request body in bytes (1 MiB by default); larger ones get 413.",
    read: wholeNumber(DEFAULT_BODY_LIMIT, { min: 1, max: Number.MAX_SAFE_INTEGER }),
  },
  {
    key: "headersTimeout",
    variable: "HEADERS_TIMEOUT_MS",
    flag: "--headers-timeout",
    shown: String(TIMEOUTS.headersTimeout),
    meaning: "A connection must deliver its complete headers within this time, or it gets `408` and is closed.",
    read: wholeNumber(TIMEOUTS.headersTimeout, MILLISECONDS),
  },
  {
    key: "requestTimeout",
    variable: "REQUEST_TIMEOUT_MS",
    flag: "--request-timeout",
    shown: String(TIMEOUTS.requestTimeout),
    meaning: "A connection must deliver its complete request within this time, or it gets `408` and is closed; a client reading a long list must take a piece within it, or its connection is closed.",
    read: wholeNumber(TIMEOUTS.requestTimeout, MILLISECONDS),
  },
  {
    key: "keepAliveTimeout",
    variable: "KEEP_ALIVE_TIMEOUT_MS",
    flag: "--keep-alive-timeout",
    shown: String(TIMEOUTS.keepAliveTimeout),
    meaning: "An idle keep-alive connection is closed after this time.",
    read: wholeNumber(TIMEOUTS.keepAliveTimeout, MILLISECONDS),
  },
  {
    key: "shutdownTimeout",
    variable: "SHUTDOWN_TIMEOUT_MS",
    flag: "--shutdown-timeout",
    shown: String(TIMEOUTS.shutdownTimeout),
    meaning: "After `SIGTERM` or `SIGINT`, connections still busy this long are cut.",
    read: wholeNumber(TIMEOUTS.shutdownTimeout, MILLISECONDS),
  },
  {
    key: "corsOrigins",
    variable: "CORS_ORIGINS",
    flag: "--cors-origins",
    shown: "loopback",
    meaning:
      "Which web pages may call the API and read its answers (CORS): `loopback` pages served from this machine (`http` and `https` on `localhost`, `*.localhost`, `127.0.0.1` and `[::1]`, any port), `*` any, a comma-separated list of origins such as `https://app.example.com,http://localhost:5173` (and `null` if listed) only those, or `off` none.",
    read: readCorsOrigins,
  },
  {
    key: "allowedHosts",
    variable: "ALLOWED_HOSTS",
    flag: "--allowed-hosts",
    shown: "localhost,*.localhost,ip",
    meaning:
      "The names a request's `Host` may have, comma-separated, any port: `api.example.com`, `*.example.com` for its subdomains, `ip` for any IP address, or `*` for any. Others get `403 HOST_NOT_ALLOWED`, which blocks DNS rebinding. Behind a domain name, set it and keep `ip` for probes by address: `api.example.com,ip`.",
    read: readAllowedHosts,
  },
  {
    key: "authTokens",
    variable: "AUTH_TOKENS",
    flag: "--auth-tokens",
    shown: "",
    meaning:
      "Access tokens as comma-separated `SCOPE:TOKEN` entries, the scope `read` or `write` (which includes read). With any token set, every request but `/healthz`, `/readyz` and CORS preflights needs `Authorization: Bearer <token>`.",
    read: checkedTokens(parseTokens),
    placeholder: "tokens",
    blank: "holds no token; give SCOPE:TOKEN entries such as read:abc,write:def, or leave it unset to serve without tokens",
  },
  {
    key: "authTokensFile",
    variable: "AUTH_TOKENS_FILE",
    flag: "--auth-tokens-file",
    shown: "",
    meaning: "A file of access tokens, one `SCOPE:TOKEN` a line (blank lines and `#` comments skipped), such as a secret mounted at `/run/secrets/tokens`; adds to `AUTH_TOKENS`.",
    read: checkedTokens(readTokensFile),
    placeholder: "file",
    blank: "names no file; give the path of a file of SCOPE:TOKEN lines, or leave it unset to serve without tokens",
  },
  {
    key: "readOnly",
    variable: "READ_ONLY",
    flag: "--read-only",
    shown: "off",
    meaning: "`on` refuses every write with `403 READ_ONLY` and stores nothing, for public demos.",
    read: (text, source) => oneOf(["on", "off"] as const, "off")(text, source) === "on",
  },
  {
    key: "storeLimit",
    variable: "STORE_LIMIT",
    flag: "--store-limit",
    shown: String(DEFAULT_STORE_LIMIT),
    meaning:
      "The most memory the records held may take, in bytes as the store estimates it (64 MiB by default, which keeps the process under 512 MiB); a write past it gets `507 STORE_FULL`, and a seed past it ends start-up.",
    read: wholeNumber(DEFAULT_STORE_LIMIT, { min: 1, max: Number.MAX_SAFE_INTEGER }),
  },
  {
    key: "seedFile",
    variable: "SEED_FILE",
    flag: "--seed",
    shown: "",
    meaning: "A JSON file of the records to start with instead of the two seeded users (see the seed file's shape).",
    read: (text) => text,
    placeholder: "file",
  },
  {
    key: "resourcesFile",
    variable: "RESOURCES_FILE",
    flag: "--resources",
    shown: "",
    meaning: "A JSON file that defines the collections to serve instead of users, posts, comments and replies: each one's JSON Schema, id type and parent (see docs/resources.md).",
    read: (text) => text,
    placeholder: "file",
  },
  {
    key: "dbFile",
    variable: "DB_FILE",
    flag: "--db",
    shown: "",
    meaning: "A json-server `db.json` to serve, also given as the command's one argument: each top-level array is a collection, its records the starting data, and in json-server's dialect (see `DIALECT`) each top-level object a singular resource. The file is never written.",
    read: (text) => text,
    placeholder: "file",
  },
  {
    key: "dialect",
    variable: "DIALECT",
    flag: "--dialect",
    shown: "",
    meaning:
      "The HTTP the server speaks: `json-server` (json-server's query language, routes, statuses and bodies, in memory; see docs/json-server.md), the default with a db.json, or `native`, the default otherwise.",
    read: (text, source) => (text === undefined ? undefined : oneOf(DIALECTS, "native")(text, source)),
    placeholder: "name",
  },
  {
    key: "dataDir",
    variable: "DATA_DIR",
    flag: "--data-dir",
    shown: "",
    meaning:
      "A directory to keep the data in across restarts and crashes, created if missing: every write is journaled there and synced before it is answered. Unset, the data lives in memory only. With a seed, only a new directory starts from it.",
    read: (text) => text,
    placeholder: "dir",
  },
  {
    key: "databaseUrl",
    variable: "DATABASE_URL",
    flag: "--database-url",
    shown: "",
    meaning:
      "A PostgreSQL URL such as `postgres://user:password@db:5432/rest`: the data lives in that database, shared by every server process on it, through the optional package `rest-reference-server-postgres` (see docs/postgres.md). Not with `DATA_DIR`.",
    read: readDatabaseUrl,
    placeholder: "url",
  },
  {
    key: "fsync",
    variable: "FSYNC",
    flag: "--fsync",
    shown: "always",
    meaning:
      "With `DATA_DIR`: `always` syncs each write before its answer; `interval` answers once the write reaches the operating system and syncs at most once a second, so a power loss can lose the last second of writes (a crash of the process loses none).",
    read: readFsync,
  },
  {
    key: "compactBytes",
    variable: "COMPACT_BYTES",
    flag: "--compact-bytes",
    shown: String(DEFAULT_COMPACT_BYTES),
    meaning: "With `DATA_DIR`: the journal's length in bytes (64 MiB by default) past which it is compacted into a snapshot, while requests go on.",
    read: wholeNumber(DEFAULT_COMPACT_BYTES, { min: 1, max: Number.MAX_SAFE_INTEGER }),
  },
  {
    key: "logFormat",
    variable: "LOG_FORMAT",
    flag: "--log-format",
    shown: "auto",
    meaning:
      "The access log, one line per answered request on stdout: `text` for a person, `json` for a log collector (one object a line), or `off`; `auto` is `text` when stdout is a terminal and `off` otherwise. Errors go to stderr in the same format (as text with `off`). The container image sets `json`.",
    read: oneOf([...LOG_FORMATS, "auto"], "auto"),
  },
  {
    key: "metrics",
    variable: "METRICS",
    flag: "--metrics",
    shown: "on",
    meaning: "`on` serves `GET /metrics` in the Prometheus text format; `off` answers it 404 like any unknown path.",
    read: (text, source) => oneOf(["on", "off"] as const, "on")(text, source) === "on",
  },
  {
    key: "control",
    variable: "CONTROL",
    flag: "--control",
    shown: "off",
    meaning:
      "`on` is for test suites: it serves `/__control/` (reset, snapshot, load data, the request log) and honours `Prefer: delay=N`, `status=NNN` and `fault=reset`; never turn it on where strangers can reach the server. `off` answers `/__control/` 404 and ignores `Prefer`.",
    read: (text, source) => oneOf(["on", "off"] as const, "off")(text, source) === "on",
  },
  {
    key: "controlLog",
    variable: "CONTROL_LOG",
    flag: "--control-log",
    shown: String(DEFAULT_LOG_ENTRIES),
    meaning: "With `CONTROL=on`: how many requests `GET /__control/requests` keeps, the oldest dropped first; at most 8 MiB of their paths, headers and bodies whatever the number.",
    read: wholeNumber(DEFAULT_LOG_ENTRIES, { min: 1, max: 1_000_000 }),
  },
  {
    key: "delay",
    variable: "DELAY",
    flag: "--delay",
    shown: "",
    meaning: "Every API answer waits this long: `N` ms, or a time drawn uniformly from `MIN-MAX` ms (at most 60000); `/healthz`, `/readyz` and `/metrics` answer at once.",
    read: readDelaySetting,
  },
];

/** The values of the flags given, by config key; what `readFlags` returns. */
export type Flags = Partial<Record<keyof Config, string>> & { help?: boolean; version?: boolean };

/**
 * Reads command-line arguments: a flag per setting (`--port 8080` or `--port=8080`),
 * `--help` and `--version`. An unknown flag, a flag without its value, or a stray
 * argument is a ConfigError that says what to do.
 */
export function readFlags(args: readonly string[]): Flags {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
    version: { type: "boolean", short: "v" },
  };
  for (const setting of SETTINGS) options[setting.flag.slice(2)] = { type: "string" };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...args], options, strict: true, allowPositionals: true }));
  } catch (error) {
    throw new ConfigError(describeArgsError(error as NodeJS.ErrnoException));
  }
  const flags: Flags = { help: values.help === true, version: values.version === true };
  for (const setting of SETTINGS) {
    const value = values[setting.flag.slice(2)];
    if (typeof value === "string") flags[setting.key] = value;
  }
  // The one argument the command takes is a json-server db.json, as `json-server db.json` takes it.
  if (positionals.length > 1 || (positionals.length === 1 && flags.dbFile !== undefined)) {
    throw new ConfigError(`Unexpected argument ${positionals.at(-1)}; the command takes one db.json at most, and every setting is a flag such as --port 8080, see --help`);
  }
  if (positionals.length === 1) flags.dbFile = positionals[0];
  return flags;
}

function describeArgsError(error: NodeJS.ErrnoException): string {
  const flag = /'(-[^' ]+)/.exec(error.message)?.[1];
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `Unknown flag ${flag ?? "given"}; see --help for the flags`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return `${flag ?? "A flag"} needs a value, as in ${flag ?? "--port"}=8080 or ${flag ?? "--port"} 8080; see --help`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `Unexpected argument ${flag ?? /'([^']*)'/.exec(error.message)?.[1] ?? ""}; every setting is a flag such as --port 8080, see --help`;
    default:
      return `${error.message}; see --help`;
  }
}

/**
 * Reads every setting, a flag winning over its environment variable (defaults in
 * SETTINGS). A value set to the empty string counts as unset, but for the tokens settings,
 * which refuse it (Setting.blank). A bad value is a ConfigError naming the flag or variable
 * it came from.
 */
export function readConfig(env: Record<string, string | undefined>, flags: Flags = {}): Config {
  const config: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  const given = new Set<keyof Config>();
  for (const setting of SETTINGS) {
    const fromFlag = flags[setting.key];
    const [text, source] = fromFlag !== undefined ? [fromFlag, setting.flag] : [env[setting.variable], setting.variable];
    const trimmed = text?.trim();
    if (trimmed === "" && setting.blank !== undefined) throw new ConfigError(`${source} is set but ${setting.blank}`);
    config[setting.key] = setting.read(trimmed === "" ? undefined : trimmed, source);
    if (trimmed !== undefined && trimmed !== "") given.add(setting.key);
    sources[setting.key] = source;
  }
  const read = config as Config;
  if (read.databaseUrl !== undefined && read.dataDir !== undefined) {
    throw new ConfigError(`${sources.databaseUrl} and ${sources.dataDir} name two stores; set one of them: the database, or the data directory`);
  }
  if (read.dbFile !== undefined && read.resourcesFile !== undefined) {
    throw new ConfigError(`${sources.dbFile} and ${sources.resourcesFile} both say what to serve; set one of them`);
  }
  const dialect = read.dialect ?? (read.dbFile === undefined ? "native" : "json-server");
  if (dialect === "json-server" && read.resourcesFile !== undefined) {
    throw new ConfigError(`The json-server dialect serves a db.json or the built-in collections, not ${sources.resourcesFile}; set ${sources.dialect} to native`);
  }
  if (dialect === "json-server" && (read.dataDir !== undefined || read.databaseUrl !== undefined)) {
    const store = read.dataDir !== undefined ? sources.dataDir : sources.databaseUrl;
    throw new ConfigError(`The json-server dialect keeps its records in memory, so ${store} cannot keep them; leave ${store} unset, or set ${sources.dialect} to native`);
  }
  if (read.dbFile !== undefined && read.seedFile !== undefined) {
    throw new ConfigError(`${sources.dbFile} holds its own records; leave ${sources.seedFile} unset`);
  }
  if (given.has("controlLog") && !read.control) {
    throw new ConfigError(`${sources.controlLog} applies to test control only; set CONTROL=on (or --control on) too, or leave ${sources.controlLog} unset`);
  }
  for (const key of ["fsync", "compactBytes"] as const) {
    if (given.has(key) && read.dataDir === undefined) {
      throw new ConfigError(`${sources[key]} applies to a data directory only; set DATA_DIR (or --data-dir) too, or leave ${sources[key]} unset`);
    }
  }
  // The headers are part of the request, so their deadline cannot be the later one.
  if (read.headersTimeout > read.requestTimeout) {
    throw new ConfigError(
      `${sources.headersTimeout} (${read.headersTimeout}) must not be larger than ${sources.requestTimeout} (${read.requestTimeout})`,
    );
  }
  return read;
}

/** The text of `--help`, from SETTINGS. */
export function helpText(command: string): string {
  const width = Math.max(...SETTINGS.map((setting) => setting.flag.length)) + 8;
  const lines = SETTINGS.map((setting) => {
    const name = `${setting.flag} <${setting.placeholder ?? "value"}>`.padEnd(width);
    const source = setting.shown === "" ? setting.variable : `${setting.variable}, default ${setting.shown}`;
    return `  ${name} ${setting.meaning.replaceAll("`", "")} (${source})`;
  });
  return [
    `Usage: ${command} [flags] [db.json]`,
    "",
    "Serves the JSON REST API. Every flag may also be set by its environment variable; a flag wins.",
    "",
    ...lines,
    `  ${"--help".padEnd(width)} Prints this text.`,
    `  ${"--version".padEnd(width)} Prints the version.`,
  ].join("\n");
}

/**
 * Reads and parses a seed file; an unreadable file or text that is not JSON is a
 * ConfigError naming the file. What the records hold is checked by startServer.
 */
export function readSeedFile(path: string): unknown {
  return readJsonFile(path, "seed file", "--seed or SEED_FILE");
}

/**
 * Reads and parses a JSON file the settings name (`what` it is, and the `settings` that name
 * it, for the messages); an unreadable file or text that is not JSON is a ConfigError.
 */
export function readJsonFile(path: string, what: string, settings: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
    throw new ConfigError(`Cannot read the ${what} ${path} (${code}); check the path given to ${settings}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // The place from the text itself, since only some runtimes' messages give one, and as an offset.
    const place = syntaxErrorPlace(text);
    const at = place === undefined ? "" : ` at line ${place.line}, column ${place.column}`;
    const reason = (error as Error).message.replace(/ in JSON at position \d+.*$|, ".*" is not valid JSON$/s, "");
    throw new ConfigError(`The ${what} ${path} is not valid JSON${at} (${reason}); fix the file`);
  }
}

function wholeNumber(fallback: number, range: { min: number; max: number }): Setting["read"] {
  return (text, source) => {
    if (text === undefined) return fallback;
    const value = parseWholeNumber(text);
    if (value === undefined || value < range.min || value > range.max) {
      throw new ConfigError(`${source} must be a whole number from ${range.min} to ${range.max}, not "${text.slice(0, 40)}"`);
    }
    return value;
  };
}

function readCorsOrigins(text: string | undefined, source: string): CorsOrigins {
  if (text === undefined || text.toLowerCase() === "loopback") return "loopback";
  if (text === "*") return "*";
  if (text.toLowerCase() === "off") return "off";
  const origins: string[] = [];
  for (const entry of text.split(",")) {
    const origin = entry.trim();
    if (origin === "") {
      throw new ConfigError(`${source} has an empty entry; write loopback, *, off, or origins separated by single commas`);
    }
    try {
      origins.push(normaliseOrigin(origin));
    } catch (error) {
      throw new ConfigError(`${source} must be loopback, *, off, or a comma-separated list of origins: ${(error as Error).message}`);
    }
  }
  return origins;
}

function readAllowedHosts(text: string | undefined, source: string): readonly string[] {
  if (text === undefined) return DEFAULT_ALLOWED_HOSTS;
  const hosts = text.split(",").map((entry) => entry.trim());
  if (hosts.includes("")) throw new ConfigError(`${source} has an empty entry; write host names separated by single commas, or *`);
  try {
    hostCheck(hosts);
  } catch (error) {
    throw new ConfigError(`${source}: ${(error as Error).message}`);
  }
  return hosts;
}

/**
 * A reader of a tokens setting: the text as given, once `check` (parseTokens, readTokensFile) has
 * read it without a fault. A token is never quoted back: their messages name an entry by its place.
 */
function checkedTokens(check: (text: string, source: string) => unknown): Setting["read"] {
  return (text, source) => {
    if (text === undefined) return undefined;
    try {
      check(text, source);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
    return text;
  };
}

function readDelaySetting(text: string | undefined, source: string): Delay | undefined {
  try {
    return readDelay(text);
  } catch {
    throw new ConfigError(`${source} must be ${DELAY_FORMAT}`);
  }
}

function readFsync(text: string | undefined, source: string): FsyncPolicy {
  return oneOf(FSYNC_POLICIES, "always")(text, source);
}

/** A reader of one of some names, in any case; `fallback` when unset. */
function oneOf<T extends string>(names: readonly T[], fallback: T): (text: string | undefined, source: string) => T {
  return (text, source) => {
    if (text === undefined) return fallback;
    const name = names.find((candidate) => candidate === text.toLowerCase());
    if (name === undefined) throw new ConfigError(`${source} must be ${names.slice(0, -1).join(", ")} or ${names.at(-1)}, not "${text.slice(0, 40)}"`);
    return name;
  };
}

function readDatabaseUrl(text: string | undefined, source: string): string | undefined {
  if (text === undefined) return undefined;
  if (!isPostgresUrl(text)) {
    // Not echoed: it may hold a password.
    throw new ConfigError(`${source} must be a PostgreSQL URL that begins with postgres:// or postgresql://, such as postgres://user:password@localhost:5432/name`);
  }
  return text;
}

function readHost(text: string | undefined, source: string): string {
  if (text === undefined) return "127.0.0.1";
  if (/\s|\//.test(text)) {
    throw new ConfigError(`${source} must be an address or host name such as 127.0.0.1 or 0.0.0.0, not "${text.slice(0, 40)}"`);
  }
  return text;
}
