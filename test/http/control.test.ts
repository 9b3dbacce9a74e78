// Black-box tests of test control (docs/testing-clients.md): the /__control/ routes, the request log, CONTROL_LOG, Prefer, and DELAY.
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { after, before, beforeEach, describe, test } from "node:test";
import { assertJsonHeaders, bearer, call, type JsonResponse, send } from "../support/http.ts";
import { openSocket } from "../support/raw.ts";
import { databaseTargets, socketOnly, startTarget, type Target } from "../support/target.ts";

// With two processes behind a proxy, each keeps a request log of its own: the log's tests need one process.
const ONE_LOG = databaseTargets() !== 2 || "each of two processes logs the requests it was given";

const ADA = { id: 1, name: "Ada Lovelace", email: "ada@example.com" };
const ALAN = { id: 2, name: "Alan Turing", email: "alan@example.com" };
const STARTING = { users: [ADA, ALAN], posts: [], comments: [], replies: [] };
const EVE = { name: "Eve", email: "eve@example.com" };
const READ = "reader-token";
const WRITE = "writer-token";

/** The log's entries as the tests compare them: without the headers and the time, which each test checks itself. */
type Entry = { method: string; path: string; headers: Record<string, unknown>; body: unknown; status: number | null; time: string };
const brief = (entries: Entry[]) => entries.map(({ method, path, body, status }) => ({ method, path, body, status }));


/** A call and how long its whole answer took, in ms. */
async function timed(url: string, init: Parameters<typeof call>[1] = {}): Promise<{ response: JsonResponse; elapsed: number }> {
  const started = performance.now();
  const response = await call(url, init);
  return { response, elapsed: performance.now() - started };
}

/** The names of the calls, in the order their answers arrived. */
async function arrivalOrder(calls: Record<string, () => Promise<unknown>>): Promise<string[]> {
  const order: string[] = [];
  await Promise.all(Object.entries(calls).map(([name, start]) => start().then(() => order.push(name))));
  return order;
}

/** Sends raw bytes and resolves with how many bytes came back before the server closed the connection (it is closed at the first). */
async function bytesBeforeClose(url: string, request: string): Promise<number> {
  const socket = await openSocket(url);
  let bytes = 0;
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  // A reset is an error on this side; what counts is that nothing was answered.
  socket.on("error", () => {});
  socket.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    socket.destroy();
  });
  socket.write(request);
  await closed;
  return bytes;
}

const log = async (url: string, query = "") => (await call(`${url}/__control/requests${query}`)).body as Entry[];
const snapshot = async (url: string) => (await call(`${url}/__control/snapshot`)).body;

