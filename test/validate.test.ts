// White-box tests of src/validate.ts: each member rule and checkFields for creates and updates.
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkFields, emailAddress, nonEmptyString, positiveSafeInteger, type FieldSpec } from "../src/api/validate.ts";

const NOT_A_STRING = "must be a non-empty string";
const NOT_AN_EMAIL = "must be an e-mail address such as name@example.com";
const NOT_AN_ID = "must be a positive whole number";

test("nonEmptyString accepts a string with a character that is not white space", () => {
  for (const value of ["a", " a ", "Ada Lovelace", "0", "😀", "\ta\n"]) {
    assert.equal(nonEmptyString(value), undefined, JSON.stringify(value));
  }
});

test("nonEmptyString refuses empty and blank strings and every other type", () => {
  const values: unknown[] = ["", " ", "\t\n", "\u00a0", 0, 1, true, false, null, undefined, [], ["a"], {}, { a: "b" }];
  for (const value of values) {
    assert.equal(nonEmptyString(value), NOT_A_STRING, JSON.stringify(value));
  }
});

test("emailAddress accepts strings shaped like an e-mail address up to 254 characters", () => {
  const local = "a".repeat(254 - "@example.com".length);
  const values = [
    "ada@example.com",
    "a@b.co",
    "a@b.c",
    "first.last+tag@mail.example.org",
    "Ada.Lovelace@Example.COM",
    "zoë@exämple.com",
    `${local}@example.com`,
  ];
  for (const value of values) {
    assert.equal(emailAddress(value), undefined, value);
  }
});

test("emailAddress refuses strings that cannot be an address, longer than 254 characters, or not strings", () => {
  const local = "a".repeat(255 - "@example.com".length);
  const values: unknown[] = [
    "",
    "ada",
    "ada@",
    "@example.com",
    "ada@example",
    "ada@@example.com",
    "ada@exa@mple.com",
    "ada lovelace@example.com",
    "ada@example .com",
    " ada@example.com",
    "ada@example.com ",
    "ada@.example.com",
    "ada@example..com",
    "ada@example.com.",
    "ada@example.",
    `${local}@example.com`,
    42,
    null,
    undefined,
    true,
    ["ada@example.com"],
    { email: "ada@example.com" },
  ];
  for (const value of values) {
    const label = typeof value === "string" ? `${value.length}: ${value.slice(0, 30)}` : JSON.stringify(value);
    assert.equal(emailAddress(value), NOT_AN_EMAIL, label);
  }
});

test("positiveSafeInteger accepts whole numbers from 1 to Number.MAX_SAFE_INTEGER", () => {
  for (const value of [1, 2, 1000, 1.0, Number.MAX_SAFE_INTEGER]) {
    assert.equal(positiveSafeInteger(value), undefined, String(value));
  }
});

test("positiveSafeInteger refuses zero, negatives, fractions, unsafe numbers and other types", () => {
  const values: unknown[] = [
    0,
    -0,
    -1,
    1.5,
    Number.MAX_SAFE_INTEGER + 1,
    Number.MAX_VALUE,
    Infinity,
    NaN,
    "1",
    "",
    true,
    null,
    undefined,
    [1],
    { id: 1 },
    1n,
  ];
  for (const value of values) {
    assert.equal(positiveSafeInteger(value), NOT_AN_ID, String(value));
  }
});

const USER_FIELDS: Record<string, FieldSpec> = {
  id: { required: false, rule: positiveSafeInteger, example: 3 },
  name: { required: true, rule: nonEmptyString, example: "Ada" },
  email: { required: true, rule: emailAddress, example: "ada@example.com" },
};

test("checkFields with partial false accepts a body with every required member valid", () => {
  assert.deepEqual(checkFields({ name: "Ada", email: "ada@example.com" }, USER_FIELDS, { partial: false }), []);
  const withExtras = { id: 7, name: "Ada", email: "ada@example.com", role: [1, {}] };
  assert.deepEqual(checkFields(withExtras, USER_FIELDS, { partial: false }), []);
});

test("checkFields with partial false reports each missing required member and no missing optional one", () => {
  assert.deepEqual(checkFields({}, USER_FIELDS, { partial: false }), [
    { path: "name", message: "is required" },
    { path: "email", message: "is required" },
  ]);
  assert.deepEqual(checkFields({ name: "Ada", other: 1 }, USER_FIELDS, { partial: false }), [
    { path: "email", message: "is required" },
  ]);
});

test("checkFields reports every wrong member at once, in the order of the field specs", () => {
  const body = { email: "nope", name: "", id: 0 };
  const errors = [
    { path: "id", message: NOT_AN_ID },
    { path: "name", message: NOT_A_STRING },
    { path: "email", message: NOT_AN_EMAIL },
  ];
  assert.deepEqual(checkFields(body, USER_FIELDS, { partial: false }), errors);
  assert.deepEqual(checkFields(body, USER_FIELDS, { partial: true }), errors);
  assert.deepEqual(checkFields({ id: -1 }, USER_FIELDS, { partial: false }), [
    { path: "id", message: NOT_AN_ID },
    { path: "name", message: "is required" },
    { path: "email", message: "is required" },
  ]);
});

test("checkFields with partial true checks only the members sent", () => {
  assert.deepEqual(checkFields({}, USER_FIELDS, { partial: true }), []);
  assert.deepEqual(checkFields({ role: "admin" }, USER_FIELDS, { partial: true }), []);
  assert.deepEqual(checkFields({ name: "Grace" }, USER_FIELDS, { partial: true }), []);
  assert.deepEqual(checkFields({ email: "grace@" }, USER_FIELDS, { partial: true }), [
    { path: "email", message: NOT_AN_EMAIL },
  ]);
});

test("checkFields treats a member sent as null as sent, and checks it", () => {
  assert.deepEqual(checkFields({ name: null, email: null }, USER_FIELDS, { partial: true }), [
    { path: "name", message: NOT_A_STRING },
    { path: "email", message: NOT_AN_EMAIL },
  ]);
});

test("checkFields ignores inherited members and members it has no spec for", () => {
  const inherited = Object.create({ name: "Ada", email: "ada@example.com" }) as Record<string, unknown>;
  assert.deepEqual(checkFields(inherited, USER_FIELDS, { partial: false }), [
    { path: "name", message: "is required" },
    { path: "email", message: "is required" },
  ]);
  assert.deepEqual(checkFields({ anything: undefined }, {}, { partial: false }), []);
});
