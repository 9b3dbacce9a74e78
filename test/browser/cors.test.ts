// CORS and Host checks in a real browser: Debian's Chromium, driven by playwright-core, calls the API
// from pages on loopback origins, from a page on a host name that is not the loopback's (evil.test),
// from a page that DNS rebinding put on the API's own origin (rebind.test), and at test control's routes (CONTROL=on).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { readConfig } from "../../src/config.ts";
import { type RunningServer, startServer } from "../../src/http/server.ts";
import { call } from "../support/http.ts";

// The system's Chromium; a browser is never downloaded.
const CHROMIUM = "/usr/bin/chromium";
/**
 * Host names the browser resolves to 127.0.0.1 without asking any DNS server: evil.test is a site
 * on the Internet as far as the browser knows (not a loopback name), and rebind.test one whose
 * name now points at this machine, as DNS rebinding makes it do.
 */
const HOST_RULES = "MAP evil.test 127.0.0.1, MAP rebind.test 127.0.0.1";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  `--host-resolver-rules=${HOST_RULES}`,
  // A proxy from the environment would resolve the names itself, past the rules above.
  "--no-proxy-server",
];

/** What one fetch in the page gave: the answer as the page can read it, or the error it rejected with. */
type PageFetch =
  | { ok: true; status: number; type: string; body: unknown; headers: Record<string, string | null> }
  | { ok: false; error: string };

type PageInit = { method?: string; headers?: Record<string, string>; body?: string; mode?: "cors" | "no-cors" | "same-origin" };

/** A request the API received, and the status it answered. */
type Seen = { line: string; status?: number };

/** An API under test, and every request it received. */
type Api = { url: string; port: number; seen: Seen[]; close: () => Promise<void> };

let pages: Server;
let browser: Browser | undefined;
let context: BrowserContext;
let pagePort: number;
/** The API with default settings, shared by the tests of loopback pages. */
let api: Api;
/** Pages on three origins of one page server: a loopback name, the loopback address, and a name that is neither. */
let localhostPage: Page;
let loopbackIpPage: Page;
let evilPage: Page;
let evilOrigin: string;
const apis: Api[] = [];

const SEEDED = [
  { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
  { id: 2, name: "Alan Turing", email: "alan@example.com" },
];

/**
 * Starts an API in this process with the settings a process would read from `env` (nothing
 * set: the defaults, CORS_ORIGINS=loopback and ALLOWED_HOSTS=localhost,*.localhost,ip), and
 * records every request it receives with its status. The process's own environment is not read.
 */
async function startApi(env: Record<string, string> = {}): Promise<Api> {
  const { seedFile: _seedFile, resourcesFile: _resourcesFile, dbFile: _dbFile, fsync: _fsync, compactBytes: _compactBytes, httpServer: _httpServer, ...options } = readConfig({ ...env, PORT: "0", HOST: "127.0.0.1" });
  const running: RunningServer = await startServer({ ...options, logFormat: "off" });
  const seen: Seen[] = [];
  // The API's own server, watched from outside: which requests reached it, and their status.
  running.server.prependListener("request", (request: IncomingMessage, response: ServerResponse) => {
    const entry: Seen = { line: `${request.method} ${request.url}` };
    seen.push(entry);
    response.once("finish", () => (entry.status = response.statusCode));
  });
  // Closed by its test, and by after() should the test have failed before that: the second close is the first's.
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= running.close());
  const started: Api = { url: running.url, port: Number(new URL(running.url).port), seen, close };
  apis.push(started);
  return started;
}

async function openPage(url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

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
  pagePort = (pages.address() as AddressInfo).port;
  evilOrigin = `http://evil.test:${pagePort}`;

  api = await startApi();

  // One browser for the whole file; after() always closes it.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
  context = await browser.newContext();
  localhostPage = await openPage(`http://localhost:${pagePort}/`);
  loopbackIpPage = await openPage(`http://127.0.0.1:${pagePort}/`);
  evilPage = await openPage(`${evilOrigin}/`);
  // The page really is on the name the browser was given, not on the address it maps to.
  assert.equal(await evilPage.evaluate("location.origin"), evilOrigin);
});

after(async () => {
  await browser?.close();
  for (const started of apis) await started.close();
  pages?.closeAllConnections();
  pages?.close();
});

