// White-box tests of src/router.ts: route matching, Allow headers, pathOf and compile-time checks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRouter as createRouterWithPatterns, pathOf, type Match, type Matcher } from "../src/http/router.ts";
import { type Route } from "../src/api/handler.ts";

/** The router, with the matched pattern left out of its answers: most tests here are about the rest (the pattern has its own test). */
function createRouter<H>(routes: readonly Route<H>[]): (method: string, url: string) => Match<H> {
  const match: Matcher<H> = createRouterWithPatterns(routes);
  return (method, url) => {
    const found = match(method, url);
    if (found.kind === "not-found") return found;
    const { pattern: _pattern, ...rest } = found;
    return rest as Match<H>;
  };
}

const ROUTES: Route<string>[] = [
  { method: "GET", pattern: "/", handler: "root" },
  { method: "GET", pattern: "/users", handler: "listUsers" },
  { method: "POST", pattern: "/users", handler: "createUser" },
  { method: "GET", pattern: "/users/:id", handler: "getUser" },
  { method: "PUT", pattern: "/users/:id", handler: "updateUser" },
  { method: "DELETE", pattern: "/users/:id", handler: "deleteUser" },
  { method: "GET", pattern: "/posts/:postId/comments", handler: "listComments" },
  { method: "POST", pattern: "/posts/:postId/comments", handler: "createComment" },
  { method: "GET", pattern: "/posts/:postId/comments/:commentId", handler: "getComment" },
  { method: "POST", pattern: "/login", handler: "login" },
];

const match = createRouter(ROUTES);

const USERS_ALLOW = "GET, HEAD, POST, OPTIONS";
const USER_ALLOW = "GET, HEAD, PUT, DELETE, OPTIONS";

test("createRouter finds the handler and params of each request line", () => {
  const cases: Array<[method: string, url: string, handler: string, params: Record<string, string>]> = [
    ["GET", "/", "root", {}],
    ["GET", "/users", "listUsers", {}],
    ["POST", "/users", "createUser", {}],
    ["GET", "/users/7", "getUser", { id: "7" }],
    ["PUT", "/users/7", "updateUser", { id: "7" }],
    ["DELETE", "/users/7", "deleteUser", { id: "7" }],
    ["GET", "/users/abc", "getUser", { id: "abc" }],
    ["GET", "/users/%31", "getUser", { id: "%31" }],
    ["GET", "/posts/3/comments", "listComments", { postId: "3" }],
    ["POST", "/posts/3/comments", "createComment", { postId: "3" }],
    ["GET", "/posts/3/comments/9", "getComment", { postId: "3", commentId: "9" }],
    ["POST", "/login", "login", {}],
  ];
  for (const [method, url, handler, params] of cases) {
    assert.deepEqual(match(method, url), { kind: "found", handler, params }, `${method} ${url}`);
  }
});

test("createRouter answers HEAD with the GET handler of the path", () => {
  assert.deepEqual(match("HEAD", "/users"), { kind: "found", handler: "listUsers", params: {} });
  assert.deepEqual(match("HEAD", "/users/1"), {
    kind: "found",
    handler: "getUser",
    params: { id: "1" },
  });
});

test("createRouter prefers an explicit HEAD or OPTIONS route over the built-in answers", () => {
  const own = createRouter([
    { method: "GET", pattern: "/files", handler: "get" },
    { method: "HEAD", pattern: "/files", handler: "head" },
    { method: "OPTIONS", pattern: "/files", handler: "options" },
  ]);
  assert.deepEqual(own("HEAD", "/files"), { kind: "found", handler: "head", params: {} });
  assert.deepEqual(own("OPTIONS", "/files"), {
    kind: "found",
    handler: "options",
    params: {},
  });
});

