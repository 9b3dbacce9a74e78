// Every status the OpenAPI document lists for an operation is produced by a request below, and no other is listed.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { apiRoutes, createApp, openApiDocument } from "../../src/http/app.ts";
import type { Ref, ResponseDoc } from "../../src/openapi/components.ts";
import { type DocumentedMethod, DOCUMENTED_METHODS, openApiPath } from "../../src/openapi/document.ts";
import { assertJsonHeaders, call } from "../support/http.ts";
import { create } from "../support/family.ts";
import { fresh, targetMode } from "../support/target.ts";

/** One row: the operation as `METHOD /path/{id}`, the status it must answer, and the request that gets it. */
type Row = {
  operation: string;
  status: number;
  path: string;
  init?: RequestInit & { json?: unknown };
  server?: "draining";
};

const GRACE = { name: "Grace Hopper", email: "grace@example.com" };
const POST = { title: "T", body: "B" };
const BODY_LIMIT = 1024;
const OPENAPI_DOCUMENT = openApiDocument();

/** The statuses particular to each operation, each with a request that produces it. */
const EXPLICIT: Array<[string, number, string, unknown?]> = [
  ["GET /healthz", 200, "/healthz"],
  ["GET /readyz", 200, "/readyz"],
  ["GET /openapi.json", 200, "/openapi.json"],
  ["GET /metrics", 200, "/metrics"],

  ["GET /users", 200, "/users"],
  ["GET /users", 400, "/users?limit=x"],
  ["POST /users", 201, "/users", GRACE],
  ["POST /users", 400, "/users", {}],
  ["POST /users", 409, "/users", { id: 1, ...GRACE }],
  ["GET /users/{id}", 200, "/users/1"],
  ["GET /users/{id}", 400, "/users/abc"],
  ["GET /users/{id}", 404, "/users/9"],
  ["PUT /users/{id}", 200, "/users/1", { name: "Ada" }],
  ["PUT /users/{id}", 400, "/users/1", { id: 2 }],
  ["PUT /users/{id}", 404, "/users/9", { name: "Ada" }],
  ["PATCH /users/{id}", 200, "/users/1", { name: "Ada" }],
  ["PATCH /users/{id}", 400, "/users/1", { name: null }],
  ["PATCH /users/{id}", 404, "/users/9", { name: "Ada" }],
  ["DELETE /users/{id}", 204, "/users/1"],
  ["DELETE /users/{id}", 400, "/users/1.5"],
  ["DELETE /users/{id}", 404, "/users/9"],

  ["GET /posts", 200, "/posts"],
  ["GET /posts", 400, "/posts?offset=-1"],
  ["POST /posts", 201, "/posts", POST],
  ["POST /posts", 400, "/posts", { title: "" }],
  ["GET /posts/{id}", 200, "/posts/1"],
  ["GET /posts/{id}", 400, "/posts/0x1"],
  ["GET /posts/{id}", 404, "/posts/9"],
  ["PUT /posts/{id}", 200, "/posts/1", { title: "New" }],
  ["PUT /posts/{id}", 400, "/posts/1", { createdAt: "now" }],
  ["PUT /posts/{id}", 404, "/posts/9", { title: "New" }],
  ["PATCH /posts/{id}", 200, "/posts/1", { title: "New" }],
  ["PATCH /posts/{id}", 400, "/posts/1", { title: null }],
  ["PATCH /posts/{id}", 404, "/posts/9", { title: "New" }],
  ["DELETE /posts/{id}", 204, "/posts/1"],
  ["DELETE /posts/{id}", 400, "/posts/-1"],
  ["DELETE /posts/{id}", 404, "/posts/9"],

  ["GET /posts/{id}/comments", 200, "/posts/1/comments"],
  ["GET /posts/{id}/comments", 400, "/posts/1/comments?limit=1.5"],
  ["GET /posts/{id}/comments", 404, "/posts/9/comments"],
  ["POST /posts/{id}/comments", 201, "/posts/1/comments", { body: "c" }],
  ["POST /posts/{id}/comments", 400, "/posts/1/comments", { postId: 1, body: "c" }],
  ["POST /posts/{id}/comments", 404, "/posts/9/comments", { body: "c" }],
  ["GET /comments/{id}", 200, "/comments/1"],
  ["GET /comments/{id}", 400, "/comments/x"],
  ["GET /comments/{id}", 404, "/comments/9"],
  ["PUT /comments/{id}", 200, "/comments/1", { body: "d" }],
  ["PUT /comments/{id}", 400, "/comments/1", { body: 1 }],
  ["PUT /comments/{id}", 404, "/comments/9", { body: "d" }],
  ["PATCH /comments/{id}", 200, "/comments/1", { body: "d" }],
  ["PATCH /comments/{id}", 400, "/comments/1", { postId: null }],
  ["PATCH /comments/{id}", 404, "/comments/9", { body: "d" }],
  ["DELETE /comments/{id}", 204, "/comments/1"],
  ["DELETE /comments/{id}", 400, "/comments/1e3"],
  ["DELETE /comments/{id}", 404, "/comments/9"],

  ["GET /comments/{id}/replies", 200, "/comments/1/replies"],
  ["GET /comments/{id}/replies", 400, "/comments/abc/replies"],
  ["GET /comments/{id}/replies", 404, "/comments/9/replies"],
  ["POST /comments/{id}/replies", 201, "/comments/1/replies", { body: "r" }],
  ["POST /comments/{id}/replies", 400, "/comments/1/replies", {}],
  ["POST /comments/{id}/replies", 404, "/comments/9/replies", { body: "r" }],
  ["GET /replies/{id}", 200, "/replies/1"],
  ["GET /replies/{id}", 400, "/replies/01.0"],
  ["GET /replies/{id}", 404, "/replies/9"],
  ["PUT /replies/{id}", 200, "/replies/1", { body: "s" }],
  ["PUT /replies/{id}", 400, "/replies/1", { commentId: 1 }],
  ["PUT /replies/{id}", 404, "/replies/9", { body: "s" }],
  ["PATCH /replies/{id}", 200, "/replies/1", { body: "s" }],
  ["PATCH /replies/{id}", 400, "/replies/1", { body: null }],
  ["PATCH /replies/{id}", 404, "/replies/9", { body: "s" }],
  ["DELETE /replies/{id}", 204, "/replies/1"],
  ["DELETE /replies/{id}", 400, "/replies/one"],
  ["DELETE /replies/{id}", 404, "/replies/9"],
];

