// Black-box tests of list controls on GET /users: limit, offset and X-Total-Count (contract 6).
import assert from "node:assert/strict";
import { before, after, test } from "node:test";
import { assertJsonHeaders, call } from "../support/http.ts";
import { startTarget, type Target } from "../support/target.ts";

let target: Target;
let ids: number[];
before(async () => {
  target = await startTarget();
  for (let n = 3; n <= 7; n++) {
    await call(`${target.url}/users`, { method: "POST", json: { name: `User ${n}`, email: `u${n}@example.com` } });
  }
  ids = [1, 2, 3, 4, 5, 6, 7];
});
after(() => target.close());

const PAGES: Array<[query: string, expected: () => number[]]> = [
  ["", () => ids],
  ["?limit=2", () => ids.slice(0, 2)],
  ["?offset=5", () => ids.slice(5)],
  ["?limit=2&offset=3", () => ids.slice(3, 5)],
  ["?offset=3&limit=2", () => ids.slice(3, 5)],
  ["?limit=0", () => []],
  ["?offset=7", () => []],
  ["?offset=100&limit=5", () => []],
  ["?limit=100", () => ids],
  ["?limit=007&offset=01", () => ids.slice(1, 8)],
  ["?limit=9007199254740991", () => ids],
  ["?other=1&limit=1", () => [1]],
];

for (const [query, expected] of PAGES) {
  test(`GET /users${query} -> 200 with that page and X-Total-Count 7`, async () => {
    const response = await call(`${target.url}/users${query}`);
    assert.equal(response.status, 200);
    assertJsonHeaders(response);
    assert.equal(response.headers.get("x-total-count"), "7");
    assert.deepEqual((response.body as Array<{ id: number }>).map((user) => user.id), expected());
  });
}

const BAD_QUERIES: Array<[query: string, message: string]> = [
  ["?limit=-1", 'limit must be a non-negative whole number, not "-1"'],
  ["?limit=abc", 'limit must be a non-negative whole number, not "abc"'],
  ["?limit=1.5", 'limit must be a non-negative whole number, not "1.5"'],
  ["?limit=", 'limit must be a non-negative whole number, not ""'],
  ["?limit=1e2", 'limit must be a non-negative whole number, not "1e2"'],
  ["?offset=-5", 'offset must be a non-negative whole number, not "-5"'],
  ["?offset=x&limit=1", 'offset must be a non-negative whole number, not "x"'],
  ["?limit=99999999999999999999", 'limit must be a non-negative whole number, not "99999999999999999999"'],
  ["?limit=1&limit=2", "limit must be given at most once"],
];

for (const [query, message] of BAD_QUERIES) {
  test(`GET /users${query} -> 400 INVALID_QUERY`, async () => {
    const response = await call(`${target.url}/users${query}`);
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, { message, code: "INVALID_QUERY" });
  });
}

test("HEAD /users?limit=1 -> X-Total-Count of the whole list and no body", async () => {
  const response = await fetch(`${target.url}/users?limit=1`, { method: "HEAD" });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-total-count"), "7");
  assert.equal(await response.text(), "");
});