/** Runs fetch(url, init) inside the page and returns what the page could read of the answer; a relative URL is the page's own origin. */
function fetchIn(page: Page, url: string, init: PageInit = {}): Promise<PageFetch> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        const text = await response.text();
        const headers: Record<string, string | null> = {};
        for (const name of ["content-type", "x-total-count", "location", "etag", "link", "allow"]) headers[name] = response.headers.get(name);
        return { ok: true as const, status: response.status, type: response.type, body: text === "" ? undefined : JSON.parse(text), headers };
      } catch (error) {
        return { ok: false as const, error: String(error) };
      }
    },
    { url, init },
  );
}

function answered(result: PageFetch): Extract<PageFetch, { ok: true }> {
  assert.ok(result.ok, `the page could not read the answer: ${result.ok ? "" : result.error}`);
  return result;
}

function assertRejected(result: PageFetch): void {
  assert.deepEqual(result, { ok: false, error: "TypeError: Failed to fetch" });
}

/** What reached `target` while `action` ran. */
async function reaching(target: Api, action: () => Promise<void>): Promise<Seen[]> {
  const from = target.seen.length;
  await action();
  return target.seen.slice(from);
}

/** Reads the users from Node, past any browser, and asserts they are exactly `expected`. */
async function assertUsers(target: Api, expected: unknown[]): Promise<void> {
  const users = await call(`${target.url}/users`);
  assert.equal(users.status, 200);
  assert.deepEqual(users.body, expected);
  assert.equal(users.headers.get("x-total-count"), String(expected.length));
}

const JSON_HEADERS = { "content-type": "application/json" };
const MALLORY = JSON.stringify({ name: "Mallory", email: "mallory@example.com" });

// ---------------------------------------------------------------------------------------------
// Loopback pages, default settings: they read and write.

test("with default settings, pages on localhost, 127.0.0.1 and a *.localhost name read the API", async () => {
  const subdomainPage = await openPage(`http://app.localhost:${pagePort}/`);
  try {
    for (const page of [localhostPage, loopbackIpPage, subdomainPage]) {
      const result = answered(await fetchIn(page, `${api.url}/users/1`));
      assert.equal(result.status, 200, page.url());
      assert.deepEqual(result.body, SEEDED[0], page.url());
    }
  } finally {
    await subdomainPage.close();
  }
});

test("a loopback page reads a page of a list and its X-Total-Count", async () => {
  const result = answered(await fetchIn(localhostPage, `${api.url}/users?limit=1&offset=1`));
  assert.equal(result.status, 200);
  assert.deepEqual(result.body, [SEEDED[1]]);
  assert.equal(result.headers["x-total-count"], "2");
  assert.equal(result.headers["content-type"], "application/json; charset=utf-8");
  // Allow is not exposed: the page reads only the safelisted and the exposed headers.
  assert.equal(result.headers.allow, null);
});

test("a loopback page reads the ETag and Link headers, the same values Node reads", async () => {
  for (const path of ["/users/1", "/users?limit=1"]) {
    const fromNode = await call(api.url + path);
    const result = answered(await fetchIn(localhostPage, api.url + path));
    assert.match(result.headers.etag ?? "", /^"[0-9a-z]+-[0-9a-z]+"$/, `ETag of ${path}`);
    assert.equal(result.headers.etag, fromNode.headers.get("etag"), `ETag of ${path}`);
    assert.equal(result.headers.link, fromNode.headers.get("link"), `Link of ${path}`);
  }
  assert.equal(
    answered(await fetchIn(localhostPage, `${api.url}/users?limit=1`)).headers.link,
    '</users?limit=1&offset=0>; rel="first", </users?limit=1&offset=1>; rel="next", </users?limit=1&offset=1>; rel="last"',
  );
});

test("a loopback page creates, updates and deletes a user, reading Location and each answer", async () => {
  const created = answered(
    await fetchIn(localhostPage, `${api.url}/users`, {
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify({ name: "Grace Hopper", email: "grace@example.com" }),
    }),
  );
  assert.equal(created.status, 201);
  assert.deepEqual(created.body, { id: 3, name: "Grace Hopper", email: "grace@example.com" });
  assert.equal(created.headers.location, "/users/3");

  const updated = answered(
    await fetchIn(localhostPage, api.url + created.headers.location!, {
      method: "PUT",
      headers: JSON_HEADERS,
      body: JSON.stringify({ email: "hopper@example.com" }),
    }),
  );
  assert.equal(updated.status, 200);
  assert.deepEqual(updated.body, { id: 3, name: "Grace Hopper", email: "hopper@example.com" });
  assert.deepEqual((await call(`${api.url}/users/3`)).body, updated.body);

  const deleted = answered(await fetchIn(localhostPage, `${api.url}/users/3`, { method: "DELETE" }));
  assert.equal(deleted.status, 204);
  assert.equal(deleted.body, undefined);
  assert.equal((await call(`${api.url}/users/3`)).status, 404);
});

