// White-box tests of src/ops/request-log.ts: the request log's bounds in entries and bytes, its secrets, and its bodies.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseJsonObject } from "../src/api/json.ts";
import { createRequestLog, DEFAULT_LOG_ENTRIES, ENTRY_COST, LOG_BYTES, type LoggedRequest, type RequestLog, type RequestToLog } from "../src/ops/request-log.ts";

const TIME = "2024-05-01T12:00:00.000Z";

function request(path: string, more: Partial<RequestToLog> = {}): RequestToLog {
  return { method: "GET", path, headers: {}, body: undefined, status: 200, time: TIME, ...more };
}

/** The entries of the log's answer, as a client of `GET /__control/requests` reads them. */
const list = (log: RequestLog, limit?: number): LoggedRequest[] => JSON.parse(text(log, limit));

/** The log's answer as text. */
const text = (log: RequestLog, limit?: number): string => new TextDecoder().decode(log.answer(limit));

/** What an entry counts towards LOG_BYTES: ENTRY_COST and the UTF-8 bytes of its text. */
const cost = (entry: LoggedRequest) => ENTRY_COST + Buffer.byteLength(JSON.stringify(entry));

const paths = (log: ReturnType<typeof createRequestLog>, limit?: number) => list(log, limit).map((entry) => entry.path);

test("a logged request shows its method, path, headers, status and time as given", () => {
  const log = createRequestLog(5);
  log.add({ method: "POST", path: "/users?x=1", headers: { "content-type": "application/json", accept: "*/*" }, body: undefined, status: 201, time: TIME });
  log.add(request("/gone", { method: "DELETE", status: null }));
  assert.deepEqual(list(log), [
    { method: "POST", path: "/users?x=1", headers: { "content-type": "application/json", accept: "*/*" }, body: null, status: 201, time: TIME },
    { method: "DELETE", path: "/gone", headers: {}, body: null, status: null, time: TIME },
  ]);
});

test("the log keeps at most the given count of entries, dropping the oldest first", () => {
  const log = createRequestLog(3);
  log.add(request("/1"));
  log.add(request("/2"));
  assert.deepEqual(paths(log), ["/1", "/2"]);
  log.add(request("/3"));
  assert.deepEqual(paths(log), ["/1", "/2", "/3"]);
  log.add(request("/4"));
  assert.deepEqual(paths(log), ["/2", "/3", "/4"]);
  log.add(request("/5"));
  log.add(request("/6"));
  assert.deepEqual(paths(log), ["/4", "/5", "/6"]);
});

test("a log of one entry keeps only the last", () => {
  const log = createRequestLog(1);
  for (const path of ["/a", "/b", "/c"]) log.add(request(path));
  assert.deepEqual(paths(log), ["/c"]);
});

test("the log keeps DEFAULT_LOG_ENTRIES (1000) entries when not told", () => {
  assert.equal(DEFAULT_LOG_ENTRIES, 1000);
  const log = createRequestLog();
  for (let index = 1; index <= 1001; index++) log.add(request(`/${index}`));
  const held = paths(log);
  assert.equal(held.length, 1000);
  assert.equal(held[0], "/2");
  assert.equal(held[999], "/1001");
});

test("list(limit) gives the last limit entries, oldest first; list() gives them all", () => {
  const log = createRequestLog(10);
  for (const path of ["/1", "/2", "/3", "/4", "/5"]) log.add(request(path));
  assert.deepEqual(paths(log, 1), ["/5"]);
  assert.deepEqual(paths(log, 2), ["/4", "/5"]);
  assert.deepEqual(paths(log, 5), ["/1", "/2", "/3", "/4", "/5"]);
  assert.deepEqual(paths(log, 6), ["/1", "/2", "/3", "/4", "/5"]);
  assert.deepEqual(paths(log, 1000), ["/1", "/2", "/3", "/4", "/5"]);
  assert.deepEqual(paths(log), ["/1", "/2", "/3", "/4", "/5"]);
  assert.deepEqual(paths(log, Infinity), ["/1", "/2", "/3", "/4", "/5"]);
});

test("list(0) is empty, and an empty log lists nothing", () => {
  const log = createRequestLog(10);
  assert.deepEqual(list(log), []);
  assert.deepEqual(list(log, 3), []);
  log.add(request("/1"));
  assert.deepEqual(list(log, 0), []);
});

