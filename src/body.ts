// Request bodies: checked in the contract's order, read, and parsed into a plain JSON object.
import type { IncomingMessage } from "node:http";
import { setImmediate } from "node:timers";
import { type ErrorCode, HttpError } from "./errors.ts";
import { clip } from "./input.ts";

/** The default largest request body, in bytes (1 MiB). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The deepest nesting of arrays and objects a body may have; the top-level object is level 1. */
export const MAX_DEPTH = 64;

/**
 * The most values (members, elements, and the strings, numbers and literals in them) a body may
 * hold. A value can cost a hundred times its bytes in memory once parsed (`[{},{},…]`), so this,
 * with BODY_LIMIT, bounds what parsing one body can take (docs/decisions.md, "Bounded memory").
 */
export const MAX_VALUES = 100_000;

/** The 400 codes a body can get from parseJsonObject, in the order its checks run (contract 3). */
export const BODY_ERROR_CODES = [
  "EMPTY_BODY",
  "INVALID_ENCODING",
  "INVALID_JSON",
  "BODY_NOT_OBJECT",
  "FORBIDDEN_KEY",
  "BODY_TOO_DEEP",
  "NUMBER_OUT_OF_RANGE",
] as const satisfies readonly ErrorCode[];

/**
 * Whether a member name is refused at any depth (`__proto__`, `constructor`, `prototype`), so
 * that no body can reach an object prototype. Compared directly: a Set's look-up hashes every
 * name of every body (with the whitespace check moved into the catch below, 0.03 to 0.23 µs
 * less a `POST /users` in three micro-benchmarks of parseJsonObject).
 */
function isForbiddenName(name: string): boolean {
  return name.length === 9 ? name === "__proto__" || name === "prototype" : name === "constructor";
}

/** The media type of a JSON Merge Patch (RFC 7396, section 4). */
const MERGE_PATCH = "application/merge-patch+json";

/** A parsed JSON object body. */
export type JsonObject = Record<string, unknown>;

/** How a body is read: the size limit, and whether the body is a PATCH's merge patch. */
export type BodyOptions = { limit: number; patch?: boolean };

// Only the four characters JSON itself counts as white space (RFC 8259, section 2).
const JSON_WHITESPACE_ONLY = /^[ \t\n\r]*$/;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The checks of a body that need only the request's headers (contract 3, in its order): media
 * type and content encoding 415, then a declared size over the limit 413, before a byte is read.
 * Throws the HttpError; the body itself is read by readBody and parsed by parseJsonObject.
 */
export function checkBodyHeaders(request: IncomingMessage, options: BodyOptions): void {
  checkMediaType(request.headers["content-type"], options);
  checkContentEncoding(request.headers["content-encoding"]);
  const declared = request.headers["content-length"];
  if (declared !== undefined && Number(declared) > options.limit) throw tooLarge(options.limit);
}

/**
 * Checks a Content-Type header: `application/json`, any case, with no charset but UTF-8.
 * A PATCH also takes `application/merge-patch+json` (RFC 7396), and is read as a merge
 * patch either way; JSON Patch (RFC 6902) is refused with a pointer to merge patch.
 */
export function checkMediaType(header: string | undefined, options: { patch?: boolean } = {}): void {
  const expected = options.patch ? "application/merge-patch+json or application/json" : "application/json";
  if (header === undefined) {
    throw new HttpError("UNSUPPORTED_MEDIA_TYPE", `Content-Type must be ${expected}; the header is missing`);
  }
  // What nearly every client sends needs no splitting, trimming or lower-casing.
  if (header === "application/json" || header === "application/json; charset=utf-8") return;
  const [type = "", ...parameters] = header.split(";");
  const mediaType = type.trim().toLowerCase();
  if (mediaType !== "application/json" && !(options.patch && mediaType === MERGE_PATCH)) {
    if (options.patch && mediaType === "application/json-patch+json") {
      throw new HttpError(
        "UNSUPPORTED_MEDIA_TYPE",
        "JSON Patch (application/json-patch+json) is not supported; send a JSON Merge Patch as application/merge-patch+json",
      );
    }
    throw new HttpError("UNSUPPORTED_MEDIA_TYPE", `Content-Type must be ${expected}`);
  }
  for (const parameter of parameters) {
    const [name = "", value = ""] = parameter.split("=");
    if (name.trim().toLowerCase() !== "charset") continue;
    const charset = value.trim().replace(/^"(.*)"$/, "$1").toLowerCase();
    // JSON exchanged between systems is UTF-8 (RFC 8259, section 8.1); other charsets are refused, not guessed at.
    if (charset !== "utf-8" && charset !== "utf8") {
      throw new HttpError("UNSUPPORTED_MEDIA_TYPE", "Content-Type charset must be utf-8");
    }
  }
}

