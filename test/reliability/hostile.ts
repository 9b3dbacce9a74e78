// Generated hostile requests, sent raw; each must get a catalogued 4xx JSON answer and the next request must be served.
import type { Socket } from "node:net";
import fc from "fast-check";
import { checkErrorResponse, dial, ResponseReader, type WireResponse } from "./wire.ts";

/** One hostile request: its bytes, and how a client must send it. */
export type HostileInput = {
  /** What kind of input this is, for the figures and for failure messages. */
  kind: string;
  bytes: Buffer;
  /**
   * `whole`: one complete request; the connection may be kept for the next one.
   * `closed`: anything else (random bytes, a short body, extra bytes); the client
   * half-closes after writing, so the server sees the end, and the connection is not reused.
   */
  framing: "whole" | "closed";
};

const CRLF = "\r\n";
const JSON_TYPE = "application/json";

/** A request with headers in the order given and the body as bytes; Content-Length is added unless present. */
function build(method: string, target: string, headers: Array<[string, string]>, body?: Buffer | string): Buffer {
  const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
  const lines = [`${method} ${target} HTTP/1.1`, "Host: 127.0.0.1"];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  const hasLength = headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  if (payload !== undefined && !hasLength) lines.push(`Content-Length: ${payload.length}`);
  return Buffer.concat([Buffer.from(lines.join(CRLF) + CRLF + CRLF, "latin1"), payload ?? Buffer.alloc(0)]);
}

/** Where bodies go: every create and update of the API. */
const bodyTarget = fc.constantFrom(
  ["POST", "/users"],
  ["PUT", "/users/1"],
  ["POST", "/posts"],
  ["PUT", "/posts/1"],
  ["POST", "/posts/1/comments"],
  ["PUT", "/comments/1"],
  ["POST", "/comments/1/replies"],
  ["PUT", "/replies/1"],
);

/** A JSON body for a target, sent whole with a good Content-Type. */
function jsonBody(kind: string, text: fc.Arbitrary<Buffer | string>): fc.Arbitrary<HostileInput> {
  return fc.tuple(bodyTarget, text).map(([[method, target], body]) => ({
    kind,
    bytes: build(method!, target!, [["Content-Type", JSON_TYPE]], body),
    framing: "whole",
  }));
}

const valid = fc.constantFrom(
  '{"name":"Grace Hopper","email":"grace@example.com"}',
  '{"title":"t","body":"b","tags":[1,2,{"a":null}]}',
  '{"body":"c","meta":{"x":[true,false,1.5e3]}}',
);

/** Any JSON text, or a known good body, cut somewhere before its end. */
const truncated = fc
  .tuple(fc.oneof(fc.json({ maxDepth: 4 }), valid), fc.double({ min: 0, max: 1, noNaN: true }))
  .filter(([text]) => text.length > 1)
  .map(([text, at]) => text.slice(0, Math.max(1, Math.min(text.length - 1, Math.floor(text.length * at)))));

const DEPTH = 100_000;
const deep = fc.constantFrom(
  `{"a":${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}`,
  `${'{"a":'.repeat(DEPTH)}1${"}".repeat(DEPTH)}`,
  `{"a":${"[".repeat(DEPTH)}`,
  `${'{"a":['.repeat(DEPTH / 2)}${"]}".repeat(DEPTH / 2)}`,
  `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`,
  `{"name":"a","email":"a@b.io","x":${'{"__proto__":'.repeat(1000)}1${"}".repeat(1000)}}`,
);

const hugeNumber = fc
  .oneof(
    fc.constantFrom("1e400", "-1e309", "1e-400", "123456789012345678901234567890", "0.1e99999", "-0", "1E+400"),
    fc.integer({ min: 300, max: 20_000 }).map((digits) => "9".repeat(digits)),
    fc.integer({ min: 300, max: 20_000 }).map((digits) => `0.${"0".repeat(digits)}1`),
  )
  .map((number) => `{"name":"a","email":"a@b.io","title":"t","body":"b","n":${number}}`);

