// HTTP/1.1 responses read off a raw socket one by one, so a test can tell a whole answer from a cut one.
import { connect, type Socket } from "node:net";
import { ERROR_CATALOGUE } from "../../src/api/errors.ts";

/** One complete response as it came over the wire. */
export type WireResponse = {
  status: number;
  headers: Record<string, string>;
  /** The body as bytes; empty for 1xx, 204 and answers to HEAD. */
  body: Buffer;
};

/** What a connection delivered once it was over: whole responses, and any bytes of an unfinished one. */
export type WireOutcome = {
  responses: WireResponse[];
  /** Bytes of a response that had begun but was cut: never allowed. */
  partial: number;
  /** Why the connection ended: `end` (closed by the server), `error` (reset) or `destroyed` (by us). */
  ended: "end" | "error" | "destroyed";
};

/**
 * Splits a byte stream into responses. Every answer of this server carries
 * Content-Length or has no body, so a response is complete once that many bytes arrived.
 * `heads` says, in order, which requests were HEAD (their answers have no body).
 */
export class ResponseReader {
  #buffer: Buffer = Buffer.alloc(0);
  readonly responses: WireResponse[] = [];
  readonly heads: boolean[] = [];
  #answered = 0;
  #malformed: string | undefined;

  /** Adds bytes; returns the responses they completed. */
  push(chunk: Buffer): WireResponse[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const done: WireResponse[] = [];
    for (;;) {
      const end = this.#buffer.indexOf("\r\n\r\n");
      if (end === -1) break;
      const [statusLine = "", ...lines] = this.#buffer.subarray(0, end).toString("latin1").split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3}) /.exec(statusLine + " ")?.[1]);
      if (!Number.isInteger(status)) {
        this.#malformed = statusLine;
        break;
      }
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const interim = status >= 100 && status < 200;
      const head = !interim && this.heads[this.#answered] === true;
      const length = interim || head || status === 204 ? 0 : Number(headers["content-length"] ?? NaN);
      if (!Number.isInteger(length)) {
        this.#malformed = `no Content-Length in ${statusLine}`;
        break;
      }
      if (this.#buffer.length < end + 4 + length) break;
      const response = { status, headers, body: this.#buffer.subarray(end + 4, end + 4 + length) };
      this.#buffer = this.#buffer.subarray(end + 4 + length);
      if (!interim) this.#answered++;
      this.responses.push(response);
      done.push(response);
    }
    return done;
  }

  /** Bytes held of a response that has not completed. */
  get pending(): number {
    return this.#buffer.length;
  }

  /** A response that could not be read as HTTP, if one came. */
  get malformed(): string | undefined {
    return this.#malformed;
  }
}

/** Opens a connection to a base URL's host and port. */
export function dial(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/**
 * Writes bytes on a new connection and collects responses until `count` arrived
 * (then closes it) or the server closed it. A reset counts as an end, not a failure:
 * the caller decides what it allows.
 */
export async function exchange(
  url: string,
  bytes: Buffer | string,
  options: { count?: number; heads?: boolean[]; endAfterWrite?: boolean } = {},
): Promise<WireOutcome> {
  const socket = await dial(url);
  return converse(socket, [bytes], options);
}

/** Writes each part in turn on an open socket and reads as `exchange` does. */
export function converse(
  socket: Socket,
  parts: Array<Buffer | string>,
  options: { count?: number; heads?: boolean[]; endAfterWrite?: boolean } = {},
): Promise<WireOutcome> {
  const reader = new ResponseReader();
  reader.heads.push(...(options.heads ?? []));
  const count = options.count ?? Infinity;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (ended: WireOutcome["ended"]) => {
      if (settled) return;
      settled = true;
      socket.off("data", onData);
      socket.destroy();
      resolve({ responses: reader.responses, partial: reader.pending, ended });
    };
    const onData = (chunk: Buffer) => {
      reader.push(chunk);
      if (reader.malformed !== undefined) finish("error");
      else if (reader.responses.filter((response) => response.status >= 200).length >= count) finish("destroyed");
    };
    socket.on("data", onData);
    socket.once("end", () => finish("end"));
    socket.once("close", () => finish("end"));
    socket.once("error", () => finish("error"));
    for (const part of parts) socket.write(part);
    if (options.endAfterWrite) socket.end();
  });
}

/** The error body of a response, or a reason it is not one this API may send. */
export function checkErrorResponse(response: WireResponse): string | undefined {
  if (response.status === 204) return response.body.length === 0 ? undefined : "a 204 came with a body";
  if (response.headers["content-type"] !== "application/json; charset=utf-8") {
    return `Content-Type was ${response.headers["content-type"]}`;
  }
  if (Number(response.headers["content-length"]) !== response.body.length)
    return "Content-Length disagrees with the body";
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString("utf8"));
  } catch {
    return `the body is not JSON: ${response.body.toString("utf8").slice(0, 200)}`;
  }
  if (response.status < 400) return undefined;
  const code = (body as { code?: unknown }).code;
  if (typeof code !== "string" || !Object.hasOwn(ERROR_CATALOGUE, code))
    return `code ${String(code)} is not catalogued`;
  const entry = ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE];
  if (entry.status !== response.status) return `code ${code} came with ${response.status}, not ${entry.status}`;
  if (typeof (body as { message?: unknown }).message !== "string") return "the error has no message";
  return undefined;
}