test("a loopback page patches a record with a merge patch: a member added, then removed with null", async () => {
  const patch = (body: unknown) =>
    fetchIn(localhostPage, `${api.url}/users/2`, { method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: JSON.stringify(body) });
  const added = answered(await patch({ role: "logician" }));
  assert.equal(added.status, 200);
  assert.deepEqual(added.body, { ...SEEDED[1], role: "logician" });
  const removed = answered(await patch({ role: null }));
  assert.equal(removed.status, 200);
  assert.deepEqual(removed.body, SEEDED[1]);
  assert.notEqual(removed.headers.etag, added.headers.etag);
  assert.equal(removed.headers.etag, (await call(`${api.url}/users/2`)).headers.get("etag"));
});

test("a loopback page sends If-Match, and a stale ETag gets 412 with nothing changed", async () => {
  const read = answered(await fetchIn(localhostPage, `${api.url}/users/2`));
  const headers = { ...JSON_HEADERS, "if-match": read.headers.etag! };
  const first = answered(await fetchIn(localhostPage, `${api.url}/users/2`, { method: "PUT", headers, body: JSON.stringify({ name: "A. M. Turing" }) }));
  assert.equal(first.status, 200);
  const second = answered(await fetchIn(localhostPage, `${api.url}/users/2`, { method: "PUT", headers, body: JSON.stringify({ name: "Lost update" }) }));
  assert.equal(second.status, 412);
  assert.equal((second.body as { code: string }).code, "PRECONDITION_FAILED");
  assert.equal(((await call(`${api.url}/users/2`)).body as { name: string }).name, "A. M. Turing");
  const restored = answered(await fetchIn(localhostPage, `${api.url}/users/2`, { method: "PUT", headers: JSON_HEADERS, body: JSON.stringify({ name: "Alan Turing" }) }));
  assert.equal(restored.status, 200);
});

test("a loopback page reads error answers: 404, 405 and the 415 of a text/plain POST", async () => {
  const missing = answered(await fetchIn(localhostPage, `${api.url}/users/99`));
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { message: "User not found", code: "USER_NOT_FOUND" });
  // A text/plain POST needs no preflight, so it reaches the route, which has no POST.
  const notAllowed = answered(await fetchIn(localhostPage, `${api.url}/healthz`, { method: "POST", headers: { "content-type": "text/plain" }, body: "x" }));
  assert.equal(notAllowed.status, 405);
  assert.equal((notAllowed.body as { code: string }).code, "METHOD_NOT_ALLOWED");
  const plain = answered(
    await fetchIn(localhostPage, `${api.url}/users`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ name: "Plain", email: "plain@example.com" }),
    }),
  );
  assert.equal(plain.status, 415);
  assert.equal((plain.body as { code: string }).code, "UNSUPPORTED_MEDIA_TYPE");
  await assertUsers(api, SEEDED);
});

test("a loopback page's DELETE on a path without DELETE is stopped by its preflight", async () => {
  const lines = await reaching(api, async () => assertRejected(await fetchIn(localhostPage, `${api.url}/healthz`, { method: "DELETE" })));
  assert.deepEqual(lines, [{ line: "OPTIONS /healthz", status: 204 }]);
});

test("a preflight allows Authorization: a loopback page sends a bearer token to a server with tokens, and writes with it", async (t) => {
  const guarded = await startApi({ AUTH_TOKENS: "write:browser-token" });
  t.after(() => guarded.close());
  const bearer = { authorization: "Bearer browser-token" };
  const lines = await reaching(guarded, async () => {
    // Without a token: the 401 carries the CORS headers, so the page reads it.
    const refused = answered(await fetchIn(localhostPage, `${guarded.url}/users/2`, { method: "GET" }));
    assert.equal(refused.status, 401);
    assert.equal((refused.body as { code: string }).code, "UNAUTHORIZED");
    const deleted = answered(await fetchIn(localhostPage, `${guarded.url}/users/2`, { method: "DELETE", headers: bearer }));
    assert.equal(deleted.status, 204);
  });
  // The preflight asks for DELETE with Authorization, and only its answer lets the DELETE go.
  assert.deepEqual(lines, [
    { line: "GET /users/2", status: 401 },
    { line: "OPTIONS /users/2", status: 204 },
    { line: "DELETE /users/2", status: 204 },
  ]);
  const left = await call(`${guarded.url}/users`, { headers: bearer });
  assert.deepEqual(left.body, [SEEDED[0]]);
});

