// White-box tests of the JSON Schema keywords a resources file may use (src/api/schema.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FieldError } from "../src/api/errors.ts";
import { compileSchema, DIALECT, jsonEqual, MAX_PROBLEMS, SchemaDefinitionError } from "../src/api/schema.ts";

/** Every problem the schema finds in a value, as the API would list them. */
function problems(schema: unknown, value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  compileSchema(schema, "schema")(value, "", errors);
  return errors;
}

const TODO = {
  type: "object",
  required: ["title"],
  properties: {
    title: { type: "string", minLength: 1, maxLength: 200 },
    done: { type: "boolean" },
    tags: { type: "array", items: { type: "string" }, maxItems: 3 },
    address: { type: "object", required: ["city"], properties: { city: { type: "string" } }, additionalProperties: false },
  },
};

test("a valid value has no problems; every problem of an invalid one is listed at once, with its whole path", () => {
  assert.deepEqual(problems(TODO, { title: "Write", done: false, tags: ["a"], address: { city: "Oslo" }, other: 1 }), []);
  assert.deepEqual(problems(TODO, { done: "yes", tags: ["a", 2, "c", "d"], address: { town: "Oslo" } }), [
    { path: "title", message: "is required" },
    { path: "done", message: "must be true or false" },
    { path: "tags.1", message: "must be a string" },
    { path: "tags", message: "must have at most 3 items" },
    { path: "address.city", message: "is required" },
    { path: "address.town", message: "is not allowed" },
  ]);
});

test("type: one or a list; integer is a whole number; a wrong type gets that message alone", () => {
  assert.deepEqual(problems({ type: ["string", "null"] }, null), []);
  assert.deepEqual(problems({ type: ["string", "null"], minLength: 2 }, 3), [{ path: "", message: "must be a string or null" }]);
  assert.deepEqual(problems({ type: ["integer", "array", "object"] }, 1.5), [{ path: "", message: "must be an integer, an array or an object" }]);
  assert.deepEqual(problems({ type: "integer" }, 2.0), []);
  assert.deepEqual(problems({ type: "number" }, "1"), [{ path: "", message: "must be a number" }]);
  assert.deepEqual(problems({ type: "object" }, []), [{ path: "", message: "must be an object" }]);
});

test("enum and const compare JSON values, objects whatever their members' order", () => {
  assert.deepEqual(problems({ enum: ["a", { x: 1, y: [2] }] }, { y: [2], x: 1 }), []);
  assert.deepEqual(problems({ enum: ["a", 1] }, "b"), [{ path: "", message: 'must be one of "a", 1' }]);
  assert.deepEqual(problems({ const: { a: null } }, { a: null }), []);
  assert.deepEqual(problems({ const: { a: null } }, { a: 0 }), [{ path: "", message: 'must be {"a":null}' }]);
  assert.equal(jsonEqual([1, { a: 2 }], [1, { a: 2, b: 3 }]), false);
});

test("lengths count characters, not UTF-16 units; bounds on numbers; pattern; counts of items", () => {
  assert.deepEqual(problems({ maxLength: 2 }, "😀😀"), []);
  assert.deepEqual(problems({ maxLength: 2 }, "😀😀😀"), [{ path: "", message: "must be at most 2 characters long" }]);
  assert.deepEqual(problems({ minLength: 2 }, "😀"), [{ path: "", message: "must be at least 2 characters long" }]);
  assert.deepEqual(problems({ minLength: 1 }, ""), [{ path: "", message: "must be at least 1 character long" }]);
  assert.deepEqual(problems({ minimum: 1, maximum: 3 }, 0), [{ path: "", message: "must be at least 1" }]);
  assert.deepEqual(problems({ minimum: 1, maximum: 3 }, 3), []);
  assert.deepEqual(problems({ exclusiveMinimum: 1 }, 1), [{ path: "", message: "must be greater than 1" }]);
  assert.deepEqual(problems({ exclusiveMaximum: 3 }, 3), [{ path: "", message: "must be less than 3" }]);
  assert.deepEqual(problems({ pattern: "^[a-z]+$" }, "abc"), []);
  assert.deepEqual(problems({ pattern: "^[a-z]+$" }, "aBc"), [{ path: "", message: "must match the pattern ^[a-z]+$" }]);
  assert.deepEqual(problems({ minItems: 1 }, []), [{ path: "", message: "must have at least 1 item" }]);
  // Keywords of one type let values of another pass: that is the type keyword's job.
  assert.deepEqual(problems({ minLength: 5, minimum: 5, minItems: 5 }, true), []);
});

