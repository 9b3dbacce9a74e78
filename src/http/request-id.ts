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

// A count's text is put together from pieces made ahead, never converted from the number:
// that put every id in V8's number-to-string cache, which kept it alive through the next
// collection. Past the first thousand, the ids of each thousand are made together
// as one string and each is cut from it: node:http checks every header value with a regular
// expression, which reads a cut of a flat string in place but must first copy an id joined
// from pieces. Fast path: no id is cached by V8 or copied for its header check
// (docs/benchmarks.md, "Measurements behind fast paths in the code").
const UNITS = Array.from({ length: 1000 }, (_, i) => String(i));
const LAST_THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
let thousand = "";
let width = 0;

/** The id of a request: its sane `X-Request-Id`, or a new one. */
export function requestIdOf(header: string | string[] | undefined): string {
  if (typeof header === "string" && SANE.test(header)) return header;
  return newRequestId();
}

/** A new id, such as `3f9a1c0b22d4-52`: this process's prefix and a count, in decimal. */
export function newRequestId(): string {
  const last = ++counter % 1000;
  if (counter < 1000) return PREFIX + UNITS[last]!;
  if (last === 0) {
    const head = PREFIX + counter / 1000;
    width = head.length + 3;
    thousand = LAST_THREE.map((digits) => head + digits).join("");
  }
  return thousand.slice(last * width, last * width + width);
}
