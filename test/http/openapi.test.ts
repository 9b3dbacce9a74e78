// Black-box tests of GET /openapi.json: the document served as JSON, HEAD, OPTIONS and 405 like any path, and its examples.
import assert from "node:assert/strict";
import { test } from "node:test";
import { apiRoutes, openApiDocument } from "../../src/http/app.ts";
import type { Schema } from "../../src/api/handler.ts";
import { DOCUMENTED_METHODS } from "../../src/openapi/document.ts";
import { assertJsonHeaders, call, suiteHeaders } from "../support/http.ts";
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

/** A parameter as the document gives it, its $ref followed. */
function parameter(schema: Schema): Schema {
  const ref = schema.$ref as string | undefined;
  return ref === undefined ? schema : DOCUMENT.components.parameters[ref.replace("#/components/parameters/", "")]!;
}

// Contract 10 and issue 10: a generator that walks the document in its own order, sending
// every example, must get a 2xx from a fresh server for each operation. Optional parameters
// and headers are all sent here, which is more than a generator's defaults send.
test("every operation, called in the document's order with all its examples on a fresh server -> 2xx", async (t) => {
  const url = await fresh(t);
  const failures: string[] = [];
  for (const [path, item] of Object.entries(DOCUMENT.paths)) {
    for (const method of DOCUMENTED_METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      let address = path;
      const query = new URLSearchParams();
      const headers: Record<string, string> = suiteHeaders();
      for (const given of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
        const { name, in: place, example } = parameter(given) as { name: string; in: string; example: unknown };
        if (place === "path") address = address.replace(`{${name}}`, String(example));
        else if (place === "header") headers[name] = String(example);
        else if (typeof example === "object" && example !== null) {
          for (const [member, value] of Object.entries(example)) query.append(member, String(value));
        } else query.append(name, String(example));
      }
      const [type, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
      if (type !== undefined) headers["content-type"] = type;
      const target = `${url}${address}${query.size > 0 ? `?${query}` : ""}`;
      const body = media === undefined ? undefined : JSON.stringify(media.example);
      const response = await fetch(target, { method: method.toUpperCase(), headers, body });
      const text = await response.text();
      if (response.status < 200 || response.status > 299) failures.push(`${method.toUpperCase()} ${target} -> ${response.status} ${text}`);
    }
  }
  assert.deepEqual(failures, []);
});
