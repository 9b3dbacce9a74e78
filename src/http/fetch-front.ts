// The fetch front end: a WHATWG Request in, a Response out, through the same steps as a socket's
// request (listener.ts). It serves createFetchApp, and Deno.serve and Bun.serve for the command.
import { Buffer } from "node:buffer";
import { EventEmitter } from "node:events";
import type { IncomingHttpHeaders } from "node:http";
import { STATUS_CODES } from "node:http";
import { type BodyBudget, type BodyDone, busy, ClientGoneError, tooLarge } from "./body.ts";
import { HttpError } from "../api/errors.ts";
import type { Handler, Route } from "../api/handler.ts";
import { clip } from "../api/input.ts";
import { handle, refuseExchange } from "./listener.ts";
import { headerList, JSON_TYPE, type SendOptions } from "./respond.ts";
import type { Reply } from "../api/reply.ts";
import type { LongBody } from "./pieces.ts";
import { arrive, type Exchange, type FrontEnd, type ListenerOptions, servingOf } from "./serving.ts";

/**
 * A request's answer on its way: what it settled with, or what settles the caller's promise once it
 * waits on one, and, once begun, the stream of a long answer's body. It is also the exchange's
 * "connection": a fetch has one of its own.
 */
type Answer = {
  /** Whether a Response was given, or the exchange broken off: nothing more reaches the caller. */
  settled: boolean;
  /** What it settled with before the caller waited: most answers are made at once (respond now, below). */
  outcome: Response | Error | undefined;
  /** Set once the caller waits on a promise. */
  resolve: ((response: Response) => void) | undefined;
  reject: ((error: Error) => void) | undefined;
  /** Whether the request has a body: `body`, or behind a native server, the body its framing announces; undefined when it names none. */
  hasBody: boolean | undefined;
  /** The request's body, once looked at, and its reader once it is being read. */
  body: ReadableStream<Uint8Array> | null;
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** A long answer's body, once it streams. */
  sink: StreamSink | undefined;
  /** Told once the exchange is over, however it ended. */
  over: () => void;
  /**
   * Whether it is served in this process (createFetchApp) rather than behind a native server. Behind
   * one, the server writes a whole body's Content-Length itself, and holds a body to the length its
   * request declared, so that body is read in one call (docs/benchmarks.md, "Deno and Bun: the runtime's own server").
   */
  inProcess: boolean;
  /** What a native server gives its handler beside the request, and how the client's address is read from it. */
  peer: unknown;
  remoteOf: RemoteOf | undefined;
};

/** The client's address, from what a native server gives its handler beside the request (native.ts). */
export type RemoteOf = (request: Request, peer: unknown) => string | undefined;

type FetchExchange = Exchange<Request, Answer>;

/** A fetch handler over a route table, and how to break off every answer still owed. */
export type FetchHandlers = {
  /** A Response at once when the answer was made at once, as most are; a promise of one otherwise. */
  fetch: (request: Request, peer?: unknown) => Response | Promise<Response>;
  /** Breaks off every answer still owed, as closing a server cuts its connections: each caller's promise rejects with `reason`. */
  abortAll: (reason: Error) => void;
};

/**
 * Where the handler serves: in this process (createFetchApp), where a Request's AbortSignal is a
 * client hanging up and a fetch still owed keeps the process alive, or behind a native server,
 * which keeps its connections, and the process, itself.
 */
export type FetchPlace = "in-process" | "native";

/**
 * The steps of listener.ts behind a fetch handler: each Request gets its Response, byte for byte the
 * answer a socket gets, without `Date` or the connection's own headers. A request asking for a
 * dropped connection (`Prefer: fault=reset`) rejects, as a client's fetch does.
 */