const hugeString = fc.oneof(
  fc.integer({ min: 1_000, max: 100_000 }).map((size) => `{"name":"${"x".repeat(size)}"}`),
  fc.constantFrom(
    `{"body":"${"é".repeat(600_000)}"}`,
    `{"a":"${"x".repeat(1_100_000)}"}`,
    `{"${"k".repeat(50_000)}":1}`,
  ),
);

/** Byte sequences no UTF-8 decoder may accept: stray, overlong, surrogate, out-of-range and cut sequences. */
const badUtf8 = fc
  .tuple(
    fc.constantFrom(
      [0xff],
      [0xfe],
      [0xc0, 0x80],
      [0xe0, 0x80, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
      [0x80],
    ),
    fc.constantFrom("key", "value"),
  )
  .map(([bad, where]) => {
    const raw = Buffer.from(bad);
    return where === "key"
      ? Buffer.concat([Buffer.from('{"'), raw, Buffer.from('":1,"name":"a","email":"a@b.io"}')])
      : Buffer.concat([Buffer.from('{"name":"a'), raw, Buffer.from('","email":"a@b.io","title":"t","body":"b"}')]);
  });

const duplicateKeys = fc
  .array(fc.tuple(fc.constantFrom("name", "email", "id", "title", "body", "x"), fc.jsonValue({ maxDepth: 1 })), {
    minLength: 2,
    maxLength: 8,
  })
  .map(
    (pairs) =>
      `{${pairs.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? "null"}`).join(",")},` +
      `"name":"a","name":"b"}`,
  );

const FORBIDDEN = [
  '"__proto__"',
  '"constructor"',
  '"prototype"',
  '"\\u005f_proto__"',
  '"__pro\\u0074o__"',
  '"constr\\u0075ctor"',
];

/** A JSON tree with a forbidden member name placed at a random depth, in objects and in arrays. */
const protoAnywhere = fc
  .tuple(fc.constantFrom(...FORBIDDEN), fc.integer({ min: 0, max: 70 }), fc.boolean(), fc.jsonValue({ maxDepth: 2 }))
  .map(([key, depth, inArray, value]) => {
    let text = `{${key}:${JSON.stringify(value) ?? "null"},"polluted":true}`;
    for (let level = 0; level < depth; level++) text = inArray ? `[1,${text}]` : `{"a${level}":${text},"b":2}`;
    return `{"name":"a","email":"a@b.io","x":${text}}`;
  });

/** Bodies of random bytes, of random length. */
const randomBytes = fc.uint8Array({ minLength: 0, maxLength: 2048 }).map((bytes) => Buffer.from(bytes));

const CONTENT_TYPES = [
  "application/json, text/plain",
  "application/json;",
  "application/json;;",
  "application/json; charset",
  "application/json; charset=",
  "application/json; charset=utf-16",
  "application/json; charset=utf-8; charset=latin1",
  "application/json; boundary=x",
  "application/ json",
  "application",
  "*/*",
  "",
  "json",
  "application/json\u00ff",
  "text/json",
  "multipart/form-data; boundary=xyz",
];

/** Odd and repeated Content-Type headers. */
const oddContentType = fc
  .tuple(
    bodyTarget,
    fc.array(fc.oneof(fc.constantFrom(...CONTENT_TYPES), fc.constant(JSON_TYPE)), { minLength: 0, maxLength: 3 }),
    valid,
  )
  .map(([[method, target], types, body]): HostileInput => ({
    kind: "odd Content-Type",
    bytes: build(
      method!,
      target!,
      types.map((type) => ["Content-Type", type]),
      body,
    ),
    framing: "whole",
  }));

/** Odd, repeated or contradicting Content-Length and Transfer-Encoding headers. */
const oddLength = fc
  .tuple(
    bodyTarget,
    valid,
    fc.constantFrom(
      ["dup-same"],
      ["dup-different"],
      ["nan"],
      ["negative"],
      ["huge"],
      ["plus"],
      ["hex"],
      ["spaces"],
      ["both"],
      ["short"],
      ["long"],
      ["te-bad"],
      ["te-double"],
      ["chunk-bad-size"],
      ["chunk-no-end"],
      ["chunk-ext"],
      ["comma-list"],
    ),
  )
  .map(([[method, target], body, [variant]]): HostileInput => {
    const size = Buffer.byteLength(body);
    const type: [string, string] = ["Content-Type", JSON_TYPE];
    const headers = (
      extra: Array<[string, string]>,
      text: string = body,
      framing: HostileInput["framing"] = "closed",
    ) => ({
      kind: `Content-Length/Transfer-Encoding ${variant}`,
      bytes: build(method!, target!, [type, ...extra], text),
      framing,
    });
    switch (variant) {
      case "dup-same":
        return headers([
          ["Content-Length", String(size)],
          ["Content-Length", String(size)],
        ]);
      case "dup-different":
        return headers([
          ["Content-Length", String(size)],
          ["Content-Length", String(size + 1)],
        ]);
      case "nan":
        return headers([["Content-Length", "abc"]]);
      case "negative":
        return headers([["Content-Length", "-1"]]);
      case "huge":
        return headers([["Content-Length", "99999999999999999999999"]]);
      case "plus":
        return headers([["Content-Length", `+${size}`]]);
      case "hex":
        return headers([["Content-Length", `0x${size.toString(16)}`]]);
      case "spaces":
        return headers([["Content-Length", ` ${size} `]]);
      case "both":
        return headers([
          ["Content-Length", String(size)],
          ["Transfer-Encoding", "chunked"],
        ]);
      case "short":
        return headers([["Content-Length", String(Math.max(0, size - 5))]]);
      case "long":
        return headers([["Content-Length", String(size + 100)]]);
      case "te-bad":
        return headers([["Transfer-Encoding", "gzip"]]);
      case "te-double":
        return headers([["Transfer-Encoding", "chunked, chunked"]], `${size.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
      case "chunk-bad-size":
        return headers([["Transfer-Encoding", "chunked"]], `zz\r\n${body}\r\n0\r\n\r\n`);
      case "chunk-no-end":
        return headers([["Transfer-Encoding", "chunked"]], `${size.toString(16)}\r\n${body}\r\n`);
      case "chunk-ext":
        return headers(
          [["Transfer-Encoding", "chunked"]],
          `${size.toString(16)};x=${"y".repeat(5000)}\r\n${body}\r\n0\r\n\r\n`,
        );
      default:
        return headers([["Content-Length", `${size}, ${size}`]]);
    }
  });

