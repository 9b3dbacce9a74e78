// HTTP_SERVER=native: the command on Deno.serve and Bun.serve answers the API as it does on the
// node:http compatibility layer, through the fetch front end; and what the native server does
// with the rules it owns, as docs/runtimes.md ("The runtime's own server") says.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { closed, openSocket, rawRequest } from "./support/raw.ts";
import { ensureTestedRuntimes, testedRuntimes } from "./support/runtimes.ts";
import { runtimeBinary, spawnTarget, type Target } from "./support/target.ts";

const RUNTIMES = ["deno", "bun"] as const;
type Runtime = (typeof RUNTIMES)[number];

const ARGS: Record<Runtime, string[]> = {
  deno: ["run", "--allow-net", "--allow-env", "--allow-read", "src/main.ts"],
  bun: ["src/main.ts"],
};

// Short time-outs, so that the node:http path closes a silent connection within a second.
const SHORT = { HEADERS_TIMEOUT_MS: "300", REQUEST_TIMEOUT_MS: "600", KEEP_ALIVE_TIMEOUT_MS: "1000" };

before(() => ensureTestedRuntimes(RUNTIMES));

async function start(runtime: Runtime, httpServer: "native" | "node", t: { after: (fn: () => Promise<void>) => void }): Promise<Target> {
  const target = await spawnTarget(runtimeBinary(runtime), ARGS[runtime], { HTTP_SERVER: httpServer, ...SHORT });
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