// ---------------------------------------------------------------------------------------------
// A page on a name that is not the loopback's, default settings: it can neither read nor write.

test("with default settings, a page on evil.test cannot read a GET: fetch rejects", async (t) => {
  const target = await startApi();
  t.after(() => target.close());
  const lines = await reaching(target, async () => assertRejected(await fetchIn(evilPage, `${target.url}/users`)));
  // A GET needs no preflight: it reaches the API, which answers without CORS headers.
  assert.deepEqual(lines, [{ line: "GET /users", status: 200 }]);
});

test("with default settings, a page on evil.test cannot DELETE or POST JSON: only the refused preflights reach the API", async (t) => {
  const target = await startApi();
  t.after(() => target.close());
  const lines = await reaching(target, async () => {
    assertRejected(await fetchIn(evilPage, `${target.url}/users/1`, { method: "DELETE" }));
    assertRejected(await fetchIn(evilPage, `${target.url}/users`, { method: "POST", headers: JSON_HEADERS, body: MALLORY }));
  });
  assert.deepEqual(lines, [
    { line: "OPTIONS /users/1", status: 204 },
    { line: "OPTIONS /users", status: 204 },
  ]);
  // Read from Node: users 1 and 2 are still there, and nobody was added.
  await assertUsers(target, SEEDED);
});

test("with default settings, a page on evil.test's no-cors requests store nothing: a text/plain POST gets 415, a DELETE is never sent", async (t) => {
  const target = await startApi();
  t.after(() => target.close());
  const lines = await reaching(target, async () => {
    // A "simple" request (what a plain HTML form can send) goes without a preflight; the page gets an opaque answer.
    const posted = answered(await fetchIn(evilPage, `${target.url}/users`, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: MALLORY }));
    assert.deepEqual(posted, { ok: true, status: 0, type: "opaque", body: undefined, headers: { "content-type": null, "x-total-count": null, location: null, etag: null, link: null, allow: null } });
    // no-cors allows only GET, HEAD and POST: the browser refuses to send a DELETE at all.
    const deleted = await fetchIn(evilPage, `${target.url}/users/1`, { method: "DELETE", mode: "no-cors" });
    assert.equal(deleted.ok, false);
    assert.match((deleted as { error: string }).error, /^TypeError: .*'DELETE' is unsupported in no-cors mode/);
  });
  assert.deepEqual(lines, [{ line: "POST /users", status: 415 }]);
  await assertUsers(target, SEEDED);
});

// ---------------------------------------------------------------------------------------------
// CORS_ORIGINS listing the page's exact origin: that page writes, and no other page, loopback or not.

test("with CORS_ORIGINS listing http://evil.test:<port>, the page on that origin creates and deletes users", async (t) => {
  const target = await startApi({ CORS_ORIGINS: evilOrigin });
  t.after(() => target.close());
  const lines = await reaching(target, async () => {
    const created = answered(await fetchIn(evilPage, `${target.url}/users`, { method: "POST", headers: JSON_HEADERS, body: MALLORY }));
    assert.equal(created.status, 201);
    assert.deepEqual(created.body, { id: 3, name: "Mallory", email: "mallory@example.com" });
    assert.equal(created.headers.location, "/users/3");
    const deleted = answered(await fetchIn(evilPage, `${target.url}/users/1`, { method: "DELETE" }));
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, undefined);
  });
  assert.deepEqual(lines, [
    { line: "OPTIONS /users", status: 204 },
    { line: "POST /users", status: 201 },
    { line: "OPTIONS /users/1", status: 204 },
    { line: "DELETE /users/1", status: 204 },
  ]);
  assert.equal((await call(`${target.url}/users/1`)).status, 404);
  await assertUsers(target, [SEEDED[1], { id: 3, name: "Mallory", email: "mallory@example.com" }]);
});

test("with CORS_ORIGINS listing another origin, even a loopback page cannot read a GET", async (t) => {
  const target = await startApi({ CORS_ORIGINS: evilOrigin });
  t.after(() => target.close());
  const lines = await reaching(target, async () => assertRejected(await fetchIn(localhostPage, `${target.url}/users`)));
  assert.deepEqual(lines, [{ line: "GET /users", status: 200 }]);
});

