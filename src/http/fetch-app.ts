// createFetchApp: the API as a WHATWG fetch handler, answered by the same listener a socket reaches, with no socket.
import { EventEmitter } from "node:events";
import { STATUS_CODES } from "node:http";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { APP_OPTIONS, type AppOptions, createApi } from "./app.ts";
import { refuseUnknownOptions } from "../api/options.ts";
import { HttpError } from "../api/errors.ts";
import { clip } from "../api/input.ts";
import type { Snapshot } from "../store/records.ts";

/** The API in one process, for a test or a runtime's own server: `Deno.serve(app.fetch)`, `Bun.serve({ fetch: app.fetch })`. */
export type FetchApp = {
  /**
   * Answers a request as a server on a socket would: the same status, headers and body bytes,
   * without `Date` or the connection's headers. Its URL's host is the request's `Host`, checked
   * like any (`http://localhost/users/1`). Rejects, as a client's fetch does, when the request
   * asked for a dropped connection (`Prefer: fault=reset`, with `control`).
   */
  fetch: (request: Request) => Promise<Response>;
  /** Puts every collection back to the starting records (the seed, or the two seeded users); id sequences start again. */
  reset: () => Promise<void>;
  /** A deep copy of every record held, by collection, in creation order. */
  snapshot: () => Promise<Snapshot>;
  /** Lets go of the data; requests after it get 503 SHUTTING_DOWN. */
  close: () => Promise<void>;
};

/**
 * The API as a fetch handler over its own fresh data, with createApp's options (`seed`,
 * `resources`, `authTokens`, `control`, `delay`, ...). Two apps never share records.
 */
export function createFetchApp(options: AppOptions = {}): FetchApp {
  refuseUnknownOptions(options, APP_OPTIONS, "createFetchApp");
  let closed = false;
  const isDraining = options.isDraining;
  const api = createApi({ ...options, isDraining: () => closed || (isDraining?.() ?? false) });
  const { store } = api.data;
  // The answers still owed, which close() breaks off, as closing a server cuts its connections.
  const owed = new Set<InProcessResponse>();
  // A fetch not yet answered keeps the process alive, as a client waiting on a socket is kept by
  // the socket: a delayed answer's own timer does not (listener.ts, later), so that a server
  // closed owes nothing. Without this, a test awaiting a delayed answer ends before it.
  let waiting = 0;
  let alive: ReturnType<typeof setInterval> | undefined;
  const answered = () => {
    if (--waiting === 0) clearInterval(alive);
  };

  async function fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // A client puts the URL's host in Host; a Request built in a test has none of its own.
    headers.host ??= url.host;
    // The framing a client would send: the length it declared, or chunks. The body is read as the
    // listener asks for it, so its headers are checked first, as on a socket (a 415 or a 413 for a
    // declared length past the limit is answered before a byte is read).
    if (request.body === null) delete headers["content-length"];
    else if (headers["content-length"] === undefined) headers["transfer-encoding"] = "chunked";
    else delete headers["transfer-encoding"];
    if (waiting++ === 0) alive = setInterval(stayAlive, STAY_ALIVE_MS);
    const answer = new Promise<Response>((resolve, reject) => {
      const incoming = new InProcessRequest(request.method, url.pathname + url.search, headers, request.body, reject);
      const outgoing = new InProcessResponse(incoming, resolve, reject, () => owed.delete(outgoing));
      owed.add(outgoing);
      // A request aborted (a test's AbortSignal, or Deno.serve's client gone) is a connection closed.
      request.signal.addEventListener("abort", () => outgoing.abort(request.signal.reason), { once: true });
      // The listener reads and writes only the members of node:http's request and response these classes have.
      const listen = incoming as unknown as IncomingMessage;
      const write = outgoing as unknown as ServerResponse;
      // An expectation other than 100-continue is refused as a server refuses it, before the body (docs/spec.md#3-request-bodies).
      const expect = headers.expect;
      if (expect !== undefined && expect.trim().toLowerCase() !== "100-continue") {
        api.refuse(listen, write, new HttpError("EXPECTATION_FAILED", `Expect: ${clip(expect)} is not supported; send Expect: 100-continue or none`));
      } else api.listener(listen, write);
    });
    answer.then(answered, answered);
    return answer;
  }

  return {
    fetch,
    reset: () => store.reset(),
    snapshot: () => store.snapshot(),
    close: async () => {
      closed = true;
      for (const outgoing of owed) outgoing.abort(new TypeError("fetch failed", { cause: new Error("The app was closed before it answered") }));
      await store.close();
    },
  };
}

/** What the in-process connection is: something to close, which a `Prefer: fault=reset` does. */
class InProcessSocket extends EventEmitter {
  destroyed = false;
  readonly remoteAddress = undefined;
  readonly #reset: (error: Error) => void;

  constructor(reset: (error: Error) => void) {
    super();
    this.#reset = reset;
  }

  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    // What a client's fetch rejects with when the server resets the connection.
    this.#reset(new TypeError("fetch failed", { cause: Object.assign(new Error("The server closed the connection without an answer"), { code: "ECONNRESET" }) }));
    this.emit("close");
    return this;
  }
}

/** A request as the listener reads it: node:http's members over the Request's body, read as the listener reads it. */
class InProcessRequest extends Readable {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly socket: InProcessSocket;
  readonly httpVersion = "1.1";
  /** Whether the whole body has arrived, as IncomingMessage says. */
  complete = false;
  readonly #body: ReadableStreamDefaultReader<Uint8Array> | undefined;

