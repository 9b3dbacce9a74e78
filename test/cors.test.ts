// White-box tests of src/cors.ts: the headers of each policy, preflights, and the origins it accepts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createCorsPolicy, normaliseOrigin, preflightHeaders } from "../src/http/cors.ts";
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE } from "../src/api/headers.ts";

const EXPOSE = ["access-control-expose-headers", "X-Total-Count, Location, ETag, Link, X-Request-Id"];

test("CORS_EXPOSE_HEADERS names the headers contract 10 exposes, and X-Request-Id", () => {
  assert.equal(CORS_EXPOSE_HEADERS, "X-Total-Count, Location, ETag, Link, X-Request-Id");
});

test("CORS_ALLOW_HEADERS names every request header the API reads beyond the safelisted ones", () => {
  assert.equal(CORS_ALLOW_HEADERS, "Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id");
});

test("CORS_MAX_AGE is ten minutes, inside Chromium's cap of two hours", () => {
  assert.equal(CORS_MAX_AGE, 600);
});

test("createCorsPolicy('off') is no policy at all", () => {
  assert.equal(createCorsPolicy("off"), undefined);
});

test("createCorsPolicy('*') answers any origin with *, and a request without Origin with nothing", () => {
  const policy = createCorsPolicy("*")!;
  for (const origin of ["https://app.example.com", "http://localhost:5173", "null", "anything"]) {
    assert.deepEqual(policy.headersFor(origin), ["access-control-allow-origin", "*", ...EXPOSE], origin);
    assert.equal(policy.allows(origin), true, origin);
  }
  assert.equal(policy.headersFor(undefined), undefined);
  // Built once: every request with an Origin gets the same frozen list.
  assert.equal(policy.headersFor("https://a.example"), policy.headersFor("https://b.example"));
  assert.ok(Object.isFrozen(policy.headersFor("https://a.example")));
});

test("createCorsPolicy(list) echoes a listed origin, and every answer varies by Origin", () => {
  const policy = createCorsPolicy(["https://App.Example.com", "http://localhost:5173"])!;
  assert.deepEqual(policy.headersFor("https://app.example.com"), [
    "vary",
    "Origin",
    "access-control-allow-origin",
    "https://app.example.com",
    ...EXPOSE,
  ]);
  assert.deepEqual(policy.headersFor("http://localhost:5173"), [
    "vary",
    "Origin",
    "access-control-allow-origin",
    "http://localhost:5173",
    ...EXPOSE,
  ]);
  assert.equal(policy.allows("https://app.example.com"), true);
  assert.equal(policy.allows("http://localhost:5173"), true);
});

test("createCorsPolicy(list) gives an origin not listed, null, or no Origin only Vary: Origin", () => {
  const policy = createCorsPolicy(["https://app.example.com"])!;
  // Compared as sent: browsers send the serialised form, so another spelling is another origin.
  const others = ["https://evil.example", "null", "https://APP.example.com", "https://app.example.com:443", "https://app.example.com/", "*", ""];
  for (const origin of others) {
    assert.deepEqual(policy.headersFor(origin), ["vary", "Origin"], origin);
    assert.equal(policy.allows(origin), false, origin);
  }
  assert.deepEqual(policy.headersFor(undefined), ["vary", "Origin"]);
});

test("createCorsPolicy(list) allows Origin: null only when the list names it", () => {
  const listed = createCorsPolicy(["null", "https://app.example.com"])!;
  assert.deepEqual(listed.headersFor("null"), ["vary", "Origin", "access-control-allow-origin", "null", ...EXPOSE]);
  assert.equal(listed.allows("null"), true);
  assert.equal(createCorsPolicy("loopback")!.allows("null"), false);
  assert.equal(normaliseOrigin("null"), "null");
});

