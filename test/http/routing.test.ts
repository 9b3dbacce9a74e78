// Black-box tests of routing, methods, path ids and the health probes (contract 2).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertJsonHeaders, call } from "../support/http.ts";
import { rawRequest } from "../support/raw.ts";
import { socketOnly, startTarget, type Target } from "../support/target.ts";

// These tests only read, so one server serves them all.
let target: Target;
let url: string;
before(async () => {
  target = await startTarget();
  url = target.url;
});
after(() => target.close());

test("GET /healthz -> 200 {status: ok}", async () => {
  const response = await call(`${url}/healthz`);
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, { status: "ok" });
});

test("GET /readyz -> 200 {status: ready}", async () => {
  const response = await call(`${url}/readyz`);
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, { status: "ready" });
});

const UNKNOWN_PATHS = ["/", "/user", "/Users", "/USERS/1", "/users/1/extra", "/users//", "/users/1//", "/healthz/x"];

for (const path of UNKNOWN_PATHS) {
  test(`GET ${path} -> 404 ROUTE_NOT_FOUND naming the method and path`, async () => {
    const response = await call(url + path);
    assert.equal(response.status, 404);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, { message: `No route for GET ${path}`, code: "ROUTE_NOT_FOUND" });
  });
}

test("DELETE /nowhere -> 404 naming DELETE", async () => {
  const response = await call(`${url}/nowhere`, { method: "DELETE" });
  assert.equal(response.status, 404);
  assert.deepEqual(response.body, { message: "No route for DELETE /nowhere", code: "ROUTE_NOT_FOUND" });
});

test("a 404 for a very long path shortens the path in its message", async () => {
  const response = await call(`${url}/${"a".repeat(5000)}`);
  assert.equal(response.status, 404);
  assert.ok((response.body as { message: string }).message.length < 200);
});

test("one trailing slash is ignored: GET /users/ and /users/1/ are /users and /users/1", async () => {
  const list = await call(`${url}/users/`);
  assert.equal(list.status, 200);
  assert.deepEqual(list.body, (await call(`${url}/users`)).body);
  const one = await call(`${url}/users/1/`);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body, (await call(`${url}/users/1`)).body);
});

test("the query string never affects routing", async () => {
  const response = await call(`${url}/users/1?fields=name&x=/users/2`);
  assert.equal(response.status, 200);
  assert.equal((response.body as { id: number }).id, 1);
  assert.equal((await call(`${url}/healthz?`)).status, 200);
  assert.equal((await call(`${url}/nope?x=1`)).status, 404);
});