/** Refuses a compressed body: this server reads bodies as sent, and would only misread one. */
export function checkContentEncoding(header: string | undefined): void {
  if (header === undefined || header.trim().toLowerCase() === "identity") return;
  throw new HttpError("UNSUPPORTED_MEDIA_TYPE", `Content-Encoding ${clip(header)} is not supported; send the body uncompressed`);
}

/** Parses bytes into a JSON object, or throws the HttpError the contract names. */
export function parseJsonObject(bytes: Uint8Array): JsonObject {
  // A value takes a byte at least, so only a body longer than the limit can hold too many (contract 3, step 2: size).
  if (bytes.length > MAX_VALUES && countValues(bytes) > MAX_VALUES) {
    throw new HttpError("BODY_TOO_LARGE", `Request body must not hold more than ${MAX_VALUES} values (members, elements and what they hold)`);
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (cause) {
    throw new HttpError("INVALID_ENCODING", "Request body must be valid UTF-8", { cause });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    // Only a text that is not JSON can be empty or white space alone, so a body that parses is never tested for it.
    if (JSON_WHITESPACE_ONLY.test(text)) throw new HttpError("EMPTY_BODY", "Request body is empty; send a JSON object");
    throw new HttpError("INVALID_JSON", "Request body is malformed JSON", { cause });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError("BODY_NOT_OBJECT", `Request body must be a JSON object, not ${describeValue(value)}`);
  }
  const problem = treeProblem(value, "Request body");
  if (problem !== undefined) throw problem;
  return value as JsonObject;
}

/**
 * How many values a JSON text holds, counted on its bytes before it is parsed: the text itself,
 * each member's value (a `:`), and each element of an array (its first, and one a `,`).
 * Malformed text is counted the same way; the parser refuses it afterwards.
 */
export function countValues(bytes: Uint8Array): number {
  let count = 1;
  let inString = false;
  // Whether each open container is an array (1) or an object (0); a `,` adds a value only in an array.
  const open: number[] = [];
  let first = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      // A backslash escapes the next byte, a quote among them.
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
      continue;
    }
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    // The first element of an array, unless the array is empty.
    if (first) {
      first = false;
      if (byte !== 0x5d) count++;
    }
    if (byte === 0x22) inString = true;
    else if (byte === 0x5b) {
      open.push(1);
      first = true;
    } else if (byte === 0x7b) open.push(0);
    else if (byte === 0x5d || byte === 0x7d) open.pop();
    else if (byte === 0x3a) count++;
    else if (byte === 0x2c && open[open.length - 1] === 1) count++;
  }
  return count;
}

/**
 * Walks a parsed tree without recursion (a deep body must not overflow the stack)
 * and returns, in this order, a forbidden member name, nesting past MAX_DEPTH, or
 * a number too large to hold, as the error whose message begins with `subject`.
 */
export function treeProblem(root: object, subject: string): HttpError | undefined {
  if (isFlatAndSound(root)) return undefined;
  let forbidden: string | undefined;
  let tooDeep = false;
  let infinite = false;
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value === "number") {
      if (!Number.isFinite(value)) infinite = true;
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    // The walk goes on past the depth limit, so a forbidden name anywhere is
    // reported first, as contract 3 orders; the body limit bounds the work.
    if (depth > MAX_DEPTH) tooDeep = true;
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, depth + 1]);
      continue;
    }
    for (const key of Object.keys(value)) {
      if (isForbiddenName(key)) forbidden ??= key;
      stack.push([(value as JsonObject)[key], depth + 1]);
    }
  }
  if (forbidden !== undefined) {
    return new HttpError("FORBIDDEN_KEY", `${subject} must not have a member named "${forbidden}"`);
  }
  if (tooDeep) return new HttpError("BODY_TOO_DEEP", `${subject} must not be nested deeper than ${MAX_DEPTH} levels`);
  if (infinite) return new HttpError("NUMBER_OUT_OF_RANGE", `${subject} has a number too large to be held`);
  return undefined;
}

/**
 * Whether a value is one object whose members are all strings, finite numbers, booleans or
 * null, under names that are not forbidden: most bodies are, and one pass over the members
 * settles them without the walk's stack of [value, depth] pairs (see readBody for what the two saved).
 * Anything else, inherited enumerable members included, is left to the whole walk.
 */
