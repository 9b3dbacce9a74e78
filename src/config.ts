// readConfig: the environment read and checked into a typed Config, in one place.
import { DEFAULT_BODY_LIMIT } from "./body.ts";
import { type CorsOrigins, normaliseOrigin } from "./cors.ts";
import { parseWholeNumber } from "./input.ts";

/** Everything the process takes from its environment. Times are in milliseconds. */
export type Config = {
  port: number;
  host: string;
  bodyLimit: number;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  shutdownTimeout: number;
  corsOrigins: CorsOrigins;
};

/** An environment variable with a value the server cannot use; the message says what to set. */
export class ConfigError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** The defaults of the time-outs, in milliseconds (contract 7). */
export const TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  shutdownTimeout: 8_000,
} as const;

// A time-out is at least 1 ms (0 would switch it off, which contract 7 forbids) and at most an hour.
const MILLISECONDS = { min: 1, max: 3_600_000 };

/**
 * Reads PORT (default 3000, 0 picks a free port), HOST (default 127.0.0.1),
 * BODY_LIMIT (bytes, default 1 MiB) and the time-outs HEADERS_TIMEOUT_MS,
 * REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS and SHUTDOWN_TIMEOUT_MS (defaults in
 * TIMEOUTS), and CORS_ORIGINS (`*` by default, `off`, or a comma-separated list of
 * origins). A variable set to the empty string counts as unset.
 */
export function readConfig(env: Record<string, string | undefined>): Config {
  const config: Config = {
    port: readWholeNumber(env, "PORT", 3000, { min: 0, max: 65535 }),
    host: readHost(env),
    bodyLimit: readWholeNumber(env, "BODY_LIMIT", DEFAULT_BODY_LIMIT, { min: 1, max: Number.MAX_SAFE_INTEGER }),
    headersTimeout: readWholeNumber(env, "HEADERS_TIMEOUT_MS", TIMEOUTS.headersTimeout, MILLISECONDS),
    requestTimeout: readWholeNumber(env, "REQUEST_TIMEOUT_MS", TIMEOUTS.requestTimeout, MILLISECONDS),
    keepAliveTimeout: readWholeNumber(env, "KEEP_ALIVE_TIMEOUT_MS", TIMEOUTS.keepAliveTimeout, MILLISECONDS),
    shutdownTimeout: readWholeNumber(env, "SHUTDOWN_TIMEOUT_MS", TIMEOUTS.shutdownTimeout, MILLISECONDS),
    corsOrigins: readCorsOrigins(env),
  };
  // The headers are part of the request, so their deadline cannot be the later one.
  if (config.headersTimeout > config.requestTimeout) {
    throw new ConfigError(
      `HEADERS_TIMEOUT_MS (${config.headersTimeout}) must not be larger than REQUEST_TIMEOUT_MS (${config.requestTimeout})`,
    );
  }
  return config;
}

function readWholeNumber(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  range: { min: number; max: number },
): number {
  const text = env[name]?.trim();
  if (text === undefined || text === "") return fallback;
  const value = parseWholeNumber(text);
  if (value === undefined || value < range.min || value > range.max) {
    throw new ConfigError(
      `${name} must be a whole number from ${range.min} to ${range.max}, not "${text.slice(0, 40)}"`,
    );
  }
  return value;
}

function readHost(env: Record<string, string | undefined>): string {
  const text = env.HOST?.trim();
  if (text === undefined || text === "") return "127.0.0.1";
  if (/\s|\//.test(text)) {
    throw new ConfigError(`HOST must be an address or host name such as 127.0.0.1 or 0.0.0.0, not "${text.slice(0, 40)}"`);
  }
  return text;
}

function readCorsOrigins(env: Record<string, string | undefined>): CorsOrigins {
  const text = env.CORS_ORIGINS?.trim();
  if (text === undefined || text === "" || text === "*") return "*";
  if (text.toLowerCase() === "off") return "off";
  const origins: string[] = [];
  for (const entry of text.split(",")) {
    const origin = entry.trim();
    if (origin === "") {
      throw new ConfigError(`CORS_ORIGINS has an empty entry; write *, off, or origins separated by single commas`);
    }
    try {
      origins.push(normaliseOrigin(origin));
    } catch (error) {
      throw new ConfigError(`CORS_ORIGINS must be *, off, or a comma-separated list of origins: ${(error as Error).message}`);
    }
  }
  return origins;
}
