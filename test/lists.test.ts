// White-box tests of src/lists.ts: readPage reads limit and offset, listReply builds a list answer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { listReply, readPage, type Page } from "../src/lists.ts";

test("readPage reads limit and offset as non-negative base-10 integers with defaults", () => {
  const cases: Array<[query: string, page: Page]> = [
    ["", { offset: 0, limit: Infinity }],
    ["sort=name&x=1", { offset: 0, limit: Infinity }],
    ["limit=0", { offset: 0, limit: 0 }],
    ["offset=0", { offset: 0, limit: Infinity }],
    ["limit=10", { offset: 0, limit: 10 }],
    ["offset=20", { offset: 20, limit: Infinity }],
    ["limit=10&offset=20", { offset: 20, limit: 10 }],
    ["offset=20&limit=10", { offset: 20, limit: 10 }],
    ["limit=007&offset=010", { offset: 10, limit: 7 }],
    ["limit=%31%32", { offset: 0, limit: 12 }],
    ["limit=9007199254740991&offset=1", { offset: 1, limit: Number.MAX_SAFE_INTEGER }],
    ["offset=9007199254740991", { offset: Number.MAX_SAFE_INTEGER, limit: Infinity }],
  ];
  for (const [query, page] of cases) {
    assert.deepEqual(readPage(new URLSearchParams(query)), page, query);
  }
});

test("readPage refuses a bad limit or offset with 400 INVALID_QUERY naming it", () => {
  const cases: Array<[query: string, name: string, shown: string]> = [
    ["limit=", "limit", ""],
    ["limit", "limit", ""],
    ["offset=", "offset", ""],
    ["limit=-1", "limit", "-1"],
    ["offset=-1", "offset", "-1"],
    ["limit=1.5", "limit", "1.5"],
    ["limit=1e3", "limit", "1e3"],
    ["limit=abc", "limit", "abc"],
    ["offset=abc", "offset", "abc"],
    ["limit=0x10", "limit", "0x10"],
    ["limit=+1", "limit", " 1"],
    ["limit=%201", "limit", " 1"],
    ["limit=Infinity", "limit", "Infinity"],
    ["limit=9007199254740992", "limit", "9007199254740992"],
    ["offset=99999999999999999999", "offset", "99999999999999999999"],
    ["offset=x&limit=y", "offset", "x"],
  ];
  for (const [query, name, shown] of cases) {
    assert.throws(
      () => readPage(new URLSearchParams(query)),
      {
        name: "HttpError",
        code: "INVALID_QUERY",
        status: 400,
        message: `${name} must be a non-negative whole number, not "${shown}"`,
      },
      query,
    );
  }
});

test("readPage clips a huge value in its message", () => {
  assert.throws(() => readPage(new URLSearchParams(`limit=${"9".repeat(500)}`)), {
    code: "INVALID_QUERY",
    message: `limit must be a non-negative whole number, not "${"9".repeat(64)}…"`,
  });
});

test("readPage refuses a repeated limit or offset with 400 INVALID_QUERY, even with equal values", () => {
  const cases: Array<[query: string, name: string]> = [
    ["limit=1&limit=2", "limit"],
    ["limit=1&limit=1", "limit"],
    ["limit=1&limit=", "limit"],
    ["offset=0&offset=0", "offset"],
    ["limit=5&offset=1&offset=2", "offset"],
  ];
  for (const [query, name] of cases) {
    assert.throws(
      () => readPage(new URLSearchParams(query)),
      { name: "HttpError", code: "INVALID_QUERY", status: 400, message: `${name} must be given at most once` },
      query,
    );
  }
});

test("listReply answers 200 with the items and the whole list's size in X-Total-Count", () => {
  const items = [{ id: 3 }, { id: 4 }];
  assert.deepEqual(listReply(items, 10), { status: 200, body: items, headers: { "x-total-count": "10" } });
  assert.deepEqual(listReply([], 0), { status: 200, body: [], headers: { "x-total-count": "0" } });
  assert.deepEqual(listReply([], 7), { status: 200, body: [], headers: { "x-total-count": "7" } });
});