function isFlatAndSound(value: object): boolean {
  if (Array.isArray(value)) return false;
  for (const key in value) {
    if (isForbiddenName(key)) return false;
    const member = (value as JsonObject)[key];
    if (typeof member === "object" ? member !== null : typeof member === "number" && !Number.isFinite(member)) return false;
  }
  return true;
}

/** What kind of JSON value this is, for a message: `null`, `an array`, `a string`. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function tooLarge(limit: number): HttpError {
  return new HttpError("BODY_TOO_LARGE", `Request body must not be larger than ${limit} bytes`);
}

/** Signals that the client went away before its body arrived; there is no one to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super("The client closed the connection before the request body arrived");
    this.name = "ClientGoneError";
  }
}

/** How a body read ends: with the bytes, or with the error (413, or the client gone). */
export type BodyDone = (error: HttpError | ClientGoneError | undefined, bytes: Uint8Array) => void;

const NO_BYTES = new Uint8Array(0);

/**
 * The whole body, if every byte it declared has arrived and waits in the request's buffer;
 * undefined otherwise. Taken this way, a body costs no listener and no switch to flowing mode.
 */
export function bufferedBody(request: IncomingMessage): Uint8Array | undefined {
  if (!request.complete) return undefined;
  const declared = request.headers["content-length"];
  if (declared === undefined || request.readableLength !== Number(declared)) return undefined;
  return request.readableLength === 0 ? NO_BYTES : (request.read() as Buffer);
}

/**
 * Calls `done` once with the body: taken whole from the request's buffer on the event loop's
 * next turn when it has all arrived by then, as a body sent with its headers has, or else read
 * as it arrives (readBody). The next turn, not a microtask: Node's parser, reading the socket
 * in C++, tells the headers and the body in separate calls into JavaScript, and runs the tick
 * and microtask queues between them. Under wrk (`POST /users`, 3 s each) a microtask found none
 * of 48,069 bodies whole and a tick none of 53,785; setImmediate, which runs once the whole
 * read is parsed, found all of 66,370. Taking them whole raised `POST /users` from 0.88 to 1.06
 * of the minimal bare server's requests per second (8 interleaved rounds over loopback).
 * bench/in-memory.mjs does not show the gain, and with 50 connections shows this turn costing
 * 2 to 3% more than the listeners did (26.4 against 27.3 and 29.0 against 29.5 µs of CPU a
 * `POST /users`, CONNECTIONS=50 MIX=1, medians of 5 and 9 runs): its socket is a JavaScript
 * stream, which Node's parser reads in one call into JavaScript, headers and body together.
 */
export function awaitBody(request: IncomingMessage, limit: number, done: BodyDone): void {
  setImmediate(() => {
    const bytes = bufferedBody(request);
    if (bytes === undefined) readBody(request, limit, done);
    else done(undefined, bytes);
  });
}

/**
 * Reads the body, counting bytes as they arrive and stopping at the limit, then calls `done`
 * once. A callback rather than a promise: the promise chain it replaced (an async function,
 * then and catch, and a promise kept per connection), with the whole walk of flat bodies
 * (see isFlatAndSound), cost 1.6 µs of CPU per `POST /users` (15.8 against 14.1 µs,
 * bench/in-memory.mjs, CONNECTIONS=50).
 *
 * Two listeners, `data` and `close`. Every request closes in the end, after its `end` if the
 * whole body arrived, before it if the client went away; so `close` tells both outcomes, and
 * `readableEnded` says which. No `end` or `error` listener: Node, Deno and Bun emit no `error`
 * on a request without a listener for it (a client that hangs up mid-body closes it). The two
 * listeners left out cost 0.67 µs of CPU per `POST /users` with no network (13.12 against
 * 12.45 µs, bench/in-memory.mjs, MIX=1 CONNECTIONS=50); under wrk the difference is within
 * the noise. A flag, not removals, makes the first outcome the only one.
 */
export function readBody(request: IncomingMessage, limit: number, done: BodyDone): void {
  // A pipelined request read only once the one before it is answered may have closed
  // already, its client gone: no `close` would come.
  if (request.destroyed && !request.readableEnded) return done(new ClientGoneError(), NO_BYTES);
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      // Stop reading at the limit: nothing past it is buffered. The answer is sent
      // with `Connection: close`, which ends the connection and its unread rest.
      request.off("data", onData);
      request.pause();
      chunks.length = 0;
      settled = true;
      done(tooLarge(limit), NO_BYTES);
      return;
    }
    chunks.push(chunk);
  };
  request.on("data", onData);
  request.on("close", () => {
    if (settled) return;
    settled = true;
    if (request.readableEnded) done(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    else done(new ClientGoneError(), NO_BYTES);
  });
}
