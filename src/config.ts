// readConfig: the environment read and checked into a typed Config, in one place.
import { DEFAULT_BODY_LIMIT } from "./body.ts";
import { parseWholeNumber } from "./input.ts";

/** Everything the process takes from its environment. */
export type Config = { port: number; host: string; bodyLimit: number };

/** An environment variable with a value the server cannot use; the message says what to set. */
export class ConfigError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/**
 * Reads PORT (default 3000, 0 picks a free port), HOST (default 127.0.0.1) and
 * BODY_LIMIT (bytes, default 1 MiB). A variable set to the empty string counts as unset.
 */
export function readConfig(env: Record<string, string | undefined>): Config {
  return {
    port: readWholeNumber(env, "PORT", 3000, { min: 0, max: 65535 }),
    host: readHost(env),
    bodyLimit: readWholeNumber(env, "BODY_LIMIT", DEFAULT_BODY_LIMIT, { min: 1, max: Number.MAX_SAFE_INTEGER }),
  };
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