test("with CORS_ORIGINS listing another origin, a loopback page's JSON POST, PUT and DELETE never reach the API: only their preflights do", async (t) => {
  const target = await startApi({ CORS_ORIGINS: evilOrigin });
  t.after(() => target.close());
  const lines = await reaching(target, async () => {
    assertRejected(await fetchIn(localhostPage, `${target.url}/users`, { method: "POST", headers: JSON_HEADERS, body: MALLORY }));
    assertRejected(await fetchIn(localhostPage, `${target.url}/users/1`, { method: "PUT", headers: JSON_HEADERS, body: MALLORY }));
    assertRejected(await fetchIn(localhostPage, `${target.url}/users/2`, { method: "DELETE" }));
  });
  assert.deepEqual(lines, [
    { line: "OPTIONS /users", status: 204 },
    { line: "OPTIONS /users/1", status: 204 },
    { line: "OPTIONS /users/2", status: 204 },
  ]);
  await assertUsers(target, SEEDED);
});

test("with CORS_ORIGINS listing another origin, a loopback page's text/plain POST reaches the API, is refused with 415, and stores nothing", async (t) => {
  const target = await startApi({ CORS_ORIGINS: evilOrigin });
  t.after(() => target.close());
  const lines = await reaching(target, async () => {
    assertRejected(await fetchIn(localhostPage, `${target.url}/users`, { method: "POST", headers: { "content-type": "text/plain" }, body: MALLORY }));
  });
  assert.deepEqual(lines, [{ line: "POST /users", status: 415 }]);
  await assertUsers(target, SEEDED);
});

// ---------------------------------------------------------------------------------------------
// DNS rebinding: a name that now points at this machine puts a page on the API's own origin, where
// CORS does not apply; the Host check refuses every request that page sends.

/** Opens the API's /healthz under `host` (mapped to 127.0.0.1), giving a document on the API's own origin; returns its status. */
async function openOnApi(target: Api, host: string): Promise<{ page: Page; status: number | undefined }> {
  const page = await context.newPage();
  const response = await page.goto(`http://${host}:${target.port}/healthz`);
  assert.equal(await page.evaluate("location.origin"), `http://${host}:${target.port}`);
  return { page, status: response?.status() };
}

/** The requests that reached `target` from its pages' fetches: the browser's own favicon request is left out. */
function fetched(lines: Seen[]): Seen[] {
  return lines.filter((entry) => entry.line !== "GET /favicon.ico");
}

test("with default settings, a page DNS rebinding put on the API's origin (rebind.test) gets 403 HOST_NOT_ALLOWED and changes nothing", async (t) => {
  const target = await startApi();
  t.after(() => target.close());
  const { page, status } = await openOnApi(target, "rebind.test");
  t.after(() => page.close());
  assert.equal(status, 403);
  const refusal = { message: `Host rebind.test:${target.port} is not allowed; the server's operator can add it to ALLOWED_HOSTS`, code: "HOST_NOT_ALLOWED" };
  const lines = await reaching(target, async () => {
    // Same origin: no preflight, no CORS; each request goes straight to the API and is refused there.
    for (const init of [{}, { method: "DELETE" }, { method: "POST", headers: JSON_HEADERS, body: MALLORY }]) {
      const result = answered(await fetchIn(page, init.method === "DELETE" ? "/users/1" : "/users", init));
      assert.equal(result.status, 403, init.method ?? "GET");
      assert.equal(result.type, "basic");
      assert.deepEqual(result.body, refusal);
    }
  });
  assert.deepEqual(fetched(lines), [
    { line: "GET /users", status: 403 },
    { line: "DELETE /users/1", status: 403 },
    { line: "POST /users", status: 403 },
  ]);
  await assertUsers(target, SEEDED);
});