test("createRouter ignores one trailing slash", () => {
  assert.deepEqual(match("GET", "/users/"), { kind: "found", handler: "listUsers", params: {} });
  assert.deepEqual(match("GET", "/users/7/"), {
    kind: "found",
    handler: "getUser",
    params: { id: "7" },
  });
  assert.deepEqual(match("GET", "/posts/3/comments/"), {
    kind: "found",
    handler: "listComments",
    params: { postId: "3" },
  });
});

test("createRouter ignores the query string, even one holding slashes or a question mark", () => {
  const cases: Array<[url: string, handler: string, params: Record<string, string>]> = [
    ["/users?limit=1", "listUsers", {}],
    ["/users/?limit=1&offset=2", "listUsers", {}],
    ["/users?next=/users/7/", "listUsers", {}],
    ["/users?", "listUsers", {}],
    ["/users/7?id=8", "getUser", { id: "7" }],
    ["/users/7/?a=?b", "getUser", { id: "7" }],
    ["/?x=1", "root", {}],
  ];
  for (const [url, handler, params] of cases) {
    const found = match("GET", url);
    assert.ok(found.kind === "found", url);
    assert.equal(found.handler, handler, url);
    assert.deepEqual(found.params, params, url);
  }
});

test("createRouter answers not-found for paths no route has", () => {
  const urls = [
    "/nope",
    "/Users",
    "/USERS",
    "/users/7/extra",
    "/users//",
    "/users/7//",
    "/posts//comments",
    "/posts/3/Comments",
    "/posts/3/comments//",
    "/login/x",
    "",
    "?/users",
  ];
  for (const url of urls) {
    assert.deepEqual(match("GET", url), { kind: "not-found" }, url);
  }
});

test("createRouter does not take an empty segment as a parameter value", () => {
  const params = createRouter([{ method: "GET", pattern: "/users/:id", handler: "getUser" }]);
  assert.deepEqual(params("GET", "/users//"), { kind: "not-found" });
  assert.deepEqual(params("GET", "/users/"), { kind: "not-found" });
});

test("createRouter answers OPTIONS on a known path with options and its Allow header", () => {
  const cases: Array<[url: string, allow: string]> = [
    ["/", "GET, HEAD, OPTIONS"],
    ["/users", USERS_ALLOW],
    ["/users/", USERS_ALLOW],
    ["/users/7?x=1", USER_ALLOW],
    ["/posts/3/comments", USERS_ALLOW],
    ["/login", "POST, OPTIONS"],
  ];
  for (const [url, allow] of cases) {
    assert.deepEqual(match("OPTIONS", url), { kind: "options", allow }, url);
  }
});

test("createRouter answers OPTIONS on an unknown path with not-found", () => {
  assert.deepEqual(match("OPTIONS", "/nope"), { kind: "not-found" });
  assert.deepEqual(match("OPTIONS", "/users//"), { kind: "not-found" });
});

test("createRouter answers method-not-allowed with the Allow header of a known path", () => {
  const cases: Array<[method: string, url: string, allow: string]> = [
    ["DELETE", "/users", USERS_ALLOW],
    ["PUT", "/users/", USERS_ALLOW],
    ["PATCH", "/users/7", USER_ALLOW],
    ["POST", "/users/7", USER_ALLOW],
    ["get", "/users", USERS_ALLOW],
    ["Get", "/users/7", USER_ALLOW],
    ["GET", "/login", "POST, OPTIONS"],
    ["HEAD", "/login", "POST, OPTIONS"],
    ["DELETE", "/posts/3/comments", USERS_ALLOW],
  ];
  for (const [method, url, allow] of cases) {
    assert.deepEqual(match(method, url), { kind: "method-not-allowed", allow }, `${method} ${url}`);
  }
});

test("createRouter orders Allow as GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS whatever the table order", () => {
  const scrambled = createRouter([
    { method: "DELETE", pattern: "/things", handler: 1 },
    { method: "PATCH", pattern: "/things", handler: 2 },
    { method: "OPTIONS", pattern: "/things", handler: 3 },
    { method: "PUT", pattern: "/things", handler: 4 },
    { method: "POST", pattern: "/things", handler: 5 },
    { method: "GET", pattern: "/things", handler: 6 },
  ]);
  assert.deepEqual(scrambled("TRACE", "/things"), {
    kind: "method-not-allowed",
    allow: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
  });
});