test("list(limit) counts only the entries still held once the oldest are dropped", () => {
  const log = createRequestLog(3);
  for (const path of ["/1", "/2", "/3", "/4", "/5"]) log.add(request(path));
  assert.deepEqual(paths(log, 2), ["/4", "/5"]);
  assert.deepEqual(paths(log, 3), ["/3", "/4", "/5"]);
  assert.deepEqual(paths(log, 4), ["/3", "/4", "/5"]);
});

test("clear empties the log, and the log fills again after it", () => {
  const log = createRequestLog(2);
  for (const path of ["/1", "/2", "/3"]) log.add(request(path));
  log.clear();
  assert.deepEqual(list(log), []);
  assert.deepEqual(list(log, 5), []);
  for (const path of ["/4", "/5", "/6"]) log.add(request(path));
  assert.deepEqual(paths(log), ["/5", "/6"]);
});

test("clear forgets the bytes held too", () => {
  const log = createRequestLog(10);
  const body = new Uint8Array(LOG_BYTES - 10).fill(0x61);
  log.add(request("/big", { body }));
  log.clear();
  log.add(request("/small"));
  log.add(request("/big", { body }));
  // Were the first big body still counted, the second would have pushed out /small.
  assert.deepEqual(paths(log), ["/small", "/big"]);
});

test("Authorization, Proxy-Authorization and Cookie are never stored; other headers are, as given", () => {
  const log = createRequestLog(5);
  const headers = {
    authorization: "Bearer secret-token",
    "proxy-authorization": "Basic c2VjcmV0",
    cookie: "session=secret",
    "content-type": "text/plain",
    "x-forwarded-for": ["10.0.0.1", "10.0.0.2"],
    accept: "application/json",
  };
  log.add(request("/private", { headers }));
  const [entry] = list(log);
  assert.deepEqual(entry!.headers, { "content-type": "text/plain", "x-forwarded-for": ["10.0.0.1", "10.0.0.2"], accept: "application/json" });
  assert.doesNotMatch(JSON.stringify(list(log)), /secret|c2VjcmV0/);
  // The headers given are not changed.
  assert.equal(headers.authorization, "Bearer secret-token");
  assert.equal(headers.cookie, "session=secret");
});

test("a body nested past the API's depth, or longer than 64 KiB, is shown as its text, which any answer can hold", () => {
  const log = createRequestLog(10);
  const deep = "[".repeat(50_000) + "]".repeat(50_000);
  const long = JSON.stringify({ text: "x".repeat(70 * 1024) });
  log.add(request("/deep", { body: new TextEncoder().encode(`{"a":${deep}}`) }));
  log.add(request("/long", { body: new TextEncoder().encode(long) }));
  const [shownDeep, shownLong] = list(log);
  assert.equal(shownDeep!.body, `{"a":${deep}}`);
  assert.equal(shownLong!.body, long);
  // And the list of them serialises.
  assert.equal(JSON.stringify(list(log)).length > 170_000, true);
});

test("a body is shown parsed when it is a JSON object, as text when it is anything else, and null when there is none", () => {
  const log = createRequestLog(10);
  const bytes = (text: string) => new TextEncoder().encode(text);
  log.add(request("/object", { body: bytes('{"name":"Ada","tags":["x"],"n":1.5}') }));
  log.add(request("/array", { body: bytes(" [1, 2, 3] ") }));
  log.add(request("/number", { body: bytes("42") }));
  log.add(request("/string", { body: bytes('"hi"') }));
  log.add(request("/text", { body: bytes("name=Ada&x=ü") }));
  log.add(request("/broken", { body: bytes('{"name":') }));
  log.add(request("/empty", { body: new Uint8Array(0) }));
  log.add(request("/none"));
  assert.deepEqual(
    list(log).map((entry) => [entry.path, entry.body]),
    [
      ["/object", { name: "Ada", tags: ["x"], n: 1.5 }],
      ["/array", " [1, 2, 3] "],
      ["/number", "42"],
      ["/string", '"hi"'],
      ["/text", "name=Ada&x=ü"],
      ["/broken", '{"name":'],
      ["/empty", null],
      ["/none", null],
    ],
  );
});