/** Encoded, overlong, dotted and otherwise odd request targets. */
const oddTarget = fc
  .tuple(
    fc.constantFrom("GET", "PUT", "DELETE", "POST", "OPTIONS", "PATCH"),
    fc.oneof(
      fc.constantFrom(
        "/users/%31",
        "/%75sers",
        "/users/%2F",
        "/users/1%2F2",
        "/users/%00",
        "/users/%E0%80%80",
        "/users/%",
        "/users/%zz",
        "/users/../users/1",
        "/users/./1",
        "//users",
        "/users//1",
        "*",
        "http://127.0.0.1/users",
        "/users?__proto__=1&constructor[prototype][x]=1",
        "/users?limit=1&limit=2&offset=%",
        "/__proto__",
        "/users/__proto__",
        "/posts/constructor/comments",
        "/users/1?limit=%E0",
        "/users/１",
        "/users/1\u0000",
        "/users/\u00e9",
        "/users/ 1",
        "/users\t/1",
        "users",
        "",
      ),
      fc.integer({ min: 1_000, max: 40_000 }).map((size) => `/users/${"1".repeat(size)}`),
      fc.integer({ min: 1_000, max: 40_000 }).map((size) => `/${"a/".repeat(size / 2)}`),
      fc.integer({ min: 10, max: 30_000 }).map((size) => `/users?${"limit=1&".repeat(size / 8)}`),
      fc.string({ unit: "binary", maxLength: 60 }).map((text) => `/${text}`),
    ),
  )
  .map(([method, target]): HostileInput => {
    const body = method === "POST" || method === "PUT" ? '{"name":"a","email":"a@b.io"}' : undefined;
    return {
      kind: "odd target",
      bytes: build(method, target, body === undefined ? [] : [["Content-Type", JSON_TYPE]], body),
      framing: "closed",
    };
  });

