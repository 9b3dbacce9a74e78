// The request log of test control: the last requests the API answered, bounded in entries and in bytes.
import { Buffer } from "node:buffer";
import type { IncomingHttpHeaders } from "node:http";
import { parseJsonObject } from "../api/json.ts";
import { redactQuery } from "./redact.ts";

/** One request as `GET /__control/requests` shows it. */
export type LoggedRequest = {
  method: string;
  /** The path with its query, as sent, but for the values of secret query parameters (redact.ts). */
  path: string;
  /**
   * The request headers, names in lower case, without `Authorization`, `Proxy-Authorization` or
   * `Cookie`, and with the secret query parameters of `Referer` hidden.
   */
  headers: IncomingHttpHeaders;
  /** The body parsed where it is a JSON object the API could read, up to 64 KiB; else its text; null when there was none (or it was refused unread). */
  body: unknown;
  /** The status answered; null when no answer went out (`Prefer: fault=reset`, or the client hung up). */
  status: number | null;
  /** When the request arrived, as an ISO 8601 UTC timestamp. */
  time: string;
};

/** A request to log: LoggedRequest with its body still as bytes. */
export type RequestToLog = Omit<LoggedRequest, "body"> & { body: Uint8Array | undefined };

/**
 * The log: `add` as requests are answered, `answer` the JSON text of the last ones, oldest
 * first, in UTF-8 as `GET /__control/requests` sends it, and `clear` to empty it. Each entry's
 * text is made once, when it is logged; a read joins those texts and parses nothing, so it
 * costs about what the log holds. Reads of an unchanged log get the same bytes, which every
 * connection sends from without a copy of its own: readers that do not read cost no more.
 */
export type RequestLog = {
  add: (request: RequestToLog) => void;
  answer: (limit?: number) => Uint8Array;
  clear: () => void;
};

/** How many requests the log keeps by default (`CONTROL_LOG`). */
export const DEFAULT_LOG_ENTRIES = 1000;

/**
 * The most the log keeps in bytes of its entries' texts (UTF-8, which is as long as the answer
 * that sends them, and at least what a string of them takes in memory), however many entries it
 * may hold: 1000 bodies of a MiB each would take a server past its memory budget. The oldest go first.
 */
export const LOG_BYTES = 8 * 1024 * 1024;

// Headers that carry secrets: a log a test can read over HTTP must never hold them.
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);

// What an entry costs beyond its text, roughly: the object and the string that hold it. Counted,
// so that a million small entries stay within LOG_BYTES too.
export const ENTRY_COST = 200;

/**
 * The largest body the log shows parsed: a larger one is shown as its text, which costs what it
 * holds, where parsed objects would cost many times more on every read of the log.
 */
const PARSED_BYTES = 64 * 1024;

/** A log of at most `entries` requests and LOG_BYTES of what they hold. */
export function createRequestLog(entries: number = DEFAULT_LOG_ENTRIES): RequestLog {
  if (!Number.isSafeInteger(entries) || entries < 1) throw new TypeError("controlLog must be a positive whole number of requests");
  // Oldest first from `start`: dropping the oldest moves `start` on, and the array is compacted now and then, not shifted each time.
  let held: Array<{ text: string; bytes: number } | undefined> = [];
  let start = 0;
  let bytes = 0;
  // The last answer made, for as long as the log is as it was: `version` counts every change.
  let version = 0;
  let last: { version: number; count: number; bytes: Uint8Array } | undefined;

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
      for (const name in request.headers) {
        if (SECRET_HEADERS.has(name)) continue;
        const value = request.headers[name];
        // The page a request came from is a URL too, whose query may hold a secret.
        headers[name] = name === "referer" && typeof value === "string" ? redactQuery(value) : value;
      }
      const entry: LoggedRequest = { method: request.method, path: redactQuery(request.path), headers, body: null, status: request.status, time: request.time };
      // A body larger than the whole log is not shown: its text would be larger still.
      const body = request.body;
      if (body !== undefined && body.length <= LOG_BYTES) entry.body = bodyOf(body);
      let text = JSON.stringify(entry);
      let size = ENTRY_COST + Buffer.byteLength(text);
      // A request larger than the whole log is kept without its body.
      if (size > LOG_BYTES && entry.body !== null) {
        entry.body = null;
        text = JSON.stringify(entry);
        size = ENTRY_COST + Buffer.byteLength(text);
      }
      held.push({ text, bytes: size });
      bytes += size;
      version++;
      last = undefined;
      // The newest stays, even one whose path and headers alone pass LOG_BYTES (possible in-process, where no header limit applies).
      while (held.length - start > entries || (bytes > LOG_BYTES && held.length - start > 1)) dropOldest();
    },
    answer: (limit = Infinity) => {
      const first = Math.max(start, held.length - limit);
      const count = held.length - first;
      if (last?.version === version && last.count === count) return last.bytes;
      last = { version, count, bytes: Buffer.from(`[${held.slice(first).map((entry) => entry!.text).join(",")}]`) };
      return last.bytes;
    },
    clear: () => {
      held = [];
      start = 0;
      bytes = 0;
      version++;
      last = undefined;
    },
  };
}

/**
 * A logged body as the log shows it: parsed by the API's own rules (depth, values, names) where
 * it is a JSON object of at most PARSED_BYTES, else its text, or null. The log keeps bodies the
 * API refused, such as one nested 50,000 deep, which a plain parse would turn into a value no
 * answer could serialise. Shown once, when the request is logged: the entry's text is made then.
 */
function bodyOf(bytes: Uint8Array): unknown {
  if (bytes.length === 0) return null;
  if (bytes.length <= PARSED_BYTES) {
    try {
      return parseJsonObject(bytes);
    } catch {
      // Not an object the API reads: shown as sent.
    }
  }
  return new TextDecoder().decode(bytes);
}
