// White-box tests of src/lists.ts: reading page, sort and filters; ordering, matching, paging and Link.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { linkHeader, linkTarget, listReply, MAX_FILTERS, MAX_SORT_KEYS, readList, readPage, readSort } from "../src/api/lists.ts";
import { compareCodePoints, compareJson, filterText, type ListQuery, matchesFilters, selectPage, sortRecords, type Page } from "../src/store/query.ts";

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

test("readSort reads members separated by commas, - for descending, in order", () => {
  assert.deepEqual(readSort("name"), [{ member: "name", descending: false }]);
  assert.deepEqual(readSort("name,-id"), [
    { member: "name", descending: false },
    { member: "id", descending: true },
  ]);
  // Only the first `-` marks the direction; the rest of the key is the member's name.
  assert.deepEqual(readSort("--x"), [{ member: "-x", descending: true }]);
  assert.deepEqual(readSort("a,b,c,d,e"), ["a", "b", "c", "d", "e"].map((member) => ({ member, descending: false })));
});

test("readSort refuses bad input with 400 INVALID_SORT and a message that says what to fix", () => {
  const cases: Array<[text: string, message: string]> = [
    ["", "sort must name a member, such as sort=name or sort=-id"],
    ["-", 'sort has an empty key in "-"; separate member names with single commas'],
    ["name,,id", 'sort has an empty key in "name,,id"; separate member names with single commas'],
    ["name,", 'sort has an empty key in "name,"; separate member names with single commas'],
    [",name", 'sort has an empty key in ",name"; separate member names with single commas'],
    ["name,-", 'sort has an empty key in "name,-"; separate member names with single commas'],
    [" name", 'sort key " name" has white space at an end; write name, or -name for descending'],
    ["-name ", 'sort key "-name " has white space at an end; write name, or -name for descending'],
    ["name,-name", 'sort names "name" more than once'],
    ["id,name,id", 'sort names "id" more than once'],
    ["a,b,c,d,e,f", `sort takes at most ${MAX_SORT_KEYS} keys`],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => readSort(text), { name: "HttpError", code: "INVALID_SORT", status: 400, message }, text);
  }
});

test("readList refuses a repeated sort with 400 INVALID_SORT, after checking the page", () => {
  assert.throws(() => readList(new URLSearchParams("sort=a&sort=b")), {
    code: "INVALID_SORT",
    message: "sort must be given at most once",
  });
  assert.throws(() => readList(new URLSearchParams("sort=&limit=x")), { code: "INVALID_QUERY" });
});

test("readList takes every other parameter as a filter, repeated names as alternatives", () => {
  const list = readList(new URLSearchParams("id=1&sort=-name&limit=2&email=a%40b.io&id=3&offset=1&id=1"));
  assert.equal(list.limit, 2);
  assert.equal(list.offset, 1);
  assert.deepEqual(list.sort, [{ member: "name", descending: true }]);
  assert.deepEqual(
    list.filters,
    new Map([
      ["id", new Set(["1", "3"])],
      ["email", new Set(["a@b.io"])],
    ]),
  );
  assert.deepEqual(list.kept, [
    ["id", "1"],
    ["sort", "-name"],
    ["email", "a@b.io"],
    ["id", "3"],
    ["id", "1"],
  ]);
  // A parameter without `=` filters on the empty text.
  assert.deepEqual(readList(new URLSearchParams("note")).filters, new Map([["note", new Set([""])]]));
});

test("readList refuses an empty parameter name, or too many filtered members, with 400 INVALID_QUERY", () => {
  for (const query of ["=x", "=", "name=a&=b"]) {
    assert.throws(
      () => readList(new URLSearchParams(query)),
      { code: "INVALID_QUERY", message: "A query parameter has an empty name; filter as member=value" },
      query,
    );
  }
  const many = Array.from({ length: MAX_FILTERS + 1 }, (_, i) => `m${i}=1`).join("&");
  assert.throws(() => readList(new URLSearchParams(many)), {
    code: "INVALID_QUERY",
    message: `A list can be filtered on at most ${MAX_FILTERS} members`,
  });
  // Values of one member count once.
  const same = Array.from({ length: 100 }, (_, i) => `id=${i}`).join("&");
  assert.equal(readList(new URLSearchParams(same)).filters.get("id")?.size, 100);
});

