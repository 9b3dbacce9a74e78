// CORS in a real browser: Debian's Chromium, driven by playwright-core, fetches the API from pages on two other origins.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { type RunningServer, startServer } from "../../src/server.ts";
import { call } from "../support/http.ts";

// The system's Chromium; a browser is never downloaded.
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** What one fetch in the page gave: the answer as the page can read it, or the error it rejected with. */
type PageFetch =
  | { ok: true; status: number; body: unknown; headers: Record<string, string | null> }
  | { ok: false; error: string };

/** A request the API received, and the status it answered. */
type Seen = { line: string; status?: number };

let pages: Server;
let api: RunningServer;
let browser: Browser | undefined;
let allowedPage: Page;
let otherPage: Page;
/** The origin CORS_ORIGINS lists, and one it does not: same page server, another host name. */
let allowedOrigin: string;
let otherOrigin: string;
const seen: Seen[] = [];

before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}; install it with: apt-get install -y --no-install-recommends chromium`);
  }
  pages = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>A page on another origin</title>");
  });
  pages.listen(0, "127.0.0.1");
  await once(pages, "listening");
  const port = (pages.address() as AddressInfo).port;
  allowedOrigin = `http://127.0.0.1:${port}`;
  otherOrigin = `http://localhost:${port}`;

  api = await startServer({ corsOrigins: [allowedOrigin] });
  // The API's own server, watched from outside: which requests reached it, and their status.
  api.server.prependListener("request", (request: IncomingMessage, response: ServerResponse) => {
    const entry: Seen = { line: `${request.method} ${request.url}` };
    seen.push(entry);
    response.once("finish", () => (entry.status = response.statusCode));
  });

  // One browser for the whole file; after() always closes it.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
  const context = await browser.newContext();
  allowedPage = await context.newPage();
  await allowedPage.goto(`${allowedOrigin}/`);
  otherPage = await context.newPage();
  await otherPage.goto(`${otherOrigin}/`);
});

after(async () => {
  await browser?.close();
  await api?.close();
  pages?.closeAllConnections();
  pages?.close();
});

/** Runs fetch(url, init) inside the page and returns what the page could read of the answer. */
function fetchIn(page: Page, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<PageFetch> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        const text = await response.text();
        const headers: Record<string, string | null> = {};
        for (const name of ["content-type", "x-total-count", "location", "etag", "link", "allow"]) headers[name] = response.headers.get(name);
        return { ok: true as const, status: response.status, body: text === "" ? undefined : JSON.parse(text), headers };
      } catch (error) {
        return { ok: false as const, error: String(error) };
      }
    },
    { url: api.url + path, init },
  );
}

function answered(result: PageFetch): Extract<PageFetch, { ok: true }> {
  assert.ok(result.ok, `the page could not read the answer: ${result.ok ? "" : result.error}`);
  return result;
}

function assertRejected(result: PageFetch): void {
  assert.deepEqual(result, { ok: false, error: "TypeError: Failed to fetch" });
}

/** What reached the API while `action` ran. */
async function reaching(action: () => Promise<void>): Promise<Seen[]> {
  const from = seen.length;
  await action();
  return seen.slice(from);
}

const JSON_HEADERS = { "content-type": "application/json" };

test("a listed origin's page reads a page of a list and its X-Total-Count", async () => {
  const result = answered(await fetchIn(allowedPage, "/users?limit=1&offset=1"));
  assert.equal(result.status, 200);
  assert.deepEqual(result.body, [{ id: 2, name: "Alan Turing", email: "alan@example.com" }]);
  assert.equal(result.headers["x-total-count"], "2");
  assert.equal(result.headers["content-type"], "application/json; charset=utf-8");
  // Allow is not exposed: the page reads only the safelisted and the exposed headers.
  assert.equal(result.headers.allow, null);
});

test("a listed origin's page reads the ETag and Link headers, the same values Node reads", async () => {
  for (const path of ["/users/1", "/users?limit=1"]) {
    const fromNode = await call(api.url + path);
    const result = answered(await fetchIn(allowedPage, path));
    assert.match(result.headers.etag ?? "", /^"[0-9a-z]+-[0-9a-z]+"$/, `ETag of ${path}`);
    assert.equal(result.headers.etag, fromNode.headers.get("etag"), `ETag of ${path}`);
    assert.equal(result.headers.link, fromNode.headers.get("link"), `Link of ${path}`);
  }
  assert.equal(answered(await fetchIn(allowedPage, "/users?limit=1")).headers.link, '</users?limit=1&offset=0>; rel="first", </users?limit=1&offset=1>; rel="next", </users?limit=1&offset=1>; rel="last"');
});

test("a listed origin's page creates, updates and deletes a user, reading Location and each answer", async () => {
  const created = answered(
    await fetchIn(allowedPage, "/users", {
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify({ name: "Grace Hopper", email: "grace@example.com" }),
    }),
  );
  assert.equal(created.status, 201);
  assert.deepEqual(created.body, { id: 3, name: "Grace Hopper", email: "grace@example.com" });
  assert.equal(created.headers.location, "/users/3");

  const updated = answered(
    await fetchIn(allowedPage, created.headers.location!, {
      method: "PUT",
      headers: JSON_HEADERS,
      body: JSON.stringify({ email: "hopper@example.com" }),
    }),
  );
  assert.equal(updated.status, 200);
  assert.deepEqual(updated.body, { id: 3, name: "Grace Hopper", email: "hopper@example.com" });
  assert.deepEqual((await call(`${api.url}/users/3`)).body, updated.body);

  const deleted = answered(await fetchIn(allowedPage, "/users/3", { method: "DELETE" }));
  assert.equal(deleted.status, 204);
  assert.equal(deleted.body, undefined);
  assert.equal((await call(`${api.url}/users/3`)).status, 404);
});

