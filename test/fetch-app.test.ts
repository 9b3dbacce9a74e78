// createFetchApp: the same answers as a socket, byte for byte, with no socket; its host and token checks, streaming, faults and close.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { createFetchApp } from "../src/http/fetch-app.ts";
import { LONG_ANSWERS } from "../src/http/pieces.ts";
import { startServer } from "../src/http/server.ts";
import { headersOf, MANY } from "./support/fetch-answers.ts";
import { rawRequest } from "./support/raw.ts";
import { ROOT } from "./support/target.ts";

const AT = "2026-01-31T09:30:00.000Z";
const clock = () => new Date(AT);
const JSON_TYPE = { "content-type": "application/json" };

type Step = { path: string; init?: RequestInit };

/** Sends each step to an in-process app and to a server on a socket, built alike, and asserts the same status, headers and bytes. */
async function assertSameAnswers(options: Parameters<typeof createFetchApp>[0], steps: Step[]): Promise<void> {
  const app = createFetchApp(options);
  const server = await startServer(options);
  try {
    let index = 0;
    for (const { path, init = {} } of steps) {
      // The same request id for both: otherwise each makes its own.
      const headers = { ...(init.headers as Record<string, string>), "x-request-id": `step-${index++}` };
      const inProcess = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers }));
      const overSocket = await fetch(`${server.url}${path}`, { ...init, headers });
      const what = `${init.method ?? "GET"} ${path}`;
      assert.equal(inProcess.status, overSocket.status, what);
      assert.deepEqual(headersOf(inProcess), headersOf(overSocket), what);
      assert.deepEqual(Buffer.from(await inProcess.arrayBuffer()), Buffer.from(await overSocket.arrayBuffer()), what);
    }
  } finally {
    await server.close();
    await app.close();
  }
}

test("createFetchApp answers every kind of request with the status, headers and bytes a socket gets", async () => {
  const post = (path: string, body: string, headers: Record<string, string> = JSON_TYPE): Step => ({ path, init: { method: "POST", headers, body } });
  await assertSameAnswers({ clock }, [
    { path: "/users" },
    { path: "/users", init: { method: "HEAD" } },
    post("/users", '{"name":"Grace Hopper","email":"grace@example.com","role":"admiral"}'),
    post("/users", '{"name":""}'),
    post("/users", "{not json"),
    post("/users", '{"name":"X"}', { "content-type": "text/plain" }),
    post("/users", ""),
    post("/posts", '{"userId":1,"title":"Hello","body":"First"}'),
    post("/posts/1/comments", '{"userId":2,"body":"Nice"}'),
    { path: "/users/3", init: { method: "PUT", headers: JSON_TYPE, body: '{"name":"Grace B. Hopper","email":"grace@example.com"}' } },
    { path: "/users/3", init: { method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: '{"role":null}' } },
    { path: "/users/3", init: { headers: { "if-none-match": '"nope"' } } },
    { path: "/users/3", init: { method: "PUT", headers: { ...JSON_TYPE, "if-match": '"stale"' }, body: '{"name":"G","email":"g@example.com"}' } },
    { path: "/users?sort=-name&limit=2&offset=1" },
    { path: "/users?role=admiral" },
    { path: "/users?limit=x" },
    { path: "/users/0" },
    { path: "/users/99" },
    { path: "/nowhere" },
    { path: "/users", init: { method: "DELETE" } },
    { path: "/users", init: { method: "OPTIONS", headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" } } },
    { path: "/users/1", init: { headers: { origin: "http://localhost:5173" } } },
    { path: "/users/2", init: { method: "DELETE" } },
    { path: "/posts/1", init: { method: "DELETE" } },
    { path: "/healthz" },
    { path: "/readyz" },
    { path: "/openapi.json" },
  ]);
});

test("a 304 carries the same headers in-process and on a socket, and so does a body over the limit", async () => {
  await assertSameAnswers({ clock, bodyLimit: 64 }, [
    { path: "/users/1", init: { headers: { "if-none-match": "*" } } },
    { path: "/users", init: { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ name: "x".repeat(100), email: "a@example.com" }) } },
  ]);
});

test("a list longer than a piece is streamed in-process, byte for byte the socket's answer", async () => {
  await assertSameAnswers({ seed: MANY }, [{ path: "/users" }, { path: "/users", init: { method: "HEAD" } }, { path: "/users?role=a" }]);
});

test("a reader that gives up on a streamed list leaves the app serving", async () => {
  const app = createFetchApp({ seed: MANY });
  const list = await app.fetch(new Request("http://localhost/users"));
  const reader = list.body!.getReader();
  const first = await reader.read();
  assert.equal(first.done, false);
  assert.equal(new TextDecoder().decode(first.value).slice(0, 9), '[{"id":1,');
  await reader.cancel();
  const after = await app.fetch(new Request("http://localhost/users/1500"));
  assert.equal(after.status, 200);
  assert.equal(((await after.json()) as { id: number }).id, 1500);
  await app.close();
});

