// White-box tests of src/log.ts: the access line in each format, batching, and errors and notices on stderr.
import assert from "node:assert/strict";
import { setImmediate as nextTurn } from "node:timers/promises";
import { test } from "node:test";
import { type AccessEntry, createLogger, type LogFormat } from "../src/ops/log.ts";

const ENTRY: AccessEntry = {
  method: "GET",
  path: '/users?name="Ada"\\x',
  status: 200,
  bytes: 56,
  milliseconds: 0.41234,
  requestId: "abc-1",
  remote: "::1",
};

function capture(format: LogFormat) {
  const out: string[] = [];
  const err: string[] = [];
  const logger = createLogger(format, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { logger, out, err };
}

test("a json access line is one object with the time, method, path, status, bytes, duration, request id and address", async () => {
  const { logger, out } = capture("json");
  logger.access(ENTRY);
  logger.access({ ...ENTRY, remote: undefined });
  assert.equal(out.length, 0, "lines wait for the end of the turn");
  await nextTurn();
  assert.equal(out.length, 1, "one write for the turn's lines");
  const lines = out[0]!.split("\n");
  assert.equal(lines.length, 3);
  assert.equal(lines[2], "");
  const line = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.match(line.time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual(
    { ...line, time: "" },
    { time: "", level: "info", method: "GET", path: '/users?name="Ada"\\x', status: 200, bytes: 56, durationMs: 0.412, requestId: "abc-1", remote: "::1" },
  );
  assert.equal((JSON.parse(lines[1]!) as { remote: unknown }).remote, null);
});

test("a text access line has the same fields, space-separated, for a person", async () => {
  const { logger, out } = capture("text");
  logger.access({ ...ENTRY, path: "/users/1" });
  logger.access({ ...ENTRY, path: "/users/1", remote: undefined });
  await nextTurn();
  const [first, second] = out[0]!.split("\n");
  assert.match(first!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z GET \/users\/1 200 56B 0\.412ms ::1 abc-1$/);
  assert.match(second!, / 0\.412ms - abc-1$/);
});

test("off writes no access line, and its errors and notices go to stderr as text", async () => {
  const { logger, out, err } = capture("off");
  logger.access(ENTRY);
  logger.warn("A seed was not loaded");
  logger.error("Unexpected error while answering GET /x", "abc-1", new Error("boom"));
  await nextTurn();
  logger.flush();
  assert.deepEqual(out, []);
  assert.equal(err[0], "A seed was not loaded\n");
  assert.match(err[1]!, /^\S+Z error abc-1 Unexpected error while answering GET \/x\nError: boom\n {4}at /);
});

test("json errors and notices are one object a line on stderr, the stack inside", () => {
  const { logger, err } = capture("json");
  logger.error("Unexpected error while answering GET /x", "abc-1", new Error("boom"));
  logger.error("Something without a request", undefined, "a thrown string");
  logger.warn("A torn tail was dropped");
  assert.equal(err.length, 3);
  for (const text of err) assert.equal(text.indexOf("\n"), text.length - 1, "one line each");
  const [error, plain, warning] = err.map((text) => JSON.parse(text) as Record<string, string>);
  assert.equal(error!.level, "error");
  assert.equal(error!.requestId, "abc-1");
  assert.match(error!.error!, /^Error: boom\n {4}at /);
  assert.equal(plain!.error, "a thrown string");
  assert.equal(plain!.requestId, undefined);
  assert.deepEqual({ ...warning, time: "" }, { time: "", level: "warn", message: "A torn tail was dropped" });
});

test("info writes its line at once: plain in text, an object in json", () => {
  const text = capture("text");
  text.logger.info("Listening on http://127.0.0.1:3000");
  assert.deepEqual(text.out, ["Listening on http://127.0.0.1:3000\n"]);
  const json = capture("json");
  json.logger.info("Listening on http://127.0.0.1:3000");
  assert.equal((JSON.parse(json.out[0]!) as { message: string }).message, "Listening on http://127.0.0.1:3000");
});

test("a batch past 16 KiB goes out at once, and flush writes what is left", () => {
  const { logger, out } = capture("json");
  const long = { ...ENTRY, path: `/users?q=${"a".repeat(1000)}` };
  let written = 0;
  while (out.length === 0) {
    logger.access(long);
    written++;
  }
  assert.ok(out[0]!.length >= 16 * 1024);
  assert.equal(out[0]!.split("\n").length - 1, written);
  logger.access(long);
  logger.flush();
  assert.equal(out.length, 2);
  logger.flush();
  assert.equal(out.length, 2, "nothing left, nothing written");
});

test("secret query parameters are hidden in access lines of both formats and in error lines; the rest of the target is kept", async () => {
  const path = "/users?limit=2&access_token=abc123&X-Amz-Signature=f00d&sort=name";
  const shown = "/users?limit=2&access_token=***&X-Amz-Signature=***&sort=name";
  for (const format of ["json", "text"] as const) {
    const { logger, out, err } = capture(format);
    logger.access({ ...ENTRY, path });
    await nextTurn();
    assert.equal(out.length, 1, format);
    if (format === "json") assert.equal((JSON.parse(out[0]!) as { path: string }).path, shown);
    else assert.equal(out[0]!.split(" ")[2], shown);
    logger.error(`Unexpected error while answering GET ${path}`, "abc-1", new Error("boom"));
    assert.match(err.join(""), new RegExp(`answering GET ${shown.replaceAll("?", "\\?").replaceAll("*", "\\*")}`), format);
    assert.doesNotMatch(out.join("") + err.join(""), /abc123|f00d/, format);
  }
});