export function createFetchHandlers(routes: readonly Route<Handler>[], options: ListenerOptions, place: FetchPlace = "in-process", remoteOf?: RemoteOf): FetchHandlers {
  // A fetch is its own connection: nothing waits behind it, so each request is served at once.
  const serving = servingOf(routes, options, fetchFront, () => ({ serve: (exchange: FetchExchange) => void handle(exchange), proceed: () => {} }));
  const owed = place === "in-process" ? owedAnswers() : undefined;

  function fetch(request: Request, peer?: unknown): Response | Promise<Response> {
    const target = targetOf(request.url);
    const headers: IncomingHttpHeaders = Object.create(null);
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const inProcess = owed !== undefined;
    // Behind a native server the URL's authority is the host the request names: its Host, the host
    // of an absolute-form target, which wins over Host (RFC 9112, section 3.2.2), or HTTP/2's
    // :authority. It is the one checked.
    if (!inProcess) headers.host = authorityOf(request.url) ?? headers.host;
    // Behind a native server, the request's framing is the client's, checked by the server, and its
    // body's stream is made only if the body is read in pieces: Deno makes one on the first look
    // at `body`, which a body read whole does without (docs/benchmarks.md, "Deno and Bun: the runtime's own server").
    let body: ReadableStream<Uint8Array> | null = null;
    const length = headers["content-length"];
    // HTTP/2 names neither; whether such a request has a body is then asked of it, by a write alone (arrivedBody).
    let hasBody = headers["transfer-encoding"] !== undefined ? true : length !== undefined ? length !== "0" : undefined;
    if (inProcess) {
      // A client puts the URL's host in Host; a Request built in a test has none of its own.
      headers.host ??= new URL(request.url).host;
      // The framing a client would send: the length it declared, or chunks; the listener checks it before it reads a byte.
      body = request.body;
      hasBody = body !== null;
      if (body === null) delete headers["content-length"];
      else if (headers["content-length"] === undefined) headers["transfer-encoding"] = "chunked";
      else delete headers["transfer-encoding"];
    }
    const answer: Answer = { settled: false, outcome: undefined, resolve: undefined, reject: undefined, hasBody, body, reader: undefined, sink: undefined, over: noop, inProcess, peer, remoteOf };
    if (owed !== undefined) {
      owed.add(answer);
      // A request aborted (a test's AbortSignal) is a connection closed.
      request.signal.addEventListener("abort", () => breakOff(answer, request.signal.reason), { once: true });
    }
    const exchange = arrive(serving, request, answer, request.method, target, headers);
    const refusal = framingRefusal(headers);
    if (refusal !== undefined) refuseExchange(exchange, refusal);
    else serving.queue.serve(exchange);
    // Fast path (docs/benchmarks.md, "Deno and Bun: the runtime's own server"): an answer made at once is returned as it is, with no promise.
    if (answer.settled) {
      if (answer.outcome instanceof Response) return answer.outcome;
      return Promise.reject(answer.outcome);
    }
    return new Promise<Response>((resolve, reject) => {
      answer.resolve = resolve;
      answer.reject = reject;
    });
  }

  return {
    fetch,
    abortAll: (reason) => owed?.abortAll(reason),
  };
}

/**
 * What node:http refuses before a request reaches the listener, refused here as it refuses it: an
 * expectation other than 100-continue (docs/spec.md#3-request-bodies), and a Content-Length that
 * is not one whole number. Deno.serve and Bun.serve pass on a length sent twice as `N, N`, which
 * the body limit and the body budget would read as no number at all.
 */
function framingRefusal(headers: IncomingHttpHeaders): HttpError | undefined {
  const expect = headers.expect;
  if (expect !== undefined && expect.trim().toLowerCase() !== "100-continue") {
    return new HttpError("EXPECTATION_FAILED", `Expect: ${clip(expect)} is not supported; send Expect: 100-continue or none`);
  }
  const length = headers["content-length"];
  if (length !== undefined && !WHOLE_NUMBER.test(length)) return new HttpError("BAD_REQUEST", "Content-Length must be one whole number");
  return undefined;
}

