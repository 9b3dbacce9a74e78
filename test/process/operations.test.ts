// Black-box tests of what an operator sees of a server process (contract 12): the access log, request ids and /metrics.
// They read the process's stdout, so the in-process pass (TEST_TARGET unset) runs them against a node process.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { call } from "../support/http.ts";
import { processMode, runToExit } from "../support/process.ts";
import { openSocket, rawRequest, readResponse } from "../support/raw.ts";
import { durableTargets, processEnv, readListeningUrl, serverCommand, spawnTarget } from "../support/target.ts";
import { closeFirst, tempDir } from "../support/temp.ts";

const PROCESS = processMode();
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A server process whose stdout is kept whole: its start-up line, then its access log. */
async function startLogged(t: { after: (fn: () => unknown) => void }, env: Record<string, string>) {
  const data: Record<string, string> = durableTargets() ? { DATA_DIR: tempDir(t) } : {};
  const { command, args, cwd } = serverCommand(PROCESS);
  let stdout = "";
  const target = await spawnTarget(command, args, { ...data, ...env }, cwd, (chunk) => (stdout += chunk));
  closeFirst(t, () => target.close());
  // Stops the process, so that every batched line is out, and gives its stdout line by line.
  const stop = async () => {
    assert.equal(await target.stop("SIGTERM"), 0);
    return stdout.split("\n").slice(0, -1);
  };
  return { url: target.url, stop };
}

type AccessLine = {
  time: string;
  level: string;
  method: string;
  path: string;
  status: number;
  bytes: number;
  durationMs: number;
  requestId: string;
  remote: string | null;
};

test(`on ${PROCESS}, LOG_FORMAT=json prints the start-up line and then exactly one JSON line per request, whose request id is the X-Request-Id answered`, async (t) => {
  const { url, stop } = await startLogged(t, { LOG_FORMAT: "json" });
  const sent = [
    await call(`${url}/users/1`, { headers: { "x-request-id": "checkout-42" } }),
    await call(`${url}/users/999`),
    await call(`${url}/users`, { method: "POST", json: { name: "" } }),
    await call(`${url}/users?limit=1`, { method: "HEAD" }),
    // Not sane (a space, and too long): replaced by a new id, never refused.
    await call(`${url}/users/2`, { headers: { "x-request-id": "two words" } }),
    await call(`${url}/users/2`, { headers: { "x-request-id": "x".repeat(129) } }),
  ];
  const lines = await stop();
  assert.equal(lines.length, 1 + sent.length, lines.join("\n"));
  const start = JSON.parse(lines[0]!) as { time: string; level: string; message: string };
  assert.match(start.time, ISO_TIME);
  assert.deepEqual({ ...start, time: "" }, { time: "", level: "info", message: `Listening on ${url}` });

  const expected = [
    ["GET", "/users/1", 200],
    ["GET", "/users/999", 404],
    ["POST", "/users", 400],
    ["HEAD", "/users?limit=1", 200],
    ["GET", "/users/2", 200],
    ["GET", "/users/2", 200],
  ] as const;
  const ids = new Set<string>();
  for (const [index, response] of sent.entries()) {
    const line = JSON.parse(lines[index + 1]!) as AccessLine;
    const [method, path, status] = expected[index]!;
    const id = response.headers.get("x-request-id")!;
    ids.add(id);
    assert.deepEqual(Object.keys(line), ["time", "level", "method", "path", "status", "bytes", "durationMs", "requestId", "remote"]);
    assert.match(line.time, ISO_TIME);
    assert.equal(line.level, "info");
    assert.deepEqual([line.method, line.path, line.status], [method, path, status]);
    assert.equal(response.status, status);
    assert.equal(line.requestId, id);
    // The body bytes sent: none for HEAD, Content-Length for the others.
    assert.equal(line.bytes, method === "HEAD" ? 0 : Number(response.headers.get("content-length")));
    assert.ok(line.durationMs >= 0 && line.durationMs < 10_000, String(line.durationMs));
    assert.equal(line.remote, "127.0.0.1");
  }
  assert.equal(sent[0]!.headers.get("x-request-id"), "checkout-42");
  for (const response of sent.slice(4)) assert.match(response.headers.get("x-request-id")!, /^[0-9a-f]{12}-[0-9a-z]+$/);
  assert.equal(ids.size, sent.length, "every request has its own id");
});

