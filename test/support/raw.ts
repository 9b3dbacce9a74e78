// A raw HTTP/1.1 client over node:net, for requests fetch refuses to send.
import { connect, type Socket } from "node:net";

/** A response read off a raw socket. */
export type RawResponse = {
  status: number;
  headers: Record<string, string>;
  body: string;
};

/** The token every request of the suite sends when it runs against servers with tokens (`TEST_AUTH_TOKEN`). */
export const SUITE_TOKEN = process.env.TEST_AUTH_TOKEN;

// A request line anywhere: after the start, after a head's blank line, or right after a pipelined body.
const REQUEST_LINE = /()([A-Z]+ [/hH]\S* HTTP\/1\.[01]\r\n)/g;

/** Bytes with `Authorization: Bearer <SUITE_TOKEN>` after each request line they hold; as they are without a suite token. */
export function withSuiteToken(bytes: string | Buffer): string | Buffer {
  if (SUITE_TOKEN === undefined) return bytes;
  const text = typeof bytes === "string" ? bytes : bytes.toString("latin1");
  const sent = text.replace(REQUEST_LINE, (_, before: string, line: string) => `${before}${line}Authorization: Bearer ${SUITE_TOKEN}\r\n`);
  if (sent === text) return bytes;
  return typeof bytes === "string" ? sent : Buffer.from(sent, "latin1");
}

/**
 * Opens a TCP connection to the host and port of a base URL. With a suite token, what is
 * written on it carries the token after each request line (withSuiteToken).
 */
export async function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  if (SUITE_TOKEN !== undefined) {
    const write = socket.write.bind(socket) as (chunk: string | Buffer, ...rest: unknown[]) => boolean;
    socket.write = ((chunk: string | Buffer, ...rest: unknown[]) => write(withSuiteToken(chunk), ...rest)) as typeof socket.write;
    const end = socket.end.bind(socket) as (...args: unknown[]) => Socket;
    socket.end = ((chunk?: unknown, ...rest: unknown[]) =>
      typeof chunk === "string" || Buffer.isBuffer(chunk) ? end(withSuiteToken(chunk), ...rest) : end(chunk, ...rest)) as typeof socket.end;
  }
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/** Sends bytes as they are and reads one response (the server must close or send Content-Length). */
export async function rawRequest(url: string, bytes: string | Buffer): Promise<RawResponse> {
  const socket = await openSocket(url);
  const response = readResponse(socket);
  socket.write(bytes);
  const result = await response;
  socket.destroy();
  return result;
}

/** Reads one response from a socket: the headers, then Content-Length bytes or up to the close. */
export function readResponse(socket: Socket): Promise<RawResponse> {
  return responseReader(socket).next();
}

/** Reads responses one after another from a socket, keeping bytes that arrive early for the next one. */
export function responseReader(socket: Socket): { next: () => Promise<RawResponse> } {
  let buffer: Buffer = Buffer.alloc(0);
  let ended = false;
  let waiting: { resolve: (response: RawResponse) => void; reject: (error: Error) => void } | undefined;
  const settle = () => {
    if (waiting === undefined) return;
    const { resolve, reject } = waiting;
    const parsed = parseResponse(buffer, ended);
    if (parsed === "incomplete") {
      if (ended) {
        waiting = undefined;
        reject(new Error(`Connection closed before a response: ${JSON.stringify(buffer.toString())}`));
      }
      return;
    }
    waiting = undefined;
    buffer = parsed.rest;
    resolve(parsed.response);
  };
  socket.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    settle();
  });
  const onEnd = () => {
    ended = true;
    settle();
  };
  socket.on("end", onEnd);
  socket.on("close", onEnd);
  socket.on("error", (error) => {
    ended = true;
    if (waiting === undefined) return;
    const { reject } = waiting;
    waiting = undefined;
    reject(error);
  });
  return {
    next: () =>
      new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        settle();
      }),
  };
}

function parseResponse(buffer: Buffer, ended: boolean): { response: RawResponse; rest: Buffer } | "incomplete" {
  const end = buffer.indexOf("\r\n\r\n");
  if (end === -1) return "incomplete";
  const [statusLine = "", ...lines] = buffer.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine.split(" ")[1]);
  const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  const body = buffer.subarray(end + 4);
  // 204 has no body; a HEAD answer declares a length but sends no body, and the close ends it.
  if (status === 204) return { response: { status, headers, body: "" }, rest: body };
  if (length !== undefined && body.length >= length) {
    return { response: { status, headers, body: body.subarray(0, length).toString("utf8") }, rest: body.subarray(length) };
  }
  if (ended) return { response: { status, headers, body: body.toString("utf8") }, rest: Buffer.alloc(0) };
  return "incomplete";
}

/** Resolves when the server has closed the connection. */
export function closed(socket: Socket): Promise<void> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    socket.resume();
    socket.once("close", () => resolve());
  });
}