/** Very long, very many and malformed headers. */
const oddHeaders = fc
  .tuple(
    fc.constantFrom(
      "long-one",
      "many",
      "very-many",
      "bad-name",
      "bad-value",
      "fold",
      "no-colon",
      "proto-name",
      "long-name",
    ),
    fc.integer({ min: 1, max: 40_000 }),
  )
  .map(([variant, size]): HostileInput => {
    let headers: Array<[string, string]>;
    switch (variant) {
      case "long-one":
        headers = [["X-Long", "v".repeat(size)]];
        break;
      case "many":
        headers = Array.from(
          { length: Math.min(size, 300) },
          (_, index) => [`X-H${index}`, "v".repeat(40)] as [string, string],
        );
        break;
      case "very-many":
        headers = Array.from({ length: 2_500 }, (_, index) => [`X${index}`, "v"] as [string, string]);
        break;
      case "bad-name":
        headers = [["X Bad(Name)", "v"]];
        break;
      case "bad-value":
        headers = [["X-Bad", "a\u0000b\u007f"]];
        break;
      case "fold":
        headers = [["X-Fold", "a\r\n  folded"]];
        break;
      case "no-colon":
        headers = [["X-No-Colon-At-All\r\nY", "1"]];
        break;
      case "proto-name":
        headers = [
          ["__proto__", "x"],
          ["constructor", "y"],
          ["Content-Type", "application/json"],
        ];
        break;
      default:
        headers = [[`X-${"n".repeat(size)}`, "v"]];
    }
    return { kind: `headers ${variant}`, bytes: build("GET", "/users/1", headers), framing: "closed" };
  });

/** Odd request lines: unknown or lower-case methods, other protocol versions, garbage. */
const oddRequestLine = fc
  .oneof(
    fc.constantFrom(
      "get /users HTTP/1.1",
      "GETT /users HTTP/1.1",
      "GET /users HTTP/2.0",
      "GET /users HTTP/1.2",
      "GET /users HTTP/0.9",
      "GET /users",
      "GET  /users  HTTP/1.1",
      "PRI * HTTP/2.0",
      "CONNECT 127.0.0.1:1 HTTP/1.1",
      "TRACE /users HTTP/1.1",
      "M-SEARCH * HTTP/1.1",
      "GET /users HTTP/1.0",
      " GET /users HTTP/1.1",
      "\u0016\u0003\u0001\u0002\u0000\u0001",
    ),
    fc.string({ unit: "binary-ascii", maxLength: 80 }),
  )
  .map((line): HostileInput => ({
    kind: "odd request line",
    bytes: Buffer.from(`${line}\r\nHost: 127.0.0.1\r\n\r\n`, "latin1"),
    framing: "closed",
  }));

/** Whole requests made of random bytes. */
const randomRequest = fc.uint8Array({ minLength: 1, maxLength: 4096 }).map((bytes): HostileInput => ({
  kind: "random bytes",
  bytes: Buffer.from(bytes),
  framing: "closed",
}));