/** The router's routes and paths, written the way OpenAPI writes them, and HEAD on every GET route (contract 2). */
const ROUTED = apiRoutes().map((route) => ({ method: route.method, path: openApiPath(route.pattern) }));
const ROUTES = ROUTED.flatMap((route) => (route.method === "GET" ? [route, { ...route, method: "HEAD" }] : [route]));
const PATHS = [...new Set(ROUTES.map((route) => route.path))];

/** A method the path does not answer, for its 405. */
function otherMethod(path: string): string {
  const routed = new Set(ROUTES.filter((route) => route.path === path).map((route) => route.method));
  return ["DELETE", "POST", "PUT", "PATCH"].find((method) => !routed.has(method))!;
}

/** A concrete address for a path: every id is 1, which each server holds. */
function concrete(path: string): string {
  return path.replaceAll("{id}", "1");
}

/** Rows for what every route or path answers alike, built from the router so they do not echo the document. */
function uniformRows(): Row[] {
  const rows: Row[] = [];
  for (const { method, path } of ROUTES) {
    const operation = `${method} ${path}`;
    const hasBody = method === "POST" || method === "PUT" || method === "PATCH";
    // Every route of the four collections has ETags: reads answer 304 and 412, writes 412.
    if (/^\/(users|posts|comments|replies)/.test(path)) {
      const json = hasBody ? {} : undefined;
      const stale = { method, json, headers: { "if-match": '"stale"' } };
      rows.push({ operation, status: 412, path: concrete(path), init: stale });
      if (method === "GET" || method === "HEAD") {
        rows.push({ operation, status: 304, path: concrete(path), init: { method, headers: { "if-none-match": "*" } } });
      }
    }
    if (hasBody) {
      const address = concrete(path);
      rows.push({ operation, status: 413, path: address, init: { method, json: { text: "x".repeat(BODY_LIMIT) } } });
      const plainText = { method, body: "{}", headers: { "content-type": "text/plain" } };
      rows.push({ operation, status: 415, path: address, init: plainText });
    }
    // Contract 7: once shutdown has begun only the liveness probe (and the metrics, which show the drain) still answer normally.
    if (path !== "/healthz" && path !== "/metrics") {
      const init = hasBody ? { method, json: {} } : { method };
      rows.push({ operation, status: 503, path: concrete(path), init, server: "draining" });
    }
  }
  for (const { method, path } of [...ROUTES, ...PATHS.map((path) => ({ method: "OPTIONS", path }))]) {
    // A path answers 405 to the methods it does not have, whichever operation the document lists it under.
    rows.push({ operation: `${method} ${path}`, status: 405, path: concrete(path), init: { method: otherMethod(path), json: {} } });
  }
  for (const path of PATHS) {
    const operation = `OPTIONS ${path}`;
    rows.push({ operation, status: 204, path: concrete(path), init: { method: "OPTIONS" } });
    rows.push({ operation, status: 503, path: concrete(path), init: { method: "OPTIONS" }, server: "draining" });
  }
  return rows;
}

const EXPLICIT_ROWS = EXPLICIT.map(([operation, status, path, json]): Row => ({
  operation,
  status,
  path,
  init: { method: operation.split(" ")[0]!, json },
}));

const ROWS: Row[] = [
  ...EXPLICIT_ROWS,
  // HEAD answers as GET does (contract 2), so each GET row is also a HEAD row.
  ...EXPLICIT_ROWS.filter((row) => row.init?.method === "GET").map((row) => ({
    ...row,
    operation: row.operation.replace("GET", "HEAD"),
    init: { method: "HEAD" },
  })),
  ...uniformRows(),
];

