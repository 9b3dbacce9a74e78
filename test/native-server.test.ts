// HTTP_SERVER=native: the command on Deno.serve and Bun.serve answers the API as it does on the
// node:http compatibility layer, through the fetch front end; and what the native server does
// with the rules it owns, as docs/runtimes.md ("The runtime's own server") says.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { MANY } from "./support/fetch-answers.ts";
import { closed, openSocket, rawRequest } from "./support/raw.ts";
import { ensureTestedRuntimes, testedRuntimes } from "./support/runtimes.ts";
import { processEnv, readListeningUrl, ROOT, runtimeBinary, spawnTarget, type Target } from "./support/target.ts";

const RUNTIMES = ["deno", "bun"] as const;
type Runtime = (typeof RUNTIMES)[number];

const ARGS: Record<Runtime, string[]> = {
  deno: ["run", "--allow-net", "--allow-env", "--allow-read", "src/main.ts"],
  bun: ["src/main.ts"],
};

// Short time-outs, so that the node:http path closes a silent connection within a second.
const SHORT = { HEADERS_TIMEOUT_MS: "300", REQUEST_TIMEOUT_MS: "600", KEEP_ALIVE_TIMEOUT_MS: "1000" };

before(() => ensureTestedRuntimes(RUNTIMES));

async function start(runtime: Runtime, httpServer: "native" | "node", t: { after: (fn: () => Promise<void>) => void }, env: Record<string, string> = {}): Promise<Target> {
  const target = await spawnTarget(runtimeBinary(runtime), ARGS[runtime], { HTTP_SERVER: httpServer, ...SHORT, ...env });
  t.after(() => target.close());
  return target;
}

/** The headers a server sets of its own (Date, its connection's), or per request or process (ids, ETags). */
const PER_SERVER = new Set(["date", "connection", "keep-alive", "x-request-id", "etag"]);

/** A whole answer: its status, its headers but PER_SERVER, and its body. */
async function answerOf(response: Response): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) if (!PER_SERVER.has(name)) headers[name] = value;
  return { status: response.status, headers, body: await response.text() };
}

/** Resolves with how long, in ms, the server took to close a connection that never sent a byte, or with `within` if it did not. */
async function silentFor(url: string, within: number): Promise<number> {
  const socket = await openSocket(url);
  socket.on("error", () => {});
  const started = Date.now();
  const timer = new Promise<number>((resolve) => setTimeout(() => resolve(within), within));
  const taken = await Promise.race([closed(socket).then(() => Date.now() - started), timer]);
  socket.destroy();
  return taken;
}

for (const runtime of testedRuntimes(RUNTIMES)) {
  test(`on ${runtime}, HTTP_SERVER=native serves the API with the answers of the node:http path, without its connection headers`, async (t) => {
    const [native, node] = await Promise.all([start(runtime, "native", t), start(runtime, "node", t)]);
    const requests: Array<[string, RequestInit?]> = [
      ["/users/1"],
      ["/users"],
      ["/users/999999"],
      ["/users/abc"],
      ["/users", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "Grace Hopper", email: "grace@example.com" }) }],
      ["/users", { method: "POST", headers: { "content-type": "application/json" }, body: "{" }],
      ["/users", { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" }],
      ["/users/1", { method: "HEAD" }],
      ["/users/1", { method: "DELETE" }],
      ["/users/1", { method: "GET", headers: { "if-none-match": "*" } }],
    ];
    for (const [path, init] of requests) {
      const [a, b] = await Promise.all([fetch(native.url + path, init), fetch(node.url + path, init)]);
      assert.deepEqual(await answerOf(a), await answerOf(b), `${init?.method ?? "GET"} ${path}`);
    }
    // node:http names its connection's rules; the native server, which owns them, leaves them unsaid.
    const [ours, theirs] = await Promise.all([native.url, node.url].map((url) => rawRequest(url, "GET /users/2 HTTP/1.1\r\nHost: localhost\r\n\r\n")));
    assert.equal(theirs!.headers["keep-alive"], "timeout=1");
    assert.equal(ours!.headers["keep-alive"], undefined);
    assert.equal(ours!.status, 200);
    assert.equal(ours!.body, theirs!.body);
    // Each answer carries a request id and a record's ETag, on either path.
    const answer = await fetch(`${native.url}/users/2`);
    assert.match(answer.headers.get("x-request-id") ?? "", /^[0-9a-f]{12}-\d+$/);
    assert.match(answer.headers.get("etag") ?? "", /^"[0-9a-f]+-\d+"$/);
  });

  test(`on ${runtime}, HTTP_SERVER=native stops on SIGTERM and exits 0`, async (t) => {
    const native = await start(runtime, "native", t);
    assert.equal((await fetch(`${native.url}/healthz`)).status, 200);
    assert.equal(await native.stop("SIGTERM"), 0);
  });
}

