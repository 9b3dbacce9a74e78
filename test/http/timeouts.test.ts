// Black-box tests of contract 7's time-outs: stalled headers, stalled bodies and idle keep-alive connections are closed.
import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { test } from "node:test";
import { closed, openSocket, readResponse } from "../support/raw.ts";
import { fresh } from "../support/target.ts";

// Short time-outs, so each case takes well under a second where the defaults would take 10 to 30 s.
const HEADERS_MS = 300;
const REQUEST_MS = 600;
const KEEP_ALIVE_MS = 200;
const SHORT = {
  HEADERS_TIMEOUT_MS: String(HEADERS_MS),
  REQUEST_TIMEOUT_MS: String(REQUEST_MS),
  KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
};
// How late a close may come: a time-out is checked on an interval, and Node adds a
// second of grace to the keep-alive time-out; a busy CI machine adds more.
const SLACK_MS = 3_000;
// Timers may fire a little early against Date.now.
const EARLY_MS = 50;

/** Resolves with how many milliseconds after `since` the server closed the socket. */
async function closedAfter(socket: Socket, since: number): Promise<number> {
  await closed(socket);
  return Date.now() - since;
}

function assertWithin(elapsed: number, limit: number, what: string): void {
  assert.ok(elapsed >= limit - EARLY_MS, `${what} was closed after ${elapsed} ms, before its ${limit} ms`);
  assert.ok(elapsed <= limit + SLACK_MS, `${what} was still open ${elapsed} ms later; the limit is ${limit} ms`);
}

test("a connection that stops halfway through its headers gets 408 REQUEST_TIMEOUT and is closed", async (t) => {
  const url = await fresh(t, SHORT);
  const socket = await openSocket(url);
  t.after(() => void socket.destroy());
  const answer = readResponse(socket);
  const started = Date.now();
  socket.write("GET /users HTTP/1.1\r\nHost: localhost\r\n");
  const response = await answer;
  assert.equal(response.status, 408);
  assert.equal(JSON.parse(response.body).code, "REQUEST_TIMEOUT");
  assertWithin(await closedAfter(socket, started), HEADERS_MS, "the connection");
});

test("a connection that sends a header line now and then is still closed when its headers time is up", async (t) => {
  const url = await fresh(t, SHORT);
  const socket = await openSocket(url);
  const started = Date.now();
  socket.write("GET /users HTTP/1.1\r\nHost: localhost\r\n");
  // The server may reset the connection while a write is on its way; that is the point.
  socket.on("error", () => {});
  // A slow-loris client: always active, never done.
  const trickle = setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 50);
  t.after(() => {
    clearInterval(trickle);
    socket.destroy();
  });
  const response = await readResponse(socket);
  assert.equal(response.status, 408);
  assertWithin(await closedAfter(socket, started), HEADERS_MS, "the connection");
});

test("a connection that says nothing at all is closed when its headers time is up", async (t) => {
  const url = await fresh(t, SHORT);
  const started = Date.now();
  const socket = await openSocket(url);
  t.after(() => void socket.destroy());
  assertWithin(await closedAfter(socket, started), HEADERS_MS, "the silent connection");
});

test("POST /users whose body stalls gets 408 REQUEST_TIMEOUT and is closed when the request time is up", async (t) => {
  const url = await fresh(t, SHORT);
  const socket = await openSocket(url);
  const started = Date.now();
  socket.write("POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
  socket.on("error", () => {});
  // The body keeps coming, a byte at a time, so only the whole-request deadline can end it.
  const trickle = setInterval(() => socket.writable && socket.write(" "), 50);
  t.after(() => {
    clearInterval(trickle);
    socket.destroy();
  });
  const response = await readResponse(socket);
  assert.equal(response.status, 408);
  assert.equal(JSON.parse(response.body).code, "REQUEST_TIMEOUT");
  assertWithin(await closedAfter(socket, started), REQUEST_MS, "the connection");
});

test("an idle keep-alive connection is closed once KEEP_ALIVE_TIMEOUT_MS has passed since its answer", async (t) => {
  const url = await fresh(t, SHORT);
  const socket = await openSocket(url);
  t.after(() => void socket.destroy());
  const answer = readResponse(socket);
  socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
  const response = await answer;
  const answered = Date.now();
  assert.equal(response.status, 200);
  assert.notEqual(response.headers.connection, "close");
  assertWithin(await closedAfter(socket, answered), KEEP_ALIVE_MS, "the idle connection");
});

test("a keep-alive connection serves a second request sent before its idle time is up", async (t) => {
  const url = await fresh(t, SHORT);
  const socket = await openSocket(url);
  t.after(() => void socket.destroy());
  for (const path of ["/healthz", "/users/1"]) {
    const answer = readResponse(socket);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    assert.equal((await answer).status, 200, path);
  }
});
