// What the ports of json-server's own tests share: a server started on each test's db.json
// (target.ts), reached over a real socket, and the requests their assertions are made on.
// Each port keeps its upstream assertions; where this server differs from json-server on
// purpose (docs/json-server.md), the test says so with `differs`, which asserts that the
// upstream assertion fails, so that the list of differences cannot go stale.
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import type { ServerOptions } from "../../src/index.ts";
import { type DialectServer, startDialect } from "./target.ts";

/** An answer as the ports read it: supertest's status, headers (lower case) and parsed body. */
export type Answer = { status: number; headers: Record<string, string>; body: unknown; text: string };

/** What a request may send: a JSON body, a form, or raw text, and headers (`host` among them). */
export type Sent = { json?: unknown; form?: Record<string, string | number | boolean>; headers?: Record<string, string> };

/** A server over `db`, started on first use, so that a test may change its db.json before (as upstream tests change their `db`). */
export function lazyServer(db: () => unknown, options: ServerOptions = {}) {
  let running: Promise<DialectServer> | undefined;
  const server = () => (running ??= startDialect(structuredClone(db()), options));
  return {
    server,
    request: async (method: string, path: string, sent: Sent = {}) => send((await server()).url, method, path, sent),
    /** The data the server holds now, as upstream tests read their `db`. */
    data: async () => (await send((await server()).url, "GET", "/db")).body as Record<string, unknown[]>,
    close: async () => {
      if (running !== undefined) await (await running).close();
      running = undefined;
    },
  };
}

/** Sends one request over node:http, which lets a test set `Host` as supertest does. */
export function send(base: string, method: string, path: string, sent: Sent = {}): Promise<Answer> {
  const url = new URL(path, base);
  const headers: Record<string, string> = { ...sent.headers };
  let body: string | undefined;
  if (sent.json !== undefined) {
    body = JSON.stringify(sent.json);
    headers["content-type"] ??= "application/json";
  } else if (sent.form !== undefined) {
    body = new URLSearchParams(Object.entries(sent.form).map(([name, value]): [string, string] => [name, String(value)])).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  else if (method !== "GET" && method !== "HEAD" && method !== "OPTIONS") headers["content-length"] = "0";
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const type = String(incoming.headers["content-type"] ?? "");
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(incoming.headers)) flat[name] = Array.isArray(value) ? value.join(", ") : String(value);
        resolve({ status: incoming.statusCode!, headers: flat, body: type.includes("json") && text !== "" ? JSON.parse(text) : undefined, text });
      });
      incoming.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** supertest's `.expect(status, body)`. */
export function expectBody(answer: Answer, status: number, body?: unknown): void {
  assert.equal(answer.status, status, `${answer.status} ${answer.text.slice(0, 200)}`);
  if (body !== undefined) assert.deepEqual(answer.body, body);
}

/** supertest's `.expect(header, value)`: equal to a text, or matching a pattern. */
export function expectHeader(answer: Answer, name: string, value: string | RegExp): void {
  const held = answer.headers[name.toLowerCase()];
  if (value instanceof RegExp) assert.match(held ?? "", value, `${name}: ${held}`);
  else assert.equal(held, value, name);
}

/** An upstream test whose assertion this server fails on purpose, for the reason given (docs/json-server.md). */
export async function differs(reason: string, upstream: () => Promise<void>): Promise<void> {
  assert.ok(reason.length > 0);
  await assert.rejects(upstream, assert.AssertionError, `expected to differ from json-server (${reason}), but the upstream assertion holds`);
}