test(`on ${PROCESS}, LOG_FORMAT=text prints one line per request with the same fields, and LOG_FORMAT=off none`, async (t) => {
  const text = await startLogged(t, { LOG_FORMAT: "text" });
  const response = await call(`${text.url}/users/1`);
  const textLines = await text.stop();
  assert.equal(textLines.length, 2);
  assert.equal(textLines[0], `Listening on ${text.url}`);
  const [time, ...rest] = textLines[1]!.split(" ");
  assert.match(time!, ISO_TIME);
  const duration = rest[4]!;
  assert.match(duration, /^\d+(\.\d+)?ms$/);
  assert.deepEqual(
    [...rest.slice(0, 4), ...rest.slice(5)],
    ["GET", "/users/1", "200", `${response.headers.get("content-length")}B`, "127.0.0.1", response.headers.get("x-request-id")],
  );

  const off = await startLogged(t, { LOG_FORMAT: "off" });
  assert.equal((await call(`${off.url}/users/1`)).status, 200);
  assert.deepEqual(await off.stop(), [`Listening on ${off.url}`]);
});

test(`on ${PROCESS}, an answer on the raw socket (malformed HTTP) carries a request id, and is logged and counted`, async (t) => {
  const { url, stop } = await startLogged(t, { LOG_FORMAT: "json" });
  const response = await rawRequest(url, "NOT HTTP AT ALL\r\n\r\n");
  assert.equal(response.status, 400);
  const id = response.headers["x-request-id"];
  assert.match(String(id), /^[0-9a-f]{12}-[0-9a-z]+$/);
  const metrics = await call(`${url}/metrics`);
  assert.ok(metrics.text.includes('http_requests_total{method="other",route="none",status="400"} 1\n'), metrics.text);
  const lines = (await stop()).map((line) => JSON.parse(line) as AccessLine);
  const logged = lines.find((line) => line.status === 400)!;
  assert.deepEqual([logged.method, logged.path, logged.requestId, logged.remote], ["-", "-", id, "127.0.0.1"]);
  assert.equal(logged.bytes, Buffer.byteLength(response.body));
});

