// Ported from json-server v0.17.4, __tests__/server/plural.js (MIT, typicode): every test that
// applies over HTTP, with its assertions; only how the server is started (target.ts, on the
// test's db.json) and reached (a real socket) is adapted, and the upstream `db` the router
// wrote to is read back with GET /db. Not ported, as they configure json-server's library
// rather than its HTTP: "Rewriter" (6 tests), "router.render" (1), "router.db._.id" (2) and
// "Database state" (1).
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import { differs, expectBody, expectHeader, lazyServer } from "./support.ts";

type Db = Record<"posts" | "tags" | "users" | "comments" | "buyers" | "refs" | "stringIds" | "deep" | "nested" | "list", Array<Record<string, unknown>>>;
let db: Db;
const api = lazyServer(() => db);
const request = api.request;

beforeEach(() => {
  db = {} as Db;
  db.posts = [
    { id: 1, body: "foo" },
    { id: 2, body: "bar" },
  ];
  db.tags = [
    { id: 1, body: "Technology" },
    { id: 2, body: "Photography" },
    { id: 3, body: "photo" },
  ];
  db.users = [
    { id: 1, username: "Jim", tel: "0123" },
    { id: 2, username: "George", tel: "123" },
  ];
  db.comments = [
    { id: 1, body: "foo", published: true, postId: 1, userId: 1 },
    { id: 2, body: "bar", published: false, postId: 1, userId: 2 },
    { id: 3, body: "baz", published: false, postId: 2, userId: 1 },
    { id: 4, body: "qux", published: true, postId: 2, userId: 2 },
    { id: 5, body: "quux", published: false, postId: 2, userId: 1 },
  ];
  db.buyers = [
    { id: 1, name: "Aileen", country: "Colombia", total: 100 },
    { id: 2, name: "Barney", country: "Colombia", total: 200 },
    { id: 3, name: "Carley", country: "Colombia", total: 300 },
    { id: 4, name: "Daniel", country: "Belize", total: 30 },
    { id: 5, name: "Ellen", country: "Belize", total: 20 },
    { id: 6, name: "Frank", country: "Belize", total: 10 },
    { id: 7, name: "Grace", country: "Argentina", total: 1 },
    { id: 8, name: "Henry", country: "Argentina", total: 2 },
    { id: 9, name: "Isabelle", country: "Argentina", total: 3 },
  ];
  db.refs = [{ id: "abcd-1234", url: "http://example.com", postId: 1, userId: 1 }];
  db.stringIds = [{ id: "1234" }];
  db.deep = [{ a: { b: 1 } }, { a: 1 }];
  db.nested = [{ resource: { name: "dewey" } }, { resource: { name: "cheatem" } }, { resource: { name: "howe" } }];
  db.list = Array.from({ length: 15 }, (_, index) => ({ id: index + 1 }));
});
afterEach(() => api.close());

const clone = <T>(value: T): T => structuredClone(value);

describe("GET /db", () => {
  test("should respond with json and full database", async () => {
    const res = await request("GET", "/db");
    expectHeader(res, "Content-Type", /json/);
    expectBody(res, 200, db);
  });
});

describe("GET /:resource", () => {
  test("should respond with json and corresponding resources", async () => {
    await differs("an origin not allowed gets no CORS headers, and none gets credentials", async () => {
      const res = await request("GET", "/posts", { headers: { origin: "http://example.com" } });
      expectHeader(res, "Content-Type", /json/);
      expectHeader(res, "Access-Control-Allow-Credentials", "true");
      expectHeader(res, "Access-Control-Allow-Origin", "http://example.com");
      expectBody(res, 200, db.posts);
    });
  });
  test("should respond with 404 if resource is not found", async () => expectBody(await request("GET", "/undefined"), 404));
});