test("compareJson orders by type (null, string, number, boolean, array, object), then value", () => {
  const ascending: unknown[] = [
    null,
    "",
    "A",
    "B",
    "a",
    "ab",
    "é",
    "\uffff",
    "😀",
    -Infinity,
    -1.5,
    0,
    2,
    10,
    false,
    true,
    [],
    [null],
    [1],
    [1, 2],
    {},
    { b: 1 },
    { a: 1, b: 2 },
    { a: 2, b: 1 },
    { zz: 0, a: 2 },
  ];
  for (let i = 0; i < ascending.length; i++) {
    for (let j = 0; j < ascending.length; j++) {
      const order = Math.sign(compareJson(ascending[i], ascending[j]));
      assert.equal(order, Math.sign(i - j), `${JSON.stringify(ascending[i])} vs ${JSON.stringify(ascending[j])}`);
    }
  }
  // Objects compare member by member, names in jsonb's stored order, not as written.
  assert.equal(compareJson({ b: 1, a: 2 }, { a: 2, b: 1 }), 0);
});

test("compareCodePoints orders strings by code point, unlike < on UTF-16 units", () => {
  // U+1F600 is stored as surrogates (0xD83D...), which < puts before U+FFFF.
  assert.ok("😀" < "\uffff");
  assert.ok(compareCodePoints("😀", "\uffff") > 0);
  assert.ok(compareCodePoints("\ue000", "😀") < 0);
  assert.ok(compareCodePoints("a", "b") < 0);
  assert.ok(compareCodePoints("Z", "a") < 0);
  assert.ok(compareCodePoints("ab", "a") > 0);
  assert.equal(compareCodePoints("same", "same"), 0);
  // The same order as UTF-8 bytes, which PostgreSQL's "C" collation compares.
  const words = ["\ue000", "😀", "z", "é", "\uffff", "𝔸", "a"];
  const byBytes = [...words].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  assert.deepEqual([...words].sort(compareCodePoints), byBytes);
});

test("sortRecords sorts by each key in turn, ties broken by id ascending, missing members last ascending", () => {
  const records = [
    { id: 1, name: "b", age: 30 },
    { id: 2, name: "a" },
    { id: 3, name: "b", age: 20 },
    { id: 4, age: 30 },
    { id: 5, name: "a", age: 30 },
    { id: 6, name: "b", age: 30 },
  ];
  const ids = (keys: string) => sortRecords(records, readSort(keys)).map((record) => record.id);
  assert.deepEqual(ids("name"), [2, 5, 1, 3, 6, 4]);
  // Descending reverses the whole order, missing members included: they come first, as SQL's DESC puts NULL.
  assert.deepEqual(ids("-name"), [4, 1, 3, 6, 2, 5]);
  assert.deepEqual(ids("name,-age"), [2, 5, 1, 6, 3, 4]);
  assert.deepEqual(ids("name,age"), [5, 2, 3, 1, 6, 4]);
  assert.deepEqual(ids("-age,name"), [2, 5, 1, 6, 4, 3]);
  assert.deepEqual(ids("-id"), [6, 5, 4, 3, 2, 1]);
  assert.deepEqual(ids("nothing"), [1, 2, 3, 4, 5, 6]);
  // Ties go by id whatever the order the records were held in, and the input is left as it was.
  const shuffled = [records[5]!, records[0]!, records[2]!];
  assert.deepEqual(sortRecords(shuffled, readSort("name")).map((record) => record.id), [1, 3, 6]);
  assert.deepEqual(shuffled.map((record) => record.id), [6, 1, 3]);
});

test("sortRecords puts mixed JSON types in the documented order, and reads own members only", () => {
  const records = [
    { id: 1, x: true },
    { id: 2, x: "10" },
    { id: 3, x: 9 },
    { id: 4, x: null },
    { id: 5 },
    { id: 6, x: { a: 1 } },
    { id: 7, x: [1] },
    { id: 8, x: 10 },
    { id: 9, x: false },
  ];
  assert.deepEqual(sortRecords(records, readSort("x")).map((record) => record.id), [4, 2, 3, 8, 9, 1, 7, 6, 5]);
  const inherited: Array<Record<string, unknown> & { id: number }> = [{ id: 2 }, { id: 1, constructor: "z" }];
  assert.deepEqual(sortRecords(inherited, readSort("constructor")).map((record) => record.id), [1, 2]);
});

