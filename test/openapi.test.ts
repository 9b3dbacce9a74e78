// White-box tests of the OpenAPI document: valid OpenAPI 3.1, the router's operations, the server's member rules, the examples.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { apiRoutes, openApiDocument } from "../src/http/app.ts";
import { ERROR_CATALOGUE } from "../src/api/errors.ts";
import type { Ref, ResponseDoc } from "../src/openapi/components.ts";
import type { Schema } from "../src/api/handler.ts";
import { DOCUMENTED_METHODS as METHODS, openApiPath, type OperationDoc } from "../src/openapi/document.ts";
import { emailAddress, nonEmptyString, type Rule } from "../src/api/validate.ts";

const OPENAPI_DOCUMENT = openApiDocument();

/** Every documented operation as `METHOD /path/{id}`. */
function documentedOperations(): string[] {
  return Object.entries(OPENAPI_DOCUMENT.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** Every route of the router as `METHOD /path/{id}`, written the way OpenAPI writes a path. */
function routedOperations(): string[] {
  return apiRoutes().map((route) => `${route.method} ${openApiPath(route.pattern)}`);
}

/** Every documented operation with its path and method. */
function operations(): Array<{ path: string; method: string; operation: OperationDoc }> {
  return Object.entries(OPENAPI_DOCUMENT.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => (item[method] === undefined ? [] : [{ path, method, operation: item[method] }])),
  );
}

/** A response with its $ref followed. */
function resolve(response: ResponseDoc | Ref): ResponseDoc {
  if (!("$ref" in response)) return response;
  return OPENAPI_DOCUMENT.components.responses[(response as Ref).$ref.replace("#/components/responses/", "")]!;
}

test("OPENAPI_DOCUMENT is valid OpenAPI 3.1, every $ref resolving", async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(OPENAPI_DOCUMENT));
  assert.deepEqual(result.errors, undefined);
  assert.equal(result.valid, true);
  assert.equal(validator.version, "3.1");
});

test("every route of apiRoutes() is an operation of the document", () => {
  const documented = new Set(documentedOperations());
  const missing = routedOperations().filter((operation) => !documented.has(operation));
  assert.deepEqual(missing, []);
});

test("every operation of the document but HEAD and OPTIONS is a route, HEAD is documented on every GET route and OPTIONS on every routed path", () => {
  const routed = routedOperations();
  assert.deepEqual(
    documentedOperations().filter((operation) => !/^(HEAD|OPTIONS) /.test(operation)).sort(),
    [...routed].sort(),
  );
  assert.deepEqual(
    documentedOperations().filter((operation) => operation.startsWith("HEAD ")).sort(),
    routed.filter((operation) => operation.startsWith("GET ")).map((operation) => operation.replace("GET", "HEAD")).sort(),
  );
  const routedPaths = new Set(routed.map((operation) => operation.split(" ")[1]));
  const optionsPaths = documentedOperations()
    .filter((operation) => operation.startsWith("OPTIONS "))
    .map((operation) => operation.split(" ")[1]);
  assert.deepEqual(optionsPaths.sort(), [...routedPaths].sort());
});

test("every operationId is unique", () => {
  const ids = Object.values(OPENAPI_DOCUMENT.paths).flatMap((item) =>
    METHODS.flatMap((method) => (item[method] === undefined ? [] : [item[method].operationId])),
  );
  assert.deepEqual([...new Set(ids)], ids);
});

test("the Error schema's code enum is every code of ERROR_CATALOGUE", () => {
  const error = OPENAPI_DOCUMENT.components.schemas.Error as { properties: { code: { enum: string[] } } };
  assert.deepEqual(error.properties.code.enum, Object.keys(ERROR_CATALOGUE));
});

test("every component of the document is referenced somewhere in it", () => {
  const text = JSON.stringify(OPENAPI_DOCUMENT);
  const { components } = OPENAPI_DOCUMENT;
  const unused = Object.entries(components).flatMap(([kind, entries]) =>
    Object.keys(entries)
      .map((name) => `#/components/${kind}/${name}`)
      .filter((ref) => !text.includes(`"${ref}"`)),
  );
  assert.deepEqual(unused, []);
});

test("info.version is the version in package.json", () => {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  assert.equal(OPENAPI_DOCUMENT.info.version, manifest.version);
});

/** Strings on both sides of the non-empty and e-mail rules, including the longest address allowed and one past it. */
const SAMPLES = [
  ...["", " ", "\t\n", "a", " a "],
  ...["ada@example.com", "a@b.io", "a b@c.io", "a@localhost", "@x.io", "a@@b.io", "a@b..io", "a@.b.io"],
  ...[`${"a".repeat(242)}@example.com`, `${"a".repeat(243)}@example.com`],
];

const MIRRORED_RULES: Array<[string, string, Rule]> = [
  ["title", "Post", nonEmptyString],
  ["body", "Reply", nonEmptyString],
  ["name", "User", nonEmptyString],
  ["email", "User", emailAddress],
];

