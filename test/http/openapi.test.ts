// Black-box tests of GET /openapi.json: the document served as JSON, HEAD, OPTIONS and 405 like any path, and its examples.
import assert from "node:assert/strict";
import { test } from "node:test";
import { openApiDocument } from "../../src/http/app.ts";
import { assertJsonHeaders, call } from "../support/http.ts";
import { callEveryOperation, type WalkedDocument } from "../support/openapi-walk.ts";
import { fresh } from "../support/target.ts";

const DOCUMENT = openApiDocument();

test("GET /openapi.json -> 200 with the OpenAPI 3.1 document", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/openapi.json`);
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, DOCUMENT);
  assert.equal((response.body as { openapi: string }).openapi, "3.1.0");
  const again = await call(`${url}/openapi.json`);
  assert.equal(again.text, response.text);
});

test("HEAD /openapi.json -> 200 with GET's headers and no body", async (t) => {
  const url = await fresh(t);
  const get = await call(`${url}/openapi.json`);
  const head = await call(`${url}/openapi.json`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.text, "");
  assert.equal(head.headers.get("content-type"), get.headers.get("content-type"));
  assert.equal(head.headers.get("content-length"), get.headers.get("content-length"));
});

test("OPTIONS /openapi.json -> 204 with Allow: GET, HEAD, OPTIONS", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/openapi.json`, { method: "OPTIONS" });
  assert.equal(response.status, 204);
  assert.equal(response.headers.get("allow"), "GET, HEAD, OPTIONS");
});

test("POST /openapi.json -> 405 with Allow: GET, HEAD, OPTIONS", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/openapi.json`, { method: "POST", json: {} });
  assert.equal(response.status, 405);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("allow"), "GET, HEAD, OPTIONS");
  assert.equal((response.body as { code: string }).code, "METHOD_NOT_ALLOWED");
});

// Contract 10 and issue 10: a generator that walks the document in its own order, sending
// every example, must get a 2xx from a fresh server for each operation.
test("every operation, called in the document's order with all its examples on a fresh server -> 2xx", async (t) => {
  const url = await fresh(t);
  assert.deepEqual(await callEveryOperation(url, DOCUMENT as unknown as WalkedDocument), []);
});
