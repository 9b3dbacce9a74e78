// White-box tests of the OpenAPI document: valid OpenAPI 3.1, the router's operations, the server's member rules.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { apiRoutes } from "../src/app.ts";
import { ERROR_CATALOGUE } from "../src/errors.ts";
import type { Schema } from "../src/openapi-components.ts";
import { type DocumentedMethod, OPENAPI_DOCUMENT } from "../src/openapi.ts";
import { emailAddress, nonEmptyString, type Rule } from "../src/validate.ts";

const METHODS: DocumentedMethod[] = ["get", "post", "put", "patch", "delete", "options"];

/** Every documented operation as `METHOD /path/{id}`. */
function documentedOperations(): string[] {
  return Object.entries(OPENAPI_DOCUMENT.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** Every route of the router as `METHOD /path/{id}`, written the way OpenAPI writes a path. */
function routedOperations(): string[] {
  return apiRoutes().map((route) => `${route.method} ${route.pattern.replace(/:([A-Za-z_]\w*)/g, "{$1}")}`);
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

test("every operation of the document but OPTIONS is a route, and OPTIONS is documented on every routed path", () => {
  const routed = routedOperations();
  assert.deepEqual(
    documentedOperations().filter((operation) => !operation.startsWith("OPTIONS ")).sort(),
    [...routed].sort(),
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