test("a listed origin's page patches a record with a merge patch: a member added, then removed with null", async () => {
  const patch = (body: unknown) =>
    fetchIn(allowedPage, "/users/2", { method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: JSON.stringify(body) });
  const added = answered(await patch({ role: "logician" }));
  assert.equal(added.status, 200);
  assert.deepEqual(added.body, { id: 2, name: "Alan Turing", email: "alan@example.com", role: "logician" });
  const removed = answered(await patch({ role: null }));
  assert.equal(removed.status, 200);
  assert.deepEqual(removed.body, { id: 2, name: "Alan Turing", email: "alan@example.com" });
  assert.notEqual(removed.headers.etag, added.headers.etag);
  assert.equal(removed.headers.etag, (await call(`${api.url}/users/2`)).headers.get("etag"));
});

test("a listed origin's page sends If-Match, and a stale ETag gets 412 with nothing changed", async () => {
  const read = answered(await fetchIn(allowedPage, "/users/2"));
  const headers = { ...JSON_HEADERS, "if-match": read.headers.etag! };
  const first = answered(await fetchIn(allowedPage, "/users/2", { method: "PUT", headers, body: JSON.stringify({ name: "A. M. Turing" }) }));
  assert.equal(first.status, 200);
  const second = answered(await fetchIn(allowedPage, "/users/2", { method: "PUT", headers, body: JSON.stringify({ name: "Lost update" }) }));
  assert.equal(second.status, 412);
  assert.equal((second.body as { code: string }).code, "PRECONDITION_FAILED");
  assert.equal(((await call(`${api.url}/users/2`)).body as { name: string }).name, "A. M. Turing");
  answered(await fetchIn(allowedPage, "/users/2", { method: "PUT", headers: JSON_HEADERS, body: JSON.stringify({ name: "Alan Turing" }) }));
});

test("a listed origin's page reads error answers: 404, 405 and the 415 of a text/plain POST", async () => {
  const missing = answered(await fetchIn(allowedPage, "/users/99"));
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { message: "User not found", code: "USER_NOT_FOUND" });
  // A text/plain POST needs no preflight, so it reaches the route, which has no POST.
  const notAllowed = answered(await fetchIn(allowedPage, "/healthz", { method: "POST", headers: { "content-type": "text/plain" }, body: "x" }));
  assert.equal(notAllowed.status, 405);
  assert.equal((notAllowed.body as { code: string }).code, "METHOD_NOT_ALLOWED");
  const plain = answered(
    await fetchIn(allowedPage, "/users", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ name: "Plain", email: "plain@example.com" }),
    }),
  );
  assert.equal(plain.status, 415);
  assert.equal((plain.body as { code: string }).code, "UNSUPPORTED_MEDIA_TYPE");
  assert.equal((await call(`${api.url}/users`)).headers.get("x-total-count"), "2");
});

test("a listed origin's DELETE on a path without DELETE is stopped by its preflight", async () => {
  const lines = await reaching(async () => assertRejected(await fetchIn(allowedPage, "/healthz", { method: "DELETE" })));
  assert.deepEqual(lines, [{ line: "OPTIONS /healthz", status: 204 }]);
});

test("another origin's page cannot read a GET: fetch rejects", async () => {
  const lines = await reaching(async () => assertRejected(await fetchIn(otherPage, "/users")));
  // A GET needs no preflight: it reaches the API, which answers without CORS headers.
  assert.deepEqual(lines, [{ line: "GET /users", status: 200 }]);
});

test("another origin's JSON POST, PUT and DELETE never reach the API: only their preflights do", async () => {
  const lines = await reaching(async () => {
    const body = JSON.stringify({ name: "Mallory", email: "mallory@example.com" });
    assertRejected(await fetchIn(otherPage, "/users", { method: "POST", headers: JSON_HEADERS, body }));
    assertRejected(await fetchIn(otherPage, "/users/1", { method: "PUT", headers: JSON_HEADERS, body }));
    assertRejected(await fetchIn(otherPage, "/users/2", { method: "DELETE" }));
  });
  assert.deepEqual(lines, [
    { line: "OPTIONS /users", status: 204 },
    { line: "OPTIONS /users/1", status: 204 },
    { line: "OPTIONS /users/2", status: 204 },
  ]);
  const users = await call(`${api.url}/users`);
  assert.deepEqual(users.body, [
    { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
    { id: 2, name: "Alan Turing", email: "alan@example.com" },
  ]);
});

test("another origin's text/plain POST (what a plain HTML form can send) reaches the API, is refused with 415, and stores nothing", async () => {
  const lines = await reaching(async () => {
    const result = await fetchIn(otherPage, "/users", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ name: "Mallory", email: "mallory@example.com" }),
    });
    assertRejected(result);
  });
  assert.deepEqual(lines, [{ line: "POST /users", status: 415 }]);
  assert.equal((await call(`${api.url}/users`)).headers.get("x-total-count"), "2");
});