test("the same page on the API's origin under a loopback name, or under rebind.test once ALLOWED_HOSTS names it, reads and writes", async (t) => {
  // The control of the test above: the 403 comes from the Host check, not from the page or the browser.
  const target = await startApi();
  // ip as well, so that the test's own reads from Node, to 127.0.0.1, still pass.
  const named = await startApi({ ALLOWED_HOSTS: "rebind.test,ip" });
  t.after(async () => {
    await target.close();
    await named.close();
  });
  for (const [server, host] of [
    [target, "localhost"],
    [named, "rebind.test"],
  ] as const) {
    const { page, status } = await openOnApi(server, host);
    try {
      assert.equal(status, 200, host);
      const read = answered(await fetchIn(page, "/users"));
      assert.equal(read.status, 200, host);
      assert.deepEqual(read.body, SEEDED, host);
      const deleted = answered(await fetchIn(page, "/users/1", { method: "DELETE" }));
      assert.equal(deleted.status, 204, host);
      await assertUsers(server, [SEEDED[1]]);
    } finally {
      await page.close();
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Test control (CONTROL=on): no page on another site reaches a control route, whatever CORS allows.

const MALLORY_STORED = { id: 3, name: "Mallory", email: "mallory@example.com" };
const BY_SITE = {
  message: "The control routes refuse a page on another site (Sec-Fetch-Site: cross-site); call them from a test runner or curl, or from a page on the API's own site",
  code: "CROSS_SITE_REQUEST",
};

/** Posts an HTML form to `action` from a new page on `origin`, as a page on any site can; returns the status and text the browser was shown. */
async function postForm(origin: string, action: string): Promise<{ status: number | undefined; text: string }> {
  const page = await openPage(`${origin}/`);
  try {
    const navigated = page.waitForNavigation();
    // A text for the page to run: this project's TypeScript has no DOM types.
    await page.evaluate(`(() => {
      const form = document.createElement("form");
      form.method = "post";
      form.action = ${JSON.stringify(action)};
      const field = document.createElement("input");
      field.name = "confirm";
      field.value = "yes";
      form.append(field);
      document.body.append(form);
      form.submit();
    })()`);
    const response = await navigated;
    return { status: response?.status(), text: (await response?.text()) ?? "" };
  } finally {
    await page.close();
  }
}

for (const cors of ["loopback", "*"] as const) {
  test(`with CONTROL=on and CORS_ORIGINS=${cors}, a page on evil.test cannot reset the data: a no-cors fetch, a fetch and a form's post of POST /__control/reset get 403 CROSS_SITE_REQUEST`, async (t) => {
    const target = await startApi({ CONTROL: "on", CORS_ORIGINS: cors });
    t.after(() => target.close());
    assert.equal((await call(`${target.url}/users`, { method: "POST", json: JSON.parse(MALLORY) })).status, 201);
    const lines = await reaching(target, async () => {
      // Without a body there is no Content-Type for a 415 to refuse: what stops it is the control routes' own check.
      const opaque = answered(await fetchIn(evilPage, `${target.url}/__control/reset`, { method: "POST", mode: "no-cors" }));
      assert.equal(opaque.type, "opaque");
      const cors = await fetchIn(evilPage, `${target.url}/__control/reset`, { method: "POST" });
      // With `*` the page may read the refusal; by default it may not read anything.
      if (cors.ok) assert.deepEqual([cors.status, cors.body], [403, BY_SITE]);
      else assertRejected(cors);
      assert.equal(answered(await fetchIn(evilPage, `${target.url}/__control/snapshot`, { mode: "no-cors" })).type, "opaque");
      const form = await postForm(evilOrigin, `${target.url}/__control/reset`);
      assert.equal(form.status, 403);
      assert.deepEqual(JSON.parse(form.text), BY_SITE);
    });
    assert.deepEqual(fetched(lines), [
      { line: "POST /__control/reset", status: 403 },
      { line: "POST /__control/reset", status: 403 },
      { line: "GET /__control/snapshot", status: 403 },
      { line: "POST /__control/reset", status: 403 },
    ]);
    await assertUsers(target, [...SEEDED, MALLORY_STORED]);
  });
}

test("with CONTROL=on, a loopback page on the API's own site resets the data; a loopback page on another site (localhost, for 127.0.0.1) reads a 403", async (t) => {
  const target = await startApi({ CONTROL: "on" });
  t.after(() => target.close());
  assert.equal((await call(`${target.url}/users`, { method: "POST", json: JSON.parse(MALLORY) })).status, 201);
  // The API is on 127.0.0.1, a site of its own: a page on localhost is another site, though CORS lets it read the answers.
  const refused = answered(await fetchIn(localhostPage, `${target.url}/__control/reset`, { method: "POST" }));
  assert.deepEqual([refused.status, refused.body], [403, BY_SITE]);
  await assertUsers(target, [...SEEDED, MALLORY_STORED]);
  const reset = answered(await fetchIn(loopbackIpPage, `${target.url}/__control/reset`, { method: "POST" }));
  assert.equal(reset.status, 204);
  await assertUsers(target, SEEDED);
});