/** The authority of an http(s) URL, cut from its text, or undefined for any other. */
function authorityOf(href: string): string | undefined {
  const scheme = href.startsWith("http://") ? 7 : href.startsWith("https://") ? 8 : -1;
  if (scheme === -1) return undefined;
  const slash = href.indexOf("/", scheme);
  return slash === -1 ? href.slice(scheme) : href.slice(scheme, slash);
}

const WHOLE_NUMBER = /^\d+$/;

/**
 * The answers a process still owes its callers. One still owed keeps the process alive, as a client
 * waiting on a socket is kept by the socket: a delayed answer's own timer does not (faults.ts), so
 * that a closed server owes nothing. Without this, a test awaiting a delayed answer ends before it.
 */
function owedAnswers(): { add: (answer: Answer) => void; abortAll: (reason: Error) => void } {
  const owed = new Set<Answer>();
  // One timer that never needs to fire, held (ref) while an answer is owed; made once, not per request.
  let alive: ReturnType<typeof setInterval> | undefined;
  return {
    add: (answer) => {
      if (owed.size === 0) (alive ??= setInterval(noop, STAY_ALIVE_MS)).ref();
      owed.add(answer);
      answer.over = () => {
        if (owed.delete(answer) && owed.size === 0) alive!.unref();
      };
    },
    abortAll: (reason) => {
      for (const answer of [...owed]) breakOff(answer, reason);
    },
  };
}

/**
 * A request URL's path and query, as a request line sends them. A native server's URL is always
 * `http://host/target`, read here without a URL object per request (docs/benchmarks.md, "Deno and Bun: the runtime's own server").
 */
function targetOf(href: string): string {
  const scheme = href.startsWith("http://") ? 7 : href.startsWith("https://") ? 8 : -1;
  const slash = scheme === -1 ? -1 : href.indexOf("/", scheme);
  const hash = href.indexOf("#");
  if (slash === -1 || (hash !== -1 && hash < slash)) {
    const url = new URL(href);
    return url.pathname + url.search;
  }
  return hash === -1 ? href.slice(slash) : href.slice(slash, hash);
}

const fetchFront: FrontEnd<Request, Answer> = {
  connection: (exchange: FetchExchange) => exchange.response,
  remoteAddress: (exchange: FetchExchange) => exchange.response.remoteOf?.(exchange.request, exchange.response.peer),
  arrivedBody: (exchange: FetchExchange) => {
    const answer = exchange.response;
    answer.hasBody ??= exchange.request.body !== null;
    return answer.hasBody ? undefined : NO_BYTES;
  },
  readBody,
  // Nothing reads on after the answer: what is left of a body is let go once the exchange is over (settle).
  leavesBodyUnread: () => false,
  send,
  sendLong,
  breakOff: (exchange: FetchExchange) => {
    // A long answer still being measured has no Response yet, but its body's stream goes all the same.
    exchange.response.sink?.destroy();
    return exchange.response.settled;
  },
  drop: (exchange: FetchExchange) =>
    // What a client's fetch rejects with when the server resets the connection.
    breakOff(exchange.response, new TypeError("fetch failed", { cause: Object.assign(new Error("The server closed the connection without an answer"), { code: "ECONNRESET" }) })),
};