  readonly #fail: (error: Error) => void;

  constructor(method: string, url: string, headers: Record<string, string>, body: ReadableStream<Uint8Array> | null, fail: (error: Error) => void) {
    super();
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.#fail = fail;
    this.socket = new InProcessSocket(fail);
    this.#body = body?.getReader();
    if (this.#body === undefined) this.#end();
  }

  override _read(): void {
    this.#body!.read().then(
      ({ done, value }) => (done ? this.#end() : this.push(value)),
      // A body that fails to arrive is a client gone mid-body: the listener answers no one, and
      // the caller learns it as a client learns of a connection that broke.
      (cause: unknown) => {
        this.#fail(new TypeError("fetch failed", { cause }));
        this.destroy();
      },
    );
  }

  /** Lets go of what is left of the body once the answer is out, as a closed connection would. */
  discard(): void {
    if (!this.complete) this.#body?.cancel().catch(() => undefined);
  }

  #end(): void {
    this.complete = true;
    this.push(null);
  }
}

/**
 * An answer as the listener writes it: node:http's members, turned into a Response once the head
 * is written and the body's first bytes or its end follow. A long list written in pieces becomes
 * a streamed body, taken as the reader pulls it, as a socket drains.
 */
class InProcessResponse extends EventEmitter {
  headersSent = false;
  destroyed = false;
  readonly req: InProcessRequest;
  #status = 200;
  #headers: Headers | undefined;
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  #draining = false;
  /** Whether the whole answer was written: an abort after it (Deno aborts a request's signal once answered) changes nothing. */
  #finished = false;
  readonly #resolve: (response: Response) => void;
  readonly #reject: (error: Error) => void;
  readonly #settled: () => void;

  constructor(request: InProcessRequest, resolve: (response: Response) => void, reject: (error: Error) => void, settled: () => void) {
    super();
    this.req = request;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#settled = settled;
  }

  /** Breaks the exchange off, as a connection closed by its client: the caller's promise rejects with `reason`, unless answered already. */
  abort(reason: unknown): void {
    if (this.destroyed || this.#finished) return;
    this.#reject(reason instanceof Error ? reason : new Error(String(reason)));
    this.req.socket.destroy();
    this.destroy();
  }

  /** Takes the headers as respond.ts hands them over: a flat [name, value, ...] list, or an object on Bun. */
  writeHead(status: number, headers: ReadonlyArray<string | number> | OutgoingHttpHeaders): this {
    this.#status = status;
    const list = new Headers();
    if (isHeaderList(headers)) for (let i = 0; i < headers.length; i += 2) appendHeader(list, String(headers[i]), headers[i + 1]!);
    // respond.ts's headerObject gives each name one value: a string or a number.
    else for (const name in headers) appendHeader(list, name, headers[name] as string | number);
    this.#headers = list;
    this.headersSent = true;
    return this;
  }

  /** Writes a piece of a long body; false, as a socket's write is, when the reader has not taken the last. */
  write(chunk: string): boolean {
    if (this.destroyed) return false;
    if (this.#stream === undefined) this.#open();
    this.#stream!.enqueue(ENCODER.encode(chunk));
    const ready = (this.#stream!.desiredSize ?? 0) > 0;
    this.#draining = !ready;
    return ready;
  }

  end(chunk?: string | Uint8Array): this {
    if (this.destroyed) return this;
    this.#finished = true;
    if (this.#stream !== undefined) {
      if (chunk !== undefined) this.#stream.enqueue(typeof chunk === "string" ? ENCODER.encode(chunk) : chunk);
      this.#stream.close();
    } else {
      // A body sent whole; HEAD, 204 and 304 have none.
      this.#resolve(new Response(chunk ?? null, this.#init()));
    }
    this.req.discard();
    this.#settled();
    this.emit("finish");
    return this;
  }

  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    if (this.#stream !== undefined) this.#stream.error(new Error("The answer broke off"));
    else this.#reject(new TypeError("fetch failed", { cause: new Error("The server broke off its answer") }));
    this.req.discard();
    this.#settled();
    this.emit("close");
    return this;
  }

  #init(): ResponseInit {
    // node:http's reason phrase, `unknown` for a status it has none for (499), as a socket sends it.
    return { status: this.#status, statusText: STATUS_CODES[this.#status] ?? "unknown", headers: this.#headers };
  }

  #open(): void {
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#stream = controller;
        },
        pull: () => {
          if (!this.#draining) return;
          this.#draining = false;
          this.emit("drain");
        },
        // The reader gave up on the body, as a client that hangs up does.
        cancel: () => {
          this.destroyed = true;
          this.#settled();
          this.emit("close");
        },
      },
      { highWaterMark: 1 },
    );
    this.#resolve(new Response(body, this.#init()));
  }
}

const ENCODER = new TextEncoder();

/** The period of the timer that keeps the process alive while a fetch waits: it never needs to fire. */
const STAY_ALIVE_MS = 2 ** 30;

function stayAlive(): void {}

/** Adds a header to an answer's, leaving out the connection's own headers, which mean nothing without one. */
function appendHeader(list: Headers, name: string, value: string | number): void {
  if (name !== "connection" && name !== "keep-alive") list.append(name, String(value));
}

function isHeaderList(headers: ReadonlyArray<string | number> | OutgoingHttpHeaders): headers is ReadonlyArray<string | number> {
  return Array.isArray(headers);
}