/** The samples of a scrape: `name{labels}` to value. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    found.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return found;
}

test(`on ${PROCESS}, /metrics's request counters grow by exactly the requests sent (promtool.test.ts checks its format)`, async (t) => {
  const { url } = await startLogged(t, {});
  // One of each kind first, so that every family has samples.
  await call(`${url}/users/1`);
  await call(`${url}/nowhere`);
  const first = await call(`${url}/metrics`);
  assert.equal(first.status, 200);
  assert.equal(first.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  assert.equal(first.headers.get("content-length"), String(Buffer.byteLength(first.text)));

  const reads = 7;
  const misses = 3;
  for (let i = 0; i < reads; i++) await call(`${url}/users/1`);
  for (let i = 0; i < misses; i++) await call(`${url}/users/${100 + i}`);
  for (let i = 0; i < misses; i++) await call(`${url}/nowhere/${i}`);
  await call(`${url}/users`, { method: "POST", json: { name: "Grace Hopper", email: "grace@example.com" } });
  await call(`${url}/users`, { method: "PATCH" });
  await call(`${url}/users/1`, { method: "PURGE" });
  const second = await call(`${url}/metrics`);
  const before = samples(first.text);
  const after = samples(second.text);
  const grew = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  assert.equal(grew('http_requests_total{method="GET",route="/users/:id",status="200"}'), reads);
  assert.equal(grew('http_requests_total{method="GET",route="/users/:id",status="404"}'), misses);
  assert.equal(grew('http_requests_total{method="GET",route="none",status="404"}'), misses);
  assert.equal(grew('http_requests_total{method="POST",route="/users",status="201"}'), 1);
  assert.equal(grew('http_requests_total{method="PATCH",route="/users",status="405"}'), 1);
  // A method no route knows is counted as other, so that clients cannot grow the label set.
  assert.equal(grew('http_requests_total{method="other",route="/users/:id",status="405"}'), 1);
  // The first scrape is counted once it is answered.
  assert.equal(grew('http_requests_total{method="GET",route="/metrics",status="200"}'), 1);
  const counted = [...after].filter(([key]) => key.startsWith("http_requests_total")).reduce((sum, [, value]) => sum + value, 0);
  assert.equal(counted, 2 + 1 + reads + 2 * misses + 3, "every answered request is counted once, the scrape being answered not yet");
  assert.equal(grew('http_request_duration_seconds_count{route="/users/:id"}'), reads + misses + 1);
  assert.equal(after.get('http_request_duration_seconds_bucket{route="/users/:id",le="+Inf"}'), after.get('http_request_duration_seconds_count{route="/users/:id"}'));
  assert.equal(after.get("http_requests_in_flight"), 1, "the scrape itself");
  assert.equal(after.get('rest_records{collection="users"}'), 3);
  assert.equal(after.get('rest_records{collection="posts"}'), 0);
  assert.ok(after.get("process_resident_memory_bytes")! > 1_000_000);
  assert.ok(after.get("process_uptime_seconds")! >= 0);
  if (durableTargets()) assert.ok(after.get('rest_store_duration_seconds_count{operation="sync"}')! >= 1);
});

test(`on ${PROCESS}, METRICS=off answers /metrics 404 like any unknown path`, async (t) => {
  const { url } = await startLogged(t, { METRICS: "off" });
  const response = await call(`${url}/metrics`);
  assert.equal(response.status, 404);
  assert.deepEqual(response.body, { message: "No route for GET /metrics", code: "ROUTE_NOT_FOUND" });
});

test(`on ${PROCESS}, a setting that stops the process is one plain line on stderr whatever LOG_FORMAT says`, async () => {
  const { code, stdout, stderr } = await runToExit({ LOG_FORMAT: "json", PORT: "80a" });
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr, 'PORT must be a whole number from 0 to 65535, not "80a"\n');
});

test(`on ${PROCESS}, a request whose body times out gets a 408 with its own X-Request-Id, logged with its method and target`, async (t) => {
  const { url, stop } = await startLogged(t, { LOG_FORMAT: "json", REQUEST_TIMEOUT_MS: "400", HEADERS_TIMEOUT_MS: "400" });
  const socket = await openSocket(url);
  const answer = readResponse(socket);
  socket.write("POST /users HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: trace-9\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{");
  const response = await answer;
  socket.destroy();
  assert.equal(response.status, 408);
  assert.equal(response.headers["x-request-id"], "trace-9");
  const lines = (await stop()).slice(1).map((line) => JSON.parse(line) as AccessLine);
  assert.deepEqual(
    lines.map((line) => [line.method, line.path, line.status, line.requestId]),
    [["POST", "/users", 408, "trace-9"]],
  );
});

test(`on ${PROCESS}, a server whose stdout reader goes away says so once on stderr and goes on serving`, async (t) => {
  const { command, args, cwd } = serverCommand(PROCESS);
  const data: Record<string, string> = durableTargets() ? { DATA_DIR: tempDir(t) } : {};
  const child = spawn(command, args, { cwd, env: processEnv({ ...data, LOG_FORMAT: "json" }), stdio: ["ignore", "pipe", "pipe"] });
  closeFirst(t, () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const url = await readListeningUrl(child);
  // The reader of its stdout is gone: the next access lines meet a broken pipe.
  child.stdout!.destroy();
  for (let i = 0; i < 5; i++) {
    assert.equal((await call(`${url}/users/1`)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(child.exitCode, null, "still running");
  child.kill("SIGTERM");
  const [code] = (await once(child, "exit")) as [number | null];
  assert.equal(code, 0);
  assert.equal(stderr, "stdout cannot be written to (its reader has gone); access lines are dropped from now on\n");
});