describe("GET /:resource?attr=&attr=", () => {
  test("should respond with json and filter resources", async () => {
    const res = await request("GET", "/comments?postId=1&published=true");
    expectHeader(res, "Content-Type", /json/);
    expectBody(res, 200, [db.comments[0]]);
  });
  test("should be strict", async () => expectBody(await request("GET", "/users?tel=123"), 200, [db.users[1]]));
  test("should support multiple filters", async () => expectBody(await request("GET", "/comments?id=1&id=2"), 200, [db.comments[0], db.comments[1]]));
  test("should support deep filter", async () => expectBody(await request("GET", "/deep?a.b=1"), 200, [db.deep[0]]));
  test("should ignore JSONP query parameters callback and _ ", async () => {
    await differs("JSONP is not served: it would hand any site the data", async () => {
      const res = await request("GET", "/comments?callback=1&_=1");
      expectHeader(res, "Content-Type", /text/);
      assert.match(res.text, new RegExp(db.comments[0]!.body as string));
      expectBody(res, 200);
    });
  });
  test("should ignore unknown query parameters", async () => expectBody(await request("GET", "/comments?foo=1&bar=2"), 200, db.comments));
  // https://github.com/typicode/json-server/issues/510
  test("should not fail with null value", async () => {
    db.posts!.push({ id: 99, body: null });
    expectBody(await request("GET", "/posts?body=foo"), 200, [db.posts![0]]);
  });
});

describe("GET /:resource?q=", () => {
  test("should respond with json and make a full-text search", async () => expectBody(await request("GET", "/tags?q=pho"), 200, [db.tags![1], db.tags![2]]));
  test("should respond with json and make a deep full-text search", async () => expectBody(await request("GET", "/deep?q=1"), 200, db.deep));
  test("should return an empty array when nothing is matched", async () => expectBody(await request("GET", "/tags?q=nope"), 200, []));
  test("should support other query parameters", async () => expectBody(await request("GET", "/comments?q=qu&published=true"), 200, [db.comments![3]]));
  test("should ignore duplicate q query parameters", async () => expectBody(await request("GET", "/comments?q=foo&q=bar"), 200, [db.comments![0]]));
  test("should support filtering by boolean value false", async () =>
    expectBody(await request("GET", "/comments?published=false"), 200, [db.comments![1], db.comments![2], db.comments![4]]));
});

describe("GET /:resource?_end=", () => {
  test("should respond with a sliced array", async () => {
    const res = await request("GET", "/comments?_end=2");
    expectHeader(res, "Content-Type", /json/);
    expectHeader(res, "x-total-count", String(db.comments!.length));
    expectHeader(res, "Access-Control-Expose-Headers", "X-Total-Count");
    expectBody(res, 200, db.comments!.slice(0, 2));
  });
});

describe("GET /:resource?_sort=", () => {
  test("should respond with json and sort on a field", async () => expectBody(await request("GET", "/tags?_sort=body"), 200, [db.tags![1], db.tags![0], db.tags![2]]));
  test("should reverse sorting with _order=DESC", async () => expectBody(await request("GET", "/tags?_sort=body&_order=DESC"), 200, [db.tags![2], db.tags![0], db.tags![1]]));
  test("should reverse sorting with _order=desc (case insensitive)", async () =>
    expectBody(await request("GET", "/tags?_sort=body&_order=desc"), 200, [db.tags![2], db.tags![0], db.tags![1]]));
  test("should sort on numerical field", async () => expectBody(await request("GET", "/posts?_sort=id&_order=DESC"), 200, clone(db.posts!).reverse()));
  test("should sort on nested field", async () => expectBody(await request("GET", "/nested?_sort=resource.name"), 200, [db.nested![1], db.nested![0], db.nested![2]]));
  test("should sort on multiple fields", async () => {
    const b = db.buyers!;
    expectBody(await request("GET", "/buyers?_sort=country,total&_order=asc,desc"), 200, [b[8], b[7], b[6], b[3], b[4], b[5], b[2], b[1], b[0]]);
  });
});

describe("GET /:resource?_start=&_end=", () => {
  test("should respond with a sliced array", async () => {
    const res = await request("GET", "/comments?_start=1&_end=2");
    expectHeader(res, "X-Total-Count", String(db.comments!.length));
    expectHeader(res, "Access-Control-Expose-Headers", "X-Total-Count");
    expectBody(res, 200, db.comments!.slice(1, 2));
  });
});