// The headers time-out is the native server's own: node:http closes a silent connection after
// HEADERS_TIMEOUT_MS; Bun.serve after about 12 s, whatever its settings; Deno.serve 2.9 has no
// time-out of any kind, which is why the command stays on node:http unless asked (docs/runtimes.md).
const WAIT_MS = 16_000;
const SILENT: Record<Runtime, (closedAfter: number) => void> = {
  deno: (closedAfter) => assert.equal(closedAfter, WAIT_MS, "Deno.serve closed a silent connection, which docs/runtimes.md says it never does"),
  bun: (closedAfter) => assert.ok(closedAfter < WAIT_MS, `Bun.serve held a silent connection ${closedAfter} ms; it closed one after 12 s when measured`),
};

for (const runtime of testedRuntimes(RUNTIMES)) {
  test(`on ${runtime}, a connection that says nothing: node:http closes it after HEADERS_TIMEOUT_MS, and the native server as docs/runtimes.md says`, async (t) => {
    const [native, node] = await Promise.all([start(runtime, "native", t), start(runtime, "node", t)]);
    const [onNative, onNode] = await Promise.all([silentFor(native.url, WAIT_MS), silentFor(node.url, WAIT_MS)]);
    assert.ok(onNode < 4_000, `the node:http path held a silent connection ${onNode} ms; its headers time-out is 300 ms`);
    SILENT[runtime](onNative);
  });
}

const NEW_USER = JSON.stringify({ name: "Grace Hopper", email: "grace@example.com" });

// A Content-Length sent twice: Deno's node:http refuses it, as Node's does; Bun's takes two equal
// values as one (RFC 9110, section 8.6, allows either), and the body limit then refuses this body.
const TWICE_OVER_NODE_HTTP: Record<Runtime, number> = { deno: 400, bun: 413 };

