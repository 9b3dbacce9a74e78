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
  /** Whether the request has a body: `body`, or behind a native server, the body its framing announces. */
  hasBody: boolean;
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
};

type FetchExchange = Exchange<Request, Answer>;

/** A fetch handler over a route table, and how to break off every answer still owed. */
export type FetchHandlers = {
  /** A Response at once when the answer was made at once, as most are; a promise of one otherwise. */
  fetch: (request: Request) => Response | Promise<Response>;
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
export function createFetchHandlers(routes: readonly Route<Handler>[], options: ListenerOptions, place: FetchPlace = "in-process"): FetchHandlers {
  // A fetch is its own connection: nothing waits behind it, so each request is served at once.
  const serving = servingOf(routes, options, fetchFront, () => ({ serve: (exchange: FetchExchange) => void handle(exchange), proceed: () => {} }));
  const owed = place === "in-process" ? owedAnswers() : undefined;

  function fetch(request: Request): Response | Promise<Response> {
    const target = targetOf(request.url);
    const headers: IncomingHttpHeaders = Object.create(null);
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const inProcess = owed !== undefined;
    // Behind a native server, the request's framing is the client's, checked by the server, and its
    // body's stream is made only if the body is read in pieces: Deno makes one on the first look
    // at `body`, which a body read whole does without (docs/benchmarks.md, "Deno and Bun: the runtime's own server").
    let body: ReadableStream<Uint8Array> | null = null;
    let hasBody = headers["transfer-encoding"] !== undefined || (headers["content-length"] ?? "0") !== "0";
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
    const answer: Answer = { settled: false, outcome: undefined, resolve: undefined, reject: undefined, hasBody, body, reader: undefined, sink: undefined, over: noop, inProcess };
    if (owed !== undefined) {
      owed.add(answer);
      // A request aborted (a test's AbortSignal) is a connection closed.
      request.signal.addEventListener("abort", () => breakOff(answer, request.signal.reason), { once: true });
    }
    const exchange = arrive(serving, request, answer, request.method, target, headers);
    // An expectation other than 100-continue is refused as a server refuses it, before the body (docs/spec.md#3-request-bodies).
    const expect = headers.expect;
    if (expect !== undefined && expect.trim().toLowerCase() !== "100-continue") {
      refuseExchange(exchange, new HttpError("EXPECTATION_FAILED", `Expect: ${clip(expect)} is not supported; send Expect: 100-continue or none`));
    } else serving.queue.serve(exchange);
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
  remoteAddress: () => undefined,
  arrivedBody: (exchange: FetchExchange) => (exchange.response.hasBody ? undefined : NO_BYTES),
  readBody,
  // Nothing reads on after the answer: what is left of a body is let go once the exchange is over (settle).
  leavesBodyUnread: () => false,
  send,
  sendLong,
  breakOff: (exchange: FetchExchange) => {
    if (!exchange.response.settled) return false;
    exchange.response.sink?.destroy();
    return true;
  },
  drop: (exchange: FetchExchange) =>
    // What a client's fetch rejects with when the server resets the connection.
    breakOff(exchange.response, new TypeError("fetch failed", { cause: Object.assign(new Error("The server closed the connection without an answer"), { code: "ECONNRESET" }) })),
};

/** Reads the Request's body within `limit` and the budget of the bodies read at once, then calls `done` once. */
function readBody(exchange: FetchExchange, limit: number, budget: BodyBudget, done: BodyDone): void {
  const answer = exchange.response;
  const declared = exchange.headers["content-length"];
  if (!answer.inProcess && declared !== undefined) return readDeclared(exchange, Number(declared), budget, done);
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
function readDeclared(exchange: FetchExchange, length: number, budget: BodyBudget, done: BodyDone): void {
  if (budget.held + length > budget.most) return done(busy(), NO_BYTES);
  budget.held += length;
  exchange.request.arrayBuffer().then(
    (buffer) => {
      budget.held -= length;
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
  const sink = new StreamSink(answer);
  answer.sink = sink;
  const writeHead = (length: number) => {
    const headers = headerList(reply, options);
    headers.push("content-type", reply.type ?? JSON_TYPE, "content-length", length);
    const response = new Response(options.head ? null : sink.stream, init(answer, reply.status, headers));
    settle(answer, response, false);
  };
  return exchange.serving.pacer.write(sink, body, { head: options.head === true, writeHead, stallTimeout: exchange.serving.stallTimeout }, (bytes) => {
    answer.over();
    done(bytes);
  });
}

/**
 * Breaks the exchange off, as a connection closed by its client: the caller's promise rejects with
 * `reason`, or, once answered, a long answer's body still streaming breaks off.
 */
function breakOff(answer: Answer, reason: unknown): void {
  if (answer.settled) answer.sink?.destroy();
  else settle(answer, reason instanceof Error ? reason : new Error(String(reason)));
}

/**
 * Settles the caller's promise once, lets go of what is left of the request's body, as a closed
 * connection would, and, unless a long answer's body still streams (`over` false), ends the exchange.
 */
function settle(answer: Answer, outcome: Response | Error, over = true): void {
  if (answer.settled) return;
  answer.settled = true;
  if (answer.resolve === undefined) answer.outcome = outcome;
  else if (outcome instanceof Response) answer.resolve(outcome);
  else answer.reject!(outcome);
  // A body read to its end is closed already, and cancelling it changes nothing.
  (answer.reader ?? answer.body)?.cancel().catch(() => undefined);
  if (over) answer.over();
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

  constructor(answer: Answer) {
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
          answer.over();
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