test("filterText gives strings as they are, numbers, booleans and null as JSON text, and nothing for the rest", () => {
  assert.equal(filterText("ada@example.com"), "ada@example.com");
  assert.equal(filterText(""), "");
  assert.equal(filterText(3), "3");
  assert.equal(filterText(-0), "0");
  assert.equal(filterText(4.5), "4.5");
  assert.equal(filterText(1e21), "1e+21");
  assert.equal(filterText(true), "true");
  assert.equal(filterText(null), "null");
  assert.equal(filterText([1]), undefined);
  assert.equal(filterText({}), undefined);
});

test("matchesFilters needs every member, each equal to one of its texts; missing members never match", () => {
  const filters = (query: string) => readList(new URLSearchParams(query)).filters;
  const record = { id: 3, name: "Ada", active: true, note: null, tags: ["a"], score: 4.5 };
  assert.ok(matchesFilters(record, filters("")));
  assert.ok(matchesFilters(record, filters("id=3")));
  assert.ok(matchesFilters(record, filters("id=1&id=3")));
  assert.ok(matchesFilters(record, filters("name=Ada&active=true&note=null&score=4.5")));
  assert.ok(!matchesFilters(record, filters("name=ada")));
  assert.ok(!matchesFilters(record, filters("id=03")));
  assert.ok(!matchesFilters(record, filters("score=4.50")));
  assert.ok(!matchesFilters(record, filters("name=Ada&id=4")));
  assert.ok(!matchesFilters(record, filters("tags=a")));
  assert.ok(!matchesFilters(record, filters('tags=["a"]')));
  assert.ok(!matchesFilters(record, filters("missing=null")));
  assert.ok(!matchesFilters(record, filters("constructor=")));
  // "3" the string and 3 the number have the same text, so both match ?id=3.
  assert.ok(matchesFilters({ id: 1, code: "3" }, filters("code=3")));
});

test("selectPage filters, then sorts, then cuts the page; total counts every match", () => {
  const records = [1, 2, 3, 4, 5, 6].map((id) => ({ id, even: id % 2 === 0, rank: 7 - id }));
  const select = (query: string) => {
    const { items, total } = selectPage(records, readList(new URLSearchParams(query)));
    return [items.map((record) => record.id), total];
  };
  assert.deepEqual(select(""), [[1, 2, 3, 4, 5, 6], 6]);
  assert.deepEqual(select("even=true"), [[2, 4, 6], 3]);
  assert.deepEqual(select("even=true&sort=rank"), [[6, 4, 2], 3]);
  assert.deepEqual(select("even=true&sort=rank&limit=2&offset=1"), [[4, 2], 3]);
  assert.deepEqual(select("sort=-id&limit=2"), [[6, 5], 6]);
  assert.deepEqual(select("even=maybe"), [[], 0]);
  assert.deepEqual(select("even=false&offset=9"), [[], 3]);
});

function list(query: string): ListQuery {
  return readList(new URLSearchParams(query));
}

