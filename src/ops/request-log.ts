// The request log of test control: the last requests the API answered, bounded in entries and in bytes.
import type { IncomingHttpHeaders } from "node:http";
import { parseJsonObject } from "../api/json.ts";

/** One request as `GET /__control/requests` shows it. */
export type LoggedRequest = {
  method: string;
  /** The path with its query, as sent. */
  path: string;
  /** The request headers, names in lower case, without `Authorization`, `Proxy-Authorization` or `Cookie`. */
  headers: IncomingHttpHeaders;
  /** The body parsed where it is a JSON object the API could read, up to 64 KiB; else its text; null when there was none (or it was refused unread). */
  body: unknown;
  /** The status answered; null when no answer went out (`Prefer: fault=reset`, or the client hung up). */
  status: number | null;
  /** When the request arrived, as an ISO 8601 UTC timestamp. */
  time: string;
};

/** A request to log: LoggedRequest with its body still as bytes, parsed only when the log is read. */
export type RequestToLog = Omit<LoggedRequest, "body"> & { body: Uint8Array | undefined };

/** The log: `add` as requests are answered, `list` the last ones, oldest first, `clear` to empty it. */
export type RequestLog = {
  add: (request: RequestToLog) => void;
  list: (limit?: number) => LoggedRequest[];
  clear: () => void;
};

/** How many requests the log keeps by default (`CONTROL_LOG`). */
export const DEFAULT_LOG_ENTRIES = 1000;

/**
 * The most the log keeps in bytes of paths, headers and bodies, however many entries it may
 * hold: 1000 bodies of a MiB each would take a server past its memory budget. The oldest go first.
 */
export const LOG_BYTES = 8 * 1024 * 1024;

// Headers that carry secrets: a log a test can read over HTTP must never hold them.
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);

// What an entry and each of its headers cost beyond their text, roughly: the objects that hold
// them. Counted, so that a million small entries stay within LOG_BYTES too.
export const ENTRY_COST = 200;
export const HEADER_COST = 50;

/**
 * The largest body the log shows parsed: a larger one is shown as its text, which costs what it
 * holds, where parsed objects would cost many times more on every read of the log.
 */
const PARSED_BYTES = 64 * 1024;

/** A log of at most `entries` requests and LOG_BYTES of what they hold. */
export function createRequestLog(entries: number = DEFAULT_LOG_ENTRIES): RequestLog {
  if (!Number.isSafeInteger(entries) || entries < 1) throw new TypeError("controlLog must be a positive whole number of requests");
  // Oldest first from `start`: dropping the oldest moves `start` on, and the array is compacted now and then, not shifted each time.
  let held: Array<{ request: RequestToLog; bytes: number } | undefined> = [];
  let start = 0;
  let bytes = 0;

  const dropOldest = () => {
    bytes -= held[start]!.bytes;
    held[start++] = undefined;
    if (start > 1024 && start * 2 > held.length) {
      held = held.slice(start);
      start = 0;
    }
  };

  return {
    add: (request) => {
      const headers: IncomingHttpHeaders = {};
      let size = ENTRY_COST + request.path.length + (request.body?.length ?? 0);
      for (const name in request.headers) {
        if (SECRET_HEADERS.has(name)) continue;
        const value = request.headers[name];
        headers[name] = value;
        size += HEADER_COST + name.length + String(value).length;
      }
      // A request larger than the whole log is kept without its body.
      const body = size > LOG_BYTES ? undefined : request.body;
      if (body === undefined) size -= request.body?.length ?? 0;
      held.push({ request: { ...request, headers, body }, bytes: size });
      bytes += size;
      // The newest stays, even one whose path and headers alone pass LOG_BYTES (possible in-process, where no header limit applies).
      while (held.length - start > entries || (bytes > LOG_BYTES && held.length - start > 1)) dropOldest();
    },
    list: (limit = Infinity) => {
      const first = Math.max(start, held.length - limit);
      return held.slice(first).map((entry) => ({ ...entry!.request, body: bodyOf(entry!.request.body) }));
    },
    clear: () => {
      held = [];
      start = 0;
      bytes = 0;
    },
  };
}

/**
 * A logged body as the log shows it: parsed by the API's own rules (depth, values, names) where
 * it is a JSON object of at most PARSED_BYTES, else its text, or null. The log keeps bodies the
 * API refused, such as one nested 50,000 deep, which a plain parse would turn into a value no
 * answer could serialise.
 */
function bodyOf(bytes: Uint8Array | undefined): unknown {
  if (bytes === undefined || bytes.length === 0) return null;
  if (bytes.length <= PARSED_BYTES) {
    try {
      return parseJsonObject(bytes);
    } catch {
      // Not an object the API reads: shown as sent.
    }
  }
  return new TextDecoder().decode(bytes);
}