describe("GET /:resource?_start=&_limit=", () => {
  test("should respond with a limited array", async () => {
    const res = await request("GET", "/comments?_start=1&_limit=1");
    expectHeader(res, "X-Total-Count", String(db.comments!.length));
    expectHeader(res, "Access-Control-Expose-Headers", "X-Total-Count");
    expectBody(res, 200, db.comments!.slice(1, 2));
  });
});

describe("GET /:resource?_page=", () => {
  test("should paginate", async () => {
    const res = await request("GET", "/list?_page=2");
    expectHeader(res, "x-total-count", String(db.list!.length));
    expectHeader(res, "Access-Control-Expose-Headers", "X-Total-Count, Link");
    expectBody(res, 200, db.list!.slice(10, 20));
  });
});

describe("GET /:resource?_page=&_limit=", () => {
  test("should paginate with a custom limit", async () => {
    const link = [
      '<http://localhost/list?_page=1&_limit=1>; rel="first"',
      '<http://localhost/list?_page=1&_limit=1>; rel="prev"',
      '<http://localhost/list?_page=3&_limit=1>; rel="next"',
      '<http://localhost/list?_page=15&_limit=1>; rel="last"',
    ].join(", ");
    const res = await request("GET", "/list?_page=2&_limit=1", { headers: { host: "localhost" } });
    expectHeader(res, "Content-Type", /json/);
    expectHeader(res, "x-total-count", String(db.list!.length));
    expectHeader(res, "link", link);
    expectHeader(res, "Access-Control-Expose-Headers", "X-Total-Count, Link");
    expectBody(res, 200, db.list!.slice(1, 2));
  });
});

describe("GET /:resource?attr_gte=&attr_lte=", () => {
  test("should respond with a limited array", async () => expectBody(await request("GET", "/comments?id_gte=2&id_lte=3"), 200, db.comments!.slice(1, 3)));
});

describe("GET /:resource?attr_ne=", () => {
  test("should respond with a limited array", async () => expectBody(await request("GET", "/comments?id_ne=1"), 200, db.comments!.slice(1)));
  test("should accept multiple parameters", async () => expectBody(await request("GET", "/comments?id_ne=1&id_ne=2"), 200, db.comments!.slice(2)));
});

describe("GET /:resource?attr_like=", () => {
  test("should respond with an array that matches the like operator (case insensitive)", async () =>
    expectBody(await request("GET", "/tags?body_like=photo"), 200, [db.tags![1], db.tags![2]]));
  test("should accept multiple parameters", async () => expectBody(await request("GET", "/tags?body_like=photo&body_like=tech"), 200, db.tags));
});

describe("GET /:parent/:parentId/:resource", () => {
  test("should respond with json and corresponding nested resources", async () =>
    expectBody(await request("GET", "/posts/1/comments"), 200, [db.comments![0], db.comments![1]]));
});

describe("GET /:resource/:id", () => {
  test("should respond with json and corresponding resource", async () => expectBody(await request("GET", "/posts/1"), 200, db.posts![0]));
  test("should support string id, respond with json and corresponding resource", async () => expectBody(await request("GET", "/refs/abcd-1234"), 200, db.refs![0]));
  test("should support integer id as string", async () => expectBody(await request("GET", "/stringIds/1234"), 200, db.stringIds![0]));
  test("should respond with 404 if resource is not found", async () => {
    const res = await request("GET", "/posts/9001");
    expectHeader(res, "Content-Type", /json/);
    expectBody(res, 404, {});
  });
});

describe("GET /:resource?_embed=", () => {
  test("should respond with corresponding resources and embedded resources", async () => {
    const posts = clone(db.posts!);
    posts[0]!.comments = [db.comments![0], db.comments![1]];
    posts[1]!.comments = [db.comments![2], db.comments![3], db.comments![4]];
    expectBody(await request("GET", "/posts?_embed=comments"), 200, posts);
  });
});