/** Every kind of hostile input, weighted so that the costly ones (100,000 levels, 1 MB) stay rare. */
export const hostileInput: fc.Arbitrary<HostileInput> = fc.oneof(
  { weight: 10, arbitrary: jsonBody("random bytes body", randomBytes) },
  { weight: 10, arbitrary: jsonBody("truncated JSON", truncated) },
  { weight: 1, arbitrary: jsonBody("100,000 levels", deep) },
  { weight: 6, arbitrary: jsonBody("enormous number", hugeNumber) },
  { weight: 1, arbitrary: jsonBody("enormous string", hugeString) },
  { weight: 6, arbitrary: jsonBody("invalid UTF-8", badUtf8) },
  { weight: 6, arbitrary: jsonBody("duplicate keys", duplicateKeys) },
  { weight: 10, arbitrary: jsonBody("__proto__ anywhere", protoAnywhere) },
  { weight: 8, arbitrary: oddContentType },
  { weight: 8, arbitrary: oddLength },
  { weight: 10, arbitrary: oddTarget },
  { weight: 4, arbitrary: oddHeaders },
  { weight: 6, arbitrary: oddRequestLine },
  { weight: 8, arbitrary: randomRequest },
);

/** What one input got. */
export type HostileOutcome = { status: number | undefined; code: string | undefined };

const FOLLOW_UP = Buffer.from(`GET /healthz HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}${CRLF}`);

/**
 * One client connection, kept open between requests where the server keeps it,
 * and replaced where the server (or the input's framing) ends it.
 */
export class HostileClient {
  readonly #url: string;
  readonly #timeout: number;
  #socket: Socket | undefined;
  #fresh = true;
  /** Connections this client opened. */
  connections = 0;

  constructor(url: string, timeout: number) {
    this.#url = url;
    this.#timeout = timeout;
  }

  /** Sends one hostile input, checks its answer, then checks that a plain request is served. */
  async send(input: HostileInput): Promise<HostileOutcome> {
    const first = await this.#exchange(input.bytes, input.framing === "closed");
    const outcome: HostileOutcome = { status: first.response?.status, code: undefined };
    if (first.partial > 0) throw new Error(`a response was cut after ${first.partial} bytes`);
    if (first.response === undefined) {
      // Only bytes that never began a request (line breaks between requests) may go unanswered.
      if (!/^[\r\n]*$/.test(input.bytes.toString("latin1"))) throw new Error("the connection closed without an answer");
    } else {
      const response = first.response;
      if (response.status >= 500)
        throw new Error(`answered ${response.status}: ${response.body.toString("utf8").slice(0, 300)}`);
      const problem = checkErrorResponse(response);
      if (problem !== undefined) throw new Error(`answered ${response.status}, but ${problem}`);
      if (response.status >= 400) outcome.code = (JSON.parse(response.body.toString("utf8")) as { code: string }).code;
    }
    if (input.framing === "closed" || first.response?.headers["connection"] === "close") this.#drop();
    const next = await this.#exchange(FOLLOW_UP, false);
    const body = next.response?.body.toString("utf8");
    if (next.response?.status !== 200 || body !== '{"status":"ok"}') {
      throw new Error(`the next request got ${next.response?.status ?? "no answer"} ${body ?? ""}`);
    }
    return outcome;
  }

  /** Closes the connection, if one is open. */
  close(): void {
    this.#drop();
  }

  #drop(): void {
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  async #exchange(bytes: Buffer, halfClose: boolean): Promise<{ response: WireResponse | undefined; partial: number }> {
    for (let attempt = 0; ; attempt++) {
      if (this.#socket === undefined) {
        this.#socket = await dial(this.#url);
        this.#fresh = true;
        this.connections++;
      }
      const socket = this.#socket;
      const reused = !this.#fresh;
      this.#fresh = false;
      const result = await readOne(socket, bytes, halfClose, this.#timeout);
      if (result.response === undefined) this.#drop();
      // A kept connection the server closed as it went idle, before any of this request's
      // answer: send it again, once, on a new connection.
      if (result.response === undefined && result.silentClose && reused && attempt === 0) continue;
      return result;
    }
  }
}

type ReadResult = { response: WireResponse | undefined; partial: number; silentClose: boolean };

