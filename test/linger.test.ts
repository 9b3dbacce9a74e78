// White-box tests of src/linger.ts over real sockets: a refused body is drained briefly, never reset.
import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { LINGER_MS, lingerOnClose } from "../src/http/linger.ts";
import { startServer } from "../src/http/server.ts";
import { openSocket, readResponse } from "./support/raw.ts";

test("LINGER_MS keeps a refused connection at most a second", () => {
  assert.equal(LINGER_MS, 1000);
});

test("after a 413 mid-body the client can go on sending its body without a reset, then the connection closes", async (t) => {
  const api = await startServer({ bodyLimit: 1000 });
  t.after(() => api.close());
  const socket = await openSocket(api.url);
  const errors: Error[] = [];
  socket.on("error", (error) => errors.push(error));
  const response = readResponse(socket);
  socket.write("POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n");
  const answer = await response;
  assert.equal(answer.status, 413);
  assert.equal(answer.headers.connection, "close");
  // The rest of the body still arrives; a server that closed at once would reset it.
  const ended = once(socket, "end");
  for (let sent = 0; sent < 2_000_000; sent += 65_536) socket.write(Buffer.alloc(65_536, 0x61));
  await ended;
  socket.end();
  await once(socket, "close");
  assert.deepEqual(errors, []);
});

test("lingerOnClose leaves a socket without destroySoon as it is", () => {
  const calls: string[] = [];
  const socket = { end: () => calls.push("end"), destroy: () => calls.push("destroy"), once: () => undefined };
  lingerOnClose(socket);
  assert.equal("destroySoon" in socket, false);
  assert.deepEqual(calls, []);
});