/** Every (operation, status) pair the document lists; `default` is the catch-all, not a status. */
function documentedPairs(): string[] {
  return Object.entries(OPENAPI_DOCUMENT.paths).flatMap(([path, item]) =>
    DOCUMENTED_METHODS.flatMap((method) =>
      Object.keys(item[method]?.responses ?? {})
        .filter((status) => status !== "default")
        .map((status) => `${method.toUpperCase()} ${path} ${status}`),
    ),
  );
}

/** The documented response of an operation for a status, its $ref followed. */
function documentedResponse(operation: string, status: number): ResponseDoc {
  const [method = "", path = ""] = operation.split(" ");
  const found = OPENAPI_DOCUMENT.paths[path]?.[method.toLowerCase() as DocumentedMethod]?.responses[String(status)];
  assert.ok(found !== undefined, `${operation} does not document ${status}`);
  if (!("$ref" in found)) return found;
  const name = (found as Ref).$ref.replace("#/components/responses/", "");
  return OPENAPI_DOCUMENT.components.responses[name]!;
}

test("the table below produces exactly the (operation, status) pairs the document lists", () => {
  const produced = [...new Set(ROWS.map((row) => `${row.operation} ${row.status}`))].sort();
  assert.deepEqual(produced, documentedPairs().sort());
});

/** A fresh server holding user 1, post 1, comment 1 and reply 1, with a small body limit. */
async function seeded(t: Parameters<typeof fresh>[0]): Promise<string> {
  const url = await fresh(t, { BODY_LIMIT: String(BODY_LIMIT) });
  await create(url, "/posts", POST);
  await create(url, "/posts/1/comments", { body: "c" });
  await create(url, "/comments/1/replies", { body: "r" });
  return url;
}

/**
 * One seeded server for every row that changes nothing: any answer but a write's 2xx.
 * Starting a server process per row cost about a second each on the runtime matrix.
 */
let shared: Promise<string> | undefined;
const closeShared: Array<() => Promise<void>> = [];
// Registered here, at the top level, so it runs once every test of the file has.
after(async () => {
  for (const close of closeShared) await close();
});
function unchanged(): Promise<string> {
  shared ??= seeded({ after: (close) => closeShared.push(close) });
  return shared;
}

/** Whether a row's request leaves the data as it found it. */
function changesNothing(row: Row): boolean {
  const method = row.init?.method ?? "GET";
  return ["GET", "HEAD", "OPTIONS"].includes(method) || row.status >= 300;
}

/** A server whose shutdown has begun: the app mounted with a drain flag that is always up. */
async function draining(t: Parameters<typeof fresh>[0]): Promise<string> {
  const server = createServer(createApp({ isDraining: () => true }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// The draining rows mount the app in this process with its drain flag held up, as no
// process can be held in shutdown while requests arrive. So they run in-process only (test:all's
// in-process pass); shutdown.test.ts checks shutdown of a process on every runtime.
const CAN_DRAIN = targetMode() === "inprocess";

for (const row of ROWS) {
  if (row.server === "draining" && !CAN_DRAIN) continue;
  const method = row.init?.method ?? "GET";
  const when = row.server === "draining" ? " during shutdown" : "";
  test(`${method} ${row.path}${when} -> ${row.status}, as documented for ${row.operation}`, async (t) => {
    const url = row.server === "draining" ? await draining(t) : changesNothing(row) ? await unchanged() : await seeded(t);
    // Every request comes from a page's origin, so every answer must carry the CORS headers the document lists.
    const init = { ...row.init, headers: { origin: "http://localhost:5173", ...(row.init?.headers as Record<string, string>) } };
    const response = await call(url + row.path, init);
    assert.equal(response.status, row.status, response.text);
    const documented = documentedResponse(row.operation, row.status);
    // A 405 answers another method than the operation's; it has a body unless that method is HEAD.
    // Required headers are on every such answer, and the CORS headers on every answer to a request with Origin;
    // the others (Link, Vary, a preflight's) only when their condition holds.
    for (const [name, ref] of Object.entries(documented.headers ?? {})) {
      const header = OPENAPI_DOCUMENT.components.headers[ref.$ref.replace("#/components/headers/", "")]!;
      const sent = header.required === true || name === "Access-Control-Allow-Origin" || name === "Access-Control-Expose-Headers";
      if (sent) assert.notEqual(response.headers.get(name), null, `${name} is documented but not sent`);
    }
    if (documented.content === undefined) {
      assert.equal(response.text, "");
      return;
    }
    // The metrics are the one answer in another format than JSON (contract 12).
    const [mediaType] = Object.keys(documented.content);
    if (mediaType === "text/plain") {
      assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
      return;
    }
    assertJsonHeaders(response);
    const example = Object.values(documented.content)[0]?.example as { code?: string } | undefined;
    if (example?.code !== undefined) assert.equal((response.body as { code: string }).code, example.code);
  });
}
