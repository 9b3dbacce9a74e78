// Request bodies: their headers checked in the order of docs/spec.md#3-request-bodies, then their bytes read within the limit (api/json.ts parses them).
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { setImmediate } from "node:timers";
import { HttpError } from "../api/errors.ts";
import { clip } from "../api/input.ts";

/** The default largest request body, in bytes (1 MiB). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * How many bodies of the largest size may be arriving at once, on every connection together.
 * The limit bounds each body, but not how many connections send one; this bounds them all, so
 * that no number of slow uploads takes the process past its memory promise
 * (docs/decisions.md, "Access and limits").
 */
export const BODIES_AT_ONCE = 32;

/**
 * The bytes of the bodies being read now, on every connection of one listener, and the most
 * they may be (BODIES_AT_ONCE bodies of the limit). A body that would take them past it is
 * refused with 503 SERVER_BUSY and its connection closed; bodies that arrived whole with their
 * headers are taken at once and never held here.
 */
export type BodyBudget = { held: number; readonly most: number };

/** A budget of BODIES_AT_ONCE bodies of `limit` bytes. */
export function bodyBudget(limit: number): BodyBudget {
  return { held: 0, most: BODIES_AT_ONCE * limit };
}

/** The media type of a JSON Merge Patch (RFC 7396, section 4). */
const MERGE_PATCH = "application/merge-patch+json";

/** How a body is read: the size limit, and whether the body is a PATCH's merge patch. */
export type BodyOptions = { limit: number; patch?: boolean };

/**
 * The checks of a body that need only the request's headers (docs/spec.md#3-request-bodies, in its order): media
 * type and content encoding 415, then a declared size over the limit 413, before a byte is read.
 * Throws the HttpError; the body itself is read by readBody and parsed by parseJsonObject.
 */
export function checkBodyHeaders(headers: IncomingHttpHeaders, options: BodyOptions): void {
  checkMediaType(headers["content-type"], options);
  checkBodyFraming(headers, options);
}

/** checkBodyHeaders without the media type, for a route that reads its body's type itself: the encoding, then the declared size. */
export function checkBodyFraming(headers: IncomingHttpHeaders, options: BodyOptions): void {
  checkContentEncoding(headers["content-encoding"]);
  const declared = headers["content-length"];
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

/** The refusal of a body longer than the limit. */
export function tooLarge(limit: number): HttpError {
  return new HttpError("BODY_TOO_LARGE", `Request body must not be larger than ${limit} bytes`);
}

/** The refusal of a body while the bodies being read at once hold their whole budget. */
export function busy(): HttpError {
  return new HttpError("SERVER_BUSY", "The server is receiving as many request bodies at once as it holds; retry shortly", {
    headers: { "retry-after": "1" },
  });
}

/** Signals that the client went away before its body arrived; there is no one to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super("The client closed the connection before the request body arrived");
    this.name = "ClientGoneError";
  }
}

/** How a body read ends: with the bytes, or with the error (413, 503, or the client gone). */
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
  if (request.readableLength === 0) return NO_BYTES;
  const first = request.read() as Buffer;
  if (request.readableLength === 0) return first;
  // Deno's request is a flowing stream, whose read() hands over one chunk at a time: a body of
  // 66,000 bytes came in two, and the first alone was read as the body.
  const chunks = [first];
  let size = first.length;
  for (let chunk = request.read() as Buffer | null; chunk !== null; chunk = request.read() as Buffer | null) {
    chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks, size);
}

/**
 * Calls `done` once with the body: taken whole from the request's buffer on the event loop's
 * next turn when it has all arrived by then, as a body sent with its headers has, or else read
 * as it arrives (readBody). The next turn, not a microtask: Node's parser, reading the socket
 * in C++, tells the headers and the body in separate calls into JavaScript, and runs the tick
 * and microtask queues between them; setImmediate runs once the whole read is parsed. Fast
 * path: a body sent with its headers is taken whole instead of read chunk by chunk
 * (docs/benchmarks.md, "Measurements behind fast paths in the code").
 */
export function awaitBody(request: IncomingMessage, limit: number, budget: BodyBudget, done: BodyDone): void {
  setImmediate(() => {
    const bytes = bufferedBody(request);
    if (bytes === undefined) readBody(request, limit, budget, done);
    else done(undefined, bytes);
  });
}

/**
 * Reads the body, counting bytes as they arrive and stopping at the limit, or when the bodies
 * being read on every connection would pass their budget, then calls `done` once. Fast path: a
 * callback rather than the promise chain it replaced (an async function, then and catch, and a
 * promise kept per connection), which builds no promise per body
 * (docs/benchmarks.md, "Measurements behind fast paths in the code").
 *
 * Two listeners on the request, `data` and `close`, and one on its socket's `end` (below). Every request closes in the end, after its `end` if the
 * whole body arrived, before it if the client went away; so `close` tells both outcomes, and
 * `readableEnded` says which. No `end` or `error` listener: Node, Deno and Bun emit no `error`
 * on a request without a listener for it (a client that hangs up mid-body closes it). Fast
 * path: two listeners fewer to add per body
 * (docs/benchmarks.md, "Measurements behind fast paths in the code").
 * A flag, not removals, makes the first outcome the only one.
 */
export function readBody(request: IncomingMessage, limit: number, budget: BodyBudget, done: BodyDone): void {
  // A pipelined request read only once the one before it is answered may have closed
  // already, its client gone: no `close` would come.
  if (request.destroyed && !request.readableEnded) return done(new ClientGoneError(), NO_BYTES);
  // The server keeps a connection its client half-closes, so that an answer still being written
  // goes out whole (server.ts). A client that closes its side before its body has all arrived will
  // send no more of it. On Deno nothing else ever closed such a request, and the read waited for ever,
  // holding its part of the budget; Node and Bun close it at the request time-out.
  const socket = request.socket as (typeof request.socket & { readableEnded?: boolean }) | null;
  const cutShort = () => {
    if (!request.complete) request.destroy();
  };
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  // What this body holds of the budget goes back to it once, however the read ends.
  const settle = () => {
    settled = true;
    budget.held -= size;
    socket?.off("end", cutShort);
  };
  /** Stops reading, refused: nothing past here is buffered. The answer closes the connection and its unread rest. */
  const refuse = (error: HttpError) => {
    request.off("data", onData);
    request.pause();
    chunks.length = 0;
    settle();
    done(error, NO_BYTES);
  };
  const onData = (chunk: Buffer) => {
    if (size + chunk.length > limit) return refuse(tooLarge(limit));
    if (budget.held + chunk.length > budget.most) return refuse(busy());
    size += chunk.length;
    budget.held += chunk.length;
    chunks.push(chunk);
  };
  request.on("data", onData);
  request.on("close", () => {
    if (settled) return;
    settle();
    if (request.readableEnded) done(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    else done(new ClientGoneError(), NO_BYTES);
  });
  if (socket?.readableEnded === true) cutShort();
  else socket?.once("end", cutShort);
}