test("fetches of long lists aborted before their answers begin free their places among the long answers", async () => {
  const app = createFetchApp({ seed: MANY });
  // More than the long answers allowed at once (pieces.ts, LONG_ANSWERS), each given up at once.
  const given: Promise<unknown>[] = [];
  for (let i = 0; i < LONG_ANSWERS + 1; i++) {
    const aborting = new AbortController();
    given.push(Promise.resolve(app.fetch(new Request("http://localhost/users", { signal: aborting.signal }))).catch((error: unknown) => error));
    aborting.abort();
  }
  await Promise.all(given);
  const after = await app.fetch(new Request("http://localhost/users"));
  assert.equal(after.status, 200);
  assert.equal(((await after.json()) as unknown[]).length, 1500);
  await app.close();
});

test("a process that looks only at a long list's status ends at once: the body it leaves unread keeps nothing alive", () => {
  const started = Date.now();
  const output = execFileSync(process.execPath, ["--import", "tsx", "test/support/read-status-of-long-list.ts"], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  assert.equal(output, "200 true\n");
  // The stall time-out, which would hold it otherwise, is 30 s; starting tsx takes a second or two.
  assert.ok(Date.now() - started < 20_000, `the process took ${Date.now() - started} ms to end`);
});

test("a body sent as a stream is read whole, with the length a client would send", async () => {
  const app = createFetchApp();
  const bytes = new TextEncoder().encode('{"name":"Grace Hopper","email":"grace@example.com"}');
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.slice(0, 10));
      controller.enqueue(bytes.slice(10));
      controller.close();
    },
  });
  const created = await app.fetch(new Request("http://localhost/users", { method: "POST", headers: JSON_TYPE, body, duplex: "half" } as RequestInit));
  assert.equal(created.status, 201);
  assert.deepEqual(await created.json(), { id: 3, name: "Grace Hopper", email: "grace@example.com" });
  await app.close();
});

test("a streamed body past the limit gets 413, and only the limit and one byte are read", async () => {
  const app = createFetchApp({ bodyLimit: 16 });
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(8).fill(0x20));
      if (pulled === 1000) controller.close();
    },
  });
  const refused = await app.fetch(new Request("http://localhost/users", { method: "POST", headers: JSON_TYPE, body, duplex: "half" } as RequestInit));
  assert.equal(refused.status, 413);
  assert.deepEqual(await refused.json(), { message: "Request body must not be larger than 16 bytes", code: "BODY_TOO_LARGE" });
  assert.ok(pulled < 10, `${pulled} chunks were pulled`);
  await app.close();
});

test("the host of a request's URL is checked as a socket's Host is, and tokens are required as on a socket", async () => {
  const app = createFetchApp({ authTokens: "read:reader,write:writer" });
  const elsewhere = await app.fetch(new Request("http://api.example.com/users/1", { headers: { authorization: "Bearer writer" } }));
  assert.equal(elsewhere.status, 403);
  assert.equal(((await elsewhere.json()) as { code: string }).code, "HOST_NOT_ALLOWED");
  // A Host header of its own wins over the URL's, as on a socket.
  const named = await app.fetch(new Request("http://api.example.com/users/1", { headers: { host: "localhost:3000", authorization: "Bearer reader" } }));
  assert.equal(named.status, 200);
  const anonymous = await app.fetch(new Request("http://localhost/users/1"));
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get("www-authenticate"), 'Bearer realm="rest-reference-server"');
  const reader = await app.fetch(new Request("http://localhost/users/2", { method: "DELETE", headers: { authorization: "Bearer reader" } }));
  assert.equal(reader.status, 403);
  assert.equal(((await reader.json()) as { code: string }).code, "INSUFFICIENT_SCOPE");
  const writer = await app.fetch(new Request("http://localhost/users/2", { method: "DELETE", headers: { authorization: "Bearer writer" } }));
  assert.equal(writer.status, 204);
  const allowed = createFetchApp({ allowedHosts: "api.example.com" });
  assert.equal((await allowed.fetch(new Request("http://api.example.com/users/1"))).status, 200);
  await allowed.close();
  await app.close();
});

test("reset and snapshot work on the app's own data; two apps never share it", async () => {
  const one = createFetchApp();
  const two = createFetchApp();
  const created = await one.fetch(new Request("http://localhost/users", { method: "POST", headers: JSON_TYPE, body: '{"name":"Grace Hopper","email":"grace@example.com"}' }));
  assert.equal(created.status, 201);
  assert.equal((await one.snapshot()).users.length, 3);
  assert.equal((await two.snapshot()).users.length, 2);
  await one.reset();
  assert.deepEqual((await one.snapshot()).users.map((user) => user.id), [1, 2]);
  await one.close();
  await two.close();
});