test("createRouter lists HEAD in Allow only when the path has GET", () => {
  const cases: Array<[methods: string[], allow: string]> = [
    [["GET"], "GET, HEAD, OPTIONS"],
    [["POST"], "POST, OPTIONS"],
    [["DELETE", "PUT"], "PUT, DELETE, OPTIONS"],
    [["PURGE", "GET"], "GET, HEAD, OPTIONS, PURGE"],
  ];
  for (const [methods, allow] of cases) {
    const router = createRouter(methods.map((method) => ({ method, pattern: "/x", handler: method })));
    assert.deepEqual(router("OPTIONS", "/x"), { kind: "options", allow }, methods.join(" "));
  }
});

test("createRouter takes the first matching route in table order", () => {
  const literalFirst = createRouter([
    { method: "GET", pattern: "/users/me", handler: "me" },
    { method: "GET", pattern: "/users/:id", handler: "byId" },
  ]);
  assert.deepEqual(literalFirst("GET", "/users/me"), {
    kind: "found",
    handler: "me",
    params: {},
  });
  assert.deepEqual(literalFirst("GET", "/users/5"), {
    kind: "found",
    handler: "byId",
    params: { id: "5" },
  });
});

test("createRouter keeps table order where a parameter pattern comes before a literal one", () => {
  const paramFirst = createRouter([
    { method: "GET", pattern: "/users/:id", handler: "byId" },
    { method: "GET", pattern: "/users/me", handler: "me" },
  ]);
  assert.deepEqual(paramFirst("GET", "/users/me"), { kind: "found", handler: "byId", params: { id: "me" } });
});

test("createRouter goes past a literal pattern without the method to a later pattern that has it", () => {
  const router = createRouter([
    { method: "GET", pattern: "/users/me", handler: "me" },
    { method: "DELETE", pattern: "/users/:id", handler: "deleteById" },
    { method: "GET", pattern: "/health", handler: "health" },
  ]);
  assert.deepEqual(router("DELETE", "/users/me"), { kind: "found", handler: "deleteById", params: { id: "me" } });
  assert.deepEqual(router("GET", "/users/me"), { kind: "found", handler: "me", params: {} });
  assert.deepEqual(router("HEAD", "/health/"), { kind: "found", handler: "health", params: {} });
  assert.deepEqual(router("POST", "/health"), { kind: "method-not-allowed", allow: "GET, HEAD, OPTIONS" });
});

test("createRouter builds fresh params for every match", () => {
  const first = match("GET", "/users/1");
  const second = match("GET", "/users/2");
  assert.ok(first.kind === "found" && second.kind === "found");
  assert.deepEqual(first.params, { id: "1" });
  assert.deepEqual(second.params, { id: "2" });
  assert.notEqual(first.params, second.params);
});

test("createRouter with an empty table answers not-found", () => {
  const empty = createRouter<string>([]);
  const outcome: Match<string> = empty("GET", "/");
  assert.deepEqual(outcome, { kind: "not-found" });
});

test("createRouter throws TypeError at compile time for a bad pattern", () => {
  const cases: Array<[pattern: string, message: string]> = [
    ["users", 'Route pattern "users" must start with "/" and have no empty segment'],
    ["", 'Route pattern "" must start with "/" and have no empty segment'],
    ["/users/", 'Route pattern "/users/" must start with "/" and have no empty segment'],
    ["/users/:", 'Bad or repeated parameter ":" in "/users/:"'],
    ["/users/:1d", 'Bad or repeated parameter ":1d" in "/users/:1d"'],
    ["/users/:user-id", 'Bad or repeated parameter ":user-id" in "/users/:user-id"'],
    ["/posts/:post id", 'Bad or repeated parameter ":post id" in "/posts/:post id"'],
    ["/a//b", 'Route pattern "/a//b" must start with "/" and have no empty segment'],
    ["/a/:id/:id", 'Bad or repeated parameter ":id" in "/a/:id/:id"'],
    ["/x/:__proto__", 'Bad or repeated parameter ":__proto__" in "/x/:__proto__"'],
    ["/x/:constructor", 'Bad or repeated parameter ":constructor" in "/x/:constructor"'],
  ];
  for (const [pattern, message] of cases) {
    const routes = [{ method: "GET", pattern, handler: 1 }];
    assert.throws(() => createRouter(routes), { name: "TypeError", message }, pattern);
  }
});

