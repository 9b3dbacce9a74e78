// White-box tests of src/metrics.ts and of the metrics an instance serves: counts, the histograms, the gauges, the text format.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { once } from "node:events";
import { test } from "node:test";
import { createApp } from "../src/http/app.ts";
import { createMetrics, METRICS_TYPE } from "../src/ops/metrics.ts";
import { startServer } from "../src/http/server.ts";
import { call } from "./support/http.ts";
import { closeFirst, tempDir } from "./support/temp.ts";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

function sample(text: string, key: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${key} `));
  return line === undefined ? undefined : Number(line.slice(key.length + 1));
}

test("the metrics count answers by method, route and status, and an unknown method as other", () => {
  const metrics = createMetrics({ records: () => ({ users: 2 }) });
  metrics.arrived();
  metrics.answered("GET", "/users/:id", 200, 0.3);
  metrics.arrived();
  metrics.answered("GET", "/users/:id", 200, 0.3);
  metrics.arrived();
  metrics.answered("BREW", "none", 404, 0.1);
  const text = metrics.render() as string;
  assert.equal(sample(text, 'http_requests_total{method="GET",route="/users/:id",status="200"}'), 2);
  assert.equal(sample(text, 'http_requests_total{method="other",route="none",status="404"}'), 1);
  assert.equal(sample(text, "http_requests_in_flight"), 0);
  assert.equal(sample(text, 'rest_records{collection="users"}'), 2);
});

test("answers that differ from the last one counted only in route, method or status are counted apart; unknown methods share other", () => {
  const metrics = createMetrics({ records: () => ({}) });
  const answers: Array<[string, string, number]> = [
    ["GET", "/users/:id", 200],
    ["GET", "/users/:id", 200],
    ["GET", "/users/:id", 404],
    ["GET", "/users/:id", 200],
    ["HEAD", "/users/:id", 200],
    ["GET", "/users", 200],
    ["GET", "/users/:id", 200],
    ["BREW", "none", 404],
    ["FOO", "none", 404],
    ["BREW", "none", 404],
  ];
  for (const [method, route, status] of answers) metrics.answered(method, route, status, 0.2);
  const text = metrics.render() as string;
  const total = (method: string, route: string, status: number) =>
    sample(text, `http_requests_total{method="${method}",route="${route}",status="${status}"}`);
  assert.equal(total("GET", "/users/:id", 200), 4);
  assert.equal(total("GET", "/users/:id", 404), 1);
  assert.equal(total("HEAD", "/users/:id", 200), 1);
  assert.equal(total("GET", "/users", 200), 1);
  assert.equal(total("other", "none", 404), 3);
  assert.equal(text.split("\n").filter((line) => line.startsWith("http_requests_total{")).length, 5);
  // Each answer's time goes to its own route's histogram.
  assert.equal(sample(text, 'http_request_duration_seconds_count{route="/users/:id"}'), 6);
  assert.equal(sample(text, 'http_request_duration_seconds_count{route="/users"}'), 1);
  assert.equal(sample(text, 'http_request_duration_seconds_count{route="none"}'), 3);
});

test("the latency histogram's buckets are cumulative, with +Inf, a sum in seconds and a count", () => {
  const metrics = createMetrics({ records: () => ({}) });
  for (const milliseconds of [0.05, 0.2, 0.2, 3, 20_000]) metrics.answered("GET", "/users", 200, milliseconds);
  const text = metrics.render() as string;
  const bucket = (le: string) => sample(text, `http_request_duration_seconds_bucket{route="/users",le="${le}"}`);
  assert.equal(bucket("0.0001"), 1);
  assert.equal(bucket("0.00025"), 3);
  assert.equal(bucket("0.0025"), 3);
  assert.equal(bucket("0.005"), 4);
  assert.equal(bucket("10"), 4);
  assert.equal(bucket("+Inf"), 5);
  assert.equal(sample(text, 'http_request_duration_seconds_count{route="/users"}'), 5);
  assert.ok(Math.abs(sample(text, 'http_request_duration_seconds_sum{route="/users"}')! - 20.00345) < 1e-9);
});

test("requests in flight are those arrived and neither answered nor given up; a raw-socket answer was never in flight", () => {
  const metrics = createMetrics({ records: () => ({}) });
  metrics.arrived();
  metrics.arrived();
  metrics.arrived();
  metrics.answered("GET", "/users", 200, 1);
  metrics.abandoned();
  metrics.answeredRaw(400);
  const text = metrics.render() as string;
  assert.equal(sample(text, "http_requests_in_flight"), 1);
  assert.equal(sample(text, 'http_requests_total{method="other",route="none",status="400"}'), 1);
});

test("the store's latency appears once the store reports it, by operation", () => {
  const metrics = createMetrics({ records: () => ({}) });
  assert.doesNotMatch(metrics.render() as string, /rest_store_duration_seconds/);
  metrics.storeTook("sync", 2);
  const text = metrics.render() as string;
  assert.match(text, /^# TYPE rest_store_duration_seconds histogram$/m);
  assert.equal(sample(text, 'rest_store_duration_seconds_count{operation="sync"}'), 1);
  assert.equal(sample(text, 'rest_store_duration_seconds_sum{operation="sync"}'), 0.002);
});

test("label values are escaped as the text format asks: backslash, quote and newline", () => {
  const metrics = createMetrics({ records: () => ({ 'a"b\\c\nd': 1 }) });
  assert.equal(sample(metrics.render() as string, 'rest_records{collection="a\\"b\\\\c\\nd"}'), 1);
});

test("a store that counts later makes render a promise of the same text", async () => {
  const metrics = createMetrics({ records: () => Promise.resolve({ users: 7 }) });
  const rendered = metrics.render();
  assert.ok(rendered instanceof Promise);
  assert.equal(sample(await rendered, 'rest_records{collection="users"}'), 7);
});

test("a store that cannot count (a database that is down) leaves the records out, and the rest is served", async () => {
  const metrics = createMetrics({ records: () => Promise.reject(new Error("connection refused")) });
  metrics.answered("GET", "/users", 503, 1);
  const text = await metrics.render();
  assert.doesNotMatch(text, /rest_records/);
  assert.equal(sample(text, 'http_requests_total{method="GET",route="/users",status="503"}'), 1);
});

test("every family has HELP and TYPE lines before its samples", () => {
  const metrics = createMetrics({ records: () => ({ users: 1 }) });
  metrics.answered("GET", "/users", 200, 1);
  metrics.storeTook("sync", 1);
  const text = metrics.render() as string;
  const families = new Set<string>();
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    const declared = /^# TYPE (\S+) (counter|gauge|histogram)$/.exec(line);
    if (declared) assert.match(lines[index - 1]!, new RegExp(`^# HELP ${declared[1]} \\S`), `HELP before ${line}`);
    if (declared) families.add(declared[1]!);
    else if (line !== "" && !line.startsWith("# HELP ")) {
      const name = /^[a-z_]+/.exec(line)![0];
      assert.ok([...families].some((family) => name === family || name.startsWith(`${family}_`)), line);
    }
  }
  assert.ok(text.endsWith("\n"));
});

