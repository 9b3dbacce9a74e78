// Black-box tests of list controls: limit, offset, sort, filters, Link and X-Total-Count (contract 6 and 10).
import assert from "node:assert/strict";
import { before, after, test } from "node:test";
import { create, idsOf } from "../support/family.ts";
import { assertJsonHeaders, call, suiteHeaders } from "../support/http.ts";
import { fresh, startTarget, type Target } from "../support/target.ts";

let target: Target;
let ids: number[];
before(async () => {
  target = await startTarget();
  // Users 3 to 7, with members of several JSON types to sort and filter on; users 1 and 2 have none of them.
  const extras: Array<Record<string, unknown>> = [
    { role: "admin", level: 10, active: true },
    { role: "editor", level: 9, active: false },
    { role: "admin", level: "9", note: null },
    { role: "editor", level: 2, tags: ["a"] },
    { role: "admin", level: 9 },
  ];
  for (let n = 3; n <= 7; n++) {
    await create(target.url, "/users", { name: `User ${n}`, email: `u${n}@example.com`, ...extras[n - 3] });
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
];

for (const [query, expected] of PAGES) {
  test(`GET /users${query} -> 200 with that page and X-Total-Count 7`, async () => {
    const response = await call(`${target.url}/users${query}`);
    assert.equal(response.status, 200);
    assertJsonHeaders(response);
    assert.equal(response.headers.get("x-total-count"), "7");
    assert.deepEqual(idsOf(response), expected());
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
  const response = await fetch(`${target.url}/users?limit=1`, { method: "HEAD", headers: suiteHeaders() });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-total-count"), "7");
  assert.equal(await response.text(), "");
});

test("GET /users?other=1&limit=1 -> 200 [] with X-Total-Count 0: an unknown member is a filter no user matches", async () => {
  const response = await call(`${target.url}/users?other=1&limit=1`);
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, []);
  assert.equal(response.headers.get("x-total-count"), "0");
  assert.equal(response.headers.get("link"), null);
});

const LINKS: Array<[query: string, link: string | null]> = [
  ["", null],
  ["?limit=7", null],
  ["?limit=100", null],
  ["?limit=0", null],
  ["?offset=0", null],
  ["?limit=3", '</users?limit=3&offset=0>; rel="first", </users?limit=3&offset=3>; rel="next", </users?limit=3&offset=6>; rel="last"'],
  [
    "?limit=3&offset=3",
    '</users?limit=3&offset=0>; rel="first", </users?limit=3&offset=0>; rel="prev", ' +
      '</users?limit=3&offset=6>; rel="next", </users?limit=3&offset=6>; rel="last"',
  ],
  ["?offset=6&limit=3", '</users?limit=3&offset=0>; rel="first", </users?limit=3&offset=3>; rel="prev", </users?limit=3&offset=6>; rel="last"'],
  ["?limit=3&offset=50", '</users?limit=3&offset=0>; rel="first", </users?limit=3&offset=6>; rel="prev", </users?limit=3&offset=6>; rel="last"'],
  ["?offset=5", '</users?offset=0>; rel="first", </users?offset=0>; rel="prev", </users?offset=0>; rel="last"'],
];

for (const [query, link] of LINKS) {
  test(`GET /users${query} -> Link ${link === null ? "absent" : "with the pages around it"}`, async () => {
    const response = await call(`${target.url}/users${query}`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("link"), link);
  });
}

const SORTED: Array<[query: string, ids: number[], total: number]> = [
  ["?sort=id", [1, 2, 3, 4, 5, 6, 7], 7],
  ["?sort=-id", [7, 6, 5, 4, 3, 2, 1], 7],
  ["?sort=name", [1, 2, 3, 4, 5, 6, 7], 7],
  ["?sort=-email", [7, 6, 5, 4, 3, 2, 1], 7],
  // Ties go by id; users 1 and 2 have no role: last ascending, first descending.
  ["?sort=role", [3, 5, 7, 4, 6, 1, 2], 7],
  ["?sort=-role", [1, 2, 4, 6, 3, 5, 7], 7],
  ["?sort=role,-id", [7, 5, 3, 6, 4, 2, 1], 7],
  // Strings before numbers; numbers numerically, not as text.
  ["?sort=level", [5, 6, 4, 7, 3, 1, 2], 7],
  ["?sort=-level,name", [1, 2, 3, 4, 7, 6, 5], 7],
  ["?sort=active", [4, 3, 1, 2, 5, 6, 7], 7],
  ["?sort=missing", [1, 2, 3, 4, 5, 6, 7], 7],
  ["?sort=-id&limit=2&offset=1", [6, 5], 7],
];

for (const [query, ids, total] of SORTED) {
  test(`GET /users${query} -> 200 in that order`, async () => {
    const response = await call(`${target.url}/users${query}`);
    assert.equal(response.status, 200);
    assertJsonHeaders(response);
    assert.deepEqual(idsOf(response), ids);
    assert.equal(response.headers.get("x-total-count"), String(total));
  });
}

const FILTERED: Array<[query: string, ids: number[], total: number]> = [
  ["?email=ada@example.com", [1], 1],
  ["?email=ada%40example.com", [1], 1],
  ["?name=User+3", [3], 1],
  ["?role=admin", [3, 5, 7], 3],
  ["?role=Admin", [], 0],
  ["?role=admin&role=editor", [3, 4, 5, 6, 7], 5],
  ["?role=admin&level=9", [5, 7], 2],
  // A number and a string with the same text both match it.
  ["?level=9", [4, 5, 7], 3],
  ["?level=09", [], 0],
  ["?id=3&id=1", [1, 3], 2],
  ["?id=3&id=1&sort=-id", [3, 1], 2],
  ["?active=true", [3], 1],
  ["?active=false", [4], 1],
  ["?note=null", [5], 1],
  ["?note=", [], 0],
  ["?tags=a", [], 0],
  ["?constructor=x", [], 0],
  ["?role=editor&limit=1&offset=1", [6], 2],
];

for (const [query, ids, total] of FILTERED) {
  test(`GET /users${query} -> 200 with the ${total} matches, X-Total-Count ${total}`, async () => {
    const response = await call(`${target.url}/users${query}`);
    assert.equal(response.status, 200);
    assertJsonHeaders(response);
    assert.deepEqual(idsOf(response), ids);
    assert.equal(response.headers.get("x-total-count"), String(total));
  });
}

test("GET /users?role=admin&role=editor&sort=-level&limit=2&offset=2 -> the page, its matches' count, and Link keeping sort and filters", async () => {
  const response = await call(`${target.url}/users?role=admin&role=editor&sort=-level&limit=2&offset=2`);
  assert.equal(response.status, 200);
  // Levels descending: numbers (10, 9, 9, 2), then the string "9".
  assert.deepEqual(idsOf(response), [7, 6]);
  assert.equal(response.headers.get("x-total-count"), "5");
  const kept = "role=admin&role=editor&sort=-level&limit=2";
  assert.equal(
    response.headers.get("link"),
    `</users?${kept}&offset=0>; rel="first", </users?${kept}&offset=0>; rel="prev", ` +
      `</users?${kept}&offset=4>; rel="next", </users?${kept}&offset=4>; rel="last"`,
  );
  // Following next gives the rest.
  const next = await call(`${target.url}/users?${kept}&offset=4`);
  assert.deepEqual(idsOf(next), [5]);
});

test("GET /users/?sort=name,-id&limit=1 -> Link targets name the list's path, with commas escaped", async () => {
  const response = await call(`${target.url}/users/?sort=name,-id&limit=1`);
  assert.equal(response.status, 200);
  assert.equal(
    response.headers.get("link"),
    '</users?sort=name%2C-id&limit=1&offset=0>; rel="first", </users?sort=name%2C-id&limit=1&offset=1>; rel="next", ' +
      '</users?sort=name%2C-id&limit=1&offset=6>; rel="last"',
  );
});

const BAD_LISTS: Array<[query: string, code: string, message: string]> = [
  ["?sort=", "INVALID_SORT", "sort must name a member, such as sort=name or sort=-id"],
  ["?sort", "INVALID_SORT", "sort must name a member, such as sort=name or sort=-id"],
  ["?sort=-", "INVALID_SORT", 'sort has an empty key in "-"; separate member names with single commas'],
  ["?sort=name,,id", "INVALID_SORT", 'sort has an empty key in "name,,id"; separate member names with single commas'],
  ["?sort=+name", "INVALID_SORT", 'sort key " name" has white space at an end; write name, or -name for descending'],
  ["?sort=name&sort=id", "INVALID_SORT", "sort must be given at most once"],
  ["?sort=name,-name", "INVALID_SORT", 'sort names "name" more than once'],
  ["?sort=a,b,c,d,e,f", "INVALID_SORT", "sort takes at most 5 keys"],
  ["?=x", "INVALID_QUERY", "A query parameter has an empty name; filter as member=value"],
  ["?role=admin&=", "INVALID_QUERY", "A query parameter has an empty name; filter as member=value"],
  [
    `?${Array.from({ length: 21 }, (_, i) => `m${i}=1`).join("&")}`,
    "INVALID_QUERY",
    "A list can be filtered on at most 20 members",
  ],
  // The page is checked first.
  ["?sort=&limit=x", "INVALID_QUERY", 'limit must be a non-negative whole number, not "x"'],
];

for (const [query, code, message] of BAD_LISTS) {
  test(`GET /users${query.slice(0, 40)} -> 400 ${code}`, async () => {
    const response = await call(`${target.url}/users${query}`);
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, { message, code });
  });
}

test("HEAD /users?sort=-id&limit=2 -> the same X-Total-Count and Link as GET, no body", async () => {
  const head = await fetch(`${target.url}/users?sort=-id&limit=2`, { method: "HEAD", headers: suiteHeaders() });
  const get = await call(`${target.url}/users?sort=-id&limit=2`);
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("x-total-count"), "7");
  assert.equal(head.headers.get("link"), get.headers.get("link"));
  assert.notEqual(head.headers.get("link"), null);
  assert.equal(await head.text(), "");
});

