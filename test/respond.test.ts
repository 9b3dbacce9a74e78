// White-box tests of src/http/respond.ts: JSON_TYPE, the internal error reply, raw socket error responses and the header object of Bun.
import assert from "node:assert/strict";
import { once } from "node:events";
import { get, STATUS_CODES, type IncomingMessage } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { test } from "node:test";
import { ERROR_CATALOGUE, type ErrorCode } from "../src/api/errors.ts";
import { headerObject, internalErrorReply, JSON_TYPE, rawErrorResponse } from "../src/http/respond.ts";

const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

type RawResponse = { statusLine: string; headers: Array<[string, string]>; body: string };

/** Splits an HTTP/1.1 response into its status line, header fields and body, insisting on CRLF line ends. */
function splitResponse(raw: string): RawResponse {
  const end = raw.indexOf("\r\n\r\n");
  assert.notEqual(end, -1, "the head ends with an empty line");
  const [statusLine = "", ...lines] = raw.slice(0, end).split("\r\n");
  const headers = lines.map((line): [string, string] => {
    assert.doesNotMatch(line, /[\r\n]/);
    const colon = line.indexOf(":");
    assert.ok(colon > 0, line);
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  return { statusLine, headers, body: raw.slice(end + 4) };
}

test("JSON_TYPE is application/json with a UTF-8 charset", () => {
  assert.equal(JSON_TYPE, "application/json; charset=utf-8");
});

test("headerObject gives each name of a flat list its value, joins a repeated name's values, and has no prototype", () => {
  const headers = headerObject(["etag", '"e-1"', "vary", "Origin", "content-length", 56, "vary", "Accept"]);
  assert.equal(Object.getPrototypeOf(headers), null);
  assert.deepEqual(Object.entries(headers), [
    ["etag", '"e-1"'],
    ["vary", "Origin, Accept"],
    ["content-length", 56],
  ]);
  // A name that an object would inherit is a name like any other.
  assert.deepEqual(Object.entries(headerObject(["constructor", "x", "toString", "y"])), [
    ["constructor", "x"],
    ["toString", "y"],
  ]);
});

test("internalErrorReply is a 500 saying Internal server error, with the request's id and nothing more", () => {
  const reply = internalErrorReply("abc-1");
  assert.deepEqual(reply, {
    status: 500,
    body: { message: "Internal server error", code: "INTERNAL_ERROR", requestId: "abc-1" },
  });
  assert.equal(reply.status, ERROR_CATALOGUE.INTERNAL_ERROR.status);
});

test("rawErrorResponse writes a complete HTTP/1.1 response for every catalogue code", () => {
  for (const code of CODES) {
    const { status } = ERROR_CATALOGUE[code];
    const reason = STATUS_CODES[status];
    assert.equal(typeof reason, "string", `${code} has a standard reason phrase`);
    const message = `Something went wrong with ${code}`;
    const { statusLine, headers, body } = splitResponse(rawErrorResponse(code, message, "abc-1"));
    const text = JSON.stringify({ message, code });
    assert.equal(statusLine, `HTTP/1.1 ${status} ${reason}`, code);
    assert.deepEqual(
      headers,
      [
        ["X-Request-Id", "abc-1"],
        ["Content-Type", "application/json; charset=utf-8"],
        ["Content-Length", String(Buffer.byteLength(text))],
        ["Connection", "close"],
      ],
      code,
    );
    assert.equal(body, text, code);
    assert.deepEqual(JSON.parse(body), { message, code }, code);
  }
});

test("rawErrorResponse sets Content-Length to the byte length of a body with non-ASCII text", () => {
  const message = "Requête reçue trop tard — réessayez ✓ 😀";
  const { headers, body } = splitResponse(rawErrorResponse("REQUEST_TIMEOUT", message, "abc-1"));
  const bytes = Buffer.byteLength(body);
  assert.ok(bytes > body.length);
  assert.deepEqual(headers[2], ["Content-Length", String(bytes)]);
  assert.deepEqual(JSON.parse(body), { message, code: "REQUEST_TIMEOUT" });
});

test("rawErrorResponse keeps CR and LF in a message inside the JSON body, out of the head", () => {
  const message = 'Bad "request"\r\nX-Injected: yes\r\n\r\n{}';
  const { headers, body } = splitResponse(rawErrorResponse("BAD_REQUEST", message, "abc-1"));
  assert.deepEqual(
    headers.map(([name]) => name),
    ["X-Request-Id", "Content-Type", "Content-Length", "Connection"],
  );
  assert.deepEqual(JSON.parse(body), { message, code: "BAD_REQUEST" });
  assert.equal(headers[2]?.[1], String(Buffer.byteLength(body)));
});

test("rawErrorResponse is read by the node:http client as the whole response", async (t) => {
  const message = "Request headers took too long to arrive; send them within 10 seconds ✓";
  const server = createServer((socket) => {
    socket.once("data", () => socket.end(rawErrorResponse("REQUEST_TIMEOUT", message, "abc-1")));
  });
  t.after(() => server.close());
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  const request = get({ host: "127.0.0.1", port, path: "/users", agent: false });
  const [response] = (await once(request, "response")) as [IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);

  assert.equal(response.httpVersion, "1.1");
  assert.equal(response.statusCode, 408);
  assert.equal(response.statusMessage, "Request Timeout");
  assert.equal(response.headers["content-type"], "application/json; charset=utf-8");
  assert.equal(response.headers["content-length"], String(body.length));
  assert.equal(response.headers.connection, "close");
  assert.deepEqual(JSON.parse(body.toString("utf8")), { message, code: "REQUEST_TIMEOUT" });
});