function readOne(socket: Socket, bytes: Buffer, halfClose: boolean, timeout: number): Promise<ReadResult> {
  return new Promise((resolve, reject) => {
    const reader = new ResponseReader();
    let received = 0;
    const done = (result: ReadResult | Error) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("close", onClose);
      socket.off("error", onError);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      const responses = reader.push(chunk).filter((response) => response.status >= 200);
      if (reader.malformed !== undefined) done(new Error(`a response that is not HTTP: ${reader.malformed}`));
      else if (responses.length > 0) done({ response: responses[0], partial: 0, silentClose: false });
    };
    const onClose = () => done({ response: undefined, partial: reader.pending, silentClose: received === 0 });
    const onError = () => undefined;
    const timer = setTimeout(() => done(new Error(`no answer within ${timeout} ms`)), timeout);
    socket.on("data", onData);
    socket.once("close", onClose);
    socket.on("error", onError);
    socket.write(bytes);
    if (halfClose) socket.end();
  });
}

/** Figures of a hostile run. */
export type HostileStats = {
  inputs: number;
  answered: number;
  unanswered: number;
  connections: number;
  byStatus: Record<string, number>;
  byKind: Record<string, number>;
  /** The kinds of the inputs left unanswered: each must be one the client never finished. */
  unansweredByKind: Record<string, number>;
  /** One unanswered input of each kind, as text, to show what went unanswered. */
  unansweredSamples: Record<string, string>;
};

/** Options of runHostile. */
export type HostileRunOptions = { url: string; seed: number; inputs: number; concurrency: number; timeout?: number };

/**
 * Sends `inputs` generated hostile requests over `concurrency` connections at once.
 * Throws at the first input that is not answered as it must be, naming the smallest
 * input fast-check found that fails the same way.
 */
export async function runHostile(options: HostileRunOptions): Promise<HostileStats> {
  const stats: HostileStats = {
    inputs: 0,
    answered: 0,
    unanswered: 0,
    connections: 0,
    byStatus: {},
    byKind: {},
    unansweredByKind: {},
    unansweredSamples: {},
  };
  const lanes = Array.from({ length: options.concurrency }, (_, lane) => {
    const runs =
      Math.floor(options.inputs / options.concurrency) + (lane < options.inputs % options.concurrency ? 1 : 0);
    return runLane(options, options.seed + lane, runs, stats);
  });
  const results = await Promise.allSettled(lanes);
  const failed = results.find((result) => result.status === "rejected");
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  return stats;
}

async function runLane(options: HostileRunOptions, seed: number, runs: number, stats: HostileStats): Promise<void> {
  if (runs === 0) return;
  const client = new HostileClient(options.url, options.timeout ?? 15_000);
  const property = fc.asyncProperty(hostileInput, async (input) => {
    const outcome = await client.send(input);
    stats.inputs++;
    stats.byKind[input.kind] = (stats.byKind[input.kind] ?? 0) + 1;
    const key =
      outcome.status === undefined ? "closed before answering" : `${outcome.status} ${outcome.code ?? ""}`.trim();
    stats.byStatus[key] = (stats.byStatus[key] ?? 0) + 1;
    if (outcome.status === undefined) {
      stats.unanswered++;
      stats.unansweredByKind[input.kind] = (stats.unansweredByKind[input.kind] ?? 0) + 1;
      stats.unansweredSamples[input.kind] ??= JSON.stringify(input.bytes.subarray(0, 120).toString("latin1"));
    } else {
      stats.answered++;
    }
  });
  try {
    const result = await fc.check(property, { seed, numRuns: runs, endOnFailure: false });
    if (result.failed) {
      const input = result.counterexample?.[0];
      const cause = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      const preview = input === undefined ? "" : JSON.stringify(input.bytes.subarray(0, 400).toString("latin1"));
      throw new Error(
        `A hostile input was not answered as it must be (seed ${seed}, path "${result.counterexamplePath ?? ""}").\n` +
          `Smallest input: ${input?.kind ?? "?"}, ${input?.bytes.length ?? 0} bytes: ${preview}\n${cause}`,
      );
    }
  } finally {
    stats.connections += client.connections;
    client.close();
  }
}
