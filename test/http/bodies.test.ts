// Black-box tests of request bodies: every bad input of contract 3, in its order, over a real socket.
import assert from "node:assert/strict";
import { test } from "node:test";
import { assertJsonHeaders, call } from "../support/http.ts";
import { closed, openSocket, rawRequest, readResponse } from "../support/raw.ts";
import { fresh, socketOnly, startTarget } from "../support/target.ts";

const SEEDED = [
  { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
  { id: 2, name: "Alan Turing", email: "alan@example.com" },
];
const VALID = JSON.stringify({ name: "Grace Hopper", email: "grace@example.com" });

type Case = { label: string; type?: string; body: string | Uint8Array; status: number; code: string; message?: string };

const BAD_BODIES: Case[] = [
  { label: "no Content-Type", body: VALID, status: 415, code: "UNSUPPORTED_MEDIA_TYPE",
    message: "Content-Type must be application/json; the header is missing" },
  { label: "Content-Type text/plain", type: "text/plain", body: VALID, status: 415, code: "UNSUPPORTED_MEDIA_TYPE",
    message: "Content-Type must be application/json" },
  { label: "Content-Type application/x-www-form-urlencoded", type: "application/x-www-form-urlencoded",
    body: "name=a", status: 415, code: "UNSUPPORTED_MEDIA_TYPE" },
  { label: "Content-Type application/jsonp", type: "application/jsonp", body: VALID, status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE" },
  { label: "charset latin1", type: "application/json; charset=latin1", body: VALID, status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE", message: "Content-Type charset must be utf-8" },
  { label: "an empty body", type: "application/json", body: "", status: 400, code: "EMPTY_BODY",
    message: "Request body is empty; send a JSON object" },
  { label: "a blank body", type: "application/json", body: " \r\n\t", status: 400, code: "EMPTY_BODY" },
  { label: "malformed JSON", type: "application/json", body: "{name: 'x'}", status: 400, code: "INVALID_JSON",
    message: "Request body is malformed JSON" },
  { label: "truncated JSON", type: "application/json", body: VALID.slice(0, -3), status: 400, code: "INVALID_JSON" },
  { label: "a trailing comma", type: "application/json", body: '{"name":"a",}', status: 400, code: "INVALID_JSON" },
  { label: "two JSON values", type: "application/json", body: "{}{}", status: 400, code: "INVALID_JSON" },
  { label: "invalid UTF-8", type: "application/json", body: Uint8Array.of(0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d),
    status: 400, code: "INVALID_ENCODING", message: "Request body must be valid UTF-8" },
  { label: "an array", type: "application/json", body: "[]", status: 400, code: "BODY_NOT_OBJECT",
    message: "Request body must be a JSON object, not an array" },
  { label: "a string", type: "application/json", body: '"user"', status: 400, code: "BODY_NOT_OBJECT",
    message: "Request body must be a JSON object, not a string" },
  { label: "a number", type: "application/json", body: "42", status: 400, code: "BODY_NOT_OBJECT",
    message: "Request body must be a JSON object, not a number" },
  { label: "true", type: "application/json", body: "true", status: 400, code: "BODY_NOT_OBJECT",
    message: "Request body must be a JSON object, not a boolean" },
  { label: "false", type: "application/json", body: "false", status: 400, code: "BODY_NOT_OBJECT" },
  { label: "null", type: "application/json", body: "null", status: 400, code: "BODY_NOT_OBJECT",
    message: "Request body must be a JSON object, not null" },
  { label: "a top-level __proto__", type: "application/json", body: '{"__proto__":{"admin":true},"name":"a"}',
    status: 400, code: "FORBIDDEN_KEY", message: 'Request body must not have a member named "__proto__"' },
  { label: "a nested constructor", type: "application/json", body: '{"a":{"b":{"constructor":{"prototype":1}}}}',
    status: 400, code: "FORBIDDEN_KEY", message: 'Request body must not have a member named "constructor"' },
  { label: "a prototype inside an array", type: "application/json", body: '{"a":[1,{"prototype":{}}]}',
    status: 400, code: "FORBIDDEN_KEY", message: 'Request body must not have a member named "prototype"' },
  { label: "an escaped __proto__", type: "application/json", body: '{"\\u005f_proto__":{}}', status: 400,
    code: "FORBIDDEN_KEY" },
  { label: "65 levels of nesting", type: "application/json", body: `{"a":${"[".repeat(64)}${"]".repeat(64)}}`,
    status: 400, code: "BODY_TOO_DEEP", message: "Request body must not be nested deeper than 64 levels" },
  { label: "90,000 levels of nesting", type: "application/json",
    body: `{"a":${"[".repeat(90_000)}${"]".repeat(90_000)}}`, status: 400, code: "BODY_TOO_DEEP" },
  { label: "90,000 unclosed levels", type: "application/json", body: `{"a":${"[".repeat(90_000)}`, status: 400,
    code: "INVALID_JSON" },
  { label: "a number too large to hold", type: "application/json", body: '{"name":"a","email":"a@b.io","n":1e400}',
    status: 400, code: "NUMBER_OUT_OF_RANGE", message: "Request body has a number too large to be held" },
  // Size comes before the JSON itself (contract 3): what a body holds is counted before it is parsed.
  { label: "100,001 values (empty objects) within BODY_LIMIT", type: "application/json",
    body: `{"name":"a","email":"a@b.io","z":[${"{},".repeat(99_997)}{}]}`, status: 413, code: "BODY_TOO_LARGE",
    message: "Request body must not hold more than 100000 values (members, elements and what they hold)" },
  { label: "100,001 values, malformed", type: "application/json", body: `{"z":[${"0,".repeat(100_000)}`, status: 413,
    code: "BODY_TOO_LARGE" },
  // Nesting past the limit is a 400 whatever the count: 100,000 levels (200 KB) hold 100,001 values.
  { label: "100,000 levels of nesting (200 KB, 100,001 values)", type: "application/json",
    body: `{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}`, status: 400, code: "BODY_TOO_DEEP",
    message: "Request body must not be nested deeper than 64 levels" },
  { label: "400,000 levels of nesting (800 KB)", type: "application/json",
    body: `{"a":${"[".repeat(400_000)}${"]".repeat(400_000)}}`, status: 400, code: "BODY_TOO_DEEP" },
  { label: "100,001 values 64 levels deep", type: "application/json",
    body: `{"a":${"[".repeat(62)}[${"0,".repeat(100_000)}0]${"]".repeat(62)}}`, status: 413, code: "BODY_TOO_LARGE" },
];

test("POST /users with exactly 100,000 values -> 201; commas and brackets inside strings are not counted", async (t) => {
  const url = await fresh(t);
  // The object, its 3 members' values, the array's 99,996 elements: 100,000 values.
  const body = `{"name":"a,[{","email":"a@b.io","z":[${"0,".repeat(99_995)}0]}`;
  const response = await call(`${url}/users`, { method: "POST", body: Buffer.from(body), headers: { "content-type": "application/json" } });
  assert.equal(response.status, 201, response.text);
});

for (const method of ["POST", "PUT"] as const) {
  const path = method === "POST" ? "/users" : "/users/1";
  for (const { label, type, body, status, code, message } of BAD_BODIES) {
    test(`${method} ${path} with ${label} -> ${status} ${code}, nothing stored, and the server serves on`, async (t) => {
      const url = await fresh(t);
      const response = await call(url + path, {
        method,
        // Bytes, not a string: fetch would add a text/plain Content-Type to a string.
        body: typeof body === "string" ? Buffer.from(body) : body,
        headers: type === undefined ? {} : { "content-type": type },
      });
      assert.equal(response.status, status);
      assertJsonHeaders(response);
      const error = response.body as { message: string; code: string };
      assert.equal(error.code, code);
      if (message !== undefined) assert.equal(error.message, message);
      assert.deepEqual(Object.keys(error), ["message", "code"]);
      assert.deepEqual((await call(`${url}/users`)).body, SEEDED);
    });
  }
}

test("POST /users accepts a media type in any case and a quoted UTF-8 charset", async (t) => {
  const url = await fresh(t);
  for (const type of ["APPLICATION/JSON", "application/json;charset=UTF-8", 'Application/Json; Charset="utf-8"']) {
    const response = await call(`${url}/users`, { method: "POST", body: VALID, headers: { "content-type": type } });
    assert.equal(response.status === 201 || response.status === 409, true, type);
  }
  assert.equal((await call(`${url}/users/3`)).status, 200);
});

test("POST /users accepts 64 levels of nesting", async (t) => {
  const url = await fresh(t);
  const deep = `${"[".repeat(63)}${"]".repeat(63)}`;
  const response = await call(`${url}/users`, { method: "POST", json: { name: "a", email: "a@b.io", deep: JSON.parse(deep) } });
  assert.equal(response.status, 201);
});

test("POST /users with a body of exactly BODY_LIMIT bytes -> 201; one byte more -> 413", async (t) => {
  const url = await fresh(t, { BODY_LIMIT: "100" });
  const base = '{"name":"a","email":"a@b.io","pad":""}';
  const exact = base.replace('""', `"${"x".repeat(100 - base.length)}"`);
  assert.equal(Buffer.byteLength(exact), 100);
  const fits = await call(`${url}/users`, { method: "POST", body: exact, headers: { "content-type": "application/json" } });
  assert.equal(fits.status, 201);
  const over = await call(`${url}/users`, { method: "POST", body: `${exact} `, headers: { "content-type": "application/json" } });
  assert.equal(over.status, 413);
  assertJsonHeaders(over);
  assert.deepEqual(over.body, { message: "Request body must not be larger than 100 bytes", code: "BODY_TOO_LARGE" });
  assert.equal((await call(`${url}/users`)).headers.get("x-total-count"), "3");
});

test("a declared Content-Length over the limit -> 413 before any of the body is sent, then the connection closes", async (t) => {
  const url = await fresh(t, { BODY_LIMIT: "1000" });
  const socket = await openSocket(url);
  const response = readResponse(socket);
  // Only the headers are sent: an answer proves the server did not wait for the body.
  socket.write("POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000001\r\n\r\n");
  const { status, headers, body } = await response;
  assert.equal(status, 413);
  assert.equal(headers.connection, "close");
  assert.equal(JSON.parse(body).code, "BODY_TOO_LARGE");
  await closed(socket);
  assert.equal((await call(`${url}/users`)).headers.get("x-total-count"), "2");
});

test("a chunked body is counted as it arrives: 413 once past the limit, before the body ends", async (t) => {
  const url = await fresh(t, { BODY_LIMIT: "100" });
  const socket = await openSocket(url);
  const response = readResponse(socket);
  socket.write("POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
  // 128 bytes in two chunks and no final chunk: the body never ends, yet the answer comes.
  const chunk = `40\r\n${"x".repeat(64)}\r\n`;
  socket.write(chunk + chunk);
  const { status, headers, body } = await response;
  assert.equal(status, 413);
  assert.equal(headers.connection, "close");
  assert.equal(JSON.parse(body).code, "BODY_TOO_LARGE");
  await closed(socket);
  assert.equal((await call(`${url}/users`)).status, 200);
});

test(
  "bodies still arriving on every connection together are bounded: past 32 times BODY_LIMIT -> 503 SERVER_BUSY, nothing stored; finished or dropped ones make room",
  { skip: socketOnly("bodies arriving on many connections") },
  async (t) => {
    const target = await startTarget({ BODY_LIMIT: "100" });
    t.after(() => target.close());
    // Every connection to one process: each bounds the bodies it is reading (two share a database in one matrix run).
    const url = target.servers?.[0] ?? target.url;
    const base = '{"name":"a","email":"a@b.io","pad":""}';
    const exact = base.replace('""', `"${"x".repeat(100 - base.length)}"`);
    const head = "POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n";
    // Two answers on another connection: the server has read what was sent before them, and begun reading those bodies.
    const settle = async () => {
      for (let i = 0; i < 2; i++) assert.equal((await call(`${url}/healthz`)).status, 200);
    };
    /** A connection that has sent its headers and all but the last byte of its body. */
    const begin = async () => {
      const socket = await openSocket(url);
      const answer = readResponse(socket);
      socket.write(head + exact.slice(0, -1));
      return { socket, answer, finish: () => socket.write(exact.slice(-1)) };
    };
    // 32 bodies of 99 bytes each are held: 3,168 bytes of the 3,200 that 32 bodies of BODY_LIMIT may hold.
    const held = [];
    for (let i = 0; i < 32; i++) held.push(await begin());
    await settle();
    // One more would pass it: refused at once, with the connection closed, and told when to retry.
    const refused = await begin();
    const { status, headers, body } = await refused.answer;
    assert.equal(status, 503);
    assert.equal(headers.connection, "close");
    assert.equal(headers["retry-after"], "1");
    assert.equal(headers["content-type"], "application/json; charset=utf-8");
    assert.deepEqual(JSON.parse(body), {
      message: "The server is receiving as many request bodies at once as it holds; retry shortly",
      code: "SERVER_BUSY",
    });
    await closed(refused.socket);
    // A body that arrives whole with its headers is taken at once and holds nothing: it is stored.
    const whole = await rawRequest(url, `${head.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")}${exact}`);
    assert.equal(whole.status, 201);
    // A body finished gives its bytes back, and so does one whose client hung up.
    const first = held.shift()!;
    first.finish();
    assert.equal((await first.answer).status, 201);
    first.socket.destroy();
    const dropped = held.shift()!;
    dropped.socket.destroy();
    await assert.rejects(dropped.answer, /Connection closed before a response/);
    await settle();
    const later = [await begin(), await begin()];
    await settle();
    for (const connection of [...held, ...later]) connection.finish();
    for (const connection of [...held, ...later]) assert.equal((await connection.answer).status, 201);
    for (const connection of [...held, ...later]) connection.socket.destroy();
    // Seeded 2, the whole one, the first finished, the 30 held and the 2 begun later; the refused one and the dropped one are not.
    assert.equal((await call(`${url}/users`)).headers.get("x-total-count"), String(2 + 1 + 1 + 30 + 2));
  },
);

test("a chunked body within the limit is read whole -> 201", async (t) => {
  const url = await fresh(t);
  const response = await rawRequest(
    url,
    "POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
      `${(VALID.length - 10).toString(16)}\r\n${VALID.slice(0, -10)}\r\n` +
      `a\r\n${VALID.slice(-10)}\r\n0\r\n\r\n`,
  );
  assert.equal(response.status, 201);
  assert.deepEqual(JSON.parse(response.body), { id: 3, ...JSON.parse(VALID) });
});

test("the checks run in the contract's order", async (t) => {
  const url = await fresh(t, { BODY_LIMIT: "10" });
  const cases: Array<[string, string, string | undefined, string, number, string]> = [
    // route before id, id before body, media type before size, size before parse.
    ["unknown route first", "/usres/abc", "text/plain", "x", 404, "ROUTE_NOT_FOUND"],
    ["path id before the body", "/users/abc", "text/plain", "x", 400, "INVALID_ID"],
    ["media type before size", "/users/1", "text/plain", "x".repeat(50), 415, "UNSUPPORTED_MEDIA_TYPE"],
    ["size before parsing", "/users/1", "application/json", "{".repeat(50), 413, "BODY_TOO_LARGE"],
    ["body before existence", "/users/99", "application/json", "{", 400, "INVALID_JSON"],
    ["existence before validation", "/users/99", "application/json", '{"name":1}', 404, "USER_NOT_FOUND"],
    ["validation", "/users/1", "application/json", '{"name":1}', 400, "VALIDATION_FAILED"],
  ];
  for (const [label, path, type, body, status, code] of cases) {
    const response = await call(url + path, { method: "PUT", body, headers: type ? { "content-type": type } : {} });
    assert.equal(response.status, status, label);
    assert.equal((response.body as { code: string }).code, code, label);
  }
});

test("POST /users with a body whose members look like prototype keys in values only -> 201", async (t) => {
  const url = await fresh(t);
  const json = { name: "__proto__", email: "proto@example.com", note: "constructor", list: ["prototype"] };
  const response = await call(`${url}/users`, { method: "POST", json });
  assert.equal(response.status, 201);
  assert.deepEqual(response.body, { id: 3, ...json });
});

test("duplicate members in a body: the last one wins, as JSON.parse reads them", async (t) => {
  const url = await fresh(t);
  const body = '{"name":"first","name":"Last","email":"a@b.io"}';
  const response = await call(`${url}/users`, { method: "POST", body, headers: { "content-type": "application/json" } });
  assert.equal(response.status, 201);
  assert.deepEqual(response.body, { id: 3, name: "Last", email: "a@b.io" });
});

test("a GET with a body ignores it and keeps serving", async (t) => {
  const url = await fresh(t);
  const response = await rawRequest(
    url,
    "GET /users/1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{oops}\n",
  );
  assert.equal(response.status, 200);
  assert.deepEqual(JSON.parse(response.body), SEEDED[0]);
});

for (const [label, head, status] of [
  ["a 415", "POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n", 415],
  ["a 404 for a POST", "POST /nowhere HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n", 404],
  ["a 405 for a PATCH", "PATCH /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n", 405],
] as const) {
  test(`${label} sent before the body arrived carries Connection: close, and the connection closes`, async (t) => {
    const url = await fresh(t);
    const socket = await openSocket(url);
    const response = readResponse(socket);
    // The body is announced but never sent: the answer cannot wait for it.
    socket.write(`${head}Content-Length: 1000\r\n\r\n`);
    const answer = await response;
    assert.equal(answer.status, status);
    assert.equal(answer.headers.connection, "close");
    await closed(socket);
  });
}

test("an answer to a body that arrived whole keeps the connection open", async (t) => {
  const url = await fresh(t);
  const socket = await openSocket(url);
  const response = readResponse(socket);
  socket.write("POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]");
  const answer = await response;
  assert.equal(answer.status, 400);
  assert.equal(answer.headers.connection, "keep-alive");
  socket.destroy();
});

test("a client that hangs up before its declared body has all arrived stores nothing, even when what arrived is a whole JSON object", { timeout: 20_000 }, async (t) => {
  const url = await fresh(t);
  const socket = await openSocket(url);
  const body = '{"name":"Ada Lovelace","email":"ada@example.com"}';
  socket.write(`POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 10}\r\n\r\n${body}`);
  // The server has the POST in hand once it is in flight beside the scrape; it has given it up once it is not.
  await inFlight(url, 2);
  socket.destroy();
  await inFlight(url, 1);
  const users = await call(`${url}/users`);
  assert.deepEqual(
    (users.body as Array<{ id: number }>).map((user) => user.id),
    [1, 2],
  );
});

test("POSTs pipelined whole are both stored though their client hangs up at once, and no request is left in flight", { timeout: 20_000 }, async (t) => {
  const url = await fresh(t);
  const socket = await openSocket(url);
  const post = (name: string) => {
    const body = JSON.stringify({ name, email: `${name.toLowerCase()}@example.com` });
    return `POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  };
  // The second waits for the first's answer, which cannot be sent. With a data directory
  // (TEST_DATA_DIR=1, as the runtime matrix runs this suite) that answer waits for its sync, so
  // the second request has closed, its client gone, before it is served. Both arrived whole,
  // so both are served (docs/decisions.md, "Speed").
  socket.end(post("Ada") + post("Grace"));
  socket.destroy();
  await inFlight(url, 1);
  const users = await call(`${url}/users`);
  assert.deepEqual(
    (users.body as Array<{ name: string }>).map((user) => user.name),
    ["Ada Lovelace", "Alan Turing", "Ada", "Grace"],
  );
});

test("a body that arrives after its headers, in pieces, is read as it arrives -> 201", { timeout: 20_000 }, async (t) => {
  const url = await fresh(t);
  const socket = await openSocket(url);
  const response = readResponse(socket);
  const body = '{"name":"Grace Hopper","email":"grace@example.com"}';
  socket.write(`POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
  // The server holds the POST, its body still to come, beside the scrape.
  await inFlight(url, 2);
  socket.write(body.slice(0, 20));
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.write(body.slice(20));
  const answer = await response;
  assert.equal(answer.status, 201);
  assert.deepEqual(JSON.parse(answer.body), { id: 3, name: "Grace Hopper", email: "grace@example.com" });
  socket.destroy();
});

/**
 * Requests in flight, the scrape itself among them, on the server process a new connection
 * reaches: the only one, or, with two processes on one database, each in turn.
 */
async function scrapeInFlight(url: string): Promise<number> {
  const { body } = await rawRequest(url, "GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  const line = body.split("\n").find((candidate) => candidate.startsWith("http_requests_in_flight "));
  return Number(line?.slice("http_requests_in_flight ".length));
}

/** Waits until a process holds `count` requests in flight, the scrape among them. */
async function inFlight(url: string, count: number): Promise<void> {
  // Two scrapes in a row reach every process there is; for one request in flight (the scrape
  // alone) both must agree, since one process holding nothing says nothing of the other.
  let agreed = 0;
  for (;;) {
    if ((await scrapeInFlight(url)) === count) agreed++;
    else agreed = 0;
    if (agreed === (count === 1 ? 2 : 1)) return;
    await new Promise(setImmediate);
  }
}

test("bodies a little past 64 KiB, which arrive in two chunks or more, are read whole -> 201 with every byte", async (t) => {
  const url = await fresh(t);
  for (const size of [65_000, 66_000, 70_000, 140_000]) {
    const note = "x".repeat(size);
    const created = await call(`${url}/users`, { method: "POST", json: { name: "Eve", email: `eve${size}@example.com`, note } });
    assert.equal(created.status, 201, `${size}: ${created.text.slice(0, 100)}`);
    assert.equal((created.body as { note: string }).note, note);
  }
});