test("linkHeader gives first, prev, next and last, only those that make sense", () => {
  const cases: Array<[query: string, total: number, link: string | undefined]> = [
    ["", 7, undefined],
    ["limit=7", 7, undefined],
    ["limit=100", 7, undefined],
    ["limit=0", 7, undefined],
    ["", 0, undefined],
    ["offset=3", 0, undefined],
    [
      "limit=2",
      7,
      '</users?limit=2&offset=0>; rel="first", </users?limit=2&offset=2>; rel="next", </users?limit=2&offset=6>; rel="last"',
    ],
    [
      "limit=2&offset=2",
      7,
      '</users?limit=2&offset=0>; rel="first", </users?limit=2&offset=0>; rel="prev", ' +
        '</users?limit=2&offset=4>; rel="next", </users?limit=2&offset=6>; rel="last"',
    ],
    [
      "limit=2&offset=6",
      7,
      '</users?limit=2&offset=0>; rel="first", </users?limit=2&offset=4>; rel="prev", </users?limit=2&offset=6>; rel="last"',
    ],
    [
      "limit=2&offset=5",
      8,
      '</users?limit=2&offset=0>; rel="first", </users?limit=2&offset=3>; rel="prev", ' +
        '</users?limit=2&offset=7>; rel="next", </users?limit=2&offset=6>; rel="last"',
    ],
    // A prev that would start before the list starts it.
    [
      "limit=3&offset=1",
      7,
      '</users?limit=3&offset=0>; rel="first", </users?limit=3&offset=0>; rel="prev", ' +
        '</users?limit=3&offset=4>; rel="next", </users?limit=3&offset=6>; rel="last"',
    ],
    // Past the end: prev is the last page, and there is no next.
    [
      "limit=2&offset=100",
      7,
      '</users?limit=2&offset=0>; rel="first", </users?limit=2&offset=6>; rel="prev", </users?limit=2&offset=6>; rel="last"',
    ],
    [
      "limit=2&offset=7",
      7,
      '</users?limit=2&offset=0>; rel="first", </users?limit=2&offset=5>; rel="prev", </users?limit=2&offset=6>; rel="last"',
    ],
    // Without a limit the whole list is one page.
    ["offset=3", 7, '</users?offset=0>; rel="first", </users?offset=0>; rel="prev", </users?offset=0>; rel="last"'],
    ["offset=0", 7, undefined],
  ];
  for (const [query, total, link] of cases) {
    assert.equal(linkHeader("/users", list(query), total), link, `${query} of ${total}`);
  }
});

test("linkTarget keeps the path and the other parameters in the order sent, then limit and offset", () => {
  assert.equal(
    linkTarget("/posts/1/comments", list("offset=4&sort=-createdAt&limit=2&author=ada"), 2),
    "/posts/1/comments?sort=-createdAt&author=ada&limit=2&offset=2",
  );
  // Names and values are percent-encoded, commas too, so a header split at commas keeps each target whole.
  assert.equal(
    linkTarget("/users", list("sort=name,-id&email=ada%40example.com&q=a+b&x=%26%3D"), 0),
    "/users?sort=name%2C-id&email=ada%40example.com&q=a%20b&x=%26%3D&offset=0",
  );
  assert.equal(linkTarget("/users", list("id=1&id=2&limit=1"), 1), "/users?id=1&id=2&limit=1&offset=1");
});

test("listReply adds Link only when given where the list lives and the page holds fewer than the matches", () => {
  const links = { path: "/users", list: list("limit=1") };
  assert.deepEqual(listReply([{ id: 1 }], 1, links), {
    status: 200,
    body: [{ id: 1 }],
    headers: { "x-total-count": "1" },
  });
  assert.deepEqual(listReply([{ id: 1 }], 2, links).headers, {
    "x-total-count": "2",
    link: '</users?limit=1&offset=0>; rel="first", </users?limit=1&offset=1>; rel="next", </users?limit=1&offset=1>; rel="last"',
  });
});

test("sortRecords orders any JSON values as compareJson does, though it makes each record's values comparable only once", () => {
  fc.assert(
    // Any unit in strings and member names, those from U+D800 up among them.
    fc.property(fc.array(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3, stringUnit: "binary" })), { maxLength: 30 }), fc.boolean(), (values, descending) => {
      const records = values.map((x, index) => ({ id: index + 1, x }));
      const expected = [...records].sort((a, b) => {
        const order = compareJson(a.x, b.x);
        return order !== 0 ? (descending ? -order : order) : a.id - b.id;
      });
      assert.deepEqual(
        sortRecords(records, [{ member: "x", descending }]).map((record) => record.id),
        expected.map((record) => record.id),
      );
    }),
    { numRuns: 300 },
  );
});

test("sortRecords of records holding large objects compares each pair without sorting their members again", () => {
  // Four records of 110,000 members each: sorting and encoding the member names per comparison took seconds.
  const big = (seed: number) => Object.fromEntries(Array.from({ length: 110_000 }, (_, i) => [`m${(i * 7919 + seed) % 110_000}`, i]));
  const records = [4, 3, 2, 1].map((id) => ({ id, x: big(id) }));
  const order = sortRecords(records, [{ member: "x", descending: false }]).map((record) => record.id);
  assert.equal(order.length, 4);
  assert.deepEqual(order, [...records].sort((a, b) => compareJson(a.x, b.x) || a.id - b.id).map((record) => record.id));
});