test("createRouter throws TypeError at compile time for a method that is not upper-case letters", () => {
  for (const method of ["get", "Get", "", "GET ", "M-SEARCH", "GET1"]) {
    assert.throws(
      () => createRouter([{ method, pattern: "/users", handler: 1 }]),
      { name: "TypeError", message: `Bad method "${method}"` },
      JSON.stringify(method),
    );
  }
});

test("createRouter throws TypeError at compile time for the same method and pattern twice", () => {
  const routes: Route<number>[] = [
    { method: "GET", pattern: "/users", handler: 1 },
    { method: "POST", pattern: "/users", handler: 2 },
    { method: "GET", pattern: "/users", handler: 3 },
  ];
  assert.throws(() => createRouter(routes), { name: "TypeError", message: "Route GET /users is defined twice" });
});

test("createRouter checks every route, not only the first ones", () => {
  const routes: Route<number>[] = [
    { method: "GET", pattern: "/users", handler: 1 },
    { method: "GET", pattern: "/users/:id", handler: 2 },
    { method: "GET", pattern: "/posts/", handler: 3 },
  ];
  assert.throws(() => createRouter(routes), {
    name: "TypeError",
    message: 'Route pattern "/posts/" must start with "/" and have no empty segment',
  });
});

test("pathOf drops the query string and one trailing slash", () => {
  const cases: Array<[url: string, path: string]> = [
    ["/users", "/users"],
    ["/users/", "/users"],
    ["/users//", "/users/"],
    ["/users/7/", "/users/7"],
    ["/", "/"],
    ["", ""],
    ["/users?limit=1", "/users"],
    ["/users/?limit=1", "/users"],
    ["/users?next=/a/", "/users"],
    ["/users?", "/users"],
    ["/?x", "/"],
    ["/Users/", "/Users"],
  ];
  for (const [url, path] of cases) {
    assert.equal(pathOf(url), path, url);
  }
});

test("createRouter finds a later route that has the method when an earlier pattern fits without it", () => {
  const match = createRouter([
    { method: "POST", pattern: "/users/:id", handler: "post-one" },
    { method: "GET", pattern: "/users/me", handler: "get-me" },
  ]);
  assert.deepEqual(match("GET", "/users/me"), { kind: "found", handler: "get-me", params: {} });
  // Where two patterns fit a path, Allow names the methods of both.
  assert.deepEqual(match("DELETE", "/users/me"), { kind: "method-not-allowed", allow: "GET, HEAD, POST, OPTIONS" });
  assert.deepEqual(match("OPTIONS", "/users/7"), { kind: "options", allow: "POST, OPTIONS" });
});

test("createRouter names the pattern that matched, for the metrics: the route's, or the first that fits for OPTIONS and 405", () => {
  const match = createRouterWithPatterns(ROUTES);
  assert.equal((match("GET", "/users/7") as { pattern: string }).pattern, "/users/:id");
  assert.equal((match("HEAD", "/posts/3/comments/9") as { pattern: string }).pattern, "/posts/:postId/comments/:commentId");
  assert.equal((match("OPTIONS", "/users/") as { pattern: string }).pattern, "/users");
  assert.equal((match("PATCH", "/users/7") as { pattern: string }).pattern, "/users/:id");
  assert.deepEqual(match("GET", "/nope"), { kind: "not-found" });
});