describe("GET /:resource?_embed&_embed=", () => {
  test("should respond with corresponding resources and embedded resources", async () => {
    const posts = clone(db.posts!);
    posts[0]!.comments = [db.comments![0], db.comments![1]];
    posts[0]!.refs = [db.refs![0]];
    posts[1]!.comments = [db.comments![2], db.comments![3], db.comments![4]];
    posts[1]!.refs = [];
    expectBody(await request("GET", "/posts?_embed=comments&_embed=refs"), 200, posts);
  });
});

describe("GET /:resource/:id?_embed=", () => {
  test("should respond with corresponding resources and embedded resources", async () => {
    const post = clone(db.posts![0]!);
    post.comments = [db.comments![0], db.comments![1]];
    expectBody(await request("GET", "/posts/1?_embed=comments"), 200, post);
  });
});

describe("GET /:resource/:id?_embed=&_embed=", () => {
  test("should respond with corresponding resource and embedded resources", async () => {
    const post = clone(db.posts![0]!);
    post.comments = [db.comments![0], db.comments![1]];
    post.refs = [db.refs![0]];
    expectBody(await request("GET", "/posts/1?_embed=comments&_embed=refs"), 200, post);
  });
});

describe("GET /:resource?_expand=", () => {
  test("should respond with corresponding resource and expanded inner resources", async () => {
    const refs = clone(db.refs!);
    refs[0]!.post = db.posts![0];
    expectBody(await request("GET", "/refs?_expand=post"), 200, refs);
  });
});

describe("GET /:resource/:id?_expand=", () => {
  test("should respond with corresponding resource and expanded inner resources", async () => {
    const comment = clone(db.comments![0]!);
    comment.post = db.posts![0];
    expectBody(await request("GET", "/comments/1?_expand=post"), 200, comment);
  });
});

describe("GET /:resource?_expand=&_expand", () => {
  test("should respond with corresponding resource and expanded inner resources", async () => {
    const refs = clone(db.refs!);
    refs[0]!.post = db.posts![0];
    refs[0]!.user = db.users![0];
    expectBody(await request("GET", "/refs?_expand=post&_expand=user"), 200, refs);
  });
});

describe("GET /:resource/:id?_expand=&_expand=", () => {
  test("should respond with corresponding resource and expanded inner resources", async () => {
    const comments = clone(db.comments![0]!);
    comments.post = db.posts![0];
    comments.user = db.users![0];
    expectBody(await request("GET", "/comments/1?_expand=post&_expand=user"), 200, comments);
  });
});

/** Upstream's delay check: the answer came more than 1000 ms after the request. */
async function delayed(method: string, path: string, status: number, json?: unknown): Promise<void> {
  await api.server();
  const start = Date.now();
  const res = await request(method, path, json === undefined ? {} : { json });
  expectBody(res, status);
  assert.ok(Date.now() - start > 1000, "Request wasn't delayed");
}

describe("GET /:resource>_delay=", () => {
  test("should delay response", () => delayed("GET", "/posts?_delay=1100", 200));
});

describe("POST /:resource", () => {
  test("should respond with json, create a resource and increment id", async () => {
    const res = await request("POST", "/posts", { json: { body: "foo", booleanValue: true, integerValue: 1 } });
    expectHeader(res, "Access-Control-Expose-Headers", "Location");
    expectHeader(res, "Location", /posts\/3$/);
    expectHeader(res, "Content-Type", /json/);
    expectBody(res, 201, { id: 3, body: "foo", booleanValue: true, integerValue: 1 });
    assert.strictEqual((await api.data()).posts!.length, 3);
  });
  test("should support x-www-form-urlencoded", async () => {
    const res = await request("POST", "/posts", { form: { body: "foo", booleanValue: true, integerValue: 1 } });
    expectHeader(res, "Content-Type", /json/);
    // x-www-form-urlencoded will convert to string
    expectBody(res, 201, { id: 3, body: "foo", booleanValue: "true", integerValue: "1" });
    assert.strictEqual((await api.data()).posts!.length, 3);
  });
  test("should respond with json, create a resource and generate string id", async () => {
    const res = await request("POST", "/refs", { json: { url: "http://foo.com", postId: 1 } });
    expectHeader(res, "Content-Type", /json/);
    expectBody(res, 201);
    assert.strictEqual((await api.data()).refs!.length, 2);
  });
});