describe("CONTROL=on", () => {
  let target: Target;
  let url: string;
  before(async () => {
    target = await startTarget({ CONTROL: "on", CONTROL_LOG: "5" });
    url = target.url;
  });
  after(() => target.close());
  beforeEach(async () => {
    assert.equal((await call(`${url}/__control/reset`, { method: "POST" })).status, 204);
    assert.equal((await call(`${url}/__control/requests`, { method: "DELETE" })).status, 204);
  });

  test("the OpenAPI document leaves the control routes out: it is the same document as without control", async () => {
    const document = await call(`${url}/openapi.json`);
    assert.equal(document.status, 200);
    const paths = Object.keys((document.body as { paths: Record<string, unknown> }).paths);
    assert.ok(paths.includes("/users/{id}"));
    assert.deepEqual(paths.filter((path) => path.includes("control")), []);
    const plain = await startTarget();
    try {
      assert.equal(document.text, (await call(`${plain.url}/openapi.json`)).text);
    } finally {
      await plain.close();
    }
  });

  test("POST /__control/reset -> 204 with no body; the two seeded users again, and the id sequence starts again", async () => {
    assert.equal((await call(`${url}/users`, { method: "POST", json: EVE })).headers.get("location"), "/users/3");
    assert.equal((await call(`${url}/users/1`, { method: "DELETE" })).status, 204);
    assert.equal((await call(`${url}/posts`, { method: "POST", json: { title: "t", body: "b" } })).status, 201);
    const reset = await call(`${url}/__control/reset`, { method: "POST" });
    assert.equal(reset.status, 204);
    assert.equal(reset.text, "");
    assert.deepEqual((await call(`${url}/users`)).body, [ADA, ALAN]);
    assert.deepEqual((await call(`${url}/posts`)).body, []);
    assert.equal((await call(`${url}/users`, { method: "POST", json: EVE })).headers.get("location"), "/users/3");
  });

  test("GET /__control/snapshot -> 200 with every record, by collection, as the API answers them", async () => {
    const fresh = await call(`${url}/__control/snapshot`);
    assert.equal(fresh.status, 200);
    assertJsonHeaders(fresh);
    assert.deepEqual(fresh.body, STARTING);
    const post = (await call(`${url}/posts`, { method: "POST", json: { userId: 2, title: "Hello", body: "First post" } })).body;
    const user = (await call(`${url}/users`, { method: "POST", json: EVE })).body;
    assert.deepEqual(await snapshot(url), { users: [ADA, ALAN, user], posts: [post], comments: [], replies: [] });
  });

  test("PUT /__control/data -> 204; every collection is replaced, and a snapshot loads back", async () => {
    const data = {
      users: [{ id: 7, name: "Grace Hopper", email: "grace@example.com" }],
      posts: [{ id: 3, userId: 7, title: "T", body: "B", createdAt: "2026-01-31T09:30:00.000Z" }],
      comments: [{ id: 5, postId: 3, body: "C", createdAt: "2026-01-31T09:31:00.000Z" }],
    };
    const loaded = await call(`${url}/__control/data`, { method: "PUT", json: data });
    assert.equal(loaded.status, 204);
    assert.equal(loaded.text, "");
    assert.deepEqual((await call(`${url}/users`)).body, data.users);
    assert.equal((await call(`${url}/users/1`)).status, 404);
    assert.deepEqual((await call(`${url}/posts/3`)).body, data.posts[0]);
    assert.deepEqual((await call(`${url}/posts/3/comments`)).body, data.comments);
    const held = await snapshot(url);
    assert.deepEqual(held, { ...data, replies: [] });
    // What a snapshot gives, PUT takes back.
    assert.equal((await call(`${url}/__control/reset`, { method: "POST" })).status, 204);
    assert.equal((await call(`${url}/__control/data`, { method: "PUT", json: held })).status, 204);
    assert.deepEqual(await snapshot(url), held);
  });

  test("PUT /__control/data with a bad body -> 400 VALIDATION_FAILED listing every problem, and nothing changes", async () => {
    await call(`${url}/users`, { method: "POST", json: EVE });
    const before = await snapshot(url);
    const bad = {
      users: [{ id: 1, name: "" }, { id: 2, name: "Alan", email: "alan@example.com" }],
      posts: [{ id: 1, title: "t", body: "b", createdAt: "yesterday" }],
      todos: [],
    };
    const refused = await call(`${url}/__control/data`, { method: "PUT", json: bad });
    assert.equal(refused.status, 400);
    assertJsonHeaders(refused);
    assert.deepEqual(refused.body, {
      message: "The data is not valid: 4 problems; nothing was changed",
      code: "VALIDATION_FAILED",
      errors: [
        { path: "", message: '"todos" is not a collection; use users, posts, comments, replies' },
        { path: "users[0].name", message: "must be a non-empty string" },
        { path: "users[0].email", message: "is required" },
        { path: "posts[0].createdAt", message: "must be a UTC timestamp such as 2026-01-31T09:30:00.000Z" },
      ],
    });
    const one = await call(`${url}/__control/data`, { method: "PUT", json: { users: "Ada" } });
    assert.equal(one.status, 400);
    assert.deepEqual(one.body, {
      message: "The data is not valid: 1 problem; nothing was changed",
      code: "VALIDATION_FAILED",
      errors: [{ path: "", message: "users must be an array of records, not a string" }],
    });
    assert.equal((await call(`${url}/__control/data`, { method: "PUT", json: [] })).status, 400);
    assert.deepEqual(await snapshot(url), before);
  });

  test("GET /__control/requests -> 200: each API request, oldest first, with its path and query, headers without secrets, body and status", { skip: ONE_LOG !== true && ONE_LOG }, async () => {
    const secrets = { cookie: "session=s3cret", "proxy-authorization": "Basic cHJveHk6czNjcmV0" };
    // Without tokens the server takes no Authorization; with the suite's token, call() sends that one.
    const authorization: Record<string, string> = process.env.TEST_AUTH_TOKEN === undefined ? bearer("s3cret") : {};
    const from = Date.now();
    const created = await call(`${url}/users`, { method: "POST", json: EVE, headers: { ...secrets, ...authorization, "x-test": "one" } });
    assert.equal(created.status, 201);
    await call(`${url}/users?sort=-name&limit=1`);
    await call(`${url}/users/1`, { method: "PUT", body: "not json", headers: { "content-type": "application/json" } });
    await call(`${url}/nowhere`, { method: "DELETE" });
    // Neither the operations routes nor the control routes are logged.
    for (const path of ["/healthz", "/readyz", "/metrics", "/__control/snapshot"]) assert.equal((await call(url + path)).status, 200);
    const until = Date.now();
    const listed = await call(`${url}/__control/requests`);
    assert.equal(listed.status, 200);
    assertJsonHeaders(listed);
    const entries = listed.body as Entry[];
    assert.deepEqual(brief(entries), [
      { method: "POST", path: "/users", body: EVE, status: 201 },
      { method: "GET", path: "/users?sort=-name&limit=1", body: null, status: 200 },
      { method: "PUT", path: "/users/1", body: "not json", status: 400 },
      { method: "DELETE", path: "/nowhere", body: null, status: 404 },
    ]);
    for (const entry of entries) {
      assert.deepEqual(Object.keys(entry), ["method", "path", "headers", "body", "status", "time"]);
      assert.match(entry.time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const time = Date.parse(entry.time);
      assert.ok(time >= from - 1_000 && time <= until + 1_000, `${entry.time} is when the request was sent`);
      for (const secret of ["authorization", "proxy-authorization", "cookie"]) assert.equal(entry.headers[secret], undefined, secret);
      assert.equal(entry.headers.host, new URL(url).host);
    }
    assert.equal(entries[0]!.headers["x-test"], "one");
    assert.equal(entries[0]!.headers["content-type"], "application/json");
    assert.ok(!listed.text.includes("s3cret") && (process.env.TEST_AUTH_TOKEN === undefined || !listed.text.includes(process.env.TEST_AUTH_TOKEN)));
    // Reading the log is not logged either.
    assert.equal((await log(url)).length, 4);
  });

  test("?limit=N gives the last N requests; a limit that is not a whole number, or is repeated, -> 400 INVALID_QUERY", { skip: ONE_LOG !== true && ONE_LOG }, async () => {
    for (const id of [1, 2, 3]) await call(`${url}/users/${id}`);
    assert.deepEqual(brief(await log(url, "?limit=2")).map((entry) => entry.path), ["/users/2", "/users/3"]);
    assert.deepEqual(brief(await log(url, "?limit=9")).map((entry) => entry.path), ["/users/1", "/users/2", "/users/3"]);
    assert.deepEqual(await log(url, "?limit=0"), []);
    for (const query of ["?limit=x", "?limit=-1", "?limit=1.5", "?limit=", "?limit=1&limit=2"]) {
      const refused = await call(`${url}/__control/requests${query}`);
      assert.equal(refused.status, 400, query);
      assertJsonHeaders(refused);
      assert.deepEqual(refused.body, { message: "limit must be a non-negative whole number, given once", code: "INVALID_QUERY" }, query);
    }
  });

  test("DELETE /__control/requests -> 204 with no body, and the log is empty", { skip: ONE_LOG !== true && ONE_LOG }, async () => {
    await call(`${url}/users`);
    await call(`${url}/users/1`);
    assert.equal((await log(url)).length, 2);
    const emptied = await call(`${url}/__control/requests`, { method: "DELETE" });
    assert.equal(emptied.status, 204);
    assert.equal(emptied.text, "");
    assert.deepEqual(await log(url), []);
  });

  test("CONTROL_LOG=5 keeps the last 5 requests, the oldest dropped first", { skip: ONE_LOG !== true && ONE_LOG }, async () => {
    for (let n = 1; n <= 8; n++) await call(`${url}/users?n=${n}`);
    assert.deepEqual(
      (await log(url)).map((entry) => entry.path),
      [4, 5, 6, 7, 8].map((n) => `/users?n=${n}`),
    );
  });

  test("Prefer: delay=300 -> the answer waits at least 300 ms, with Preference-Applied: delay=300", async () => {
    const { response, elapsed } = await timed(`${url}/users/1`, { headers: { prefer: "delay=300" } });
    assert.ok(elapsed >= 300, `answered after ${elapsed} ms`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, ADA);
    assert.equal(response.headers.get("preference-applied"), "delay=300");
  });

  test("a POST whose answer is delayed is stored before the wait, and exactly once", async () => {
    const answer = timed(`${url}/users`, { method: "POST", json: EVE, headers: { prefer: "delay=300" } });
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Control routes answer at once, and see the record already.
    assert.deepEqual(((await snapshot(url)) as typeof STARTING).users, [ADA, ALAN, { id: 3, ...EVE }]);
    const { response, elapsed } = await answer;
    assert.ok(elapsed >= 300, `answered after ${elapsed} ms`);
    assert.equal(response.status, 201);
    assert.deepEqual(response.body, { id: 3, ...EVE });
    assert.equal(response.headers.get("preference-applied"), "delay=300");
    assert.deepEqual(((await snapshot(url)) as typeof STARTING).users, [ADA, ALAN, { id: 3, ...EVE }]);
    if (ONE_LOG === true) assert.deepEqual(brief(await log(url)), [{ method: "POST", path: "/users", body: EVE, status: 201 }]);
  });

  test("Prefer: status=503 -> 503 PREFERRED_STATUS with Preference-Applied: status=503", async () => {
    const response = await call(`${url}/users/1`, { headers: { prefer: "status=503" } });
    assert.equal(response.status, 503);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, {
      message: "Answered 503 because the request asked for it with Prefer: status=503; nothing was read or changed",
      code: "PREFERRED_STATUS",
    });
    assert.equal(response.headers.get("preference-applied"), "status=503");
    // Any status from 400 to 599, on any path.
    const teapot = await call(`${url}/nowhere`, { headers: { prefer: "status=418" } });
    assert.equal(teapot.status, 418);
    assert.equal((teapot.body as { code: string }).code, "PREFERRED_STATUS");
  });

  test("a write with Prefer: status=NNN stores nothing, and its log entry has that status", async () => {
    for (const [method, path, json] of [
      ["POST", "/users", EVE],
      ["PUT", "/users/1", EVE],
      ["DELETE", "/users/2", undefined],
    ] as const) {
      const response = await call(`${url}${path}`, { method, json, headers: { prefer: "status=500" } });
      assert.equal(response.status, 500, `${method} ${path}`);
      assert.equal(response.headers.get("preference-applied"), "status=500");
    }
    assert.deepEqual(await snapshot(url), STARTING);
    if (ONE_LOG === true) assert.deepEqual((await log(url)).map((entry) => entry.status), [500, 500, 500]);
  });

  test("Prefer: delay=300, status=503 -> 503 after at least 300 ms, with both applied", async () => {
    const { response, elapsed } = await timed(`${url}/users`, { method: "POST", json: EVE, headers: { prefer: "delay=300, status=503" } });
    assert.ok(elapsed >= 300, `answered after ${elapsed} ms`);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("preference-applied"), "delay=300, status=503");
    assert.deepEqual(await snapshot(url), STARTING);
  });

  test("Prefer: fault=reset -> the connection is dropped with no answer; fetch rejects", async () => {
    await assert.rejects(call(`${url}/users/1`, { headers: { prefer: "fault=reset" } }), TypeError);
    const bytes = await bytesBeforeClose(url, "GET /users/1 HTTP/1.1\r\nHost: localhost\r\nPrefer: fault=reset\r\n\r\n");
    assert.equal(bytes, 0);
    // The server goes on answering on other connections.
    assert.deepEqual((await call(`${url}/users/1`)).body, ADA);
  });

  test("a POST with Prefer: fault=reset stores nothing, and the log shows it with status null", async () => {
    const body = JSON.stringify(EVE);
    const request = `POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nPrefer: fault=reset\r\n\r\n${body}`;
    assert.equal(await bytesBeforeClose(url, request), 0);
    await assert.rejects(call(`${url}/users`, { method: "POST", json: EVE, headers: { prefer: "fault=reset" } }), TypeError);
    assert.deepEqual(await snapshot(url), STARTING);
    if (ONE_LOG === true) {
      const entries = await log(url);
      assert.deepEqual(
        entries.map(({ method, path, status }) => ({ method, path, status })),
        [
          { method: "POST", path: "/users", status: null },
          { method: "POST", path: "/users", status: null },
        ],
      );
      assert.equal(entries[0]!.headers.prefer, "fault=reset");
    }
  });

  test("a POST pipelined behind a reset, at once or after a delay, is not carried out, and is logged unanswered", { skip: socketOnly("pipelining") }, async () => {
    const body = JSON.stringify(EVE);
    const post = `POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    for (const prefer of ["fault=reset", "delay=100, fault=reset"]) {
      assert.equal(await bytesBeforeClose(url, `GET /users/1 HTTP/1.1\r\nHost: localhost\r\nPrefer: ${prefer}\r\n\r\n${post}`), 0);
    }
    // What was behind the reset is counted gone once its connection is: give the server its turn.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(await snapshot(url), STARTING);
    if (ONE_LOG === true) {
      const entries = (await log(url)).map(({ method, path, status }) => ({ method, path, status }));
      // Each reset is logged; a POST that reached the server behind it is logged unanswered too.
      assert.ok(entries.every(({ status }) => status === null), JSON.stringify(entries));
      assert.deepEqual(entries.filter(({ method }) => method === "GET").length, 2);
    }
  });

  test("a body the API refused as too deep is logged as text: reading the log in pieces still answers, and the server serves on", { skip: ONE_LOG !== true && ONE_LOG }, async () => {
    const long = await call(`${url}/users`, { method: "POST", json: { ...EVE, note: "x".repeat(70 * 1024) } });
    assert.equal(long.status, 201);
    const deep = `{"a":${"[".repeat(50_000)}${"]".repeat(50_000)}}`;
    const refused = await call(`${url}/users`, { method: "POST", body: deep, headers: { "content-type": "application/json" } });
    assert.equal(refused.status, 400);
    const entries = await log(url);
    assert.equal(entries.at(-1)!.body, deep);
    assert.equal((await call(`${url}/healthz`)).status, 200);
  });

  test("Prefer: delay=300, fault=reset -> the connection is dropped after at least 300 ms", async () => {
    const started = performance.now();
    await assert.rejects(call(`${url}/users`, { method: "POST", json: EVE, headers: { prefer: "delay=300, fault=reset" } }), TypeError);
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 300, `dropped after ${elapsed} ms`);
    assert.deepEqual(await snapshot(url), STARTING);
  });

  test("a preference the server does not know, or a value outside its range, is ignored", async () => {
    for (const prefer of ["respond-async, wait=10", "status=200", "status=600", "delay=-5", "delay=60001", "fault=close", "return=minimal"]) {
      const response = await call(`${url}/users/1`, { headers: { prefer } });
      assert.equal(response.status, 200, prefer);
      assert.deepEqual(response.body, ADA, prefer);
      assert.equal(response.headers.get("preference-applied"), null, prefer);
    }
  });

  test("Prefer does not reach /healthz, /readyz, /metrics or the control routes", async () => {
    for (const path of ["/healthz", "/readyz", "/metrics", "/__control/snapshot", "/__control/requests"]) {
      for (const prefer of ["status=503", "fault=reset"]) {
        const response = await call(url + path, { headers: { prefer } });
        assert.equal(response.status, 200, `${path} with ${prefer}`);
        assert.equal(response.headers.get("preference-applied"), null, `${path} with ${prefer}`);
      }
    }
    assert.equal((await call(`${url}/__control/reset`, { method: "POST", headers: { prefer: "status=500" } })).status, 204);
  });
});

describe("CONTROL off (the default)", () => {
  let target: Target;
  let url: string;
  before(async () => {
    target = await startTarget();
    url = target.url;
  });
  after(() => target.close());

  for (const [method, path, json] of [
    ["POST", "/__control/reset", undefined],
    ["GET", "/__control/snapshot", undefined],
    ["PUT", "/__control/data", { users: [] }],
    ["GET", "/__control/requests", undefined],
    ["DELETE", "/__control/requests", undefined],
  ] as const) {
    test(`${method} ${path} -> 404 ROUTE_NOT_FOUND, and nothing changes`, async () => {
      const response = await call(url + path, { method, json });
      assert.equal(response.status, 404);
      assertJsonHeaders(response);
      assert.deepEqual(response.body, { message: `No route for ${method} ${path}`, code: "ROUTE_NOT_FOUND" });
      assert.deepEqual((await call(`${url}/users`)).body, [ADA, ALAN]);
    });
  }

  test("Prefer is ignored: no Preference-Applied, the usual answer, and writes are stored", async () => {
    // Honoured, this delay would outlast the test.
    const read = await call(`${url}/users/1`, { headers: { prefer: "delay=60000" }, signal: AbortSignal.timeout(10_000) });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, ADA);
    assert.equal(read.headers.get("preference-applied"), null);
    const created = await call(`${url}/users`, { method: "POST", json: EVE, headers: { prefer: "status=503" } });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get("preference-applied"), null);
    const again = await call(`${url}/users`, { method: "POST", json: EVE, headers: { prefer: "fault=reset" } });
    assert.equal(again.status, 201);
    assert.deepEqual(
      ((await call(`${url}/users`)).body as Array<{ id: number }>).map((user) => user.id),
      [1, 2, 3, 4],
    );
  });
});

describe("CONTROL=on with AUTH_TOKENS", () => {
  let target: Target;
  let url: string;
  before(async () => {
    target = await startTarget({ CONTROL: "on", AUTH_TOKENS: `read:${READ},write:${WRITE}` });
    url = target.url;
  });
  after(() => target.close());

  const routes = [
    ["POST", "/__control/reset", undefined, 204],
    ["GET", "/__control/snapshot", undefined, 200],
    ["PUT", "/__control/data", { users: [ADA, ALAN] }, 204],
    ["GET", "/__control/requests", undefined, 200],
    ["DELETE", "/__control/requests", undefined, 204],
  ] as const;
  for (const [method, path, json, status] of routes) {
    test(`${method} ${path} needs a write token: none -> 401, a read token -> 403 INSUFFICIENT_SCOPE, a write token -> ${status}`, async () => {
      const none = await send(url + path, { method, json });
      assert.equal(none.status, 401);
      assert.deepEqual(none.body, { message: "This API needs a token: send Authorization: Bearer <token>", code: "UNAUTHORIZED" });
      const read = await send(url + path, { method, json, headers: bearer(READ) });
      assert.equal(read.status, 403);
      assertJsonHeaders(read);
      assert.deepEqual(read.body, { message: "This token may only read; send a write token to change data", code: "INSUFFICIENT_SCOPE" });
      assert.equal(read.headers.get("www-authenticate"), 'Bearer error="insufficient_scope"');
      assert.equal((await send(url + path, { method, json, headers: bearer(WRITE) })).status, status);
    });
  }

  test("a refused control request changes nothing", async () => {
    assert.equal((await send(`${url}/users`, { method: "POST", json: EVE, headers: bearer(WRITE) })).status, 201);
    assert.equal((await send(`${url}/__control/reset`, { method: "POST", headers: bearer(READ) })).status, 403);
    assert.equal((await send(`${url}/__control/data`, { method: "PUT", json: { users: [] }, headers: bearer(READ) })).status, 403);
    assert.equal(((await send(`${url}/users`, { headers: bearer(READ) })).body as unknown[]).length, 3);
  });

  test("the log holds no token", { skip: ONE_LOG !== true && ONE_LOG }, async () => {
    assert.equal((await send(`${url}/__control/requests`, { method: "DELETE", headers: bearer(WRITE) })).status, 204);
    assert.equal((await send(`${url}/users/1`, { headers: bearer(READ) })).status, 200);
    assert.equal((await send(`${url}/users/1`, { headers: bearer("wrong-token") })).status, 401);
    const listed = await send(`${url}/__control/requests`, { headers: bearer(WRITE) });
    const entries = listed.body as Entry[];
    assert.deepEqual(
      entries.map(({ path, status }) => ({ path, status })),
      [
        { path: "/users/1", status: 200 },
        { path: "/users/1", status: 401 },
      ],
    );
    for (const entry of entries) assert.equal(entry.headers.authorization, undefined);
    assert.ok(!listed.text.includes(READ) && !listed.text.includes("wrong-token"));
  });
});

describe("CONTROL=on with READ_ONLY=on", () => {
  let target: Target;
  let url: string;
  before(async () => {
    target = await startTarget({ CONTROL: "on", READ_ONLY: "on" });
    url = target.url;
  });
  after(() => target.close());

  test("the three control routes that change data -> 403 READ_ONLY, and nothing changes", async () => {
    for (const [method, path, json] of [
      ["POST", "/__control/reset", undefined],
      ["PUT", "/__control/data", { users: [] }],
      ["DELETE", "/__control/requests", undefined],
    ] as const) {
      const response = await call(url + path, { method, json });
      assert.equal(response.status, 403, `${method} ${path}`);
      assertJsonHeaders(response);
      assert.deepEqual(response.body, { message: "This server is read-only: it stores no writes", code: "READ_ONLY" });
    }
    assert.deepEqual((await call(`${url}/users`)).body, [ADA, ALAN]);
  });

  test("the two control routes that read answer as usual", async () => {
    await call(`${url}/users/1`);
    const held = await call(`${url}/__control/snapshot`);
    assert.equal(held.status, 200);
    assert.deepEqual(held.body, STARTING);
    const listed = await call(`${url}/__control/requests?limit=1`);
    assert.equal(listed.status, 200);
    if (ONE_LOG === true) assert.deepEqual(brief(listed.body as Entry[]), [{ method: "GET", path: "/users/1", body: null, status: 200 }]);
  });
});

// Delays of a second: on a loaded machine, the requests sent after the delayed one took more than 200 ms to go out.
describe("DELAY=1000", () => {
  let target: Target;
  let url: string;
  before(async () => {
    target = await startTarget({ DELAY: "1000" });
    url = target.url;
  });
  after(() => target.close());

  test("GET /users, and an error, each wait at least 1000 ms; Prefer cannot shorten it without CONTROL", async () => {
    for (const [path, status, prefer] of [
      ["/users", 200, undefined],
      ["/nowhere", 404, undefined],
      ["/users/1", 200, "delay=0"],
    ] as const) {
      const { response, elapsed } = await timed(url + path, { headers: prefer === undefined ? {} : { prefer } });
      assert.equal(response.status, status, path);
      assert.ok(elapsed >= 1000, `${path} answered after ${elapsed} ms`);
      assert.equal(response.headers.get("preference-applied"), null);
    }
  });

  test("/healthz, /readyz and /metrics answer without waiting: before a delayed request sent first", async () => {
    const users = call(`${url}/users`);
    const order = await arrivalOrder({
      users: () => users,
      healthz: () => call(`${url}/healthz`),
      readyz: () => call(`${url}/readyz`),
      metrics: () => call(`${url}/metrics`),
    });
    assert.equal(order.at(-1), "users", `answered in the order ${order.join(", ")}`);
  });
});

describe("CONTROL=on with DELAY=1000", () => {
  let target: Target;
  let url: string;
  before(async () => {
    target = await startTarget({ CONTROL: "on", DELAY: "1000" });
    url = target.url;
  });
  after(() => target.close());

  test("Prefer: delay=0 replaces DELAY, and the control routes do not wait: both answer before a request sent first", async () => {
    const delayed = call(`${url}/users`);
    let preferred: JsonResponse | undefined;
    const order = await arrivalOrder({
      delayed: () => delayed,
      preferred: async () => (preferred = await call(`${url}/users`, { headers: { prefer: "delay=0" } })),
      snapshot: () => call(`${url}/__control/snapshot`),
    });
    assert.equal(order.at(-1), "delayed", `answered in the order ${order.join(", ")}`);
    assert.equal(preferred!.status, 200);
    assert.equal(preferred!.headers.get("preference-applied"), "delay=0");
    assert.equal((await delayed).headers.get("preference-applied"), null);
  });

  test("OPTIONS and 405 on the probes and the control routes do not wait either, nor honour Prefer", async () => {
    const delayed = call(`${url}/users`);
    let control: JsonResponse | undefined;
    const order = await arrivalOrder({
      delayed: () => delayed,
      probe: () => call(`${url}/healthz`, { method: "OPTIONS" }),
      control: async () => (control = await call(`${url}/__control/reset`, { method: "OPTIONS", headers: { prefer: "delay=2000" } })),
      wrong: () => call(`${url}/__control/snapshot`, { method: "PATCH" }),
    });
    assert.equal(order.at(-1), "delayed", `answered in the order ${order.join(", ")}`);
    assert.equal(control!.status, 204);
    assert.equal(control!.headers.get("preference-applied"), null);
  });
});

describe("CONTROL=on: no page on another site reaches a control route", () => {
  const ROUTES = [
    ["POST", "/__control/reset", undefined, 204],
    ["GET", "/__control/snapshot", undefined, 200],
    ["PUT", "/__control/data", STARTING, 204],
    ["GET", "/__control/requests", undefined, 200],
    ["DELETE", "/__control/requests", undefined, 204],
  ] as const;
  const EVIL = "http://evil.example";
  const byOrigin = (origin: string) => ({
    message: `The control routes refuse a page on another site (Origin ${origin}); call them from a test runner or curl, or from a page on an origin CORS_ORIGINS allows`,
    code: "CROSS_SITE_REQUEST",
  });
  const bySite = {
    message: "The control routes refuse a page on another site (Sec-Fetch-Site: cross-site); call them from a test runner or curl, or from a page on the API's own site",
    code: "CROSS_SITE_REQUEST",
  };

  /** Whether the data is still what it was: one user more than the seed, added by the test. */
  async function unchanged(url: string): Promise<void> {
    assert.deepEqual(((await call(`${url}/users`)).body as Array<{ id: number }>).map((user) => user.id), [1, 2, 3]);
  }

  describe("with the default CORS_ORIGINS (loopback)", () => {
    let target: Target;
    let url: string;
    before(async () => {
      target = await startTarget({ CONTROL: "on" });
      url = target.url;
    });
    after(() => target.close());
    beforeEach(async () => {
      assert.equal((await call(`${url}/__control/reset`, { method: "POST" })).status, 204);
      assert.equal((await call(`${url}/users`, { method: "POST", json: EVE })).status, 201);
    });

    for (const [method, path, json, status] of ROUTES) {
      test(`${method} ${path}: an Origin CORS does not allow, or Sec-Fetch-Site: cross-site -> 403 CROSS_SITE_REQUEST, and nothing changes`, async () => {
        const foreign = await call(url + path, { method, json, headers: { origin: EVIL } });
        assert.equal(foreign.status, 403);
        assertJsonHeaders(foreign);
        assert.deepEqual(foreign.body, byOrigin(EVIL));
        // The page cannot read the refusal either: no CORS header for its origin.
        assert.equal(foreign.headers.get("access-control-allow-origin"), null);
        const opaque = await call(url + path, { method, json, headers: { origin: "null" } });
        assert.deepEqual([opaque.status, opaque.body], [403, byOrigin("null")]);
        // A loopback page on another site (127.0.0.1 is not localhost's site): the browser's word is taken over CORS's.
        const crossSite = await call(url + path, { method, json, headers: { origin: "http://127.0.0.1:5173", "sec-fetch-site": "cross-site" } });
        assert.deepEqual([crossSite.status, crossSite.body], [403, bySite]);
        const noOrigin = await call(url + path, { method, json, headers: { "sec-fetch-site": "cross-site" } });
        assert.deepEqual([noOrigin.status, noOrigin.body], [403, bySite]);
        await unchanged(url);
      });

      test(`${method} ${path}: no Origin (curl, a test runner), a loopback page on the same site, or same-origin -> ${status}`, async () => {
        const cases: Array<Record<string, string>> = [{}, { origin: "http://localhost:5173", "sec-fetch-site": "same-site" }, { origin: "http://localhost:5173" }, { "sec-fetch-site": "same-origin", origin: "https://api.example.com" }, { "sec-fetch-site": "none" }];
        for (const headers of cases) {
          const response = await call(url + path, { method, json, headers });
          assert.equal(response.status, status, JSON.stringify(headers));
        }
      });
    }

    test("a form's post of POST /__control/reset from another site, in any content type, -> 403 and the data is kept", async () => {
      for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"]) {
        const response = await call(`${url}/__control/reset`, { method: "POST", body: "a=1", headers: { "content-type": type, origin: EVIL, "sec-fetch-site": "cross-site" } });
        assert.deepEqual([response.status, response.body], [403, bySite], type);
        const bare = await call(`${url}/__control/reset`, { method: "POST", headers: { "content-type": type, origin: EVIL } });
        assert.deepEqual([bare.status, bare.body], [403, byOrigin(EVIL)], type);
      }
      await unchanged(url);
    });
  });

  test("with CORS_ORIGINS=*, which lets any page read the API, only loopback pages reach control", async () => {
    const target = await startTarget({ CONTROL: "on", CORS_ORIGINS: "*" });
    try {
      assert.equal((await call(`${target.url}/users`, { method: "POST", json: EVE })).status, 201);
      const foreign = await call(`${target.url}/__control/reset`, { method: "POST", headers: { origin: EVIL } });
      assert.deepEqual([foreign.status, foreign.body], [403, byOrigin(EVIL)]);
      await unchanged(target.url);
      // The API itself still answers that page.
      assert.equal((await call(`${target.url}/users`, { headers: { origin: EVIL } })).headers.get("access-control-allow-origin"), "*");
      assert.equal((await call(`${target.url}/__control/reset`, { method: "POST", headers: { origin: "http://localhost:5173" } })).status, 204);
    } finally {
      await target.close();
    }
  });

  test("with CORS_ORIGINS=off, no page's Origin reaches control; with a list, the listed origins do", async () => {
    const off = await startTarget({ CONTROL: "on", CORS_ORIGINS: "off" });
    const listed = await startTarget({ CONTROL: "on", CORS_ORIGINS: "https://app.example.com" });
    try {
      const loopback = await call(`${off.url}/__control/snapshot`, { headers: { origin: "http://localhost:5173" } });
      assert.deepEqual([loopback.status, loopback.body], [403, byOrigin("http://localhost:5173")]);
      assert.equal((await call(`${off.url}/__control/snapshot`)).status, 200);
      assert.equal((await call(`${listed.url}/__control/snapshot`, { headers: { origin: "https://app.example.com" } })).status, 200);
      const other = await call(`${listed.url}/__control/snapshot`, { headers: { origin: "http://localhost:5173" } });
      assert.deepEqual([other.status, other.body], [403, byOrigin("http://localhost:5173")]);
    } finally {
      await Promise.all([off.close(), listed.close()]);
    }
  });

  test("with tokens, a write token from a page on another site -> 403 CROSS_SITE_REQUEST too", async () => {
    const target = await startTarget({ CONTROL: "on", AUTH_TOKENS: `write:${WRITE}` });
    try {
      const response = await send(`${target.url}/__control/reset`, { method: "POST", headers: { ...bearer(WRITE), origin: EVIL } });
      assert.deepEqual([response.status, response.body], [403, byOrigin(EVIL)]);
      assert.equal((await send(`${target.url}/__control/reset`, { method: "POST", headers: bearer(WRITE) })).status, 204);
    } finally {
      await target.close();
    }
  });
});