/** Reads the Request's body within `limit` and the budget of the bodies read at once, then calls `done` once. */
function readBody(exchange: FetchExchange, limit: number, budget: BodyBudget, done: BodyDone): void {
  const answer = exchange.response;
  const declared = exchange.headers["content-length"];
  if (!answer.inProcess && declared !== undefined) return readDeclared(exchange, Number(declared), limit, budget, done);
  const reader = (answer.body ??= exchange.request.body!).getReader();
  answer.reader = reader;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const finish = (error: HttpError | ClientGoneError | undefined, bytes: Uint8Array) => {
    budget.held -= size;
    done(error, bytes);
  };
  const next = (): void => {
    reader.read().then(
      ({ done: ended, value }) => {
        if (ended) return finish(undefined, chunks.length === 1 ? chunks[0]! : concat(chunks, size));
        if (size + value.length > limit) return finish(tooLarge(limit), NO_BYTES);
        if (budget.held + value.length > budget.most) return finish(busy(), NO_BYTES);
        size += value.length;
        budget.held += value.length;
        chunks.push(value);
        next();
      },
      // A body that fails to arrive is a client gone mid-body: the listener answers no one, and
      // the caller learns it as a client learns of a connection that broke.
      (cause: unknown) => {
        breakOff(answer, new TypeError("fetch failed", { cause }));
        finish(new ClientGoneError(), NO_BYTES);
      },
    );
  };
  next();
}

/**
 * Reads a body of a declared length, at most the limit (the listener refused a longer one), in one
 * call: the native server ends it at that length. Its whole length is held in the budget meanwhile.
 */
function readDeclared(exchange: FetchExchange, length: number, limit: number, budget: BodyBudget, done: BodyDone): void {
  if (budget.held + length > budget.most) return done(busy(), NO_BYTES);
  budget.held += length;
  exchange.request.arrayBuffer().then(
    (buffer) => {
      budget.held -= length;
      // The server holds a body to its declared length; were one ever longer, it is refused all the same.
      if (buffer.byteLength > limit) return done(tooLarge(limit), NO_BYTES);
      done(undefined, new Uint8Array(buffer));
    },
    (cause: unknown) => {
      budget.held -= length;
      breakOff(exchange.response, new TypeError("fetch failed", { cause }));
      done(new ClientGoneError(), NO_BYTES);
    },
  );
}

/** Answers with a Response holding the whole text; the body bytes, or -1 when the exchange is over already. */
function send(exchange: FetchExchange, reply: Reply, options: SendOptions, text: string | Uint8Array | undefined): number {
  const answer = exchange.response;
  if (answer.settled) return -1;
  const headers = headerList(reply, options);
  if (text === undefined) {
    settle(answer, new Response(null, init(answer, reply.status, headers)));
    return 0;
  }
  const length = typeof text === "string" ? Buffer.byteLength(text) : text.length;
  headers.push("content-type", reply.type ?? JSON_TYPE);
  // HEAD gets the same status and headers as GET, and no body (docs/spec.md#2-routing).
  if (answer.inProcess || options.head) headers.push("content-length", length);
  settle(answer, new Response(options.head ? null : text, init(answer, reply.status, headers)));
  return options.head ? 0 : length;
}

/** Answers with a Response whose body the scheduler of long answers writes as the reader takes it (pieces.ts). */
function sendLong(exchange: FetchExchange, reply: Reply, body: LongBody, options: SendOptions, done: (bytes: number) => void): boolean {
  const answer = exchange.response;
  if (answer.settled) {
    done(-1);
    return true;
  }
  const sink = new StreamSink();
  answer.sink = sink;
  const writeHead = (length: number) => {
    const headers = headerList(reply, options);
    headers.push("content-type", reply.type ?? JSON_TYPE, "content-length", length);
    // Once handed over, the answer is owed no more: a caller that never reads its body does not keep the process alive.
    settle(answer, new Response(options.head ? null : sink.stream, init(answer, reply.status, headers)));
  };
  // Whatever becomes of it, the exchange was settled (settle) and so is owed no more.
  return exchange.serving.pacer.write(sink, body, { head: options.head === true, writeHead, stallTimeout: exchange.serving.stallTimeout }, done);
}

/**
 * Breaks the exchange off, as a connection closed by its client: the caller's promise rejects with
 * `reason`, or, once answered, a long answer's body still streaming breaks off.
 */