test("a request larger than LOG_BYTES is kept without its body, and pushes out nothing", () => {
  assert.equal(LOG_BYTES, 8 * 1024 * 1024);
  const log = createRequestLog(10);
  log.add(request("/before", { body: new TextEncoder().encode('{"kept":true}') }));
  log.add(request("/huge", { method: "PUT", headers: { "content-type": "application/json" }, body: new Uint8Array(LOG_BYTES + 1).fill(0x61), status: 413 }));
  assert.deepEqual(list(log), [
    { method: "GET", path: "/before", headers: {}, body: { kept: true }, status: 200, time: TIME },
    { method: "PUT", path: "/huge", headers: { "content-type": "application/json" }, body: null, status: 413, time: TIME },
  ]);
});

test("a request of exactly LOG_BYTES, its whole entry's text counted, keeps its body and pushes out all older ones", () => {
  const log = createRequestLog(10);
  log.add(request("/older"));
  // The entry with an empty body text costs `empty`; each byte of body adds one to its text.
  const empty = cost({ method: "GET", path: "/", headers: { ab: "c" }, body: "", status: 200, time: TIME });
  const body = LOG_BYTES - empty;
  log.add(request("/", { headers: { ab: "c" }, body: new Uint8Array(body).fill(0x62) }));
  const [entry, ...rest] = list(log);
  assert.deepEqual(rest, []);
  assert.equal(entry!.path, "/");
  assert.equal(entry!.body, "b".repeat(body));
  // One byte more is over: the body goes and the older entry stays.
  const other = createRequestLog(10);
  other.add(request("/older"));
  other.add(request("/", { headers: { ab: "cd" }, body: new Uint8Array(body).fill(0x62) }));
  assert.deepEqual(
    list(other).map((logged) => [logged.path, logged.body]),
    [["/older", null], ["/", null]],
  );
});

test("secret headers do not count towards the bytes held", () => {
  const log = createRequestLog(10);
  log.add(request("/older"));
  log.add(request("/", { headers: { authorization: "x".repeat(1024 * 1024), cookie: "y".repeat(1024) }, body: new Uint8Array(LOG_BYTES - 1024).fill(0x63) }));
  assert.deepEqual(
    list(log).map((entry) => [entry.path, typeof entry.body === "string" ? entry.body.length : entry.body]),
    [["/older", null], ["/", LOG_BYTES - 1024]],
  );
});

test("a body counts as its text in the answer: control characters escaped six to a byte fill the log six times as fast", () => {
  // A body of 1 MiB of \u0001 is 6 MiB of text: the second pushes out the first, where bytes as sent would have kept both.
  const log = createRequestLog(10);
  const controls = new Uint8Array(1024 * 1024).fill(0x01);
  log.add(request("/1", { body: controls }));
  log.add(request("/2", { body: controls }));
  assert.deepEqual(paths(log), ["/2"]);
  assert.ok(log.answer().length <= LOG_BYTES, `${log.answer().length} bytes`);
});

test("the bytes held are capped at LOG_BYTES, the oldest dropped first", () => {
  const log = createRequestLog(1000);
  const threeMiB = new Uint8Array(3 * 1024 * 1024).fill(0x61);
  log.add(request("/1", { body: threeMiB }));
  log.add(request("/2", { body: threeMiB }));
  assert.deepEqual(paths(log), ["/1", "/2"]);
  // 9 MiB and the paths: over the 8 MiB, so /1 goes.
  log.add(request("/3", { body: threeMiB }));
  assert.deepEqual(paths(log), ["/2", "/3"]);
  log.add(request("/4", { body: threeMiB }));
  assert.deepEqual(paths(log), ["/3", "/4"]);
  // Small entries fit beside the two large ones, until their bytes too push out the oldest.
  log.add(request("/5", { body: new Uint8Array(2 * 1024 * 1024 - 1000).fill(0x61) }));
  assert.deepEqual(paths(log), ["/3", "/4", "/5"]);
  log.add(request("/6", { body: new Uint8Array(600).fill(0x61) }));
  assert.deepEqual(paths(log), ["/4", "/5", "/6"]);
});

test("paths and header values count towards the bytes held", () => {
  const log = createRequestLog(1000);
  // Two entries of half LOG_BYTES each, their texts counted whole.
  const half = LOG_BYTES / 2;
  const body = half - cost({ method: "GET", path: "/a", headers: {}, body: "", status: 200, time: TIME });
  log.add(request("/a", { body: new Uint8Array(body).fill(0x61) }));
  log.add(request("/b", { body: new Uint8Array(body).fill(0x61) }));
  // Exactly LOG_BYTES: both kept.
  assert.deepEqual(paths(log), ["/a", "/b"]);
  // Any byte more, even of path or header, and /a goes.
  log.add(request("/", { headers: { x: "" } }));
  assert.deepEqual(paths(log), ["/b", "/"]);
});

