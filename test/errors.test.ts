// White-box tests of src/api/errors.ts and src/store/errors.ts: the error catalogue, HttpError and StoreError.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ERROR_CATALOGUE, HttpError, type ErrorCode } from "../src/api/errors.ts";
import { StoreError } from "../src/store/errors.ts";

const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

test("ERROR_CATALOGUE names every code in UPPER_SNAKE with a 4xx or 5xx status and a sentence", () => {
  assert.ok(CODES.length > 0);
  for (const code of CODES) {
    const entry = ERROR_CATALOGUE[code];
    assert.match(code, /^[A-Z]+(_[A-Z]+)*$/, code);
    assert.ok(Number.isInteger(entry.status) && entry.status >= 400 && entry.status <= 599, code);
    assert.match(entry.when, /^[A-Z`].*\.$/, code);
  }
});

test("ERROR_CATALOGUE gives each code the status its meaning calls for", () => {
  const cases: Array<[code: ErrorCode, status: number]> = [
    ["INVALID_ID", 400],
    ["INVALID_QUERY", 400],
    ["EMPTY_BODY", 400],
    ["INVALID_JSON", 400],
    ["BODY_NOT_OBJECT", 400],
    ["FORBIDDEN_KEY", 400],
    ["BODY_TOO_DEEP", 400],
    ["VALIDATION_FAILED", 400],
    ["ROUTE_NOT_FOUND", 404],
    ["USER_NOT_FOUND", 404],
    ["POST_NOT_FOUND", 404],
    ["COMMENT_NOT_FOUND", 404],
    ["REPLY_NOT_FOUND", 404],
    ["METHOD_NOT_ALLOWED", 405],
    ["REQUEST_TIMEOUT", 408],
    ["ID_CONFLICT", 409],
    ["BODY_TOO_LARGE", 413],
    ["UNSUPPORTED_MEDIA_TYPE", 415],
    ["INTERNAL_ERROR", 500],
    ["SHUTTING_DOWN", 503],
  ];
  for (const [code, status] of cases) {
    assert.equal(ERROR_CATALOGUE[code].status, status, code);
  }
});

test("HttpError takes its status from ERROR_CATALOGUE for every code", () => {
  for (const code of CODES) {
    const error = new HttpError(code, "Something to act on");
    assert.ok(error instanceof HttpError, code);
    assert.ok(error instanceof Error, code);
    assert.equal(error.name, "HttpError", code);
    assert.equal(error.code, code);
    assert.equal(error.status, ERROR_CATALOGUE[code].status, code);
    assert.equal(error.message, "Something to act on", code);
    assert.equal(error.errors, undefined, code);
    assert.equal(error.headers, undefined, code);
    assert.equal(error.cause, undefined, code);
  }
});

test("HttpError keeps the errors, headers and cause it is given", () => {
  const cause = new SyntaxError("Unexpected end of JSON input");
  const errors = [{ path: "name", message: "is required" }];
  const headers = { allow: "GET, HEAD, OPTIONS" };
  const error = new HttpError("VALIDATION_FAILED", "Some members are wrong", { errors, headers, cause });
  assert.equal(error.status, 400);
  assert.equal(error.errors, errors);
  assert.equal(error.headers, headers);
  assert.equal(error.cause, cause);
});

test("HttpError toBody without errors is exactly the message and the code", () => {
  const body = new HttpError("USER_NOT_FOUND", "User not found").toBody();
  assert.deepEqual(body, { message: "User not found", code: "USER_NOT_FOUND" });
  assert.deepEqual(Object.keys(body), ["message", "code"]);
  const withCause = new HttpError("INVALID_JSON", "Request body is malformed JSON", { cause: new SyntaxError("x") });
  assert.equal(JSON.stringify(withCause.toBody()), '{"message":"Request body is malformed JSON","code":"INVALID_JSON"}');
});

test("HttpError toBody with errors adds every field error after the message and the code", () => {
  const errors = [
    { path: "name", message: "must be a non-empty string" },
    { path: "email", message: "is required" },
  ];
  const body = new HttpError("VALIDATION_FAILED", "Some members are wrong", { errors }).toBody();
  assert.deepEqual(body, { message: "Some members are wrong", code: "VALIDATION_FAILED", errors });
  assert.deepEqual(Object.keys(body), ["message", "code", "errors"]);
  assert.deepEqual(new HttpError("VALIDATION_FAILED", "None", { errors: [] }).toBody(), {
    message: "None",
    code: "VALIDATION_FAILED",
    errors: [],
  });
});

test("HttpError toBody leaves out headers and cause", () => {
  const body = new HttpError("METHOD_NOT_ALLOWED", "Method DELETE is not allowed on /users", {
    headers: { allow: "GET, HEAD, POST, OPTIONS" },
    cause: new Error("internal detail"),
  }).toBody();
  assert.deepEqual(body, { message: "Method DELETE is not allowed on /users", code: "METHOD_NOT_ALLOWED" });
});

test("a StoreError's status is the one the catalogue gives its code", () => {
  for (const code of ["STORE_FULL", "STORE_UNAVAILABLE"] as const) {
    assert.equal(new StoreError(code, "x").status, ERROR_CATALOGUE[code].status, code);
  }
});
