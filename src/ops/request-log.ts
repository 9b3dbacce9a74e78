// The request log of test control: the last requests the API answered, bounded in entries and in bytes.
import type { IncomingHttpHeaders } from "node:http";

/** One request as `GET /__control/requests` shows it. */
export type LoggedRequest = {
  method: string;
  /** The path with its query, as sent. */
  path: string;
  /** The request headers, names in lower case, without `Authorization`, `Proxy-Authorization` or `Cookie`. */
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON where it was JSON, else its text; null when there was none (or it was refused unread). */
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

/** A log of at most `entries` requests and LOG_BYTES of what they hold. */
export function createRequestLog(entries: number = DEFAULT_LOG_ENTRIES): RequestLog {
  if (!Number.isSafeInteger(entries) || entries < 1) throw new TypeError("controlLog must be a positive whole number of requests");
  // Oldest first from `start`: dropping the oldest moves `start` on, and the array is compacted now and then, not shifted each time.
  let held: Array<{ request: RequestToLog; bytes: number }> = [];
  let start = 0;
  let bytes = 0;

  const dropOldest = () => {
    bytes -= held[start]!.bytes;
    held[start++] = undefined!;
    if (start > 1024 && start * 2 > held.length) {
      held = held.slice(start);
      start = 0;
    }
  };

  return {
    add: (request) => {
      const headers: IncomingHttpHeaders = {};
      let size = request.path.length + (request.body?.length ?? 0);
      for (const name in request.headers) {
        if (SECRET_HEADERS.has(name)) continue;
        const value = request.headers[name];
        headers[name] = value;
        size += name.length + String(value).length;
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
      return held.slice(first).map(({ request }) => ({ ...request, body: bodyOf(request.body) }));
    },
    clear: () => {
      held = [];
      start = 0;
      bytes = 0;
    },
  };
}

/** A logged body as the log shows it: parsed JSON, or the text when it is not JSON, or null. */
function bodyOf(bytes: Uint8Array | undefined): unknown {
  if (bytes === undefined || bytes.length === 0) return null;
  const text = new TextDecoder().decode(bytes);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