test("createRequestLog refuses a count that is not a positive whole number with a TypeError", () => {
  for (const entries of [0, -1, 1.5, 0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1]) {
    assert.throws(() => createRequestLog(entries), new TypeError("controlLog must be a positive whole number of requests"), String(entries));
  }
  assert.throws(() => createRequestLog("10" as never), TypeError);
});

test("many more entries than the cap keep exactly the last ones, across the log's compactions", () => {
  const log = createRequestLog(10);
  for (let index = 1; index <= 50_000; index++) {
    log.add(request(`/${index}`, { status: index % 2 === 0 ? 200 : null }));
    // Check at and around the first compactions too, not only at the end.
    if (index === 1034 || index === 1035 || index === 1036 || index === 2100) {
      assert.deepEqual(paths(log), Array.from({ length: 10 }, (_, offset) => `/${index - 9 + offset}`), `after ${index}`);
    }
  }
  assert.deepEqual(paths(log), Array.from({ length: 10 }, (_, offset) => `/${49_991 + offset}`));
  assert.deepEqual(paths(log, 3), ["/49998", "/49999", "/50000"]);
  assert.deepEqual(list(log, 1)[0], { method: "GET", path: "/50000", headers: {}, body: null, status: 200, time: TIME });
  log.clear();
  log.add(request("/after"));
  assert.deepEqual(paths(log), ["/after"]);
});

test("entries dropped for bytes are compacted away too, keeping exactly the newest that fit", () => {
  const log = createRequestLog(100_000);
  // One shared MiB: each entry holds 1 MiB and its path, so seven fit in LOG_BYTES and an eighth does not.
  const mebibyte = new Uint8Array(1024 * 1024).fill(0x7a);
  for (let index = 1; index <= 3000; index++) log.add(request(`/${index}`, { body: mebibyte }));
  assert.deepEqual(paths(log), ["/2994", "/2995", "/2996", "/2997", "/2998", "/2999", "/3000"]);
  assert.equal((list(log, 1)[0]!.body as string).length, 1024 * 1024);
});

test("a request whose path alone passes LOG_BYTES is kept, alone, without emptying the log for nothing", () => {
  const log = createRequestLog(10);
  log.add({ method: "GET", path: "/kept", headers: {}, body: undefined, status: 200, time: "2026-01-31T09:30:00.000Z" });
  log.add({ method: "GET", path: `/${"x".repeat(LOG_BYTES)}`, headers: {}, body: undefined, status: 200, time: "2026-01-31T09:30:00.000Z" });
  assert.deepEqual(list(log).map((entry) => entry.path.length), [LOG_BYTES + 1]);
  log.add({ method: "GET", path: "/next", headers: {}, body: undefined, status: 200, time: "2026-01-31T09:30:00.000Z" });
  assert.deepEqual(list(log).map((entry) => entry.path), ["/next"]);
});

test("a million small entries stay within LOG_BYTES: each costs what holds it, not only its text", () => {
  const log = createRequestLog(1_000_000);
  for (let index = 0; index < 100_000; index++) log.add(request("/", { headers: { a: "b" } }));
  // Each entry counts ENTRY_COST and its text.
  const each = cost({ method: "GET", path: "/", headers: { a: "b" }, body: null, status: 200, time: TIME });
  assert.equal(list(log).length, Math.floor(LOG_BYTES / each));
});

/**
 * The answer as the log made it when it kept bodies as bytes and parsed them on every read:
 * JSON.stringify of the entries, each body parsed by the API's rules where it is a JSON object of
 * at most 64 KiB, else its text, or null. The log's answer must be this text, byte for byte.
 */
function answerParsedOnRead(requests: readonly RequestToLog[]): string {
  const shown = requests.map(({ body, ...rest }) => {
    let value: unknown = null;
    if (body !== undefined && body.length > 0) {
      try {
        value = body.length <= 64 * 1024 ? parseJsonObject(body) : undefined;
      } catch {
        value = undefined;
      }
      value ??= new TextDecoder().decode(body);
    }
    return { method: rest.method, path: rest.path, headers: rest.headers, body: value, status: rest.status, time: rest.time };
  });
  return JSON.stringify(shown);
}