for (const [member, schema, rule] of MIRRORED_RULES) {
  test(`the documented ${schema}.${member} accepts exactly the strings the server accepts`, () => {
    const record = OPENAPI_DOCUMENT.components.schemas[schema] as { properties: Record<string, Schema> };
    const documented = record.properties[member]!;
    const pattern = new RegExp(documented.pattern as string);
    const maxLength = (documented.maxLength as number | undefined) ?? Infinity;
    for (const sample of SAMPLES) {
      const byDocument = pattern.test(sample) && sample.length <= maxLength;
      assert.equal(byDocument, rule(sample) === undefined, JSON.stringify(sample));
    }
  });
}

test("every HEAD lists the statuses and headers of its GET, with no body", () => {
  for (const [path, item] of Object.entries(OPENAPI_DOCUMENT.paths)) {
    if (item.get === undefined) continue;
    const head = item.head!;
    assert.deepEqual(Object.keys(head.responses), Object.keys(item.get.responses), path);
    assert.deepEqual(head.parameters, item.get.parameters, path);
    for (const [status, response] of Object.entries(head.responses)) {
      const resolved = resolve(response);
      if (status !== "405") assert.equal(resolved.content, undefined, `HEAD ${path} ${status}`);
      assert.deepEqual(resolved.headers, resolve(item.get.responses[status]!).headers, `HEAD ${path} ${status}`);
    }
  }
});

test("every operation documents 405 with Allow, and every operation of a route not served during shutdown 503", () => {
  const served = new Set(apiRoutes().filter((route) => route.servedWhileDraining).map((route) => openApiPath(route.pattern)));
  for (const { path, method, operation } of operations()) {
    assert.ok(resolve(operation.responses["405"]!).headers?.Allow, `${method} ${path}`);
    const drains = method === "options" || !served.has(path);
    assert.equal(operation.responses["503"] !== undefined, drains || path === "/readyz", `${method} ${path}`);
  }
});

test("every error response's codes are catalogued with its status", () => {
  for (const { path, method, operation } of operations()) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const media = resolve(response).content?.["application/json"];
      if (media === undefined || status === "default" || !/^[45]/.test(status)) continue;
      const codes = ((media.schema as { allOf: Schema[] }).allOf[1]!.properties as { code: { enum: string[] } }).code.enum;
      for (const code of codes) {
        assert.equal(String(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status), status, `${method} ${path} ${code}`);
      }
    }
  }
});

test("every parameter and request body of the document has an example", () => {
  const parameters = OPENAPI_DOCUMENT.components.parameters;
  for (const { path, method, operation } of operations()) {
    const item = OPENAPI_DOCUMENT.paths[path]!;
    for (const parameter of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
      const resolved = "$ref" in parameter ? parameters[String(parameter.$ref).replace("#/components/parameters/", "")]! : parameter;
      assert.ok(resolved.example !== undefined, `${method} ${path} ${String(resolved.name)}`);
    }
    for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
      assert.ok(media.example !== undefined, `${method} ${path} ${type}`);
    }
  }
});

test("every field's example passes the field's rule", () => {
  for (const route of apiRoutes()) {
    if (route.operation.kind === "custom") continue;
    for (const [name, spec] of Object.entries(route.operation.resource.fields)) {
      assert.equal(spec.rule(spec.example), undefined, `${route.operation.resource.label}.${name}`);
    }
  }
});

test("GET /openapi.json documents its answer as an OpenAPI 3.1 document, not any object", () => {
  const schema = OPENAPI_DOCUMENT.components.schemas.OpenApiDocument as { required: string[]; properties: Record<string, Schema> };
  assert.deepEqual(schema.required, ["openapi", "info", "paths", "components"]);
  assert.equal(schema.properties.openapi!.const, OPENAPI_DOCUMENT.openapi);
});

test("a 503 lists every code of its status: /readyz both of its own, a resource's operations shutdown and the store's", () => {
  const codesOf = (response: ResponseDoc | Ref | undefined) => {
    const resolved = response !== undefined && "$ref" in response
      ? OPENAPI_DOCUMENT.components.responses[response.$ref.split("/").pop()!]
      : response;
    const schema = resolved?.content?.["application/json"]?.schema as { allOf: Array<{ properties?: { code?: { enum: string[] } } }> };
    return schema.allOf[1]!.properties!.code!.enum;
  };
  assert.deepEqual(codesOf(OPENAPI_DOCUMENT.paths["/readyz"]!.get!.responses["503"]), ["SHUTTING_DOWN", "STORE_UNAVAILABLE"]);
  assert.deepEqual(codesOf(OPENAPI_DOCUMENT.paths["/users/{id}"]!.get!.responses["503"]), ["SHUTTING_DOWN", "STORE_UNAVAILABLE"]);
  assert.deepEqual(codesOf(OPENAPI_DOCUMENT.paths["/openapi.json"]!.get!.responses["503"]), ["SHUTTING_DOWN"]);
});
