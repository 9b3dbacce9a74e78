// Black-box tests of GET /openapi.json: the document served as JSON, with HEAD, OPTIONS and 405 like any path.
import assert from "node:assert/strict";
import { test } from "node:test";
import { OPENAPI_DOCUMENT } from "../../src/openapi.ts";
import { assertJsonHeaders, call } from "../support/http.ts";
import { fresh } from "../support/target.ts";

test("GET /openapi.json -> 200 with the OpenAPI 3.1 document", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/openapi.json`);
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, OPENAPI_DOCUMENT);
  assert.equal((response.body as { openapi: string }).openapi, "3.1.0");
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