test("the answer is byte for byte the one made by parsing each body on every read", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const requests: RequestToLog[] = [
    request("/users?limit=2&sort=-name", { headers: { accept: "*/*", "x-forwarded-for": ["10.0.0.1", "10.0.0.2"] } }),
    request("/users", { method: "POST", headers: { "content-type": "application/json" }, body: bytes(' { "name" : "Ad\\u00e9" , "n": 1.50, "e": 1E2, "z": -0, "a": [1, {"b": null}], "s": "\\ud83d\\ude00\\n" } '), status: 201 }),
    request("/users/1", { method: "PATCH", body: bytes('{"deep":' + "[".repeat(100) + "]".repeat(100) + "}"), status: 400 }),
    request("/users/1", { method: "PUT", body: bytes(JSON.stringify({ note: "é".repeat(40 * 1024) })), status: 413 }),
    request("/posts", { method: "POST", body: bytes(" [1, 2] "), status: 400 }),
    request("/posts", { method: "POST", body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), status: 400 }),
    request("/posts", { method: "POST", body: bytes('{"__proto__": {}}'), status: 400 }),
    request("/posts", { method: "POST", body: new Uint8Array(0), status: 400 }),
    request("/gone", { method: "DELETE", status: null }),
    request("/caf\u00e9?q=\u00fc", { headers: { "user-agent": "test \u00e9" } }),
  ];
  const log = createRequestLog(100);
  for (const logged of requests) log.add(logged);
  assert.deepEqual(Buffer.from(log.answer()), Buffer.from(answerParsedOnRead(requests)));
  assert.deepEqual(Buffer.from(log.answer(3)), Buffer.from(answerParsedOnRead(requests.slice(-3))));
  assert.equal(text(log, 0), "[]");
});

test("a full log of bodies that parse to many objects answers with at most LOG_BYTES, the same bytes to every read until the log changes", () => {
  // Bodies of 64 KiB of `{"a":[{},{},...]}`: parsed on every read, these once became ~180 MiB of objects each time.
  const body = new TextEncoder().encode(`{"a":[${Array.from({ length: 21_000 }, () => "{}").join(",")}]}`);
  assert.ok(body.length <= 64 * 1024);
  const log = createRequestLog(1000);
  for (let index = 0; index < 200; index++) log.add(request(`/${index}`, { method: "POST", body }));
  const held = list(log);
  assert.ok(held.length >= 120, `${held.length} entries`);
  assert.equal((held[0]!.body as { a: unknown[] }).a.length, 21_000);
  const answer = log.answer();
  assert.ok(answer.length <= LOG_BYTES && answer.length > LOG_BYTES - 64 * 1024, `${answer.length} bytes`);
  // Readers of an unchanged log share one answer: a reader that does not read holds no copy of its own.
  assert.equal(log.answer(), answer);
  assert.equal(log.answer(Infinity), answer);
  assert.equal(log.answer(1000), answer);
  // Another limit is another answer, kept in its turn; a change to the log makes them again.
  const lastTwo = log.answer(2);
  assert.notEqual(lastTwo, answer);
  assert.equal(log.answer(2), lastTwo);
  log.add(request("/newer"));
  assert.notEqual(log.answer(2), lastTwo);
  assert.deepEqual(paths(log, 2), [`/199`, "/newer"]);
  log.clear();
  assert.equal(text(log), "[]");
});

test("secret query parameters are hidden in the logged path and Referer; others are kept as sent", () => {
  const log = createRequestLog(10);
  log.add(request("/users?access_token=abc123&limit=2&api-key=k3y&Client_Secret=s3cret&name=ada", { headers: { referer: "http://localhost:5173/cb?token=t0ken&page=2", "user-agent": "token=kept" } }));
  const [entry] = list(log);
  assert.equal(entry!.path, "/users?access_token=***&limit=2&api-key=***&Client_Secret=***&name=ada");
  assert.deepEqual(entry!.headers, { referer: "http://localhost:5173/cb?token=***&page=2", "user-agent": "token=kept" });
  assert.doesNotMatch(text(log), /abc123|k3y|s3cret|t0ken/);
});