const NOT_ALLOWED: Array<[string, string, string]> = [
  ["PATCH", "/users", "GET, HEAD, POST, OPTIONS"],
  ["DELETE", "/users", "GET, HEAD, POST, OPTIONS"],
  ["PUT", "/users", "GET, HEAD, POST, OPTIONS"],
  ["POST", "/users/1", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"],
  ["PATCH", "/posts", "GET, HEAD, POST, OPTIONS"],
  ["POST", "/healthz", "GET, HEAD, OPTIONS"],
  ["DELETE", "/readyz", "GET, HEAD, OPTIONS"],
];

for (const [method, path, allow] of NOT_ALLOWED) {
  test(`${method} ${path} -> 405 METHOD_NOT_ALLOWED with Allow: ${allow}`, async () => {
    const response = await call(url + path, { method });
    assert.equal(response.status, 405);
    assertJsonHeaders(response);
    assert.equal(response.headers.get("allow"), allow);
    assert.deepEqual(response.body, {
      message: `Method ${method} is not allowed here; use ${allow}`,
      code: "METHOD_NOT_ALLOWED",
    });
  });
}

test("a 405 comes before the path id is checked: POST /users/abc -> 405", async () => {
  const response = await call(`${url}/users/abc`, { method: "POST" });
  assert.equal(response.status, 405);
});

test("an unknown method on a known path -> 405 with Allow", async () => {
  const response = await rawRequest(url, "PROPFIND /users HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  assert.equal(response.status, 405);
  assert.equal(response.headers.allow, "GET, HEAD, POST, OPTIONS");
  assert.equal(JSON.parse(response.body).code, "METHOD_NOT_ALLOWED");
});

test("CONNECT 127.0.0.1:1 -> 404 ROUTE_NOT_FOUND as JSON, the connection closes, and the server serves on", { skip: socketOnly("answering CONNECT") }, async () => {
  // node:http drops a CONNECT unanswered unless the server listens for it.
  const response = await rawRequest(url, "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n");
  assert.equal(response.status, 404);
  assert.equal(response.headers["content-type"], "application/json; charset=utf-8");
  assert.equal(response.headers.connection, "close");
  assert.deepEqual(JSON.parse(response.body), { message: "No route for CONNECT 127.0.0.1:1", code: "ROUTE_NOT_FOUND" });
  assert.equal((await call(`${url}/healthz`)).status, 200);
});

for (const [path, allow] of [
  ["/users", "GET, HEAD, POST, OPTIONS"],
  ["/users/1", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"],
  ["/users/", "GET, HEAD, POST, OPTIONS"],
  ["/healthz", "GET, HEAD, OPTIONS"],
]) {
  test(`OPTIONS ${path} -> 204 with Allow: ${allow} and no body`, async () => {
    const response = await call(url + path, { method: "OPTIONS" });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), allow);
    assert.equal(response.text, "");
  });
}

test("OPTIONS on an unknown path -> 404", async () => {
  const response = await call(`${url}/nope`, { method: "OPTIONS" });
  assert.equal(response.status, 404);
  assert.equal((response.body as { code: string }).code, "ROUTE_NOT_FOUND");
});

test("OPTIONS /users/abc -> 204: OPTIONS answers for the path, whatever the id", async () => {
  const response = await call(`${url}/users/abc`, { method: "OPTIONS" });
  assert.equal(response.status, 204);
});

for (const path of ["/users", "/users/1", "/users/3", "/users/abc", "/healthz", "/readyz"]) {
  test(`HEAD ${path} -> the status and headers of GET, and no body`, async () => {
    const get = await rawRequest(url, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    const head = await rawRequest(url, `HEAD ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    assert.equal(head.status, get.status);
    assert.equal(head.body, "");
    for (const name of ["content-type", "content-length", "x-total-count", "allow"]) {
      assert.equal(head.headers[name], get.headers[name], name);
    }
    assert.equal(head.headers["content-length"], String(Buffer.byteLength(get.body)));
  });
}

test("HEAD /nope -> 404 with the length of its JSON error, and no body", async () => {
  const head = await rawRequest(url, "HEAD /nope HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  assert.equal(head.status, 404);
  assert.equal(head.body, "");
  const error = JSON.stringify({ message: "No route for HEAD /nope", code: "ROUTE_NOT_FOUND" });
  assert.equal(head.headers["content-length"], String(Buffer.byteLength(error)));
});

const BAD_IDS = ["abc", "1.5", "-1", "1e3", "0x10", "%31", "1%20", "99999999999999999999", "9007199254740992"];

for (const id of BAD_IDS) {
  test(`GET /users/${id} -> 400 INVALID_ID`, async () => {
    const response = await call(`${url}/users/${id}`);
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.equal((response.body as { code: string }).code, "INVALID_ID");
    assert.match((response.body as { message: string }).message, /^Id must be a whole number in digits/);
  });
}

test("PUT and DELETE /users/abc -> 400 INVALID_ID before the body is looked at", async () => {
  const put = await call(`${url}/users/abc`, { method: "PUT", body: "not json", headers: { "content-type": "text/plain" } });
  assert.equal(put.status, 400);
  assert.equal((put.body as { code: string }).code, "INVALID_ID");
  const del = await call(`${url}/users/1.0`, { method: "DELETE" });
  assert.equal(del.status, 400);
  assert.equal((del.body as { code: string }).code, "INVALID_ID");
});

for (const id of ["0", "000", "9007199254740991"]) {
  test(`GET /users/${id} -> 404: digits within the safe range are an id, which no user has`, async () => {
    const response = await call(`${url}/users/${id}`);
    assert.equal(response.status, 404);
    assert.deepEqual(response.body, { message: "User not found", code: "USER_NOT_FOUND" });
  });
}
