// Black-box tests of HTTP/1.1 itself: pipelining order, Expect, absolute-form targets, encodings.
import assert from "node:assert/strict";
import { test } from "node:test";
import { call } from "../support/http.ts";
import { closed, openSocket, rawRequest, readResponse, responseReader } from "../support/raw.ts";
import { fresh } from "../support/target.ts";

const GRACE = '{"id":100,"name":"Grace Hopper","email":"grace@example.com"}';
const POST_GRACE = `POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${GRACE.length}\r\n\r\n${GRACE}`;

test("pipelined requests are answered in order, each seeing the one before it", async (t) => {
  const url = await fresh(t);
  const socket = await openSocket(url);
  // All three in one write: the GET and DELETE arrive while the POST's body is still being read.
  const responses = responseReader(socket);
  socket.write(`${POST_GRACE}GET /users/100 HTTP/1.1\r\nHost: localhost\r\n\r\nDELETE /users/100 HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  const created = await responses.next();
  assert.equal(created.status, 201);
  const read = await responses.next();
  assert.equal(read.status, 200);
  assert.deepEqual(JSON.parse(read.body), JSON.parse(GRACE));
  const deleted = await responses.next();
  assert.equal(deleted.status, 204);
  socket.destroy();
  assert.equal((await call(`${url}/users/100`)).status, 404);
});

test("pipelined requests keep their order on a connection whose earlier POST was answered already", async (t) => {
  const url = await fresh(t);
  const socket = await openSocket(url);
  const responses = responseReader(socket);
  const post = (id: number) => {
    const body = JSON.stringify({ id, name: "Grace Hopper", email: "grace@example.com" });
    return `POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  };
  // The first POST, answered before anything else is sent, leaves the connection free again.
  socket.write(post(101));
  assert.equal((await responses.next()).status, 201);
  // Then the same connection pipelines a POST with a GET and a DELETE of what it creates behind it.
  socket.write(`${post(102)}GET /users/102 HTTP/1.1\r\nHost: localhost\r\n\r\nDELETE /users/102 HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  assert.equal((await responses.next()).status, 201);
  const read = await responses.next();
  assert.equal(read.status, 200);
  assert.equal(JSON.parse(read.body).id, 102);
  assert.equal((await responses.next()).status, 204);
  socket.destroy();
  assert.equal((await call(`${url}/users/102`)).status, 404);
  assert.equal((await call(`${url}/users/101`)).status, 200);
});

// The keep-alive time-out is long, and the headers time-out (10 s) longer than the test's: only the
// server's own close, once the POST's answer has gone, ends the connection within the test's time-out.
test("requests pipelined behind an answer that comes later wait in the client's socket, not the server: at most a few dozen are read", { timeout: 20_000 }, async (t) => {
  // Every API answer waits 1.5 s; /metrics, an operations route, does not.
  const url = await fresh(t, { DELAY: "1500" });
  const socket = await openSocket(url);
  t.after(() => void socket.destroy());
  socket.pause();
  const request = "GET /users/1 HTTP/1.1\r\nHost: localhost\r\n\r\n";
  // 20,000 requests, 900 KB: far more than the server may hold waiting, and as fast as the socket takes them.
  const batch = request.repeat(1_000);
  for (let i = 0; i < 20; i++) if (!socket.write(batch)) await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), new Promise((resolve) => setTimeout(resolve, 200))]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const metrics = await call(`${url}/metrics`);
  const inFlight = Number(/^http_requests_in_flight (\d+)$/m.exec(metrics.text)![1]);
  // The first, delayed, the 32 behind it, and what the parser had read when it stopped: a
  // piece of the socket's bytes. Without the bound, all 20,000 are read at once.
  assert.ok(inFlight <= 3_000, `${inFlight} requests were read and wait in the server`);
  // Read on, they are answered in turn, each after its delay.
  let answers = 0;
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
    let at: number;
    while ((at = text.indexOf("HTTP/1.1 200 OK")) !== -1) {
      answers++;
      text = text.slice(at + 15);
    }
  });
  socket.resume();
  await new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (answers >= 3) {
        clearInterval(check);
        resolve();
      }
    }, 50);
  });
  assert.ok(answers >= 3);
});

test("a client that half-closes its side after asking gets a long list whole, then the connection closes", { timeout: 20_000 }, async (t) => {
  const url = await fresh(t);
  for (let i = 0; i < 12; i++) assert.equal((await call(`${url}/users`, { method: "POST", json: { name: "n".repeat(10_000), email: `h${i}@example.com` } })).status, 201);
  const socket = await openSocket(url);
  t.after(() => void socket.destroy());
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.end("GET /users HTTP/1.0\r\nHost: localhost\r\n\r\n");
  await closed(socket);
  const whole = Buffer.concat(chunks).toString("latin1");
  const end = whole.indexOf("\r\n\r\n");
  const length = Number(/\r\ncontent-length: (\d+)\r\n/i.exec(whole.slice(0, end))![1]);
  assert.ok(length > 100_000, `${length} bytes`);
  assert.equal(Buffer.byteLength(whole.slice(end + 4), "latin1"), length);
});

test("a client that sends its body in parts, then half-closes its side with the last part, gets 201 and the record is stored", { timeout: 10_000 }, async (t) => {
  // The server ends a body read when the client's side ends before the body is whole (body.ts); a body
  // whose last byte comes with the end is whole, and must be taken.
  const url = await fresh(t);
  const body = JSON.stringify({ name: "Half Close", email: "half@example.com" });
  const socket = await openSocket(url);
  t.after(() => void socket.destroy());
  const response = readResponse(socket);
  socket.write(`POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.write(body.slice(0, 10));
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.end(body.slice(10));
  const answer = await response;
  assert.equal(answer.status, 201);
  const id = (JSON.parse(answer.body) as { id: number }).id;
  assert.deepEqual((await call(`${url}/users/${id}`)).body, { id, name: "Half Close", email: "half@example.com" });
});

test("bad bytes pipelined behind a whole POST: the POST is answered, then the connection closes", { timeout: 5_000 }, async (t) => {
  const url = await fresh(t, { KEEP_ALIVE_TIMEOUT_MS: "60000" });
  const socket = await openSocket(url);
  const response = readResponse(socket);
  socket.write(`${POST_GRACE}BOGUS\r\n\r\n`);
  const answer = await response;
  // The client is told exactly what happened to its POST: it was stored.
  assert.equal(answer.status, 201);
  await closed(socket);
  assert.equal((await call(`${url}/users/100`)).status, 200);
});

test("bad bytes on a keep-alive connection whose answers have all gone -> 400 BAD_REQUEST as JSON, then closed", async (t) => {
  const url = await fresh(t);
  const socket = await openSocket(url);
  const responses = responseReader(socket);
  socket.write("GET /users/1 HTTP/1.1\r\nHost: localhost\r\n\r\n");
  assert.equal((await responses.next()).status, 200);
  socket.write(`${POST_GRACE}GET /users/1 HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  assert.equal((await responses.next()).status, 201);
  assert.equal((await responses.next()).status, 200);
  // The connection owes nothing now: the bad bytes are a request of their own, and get their own answer.
  socket.write("THIS IS NOT HTTP\r\n\r\n");
  const refused = await responses.next();
  assert.equal(refused.status, 400);
  assert.deepEqual(JSON.parse(refused.body), { message: "The request is not valid HTTP/1.1", code: "BAD_REQUEST" });
  await closed(socket);
});

test("Expect: 100-continue gets 100 Continue, then the answer", async (t) => {
  const url = await fresh(t);
  const socket = await openSocket(url);
  const interim = new Promise<string>((resolve) => socket.once("data", (chunk) => resolve(String(chunk))));
  socket.write(`POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${GRACE.length}\r\nExpect: 100-continue\r\n\r\n`);
  assert.equal(await interim, "HTTP/1.1 100 Continue\r\n\r\n");
  const response = readResponse(socket);
  socket.write(GRACE);
  assert.equal((await response).status, 201);
  socket.destroy();
});

test("any other Expect -> 417 EXPECTATION_FAILED as JSON, with Connection: close", async (t) => {
  const url = await fresh(t);
  const response = await rawRequest(url, "GET /users/1 HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\n\r\n");
  assert.equal(response.status, 417);
  assert.equal(response.headers["content-type"], "application/json; charset=utf-8");
  assert.equal(response.headers.connection, "close");
  assert.deepEqual(JSON.parse(response.body), {
    message: "Expect: foo is not supported; send Expect: 100-continue or none",
    code: "EXPECTATION_FAILED",
  });
  assert.equal((await call(`${url}/healthz`)).status, 200);
});

test("an absolute-form target (GET http://host/users/1) is routed by its path", async (t) => {
  const url = await fresh(t);
  for (const target of ["http://localhost/users/1", "http://localhost:3000/users/1/?x=1", "HTTP://example.com/users/1"]) {
    const response = await rawRequest(url, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    assert.equal(response.status, 200, target);
    assert.equal(JSON.parse(response.body).id, 1, target);
  }
  const root = await rawRequest(url, "GET http://localhost HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  assert.equal(root.status, 404);
  assert.equal(JSON.parse(root.body).message, "No route for GET /");
});

for (const encoding of ["gzip", "deflate", "br"]) {
  test(`POST /users with Content-Encoding: ${encoding} -> 415, nothing stored`, async (t) => {
    const url = await fresh(t);
    const response = await call(`${url}/users`, {
      method: "POST",
      body: GRACE,
      headers: { "content-type": "application/json", "content-encoding": encoding },
    });
    assert.equal(response.status, 415);
    assert.deepEqual(response.body, {
      message: `Content-Encoding ${encoding} is not supported; send the body uncompressed`,
      code: "UNSUPPORTED_MEDIA_TYPE",
    });
    assert.equal((await call(`${url}/users`)).headers.get("x-total-count"), "2");
  });
}

test("POST /users with Content-Encoding: identity -> 201", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/users`, {
    method: "POST",
    body: GRACE,
    headers: { "content-type": "application/json", "content-encoding": "identity" },
  });
  assert.equal(response.status, 201);
});