test("GET /posts?sort=-id&title=Second -> the matching post; GET /posts?limit=1 -> Link on /posts", async () => {
  await create(target.url, "/posts", { title: "First", body: "one" });
  await create(target.url, "/posts", { title: "Second", body: "two" });
  await create(target.url, "/posts", { title: "Second", body: "three" });
  const filtered = await call(`${target.url}/posts?sort=-id&title=Second`);
  assert.deepEqual(idsOf(filtered), [3, 2]);
  assert.equal(filtered.headers.get("x-total-count"), "2");
  assert.equal(filtered.headers.get("link"), null);
  const paged = await call(`${target.url}/posts?limit=1&offset=1`);
  assert.deepEqual(idsOf(paged), [2]);
  assert.equal(
    paged.headers.get("link"),
    '</posts?limit=1&offset=0>; rel="first", </posts?limit=1&offset=0>; rel="prev", ' +
      '</posts?limit=1&offset=2>; rel="next", </posts?limit=1&offset=2>; rel="last"',
  );
});

test("GET /posts/{id}/comments sorts, filters and pages that post's comments only, with Link on its path", async (t) => {
  const base = await fresh(t);
  await create(base, "/posts", { title: "One", body: "1" });
  await create(base, "/posts", { title: "Two", body: "2" });
  await create(base, "/posts/1/comments", { body: "b", stars: 3 });
  await create(base, "/posts/2/comments", { body: "x", stars: 5 });
  await create(base, "/posts/1/comments", { body: "a", stars: 5 });
  await create(base, "/posts/1/comments", { body: "c", stars: 3 });
  await create(base, "/posts/1/comments", { body: "d" });

  const cases: Array<[query: string, ids: number[], total: number, link: string | null]> = [
    ["", [1, 3, 4, 5], 4, null],
    ["?sort=-stars", [5, 3, 1, 4], 4, null],
    ["?sort=stars,-id", [4, 1, 3, 5], 4, null],
    ["?stars=5", [3], 1, null],
    ["?postId=2", [], 0, null],
    ["?postId=1&stars=3&stars=4", [1, 4], 2, null],
    [
      "?stars=3&sort=-id&limit=1",
      [4],
      2,
      '</posts/1/comments?stars=3&sort=-id&limit=1&offset=0>; rel="first", ' +
        '</posts/1/comments?stars=3&sort=-id&limit=1&offset=1>; rel="next", ' +
        '</posts/1/comments?stars=3&sort=-id&limit=1&offset=1>; rel="last"',
    ],
  ];
  for (const [query, ids, total, link] of cases) {
    const response = await call(`${base}/posts/1/comments${query}`);
    assert.equal(response.status, 200, query);
    assertJsonHeaders(response);
    assert.deepEqual(idsOf(response), ids, query);
    assert.equal(response.headers.get("x-total-count"), String(total), query);
    assert.equal(response.headers.get("link"), link, query);
  }

  // The path in Link is the list's own, with the id as read (/posts/01 is post 1).
  const leading = await call(`${base}/posts/01/comments?sort=body&limit=2`);
  assert.deepEqual(idsOf(leading), [3, 1]);
  assert.equal(
    leading.headers.get("link"),
    '</posts/1/comments?sort=body&limit=2&offset=0>; rel="first", </posts/1/comments?sort=body&limit=2&offset=2>; rel="next", ' +
      '</posts/1/comments?sort=body&limit=2&offset=2>; rel="last"',
  );

  // The sort is checked before the post is looked up, like limit and offset.
  assert.deepEqual((await call(`${base}/posts/9/comments?sort=`)).body, {
    message: "sort must name a member, such as sort=name or sort=-id",
    code: "INVALID_SORT",
  });
  const missing = await call(`${base}/posts/9/comments?sort=body`);
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { message: "Post not found", code: "POST_NOT_FOUND" });

  await create(base, "/comments/1/replies", { body: "r1" });
  await create(base, "/comments/3/replies", { body: "r2" });
  await create(base, "/comments/1/replies", { body: "r3" });
  const replies = await call(`${base}/comments/1/replies?sort=-id&limit=1`);
  assert.deepEqual(idsOf(replies), [3]);
  assert.equal(replies.headers.get("x-total-count"), "2");
  assert.equal(
    replies.headers.get("link"),
    '</comments/1/replies?sort=-id&limit=1&offset=0>; rel="first", </comments/1/replies?sort=-id&limit=1&offset=1>; rel="next", ' +
      '</comments/1/replies?sort=-id&limit=1&offset=1>; rel="last"',
  );
  const byBody = await call(`${base}/comments/1/replies?body=r3`);
  assert.deepEqual(idsOf(byBody), [3]);
});
