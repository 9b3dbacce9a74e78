// Black-box tests of contract 7's graceful shutdown: SIGTERM or SIGINT, in-flight requests finish, idle connections go, exit 0.
import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { test } from "node:test";
import { closed, openSocket, readResponse } from "../support/raw.ts";
import { startTarget, type Target } from "../support/target.ts";

const GRACE = '{"name":"Grace Hopper","email":"grace@example.com"}';

/** Starts a target that the test itself shuts down; `after` only cleans up if the test failed first. */
async function target(t: { after: (fn: () => Promise<void>) => void }, env?: Record<string, string>): Promise<Target> {
  const started = await startTarget(env);
  t.after(() => started.close());
  return started;
}

/**
 * Sends the head of a POST /users with `Expect: 100-continue` and resolves once the
 * server answers `100 Continue`: the request is then in flight, with its body unsent.
 */
async function inFlightPost(url: string): Promise<Socket> {
  const socket = await openSocket(url);
  socket.on("error", () => {});
  const head =
    "POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
    `Expect: 100-continue\r\nContent-Length: ${Buffer.byteLength(GRACE)}\r\n\r\n`;
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("latin1");
      if (!seen.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      if (seen.startsWith("HTTP/1.1 100 ")) resolve();
      else reject(new Error(`Expected 100 Continue, got ${JSON.stringify(seen)}`));
    };
    socket.on("data", onData);
    socket.write(head);
  });
  return socket;
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal} while a request is in flight lets it finish with its answer, then the server exits 0`, async (t) => {
    const server = await target(t);
    const socket = await inFlightPost(server.url);
    t.after(() => void socket.destroy());
    const exited = server.stop(signal);
    const answer = readResponse(socket);
    socket.write(GRACE);
    const response = await answer;
    assert.equal(response.status, 201, response.body);
    assert.deepEqual(JSON.parse(response.body), { id: 3, ...JSON.parse(GRACE) });
    await closed(socket);
    assert.equal(await exited, 0);
  });
}

test("SIGTERM closes an idle keep-alive connection at once, well before the shutdown deadline, and exits 0", async (t) => {
  const deadline = 5_000;
  const server = await target(t, { SHUTDOWN_TIMEOUT_MS: String(deadline) });
  const socket = await openSocket(server.url);
  t.after(() => void socket.destroy());
  const answer = readResponse(socket);
  socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
  const response = await answer;
  assert.equal(response.status, 200);
  assert.notEqual(response.headers.connection, "close");
  const began = Date.now();
  const exited = server.stop("SIGTERM");
  await closed(socket);
  assert.equal(await exited, 0);
  const took = Date.now() - began;
  assert.ok(took < deadline, `shutdown took ${took} ms: the idle connection was left to the deadline`);
});

test("a request still unfinished when SHUTDOWN_TIMEOUT_MS has passed is cut, and the server exits 0", async (t) => {
  const deadline = 300;
  const server = await target(t, { SHUTDOWN_TIMEOUT_MS: String(deadline) });
  const socket = await inFlightPost(server.url);
  t.after(() => void socket.destroy());
  const began = Date.now();
  const exited = server.stop("SIGTERM");
  // The body never comes: only the deadline can end this connection.
  await closed(socket);
  const took = Date.now() - began;
  assert.ok(took >= deadline - 50, `the connection was cut after ${took} ms, before the ${deadline} ms deadline`);
  assert.equal(await exited, 0);
});

test("SIGTERM sent the moment the server says it listens still shuts it down cleanly with exit 0", async (t) => {
  // A supervisor may stop a server as soon as it is ready; the signal must not find the default action.
  for (let round = 0; round < 5; round++) {
    const server = await target(t);
    assert.equal(await server.stop("SIGTERM"), 0, `round ${round + 1}: the process did not exit 0`);
  }
});