test("createCorsPolicy('loopback') echoes pages served from this machine, on any scheme of http and https and any port, and no other", () => {
  const policy = createCorsPolicy("loopback")!;
  const loopback = [
    "http://localhost",
    "http://localhost:5173",
    "https://localhost:8443",
    "http://app.localhost:3000",
    "http://a.b.localhost",
    "http://127.0.0.1",
    "http://127.0.0.1:8080",
    "https://[::1]:3000",
  ];
  for (const origin of loopback) {
    assert.deepEqual(policy.headersFor(origin), ["vary", "Origin", "access-control-allow-origin", origin, ...EXPOSE], origin);
    assert.equal(policy.allows(origin), true, origin);
  }
  const others = [
    "https://evil.example",
    "null",
    "http://localhost.evil.example",
    "http://evillocalhost",
    "http://127.0.0.2",
    "http://127.0.0.1.evil.example",
    "http://[::2]",
    "ftp://localhost",
    "http://localhost/",
    "http://LOCALHOST",
    "",
  ];
  for (const origin of others) {
    assert.deepEqual(policy.headersFor(origin), ["vary", "Origin"], origin);
    assert.equal(policy.allows(origin), false, origin);
  }
  // Every answer varies by Origin, one to a request without it too.
  assert.deepEqual(policy.headersFor(undefined), ["vary", "Origin"]);
  // Built once per origin: a second request from it gets the same frozen list.
  assert.equal(policy.headersFor("http://localhost:5173"), policy.headersFor("http://localhost:5173"));
});

test("createCorsPolicy('loopback') remembers a bounded number of origins, and still answers each rightly past that", () => {
  const policy = createCorsPolicy("loopback")!;
  for (let port = 1; port <= 1000; port++) {
    assert.equal(policy.allows(`http://localhost:${port}`), true);
    assert.equal(policy.allows(`https://evil${port}.example`), false);
  }
  assert.equal(policy.allows("http://localhost:1"), true);
});

test("createCorsPolicy throws a TypeError at once for a bad origin, an empty list or another value", () => {
  assert.throws(() => createCorsPolicy(["https://app.example.com/"]), {
    name: "TypeError",
    message:
      '"https://app.example.com/" is not an origin; write http or https, ://, the host and an optional :port, with no path or trailing slash, such as https://app.example.com',
  });
  const notAList = 'corsOrigins must be "loopback", "*", "off" or a non-empty list of origins such as ["https://app.example.com"]';
  for (const value of [[], "https://app.example.com", "none", [42], undefined]) {
    assert.throws(() => createCorsPolicy(value as never), { name: "TypeError", message: notAList }, String(value));
  }
});

test("preflightHeaders grants the path's methods as Allow lists them, the headers the API reads, and the cache time", () => {
  assert.deepEqual(preflightHeaders("GET, HEAD, POST, OPTIONS"), {
    allow: "GET, HEAD, POST, OPTIONS",
    "access-control-allow-methods": "GET, HEAD, POST, OPTIONS",
    "access-control-allow-headers": "Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id",
    "access-control-max-age": "600",
  });
});

test("normaliseOrigin writes an origin as browsers serialise it", () => {
  const cases: Array<[string, string]> = [
    ["https://app.example.com", "https://app.example.com"],
    ["HTTPS://APP.EXAMPLE.COM", "https://app.example.com"],
    ["http://localhost:5173", "http://localhost:5173"],
    ["http://localhost:80", "http://localhost"],
    ["https://app.example.com:443", "https://app.example.com"],
    ["http://app.example.com:443", "http://app.example.com:443"],
    ["http://127.0.0.1:3000", "http://127.0.0.1:3000"],
    ["http://[::1]:3000", "http://[::1]:3000"],
    ["https://bücher.example", "https://xn--bcher-kva.example"],
  ];
  for (const [text, origin] of cases) assert.equal(normaliseOrigin(text), origin, text);
});

test("normaliseOrigin refuses anything that is not scheme://host[:port]", () => {
  const bad = [
    "https://app.example.com/",
    "https://app.example.com/path",
    "https://app.example.com?q",
    "https://app.example.com#f",
    "https://user:pass@app.example.com",
    "https://app.example.com\\",
    "https://app .example.com",
    "app.example.com",
    "//app.example.com",
    "https://",
    "file:///etc",
    "ws://app.example.com",
    "Null",
    "*",
    "https://app.example.com:65536",
  ];
  for (const text of bad) assert.throws(() => normaliseOrigin(text), { name: "TypeError" }, text);
});

test("normaliseOrigin shortens a very long value in its message", () => {
  const text = `https://${"a".repeat(200)}.example/`;
  assert.throws(() => normaliseOrigin(text), (error: Error) => error.message.startsWith(`"${text.slice(0, 60)}..." is not an origin`));
});
