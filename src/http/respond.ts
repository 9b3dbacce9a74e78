// The only code that writes responses: JSON bodies with exact headers, errors, raw socket answers.
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { STATUS_CODES } from "node:http";
import { versions } from "node:process";
import { ERROR_CATALOGUE, type ErrorCode } from "../api/errors.ts";
import type { Reply } from "../api/reply.ts";
import type { LongBody, Pacer } from "./pieces.ts";

/** The media type of every body this service sends. */
export const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Whether writeHead is handed the flat [name, value, ...] list (true) or that list made into an
 * object (false, on Bun). Node's node:http walks a list by index straight into the head, and
 * Deno's takes both alike; Bun's first removes every name of a list, then appends every pair,
 * each new name going through setHeader, while it sets an object's members once each
 * (docs/benchmarks.md, "Headers as Bun's node:http takes them").
 */
const FLAT_HEADERS = versions.bun === undefined;

/**
 * How a reply is written: without a body for HEAD, with `Connection: close` when asked,
 * and with `headers`, a flat [name, value, ...] list every answer to this request
 * carries whatever the reply (the CORS headers).
 */
export type SendOptions = { head?: boolean; close?: boolean; headers?: readonly string[]; requestId?: string };

/**
 * The JSON text of a reply's body, as send() writes it: undefined for 204 and 304, which never
 * have a body (RFC 9110, sections 15.3.5 and 15.4.5), and for a reply with none.
 */
export function bodyText(reply: Reply): string | Uint8Array | undefined {
  if (reply.status === 204 || reply.status === 304) return undefined;
  return reply.json ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body));
}

/**
 * Writes a reply as JSON with Content-Type and an exact Content-Length; 204 and 304 have
 * neither. `text` is bodyText(reply), when the caller has made it already. Returns the body
 * bytes written (0 for HEAD, 204 and 304), or -1 when nothing could be written: the client has
 * gone, or an answer has begun already.
 */
export function send(res: ServerResponse, reply: Reply, options: SendOptions = {}, text: string | Uint8Array | undefined = bodyText(reply)): number {
  // A client that hung up has no socket to write to; writing would only raise.
  if (res.destroyed || res.headersSent) return -1;
  // Built here rather than by headerList: a call per answer that V8 does not inline (docs/benchmarks.md).
  const headers: Array<string | number> = [];
  if (reply.headers !== undefined) {
    for (const name in reply.headers) headers.push(name, reply.headers[name]!);
  }
  if (reply.etag !== undefined) headers.push("etag", reply.etag);
  const shared = options.headers;
  if (shared !== undefined) for (let i = 0; i < shared.length; i++) headers.push(shared[i]!);
  if (options.requestId !== undefined) headers.push("x-request-id", options.requestId);
  if (options.close) headers.push("connection", "close");
  if (text === undefined) {
    res.writeHead(reply.status, FLAT_HEADERS ? headers : headerObject(headers));
    res.end();
    return 0;
  }
  const length = Buffer.byteLength(text);
  headers.push("content-type", reply.type ?? JSON_TYPE, "content-length", length);
  res.writeHead(reply.status, FLAT_HEADERS ? headers : headerObject(headers));
  // HEAD gets the same status and headers as GET, and no body (docs/spec.md#2-routing).
  if (options.head) {
    res.end();
    return 0;
  }
  res.end(text);
  return length;
}

/**
 * A reply's headers as one flat [name, value, name, value, ...] list, which Node's node:http
 * walks by index; a copied object would be built, then walked with for-in (docs/benchmarks.md).
 * send() builds the same list inline.
 */
export function headerList(reply: Reply, options: SendOptions): Array<string | number> {
  const headers: Array<string | number> = [];
  if (reply.headers !== undefined) {
    for (const name in reply.headers) headers.push(name, reply.headers[name]!);
  }
  if (reply.etag !== undefined) headers.push("etag", reply.etag);
  const shared = options.headers;
  if (shared !== undefined) for (let i = 0; i < shared.length; i++) headers.push(shared[i]!);
  if (options.requestId !== undefined) headers.push("x-request-id", options.requestId);
  if (options.close) headers.push("connection", "close");
  return headers;
}

/**
 * A flat header list as an object, for Bun's writeHead. No answer lists a name twice today; one
 * that did would keep both values, joined as a list (RFC 9110, section 5.3), which is right for
 * every header this server sends (not for Set-Cookie, which it never sends). No prototype, so no
 * name reads as set before it is.
 */
export function headerObject(list: ReadonlyArray<string | number>): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = Object.create(null);
  for (let i = 0; i < list.length; i += 2) {
    const name = String(list[i]);
    const had = headers[name];
    headers[name] = had === undefined ? list[i + 1] : `${had}, ${list[i + 1]}`;
  }
  return headers;
}

/**
 * Writes a reply whose body is too long to write at once, a long list's records or a long text,
 * through the server's scheduler of long answers (pieces.ts), with the headers send() would give
 * it; `done` is told the body bytes written, or -1. False, and nothing written, when the
 * scheduler has too many long answers already.
 */
export function sendLong(pacer: Pacer, res: ServerResponse, reply: Reply, body: LongBody, options: SendOptions, stallTimeout: number, done: (bytes: number) => void): boolean {
  if (res.destroyed || res.headersSent) {
    done(-1);
    return true;
  }
  const writeHead = (length: number) => {
    const headers = headerList(reply, options);
    headers.push("content-type", reply.type ?? JSON_TYPE, "content-length", length);
    res.writeHead(reply.status, FLAT_HEADERS ? headers : headerObject(headers));
  };
  return pacer.write(res, body, { head: options.head === true, writeHead, stallTimeout }, done);
}

/**
 * The reply for an unexpected failure: no stack and no internals reach the client, only
 * the request's id, which a person can quote to find the logged error.
 */
export function internalErrorReply(requestId: string): Reply {
  return { status: 500, body: { message: "Internal server error", code: "INTERNAL_ERROR", requestId } };
}

/**
 * A whole HTTP/1.1 error response as bytes, for answering on a raw socket when the
 * HTTP parser rejected the request (or it timed out) and no ServerResponse exists.
 */
export function rawErrorResponse(code: ErrorCode, message: string, requestId: string): string {
  const { status } = ERROR_CATALOGUE[code];
  const text = JSON.stringify({ message, code });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    `Content-Type: ${JSON_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(text)}\r\n` +
    "Connection: close\r\n\r\n" +
    text
  );
}