test("with control on, Prefer: fault=reset rejects the fetch as a reset connection does, and stores nothing", async () => {
  const app = createFetchApp({ control: true });
  await assert.rejects(
    app.fetch(new Request("http://localhost/users", { method: "POST", headers: { ...JSON_TYPE, prefer: "fault=reset" }, body: '{"name":"Grace Hopper","email":"grace@example.com"}' })),
    (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.equal(error.message, "fetch failed");
      assert.equal((error.cause as NodeJS.ErrnoException).code, "ECONNRESET");
      return true;
    },
  );
  assert.equal((await app.snapshot()).users.length, 2);
  const log = (await (await app.fetch(new Request("http://localhost/__control/requests"))).json()) as Array<{ status: number | null }>;
  assert.equal(log.length, 1);
  assert.equal(log[0]!.status, null);
  await app.close();
});

test("after close, every request gets 503 SHUTTING_DOWN without a connection header", async () => {
  const app = createFetchApp();
  await app.close();
  const answer = await app.fetch(new Request("http://localhost/users/1"));
  assert.equal(answer.status, 503);
  assert.equal(answer.headers.get("connection"), null);
  assert.equal(((await answer.json()) as { code: string }).code, "SHUTTING_DOWN");
});

test("createFetchApp refuses a misspelt option, naming its own options", () => {
  assert.throws(() => createFetchApp({ sead: {} } as never), (error: unknown) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /^createFetchApp has no option "sead"; its options are allowedHosts, /);
    return true;
  });
});

test("a body stream that fails rejects the fetch as a broken connection does, and stores nothing", async () => {
  const app = createFetchApp();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"name":"Grace'));
    },
    pull(controller) {
      controller.error(new Error("the client went away"));
    },
  });
  await assert.rejects(app.fetch(new Request("http://localhost/users", { method: "POST", headers: JSON_TYPE, body, duplex: "half" } as RequestInit)), (error: unknown) => {
    assert.ok(error instanceof TypeError);
    assert.equal(error.message, "fetch failed");
    return true;
  });
  assert.equal((await app.snapshot()).users.length, 2);
  await app.close();
});

test("an aborted request rejects with its signal's reason, and the log shows it unanswered", async () => {
  const app = createFetchApp({ control: true });
  const aborting = new AbortController();
  const pending = app.fetch(new Request("http://localhost/users/1", { headers: { prefer: "delay=5000" }, signal: aborting.signal }));
  setTimeout(() => aborting.abort(), 50);
  await assert.rejects(pending, { name: "AbortError" });
  // The delayed answer, when it comes, finds no one: the log shows no status.
  const log = (await (await app.fetch(new Request("http://localhost/__control/requests"))).json()) as Array<{ path: string; status: number | null }>;
  assert.deepEqual(log, []);
  await app.close();
});

test("a process whose only work is awaiting a delayed fetch stays alive until it is answered", () => {
  const output = execFileSync(process.execPath, ["--import", "tsx", "test/support/await-delayed-fetch.ts"], { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
  assert.equal(output, "200 delay=100\n");
});

test("close() breaks off answers still owed: a delayed fetch rejects at once", async () => {
  const app = createFetchApp({ control: true });
  const pending = app.fetch(new Request("http://localhost/users/1", { headers: { prefer: "delay=60000" } }));
  await new Promise((resolve) => setTimeout(resolve, 20));
  await app.close();
  await assert.rejects(pending, (error: unknown) => {
    assert.ok(error instanceof TypeError);
    assert.equal(error.message, "fetch failed");
    return true;
  });
});

test("an Expect other than 100-continue gets 417 in-process as on a socket; a status without a reason phrase is 'unknown'", async () => {
  // A client's fetch refuses to send Expect, so the socket's answer is read from a raw request.
  const server = await startServer();
  const overSocket = await rawRequest(server.url, 'POST /users HTTP/1.1\r\nHost: localhost\r\nExpect: bogus\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
  await server.close();
  const app = createFetchApp({ control: true });
  const inProcess = await app.fetch(new Request("http://localhost/users", { method: "POST", headers: { ...JSON_TYPE, expect: "bogus" }, body: "{}" }));
  assert.equal(overSocket.status, 417);
  assert.equal(inProcess.status, 417);
  assert.equal(await inProcess.text(), overSocket.body);
  assert.equal((await app.snapshot()).users.length, 2);
  const continued = await app.fetch(new Request("http://localhost/users/1", { headers: { expect: "100-continue" } }));
  assert.equal(continued.status, 200);
  const odd = await app.fetch(new Request("http://localhost/users/1", { headers: { prefer: "status=499" } }));
  assert.equal(odd.status, 499);
  assert.equal(odd.statusText, "unknown");
  await app.close();
});