function breakOff(answer: Answer, reason: unknown): void {
  // A long answer's stream goes, whether or not its Response was given: its place among the long answers is freed.
  answer.sink?.destroy();
  if (answer.settled) return;
  const error = reason instanceof Error ? reason : new Error(String(reason));
  brokenOff.add(error);
  settle(answer, error);
}

/** The errors an exchange was broken off with, on purpose: a native server is told them, and they are no fault. */
const brokenOff = new WeakSet<Error>();

/**
 * Whether a native server's handler failed only because its exchange was broken off: a client gone
 * mid-body, or a connection dropped on request (`Prefer: fault=reset`), which a fetch handler
 * cannot drop and so fails; the native server then answers no one, or `500`, and nothing is wrong.
 */
export function wasBrokenOff(error: unknown): boolean {
  return error instanceof Error && brokenOff.has(error);
}

/**
 * Settles the caller's promise once, lets go of what is left of the request's body, as a closed
 * connection would, and ends what the process owes the caller.
 */
function settle(answer: Answer, outcome: Response | Error): void {
  if (answer.settled) return;
  answer.settled = true;
  if (answer.resolve === undefined) answer.outcome = outcome;
  else if (outcome instanceof Response) answer.resolve(outcome);
  else answer.reject!(outcome);
  // A body read to its end is closed already, and cancelling it changes nothing.
  (answer.reader ?? answer.body)?.cancel().catch(() => undefined);
  answer.over();
}

/**
 * A long answer's body as a stream the caller reads: a piece written is enqueued, and `write` says,
 * as a socket's does, whether the reader has taken what it had; a reader that gives up is a client gone.
 */
class StreamSink extends EventEmitter {
  readonly stream: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #waiting = false;
  #closed = false;

  constructor() {
    super();
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          if (!this.#waiting) return;
          this.#waiting = false;
          this.emit("drain");
        },
        // The reader gave up on the body, as a client that hangs up does.
        cancel: () => {
          this.#closed = true;
          this.emit("close");
        },
      },
      { highWaterMark: 1 },
    );
  }

  write(piece: string | Uint8Array): boolean {
    if (this.#closed) return false;
    this.#controller!.enqueue(typeof piece === "string" ? ENCODER.encode(piece) : piece);
    const ready = (this.#controller!.desiredSize ?? 0) > 0;
    this.#waiting = !ready;
    return ready;
  }

  end(piece?: string | Uint8Array): void {
    if (this.#closed) return;
    if (piece !== undefined) this.#controller!.enqueue(typeof piece === "string" ? ENCODER.encode(piece) : piece);
    this.#closed = true;
    this.#controller!.close();
  }

  destroy(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#controller!.error(new Error("The answer broke off"));
    this.emit("close");
  }
}

/**
 * A Response's status, reason phrase and headers. In this process the phrase is node:http's,
 * `unknown` for a status it has none for (499), as a socket sends it; a native server writes its
 * own phrase for the status, and is not given one, which it would check for nothing. The headers
 * go as a plain record, which Deno and Bun take faster than a Headers object (docs/benchmarks.md,
 * "Deno and Bun: the runtime's own server").
 */
function init(answer: Answer, status: number, list: ReadonlyArray<string | number>): ResponseInit {
  const headers: Record<string, string> = Object.create(null);
  for (let i = 0; i < list.length; i += 2) {
    const name = list[i] as string;
    // The connection's own headers mean nothing without one.
    if (name === "connection" || name === "keep-alive") continue;
    const had = headers[name];
    headers[name] = had === undefined ? String(list[i + 1]) : `${had}, ${list[i + 1]}`;
  }
  return answer.inProcess ? { status, statusText: STATUS_CODES[status] ?? "unknown", headers } : { status, headers };
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

const ENCODER = new TextEncoder();
const NO_BYTES = new Uint8Array(0);

/** The period of the timer that keeps the process alive while a fetch waits: it never needs to fire. */
const STAY_ALIVE_MS = 2 ** 30;

function noop(): void {}