test("formats: email, date-time (RFC 3339, a day that exists), uri", () => {
  assert.deepEqual(problems({ format: "email" }, "ada@example.com"), []);
  assert.deepEqual(problems({ format: "email" }, "ada"), [{ path: "", message: "must be an e-mail address such as name@example.com" }]);
  for (const good of ["2026-01-31T09:30:00Z", "2026-01-31t09:30:00.5+02:00"]) assert.deepEqual(problems({ format: "date-time" }, good), [], good);
  for (const bad of ["2026-02-30T09:30:00Z", "2026-01-31", "2026-01-31T24:00:00Z", "2026-01-31 09:30:00Z"]) {
    assert.deepEqual(problems({ format: "date-time" }, bad), [{ path: "", message: "must be a date and time such as 2026-01-31T09:30:00Z" }], bad);
  }
  assert.deepEqual(problems({ format: "uri" }, "https://example.com/a?b#c"), []);
  assert.deepEqual(problems({ format: "uri" }, "/relative"), [{ path: "", message: "must be an absolute URI such as https://example.com/" }]);
});

test("annotations are accepted; true and false schemas; additionalProperties as a schema", () => {
  assert.deepEqual(problems({ $schema: DIALECT, title: "T", description: "D", examples: [1], default: 1, $comment: "c" }, 1), []);
  assert.deepEqual(problems(true, 1), []);
  assert.deepEqual(problems({ properties: { gone: false } }, { gone: 1 }), [{ path: "gone", message: "is not allowed" }]);
  assert.deepEqual(problems({ additionalProperties: { type: "number" } }, { a: 1, b: "2" }), [{ path: "b", message: "must be a number" }]);
});

const SUPPORTED =
  "type, required, properties, additionalProperties, enum, const, minLength, maxLength, pattern, format, minimum, maximum, exclusiveMinimum, exclusiveMaximum, items, minItems, maxItems";

test("an unsupported keyword, or a bad value of one, throws a SchemaDefinitionError naming its place", () => {
  const refused: Array<[unknown, string]> = [
    [{ properties: { a: { oneOf: [] } } }, `resource "todos", schema.properties.a.oneOf is not a keyword this server supports; it supports ${SUPPORTED}`],
    [{ $ref: "#/x" }, `resource "todos", schema.$ref is not a keyword this server supports; it supports ${SUPPORTED}`],
    [{ type: "text" }, 'resource "todos", schema.type must be one of string, number, integer, boolean, object, array, null, or an array of distinct ones'],
    [{ minLength: -1 }, 'resource "todos", schema.minLength must be a whole number from 0'],
    [{ pattern: "(" }, 'resource "todos", schema.pattern is not a valid regular expression'],
    [{ format: "ipv4" }, 'resource "todos", schema.format must be one of email, date-time, uri'],
    [{ required: "a" }, 'resource "todos", schema.required must be an array of distinct member names'],
    [{ enum: [] }, 'resource "todos", schema.enum must be a non-empty array'],
    [{ $schema: "http://json-schema.org/draft-07/schema#" }, `resource "todos", schema.$schema must be "${DIALECT}" (the dialect OpenAPI 3.1 uses)`],
    ["object", 'resource "todos", schema must be an object or a boolean'],
  ];
  for (const [schema, message] of refused) {
    assert.throws(() => compileSchema(schema, 'resource "todos", schema'), { name: "SchemaDefinitionError", message });
  }
  assert.ok(SchemaDefinitionError.prototype instanceof TypeError);
});

test("a check lists at most MAX_PROBLEMS problems, the first it finds, however many values are wrong", () => {
  const errors = problems({ properties: { tags: { type: "array", items: { type: "string" } }, title: { type: "string" } } }, { tags: Array.from({ length: 99_990 }, () => 1), title: 1 });
  assert.equal(MAX_PROBLEMS, 100);
  assert.equal(errors.length, MAX_PROBLEMS);
  assert.deepEqual(errors[0], { path: "tags.0", message: "must be a string" });
  assert.deepEqual(errors.at(-1), { path: "tags.99", message: "must be a string" });
});