for (const runtime of testedRuntimes(RUNTIMES)) {
  test(`on ${runtime}, a Content-Length sent twice gets 400 BAD_REQUEST on the native path, and nothing is stored on either`, async (t) => {
    const [native, node] = await Promise.all([start(runtime, "native", t, { BODY_LIMIT: "1000" }), start(runtime, "node", t, { BODY_LIMIT: "1000" })]);
    // Read as one number, "2000, 2000" is none, and would pass the body limit.
    const body = `{"name":"Grace Hopper","email":"grace@example.com","notes":"${"x".repeat(1950)}"}`;
    const bytes = `POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const [ours, theirs] = await Promise.all([rawRequest(native.url, bytes), rawRequest(node.url, bytes)]);
    assert.equal(ours.status, 400);
    assert.deepEqual(JSON.parse(ours.body), { message: "Content-Length must be one whole number", code: "BAD_REQUEST" });
    assert.equal(theirs.status, TWICE_OVER_NODE_HTTP[runtime]);
    for (const target of [native, node]) assert.equal((await fetch(`${target.url}/users`)).headers.get("x-total-count"), "2");
  });

  test(`on ${runtime}, HTTP_SERVER=native exits 0 on SIGTERM with a request still in flight at SHUTDOWN_TIMEOUT_MS`, async (t) => {
    const native = await start(runtime, "native", t, { CONTROL: "on", SHUTDOWN_TIMEOUT_MS: "500" });
    const pending = fetch(`${native.url}/users/1`, { headers: { prefer: "delay=10000" } }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await native.stop("SIGTERM"), 0);
    // The process cut it as it exited: the client learns its connection broke.
    assert.ok((await pending) instanceof TypeError);
  });

  test(`on ${runtime}, HTTP_SERVER=native logs each request with the client's address`, async (t) => {
    let output = "";
    const native = await spawnTarget(runtimeBinary(runtime), ARGS[runtime], { HTTP_SERVER: "native", LOG_FORMAT: "json" }, ROOT, (chunk) => (output += chunk));
    t.after(() => native.close());
    assert.equal((await fetch(`${native.url}/users/1`)).status, 200);
    await native.stop("SIGTERM");
    const line = output.split("\n").find((text) => text.includes('"path":"/users/1"'));
    assert.ok(line !== undefined, output);
    assert.equal((JSON.parse(line) as { remote: string }).remote, "127.0.0.1");
  });

  test(`on ${runtime}, a client that hangs up mid-body on the native path stores nothing and is no error in the log`, async (t) => {
    const child = spawn(runtimeBinary(runtime), ARGS[runtime], { cwd: ROOT, env: processEnv({ HTTP_SERVER: "native" }), stdio: ["ignore", "pipe", "pipe"] });
    let errors = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (errors += chunk));
    t.after(() => void child.kill("SIGKILL"));
    const url = await readListeningUrl(child);
    for (let i = 0; i < 3; i++) {
      const socket = await openSocket(url);
      socket.write(`POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await fetch(`${url}/users`)).headers.get("x-total-count"), "2");
    child.kill("SIGTERM");
    await once(child, "exit");
    assert.equal(errors, "");
  });
}

// A list longer than a piece streams through the scheduler of long answers; Deno.serve sends the
// length the fetch front end names, Bun.serve ignores a stream's length and sends it chunked
// (docs/runtimes.md, "The runtime's own server").
const LONG_LIST_FRAMING: Record<Runtime, { "content-length": string | null; "transfer-encoding": string | null }> = {
  deno: { "content-length": "LENGTH", "transfer-encoding": null },
  bun: { "content-length": null, "transfer-encoding": "chunked" },
};

for (const runtime of testedRuntimes(RUNTIMES)) {
  test(`on ${runtime}, a long list on the native path is the node:http path's bytes, framed as docs/runtimes.md says`, async (t) => {
    const folder = mkdtempSync(join(tmpdir(), "native-seed-"));
    t.after(() => rmSync(folder, { recursive: true, force: true }));
    writeFileSync(join(folder, "seed.json"), JSON.stringify(MANY));
    const env = { SEED_FILE: join(folder, "seed.json") };
    const [native, node] = await Promise.all([start(runtime, "native", t, env), start(runtime, "node", t, env)]);
    const [ours, theirs] = await Promise.all([fetch(`${native.url}/users`), fetch(`${node.url}/users`)]);
    const [text, expected] = await Promise.all([ours.text(), theirs.text()]);
    assert.equal(text, expected);
    assert.ok(text.length > 65_536, "the list is longer than a piece");
    assert.equal(theirs.headers.get("content-length"), String(Buffer.byteLength(expected)));
    const framing = LONG_LIST_FRAMING[runtime];
    assert.equal(ours.headers.get("content-length"), framing["content-length"]?.replace("LENGTH", String(Buffer.byteLength(text))) ?? null);
    assert.equal(ours.headers.get("transfer-encoding"), framing["transfer-encoding"]);
  });
}

// Deno.serve speaks HTTP/2 to a client that knows it does (prior knowledge), where a body comes
// with no length header: whether there is one is asked of the request.
for (const runtime of testedRuntimes(["deno"] as const)) {
  test(`on ${runtime}, a create over HTTP/2 on the native path is read and stored`, async (t) => {
    const native = await start(runtime, "native", t);
    const session = connect(native.url);
    t.after(() => void session.close());
    const stream = session.request({ ":method": "POST", ":path": "/users", "content-type": "application/json" });
    stream.end(NEW_USER);
    const [headers] = (await once(stream, "response")) as [Record<string, string | number>];
    let body = "";
    stream.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    await once(stream, "end");
    assert.equal(headers[":status"], 201);
    assert.deepEqual(JSON.parse(body), { id: 3, name: "Grace Hopper", email: "grace@example.com" });
  });
}

// The host checked behind a native server is the one its URL names: Host, or an absolute-form
// target's host, which wins over Host (RFC 9112, section 3.2.2), or HTTP/2's :authority. Deno
// hands on a request with no Host, named for the address it came to, and an absolute-form target
// as sent; Bun refuses the first itself and answers the second for its Host alone
// (docs/runtimes.md, "The runtime's own server").
const HOSTS: Record<Runtime, { none: number; absolute: number }> = {
  deno: { none: 200, absolute: 403 },
  bun: { none: 400, absolute: 200 },
};

for (const runtime of testedRuntimes(RUNTIMES)) {
  test(`on ${runtime}, the native path checks the host a request's URL names, as docs/runtimes.md says`, async (t) => {
    const native = await start(runtime, "native", t);
    const none = await rawRequest(native.url, "GET /users/1 HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert.equal(none.status, HOSTS[runtime].none);
    const host = new URL(native.url).host;
    const absolute = await rawRequest(native.url, `GET http://other.example/users/1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    assert.equal(absolute.status, HOSTS[runtime].absolute);
    if (runtime === "deno") assert.equal((JSON.parse(absolute.body) as { code: string }).code, "HOST_NOT_ALLOWED");
  });
}
