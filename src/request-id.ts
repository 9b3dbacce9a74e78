// Request ids: the one a client or a proxy sent, when it is sane, or a new one, unique across processes.
import { randomBytes } from "node:crypto";

/**
 * What an incoming `X-Request-Id` may hold to be kept: 1 to 128 characters of letters,
 * digits and `-_.:+=/` (UUIDs, ULIDs, base64, and the ids proxies and tracers send).
 * Anything else, several headers joined by a comma among them, is replaced, never refused:
 * an id is there to find a log line, and a request is not worth failing for one.
 */
const SANE = /^[A-Za-z0-9\-_.:+=/]{1,128}$/;

// A random prefix per process, then a counter: unique across replicas and restarts
// (48 random bits), and cheaper than a random UUID per request.
const PREFIX = `${randomBytes(6).toString("hex")}-`;
let counter = 0;

// A count's text is put together from pieces made ahead: the thousands, made once per
// thousand, and the last three digits from a table. Turning the count into a string for
// each request put every id in V8's number-to-string cache, which kept it alive through
// the next collection: 0.28 µs more CPU per `GET /users/1` (7.69 against 7.41 µs,
// bench/in-memory.mjs with CONNECTIONS=50).
const UNITS = Array.from({ length: 1000 }, (_, i) => String(i));
const LAST_THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
let thousands = PREFIX;

/** The id of a request: its sane `X-Request-Id`, or a new one. */
export function requestIdOf(header: string | string[] | undefined): string {
  if (typeof header === "string" && SANE.test(header)) return header;
  return newRequestId();
}

/** A new id, such as `3f9a1c0b22d4-52`: this process's prefix and a count, in decimal. */
export function newRequestId(): string {
  const last = ++counter % 1000;
  if (counter < 1000) return PREFIX + UNITS[last]!;
  if (last === 0) thousands = PREFIX + counter / 1000;
  return thousands + LAST_THREE[last]!;
}