test("startServer with a data directory reports each journal sync's time", async (t) => {
  const dir = tempDir(t);
  const server = await startServer({ dataDir: dir });
  closeFirst(t, () => server.close());
  assert.equal((await call(`${server.url}/users`, { method: "POST", json: { name: "Grace Hopper", email: "grace@example.com" } })).status, 201);
  const text = (await call(`${server.url}/metrics`)).text;
  assert.ok(sample(text, 'rest_store_duration_seconds_count{operation="sync"}')! >= 1);
  assert.equal(sample(text, 'rest_records{collection="users"}'), 3);
});

test("startServer and createApp serve /metrics by default, as text/plain 0.0.4, and not with metrics: false", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const response = await call(`${server.url}/metrics`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), METRICS_TYPE);
  const head = await fetch(`${server.url}/metrics`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");

  const off = await startServer({ metrics: false });
  t.after(() => off.close());
  assert.equal((await call(`${off.url}/metrics`)).status, 404);

  const mounted = createServer(createApp({ metrics: false }));
  mounted.listen(0, "127.0.0.1");
  await once(mounted, "listening");
  t.after(() => new Promise<void>((resolve) => mounted.close(() => resolve())));
  assert.equal((await call(`http://127.0.0.1:${(mounted.address() as AddressInfo).port}/metrics`)).status, 404);
});

test("a request whose client hangs up mid-body is no longer in flight", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const socket = connect(server.port, "127.0.0.1");
  await once(socket, "connect");
  socket.write("POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(sample((await call(`${server.url}/metrics`)).text, "http_requests_in_flight"), 2);
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(sample((await call(`${server.url}/metrics`)).text, "http_requests_in_flight"), 1);
});

test("startServer and createApp refuse a log format they do not know", async () => {
  await assert.rejects(startServer({ logFormat: "xml" as never }), { name: "TypeError", message: "logFormat must be json, text, off" });
  assert.throws(() => createApp({ logFormat: "loud" as never }), { name: "TypeError", message: "logFormat must be json, text, off" });
});