describe("POST /:parent/:parentId/:resource", () => {
  test("should respond with json and set parentId", async () =>
    expectBody(await request("POST", "/posts/1/comments", { json: { body: "foo" } }), 201, { id: 6, postId: "1", body: "foo" }));
});

describe("POST /:resource?_delay=", () => {
  test("should delay response", () => delayed("POST", "/posts?_delay=1100", 201, { body: "foo", booleanValue: true, integerValue: 1 }));
});

describe("PUT /:resource/:id", () => {
  test("should respond with json and replace resource", async () => {
    const post = { id: 1, booleanValue: true, integerValue: 1 };
    // body property omitted to test that the resource is replaced
    const res = await request("PUT", "/posts/1", { json: post, headers: { accept: "application/json" } });
    expectHeader(res, "Content-Type", /json/);
    expectBody(res, 200, post);
    assert.deepStrictEqual(res.body, post);
    // assert it was created in database too
    assert.deepStrictEqual((await api.data()).posts![0], post);
  });
  test("should respond with 404 if resource is not found", async () => {
    const res = await request("PUT", "/posts/9001", { json: { id: 1, body: "bar" } });
    expectHeader(res, "Content-Type", /json/);
    expectBody(res, 404, {});
  });
});

describe("PUT /:resource:id?_delay=", () => {
  test("should delay response", () => delayed("PUT", "/posts/1?_delay=1100", 200, { id: 1, booleanValue: true, integerValue: 1 }));
});

describe("PATCH /:resource/:id", () => {
  test("should respond with json and update resource", async () => {
    const partial = { body: "bar" };
    const post = { id: 1, body: "bar" };
    const res = await request("PATCH", "/posts/1", { json: partial });
    expectHeader(res, "Content-Type", /json/);
    expectBody(res, 200, post);
    assert.deepStrictEqual(res.body, post);
    // assert it was created in database too
    assert.deepStrictEqual((await api.data()).posts![0], post);
  });
  test("should respond with 404 if resource is not found", async () => {
    const res = await request("PATCH", "/posts/9001", { json: { body: "bar" } });
    expectHeader(res, "Content-Type", /json/);
    expectBody(res, 404, {});
  });
});

describe("PATCH /:resource:id?_delay=", () => {
  test("should delay response", () => delayed("PATCH", "/posts/1?_delay=1100", 200, { id: 1, booleanValue: true, integerValue: 1 }));
});

describe("DELETE /:resource/:id", () => {
  test("should respond with empty data, destroy resource and dependent resources", async () => {
    expectBody(await request("DELETE", "/posts/1"), 200, {});
    const data = await api.data();
    assert.strictEqual(data.posts!.length, 1);
    assert.strictEqual(data.comments!.length, 3);
  });
  test("should respond with 404 if resource is not found", async () => {
    const res = await request("DELETE", "/posts/9001");
    expectHeader(res, "Content-Type", /json/);
    expectBody(res, 404, {});
  });
});

describe("DELETE /:resource:id?_delay=", () => {
  test("should delay response", () => delayed("DELETE", "/posts/1?_delay=1100", 200));
});

describe("Static routes", () => {
  test("GET / should respond with html", async () => {
    const res = await request("GET", "/");
    assert.match(res.text, /You're successfully running JSON Server/);
    expectBody(res, 200);
  });
  test("GET /script.js should respond with js", async () => {
    const res = await request("GET", "/script.js");
    expectHeader(res, "Content-Type", /javascript/);
    expectBody(res, 200);
  });
  test("GET /style.css should respond with css", async () => {
    const res = await request("GET", "/style.css");
    expectHeader(res, "Content-Type", /css/);
    expectBody(res, 200);
  });
});

describe("Responses", () => {
  test("should have no cache headers (for IE)", async () => {
    const res = await request("GET", "/db");
    expectHeader(res, "Cache-Control", "no-cache");
    expectHeader(res, "Pragma", "no-cache");
    expectHeader(res, "Expires", "-1");
  });
});
