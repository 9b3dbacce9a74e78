// The json-server dialect keeps the server's bounds: a client's `_like` pattern cannot hold the
// process, a scan of a long list (`q`, `_like`) lets other requests through, and bodies, tokens
// and the store limit apply as they do to the native API.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startDialect } from "./target.ts";
import { send } from "./support.ts";

/** Sends `path`, and meanwhile asks /healthz after 50 ms; the time /healthz took, and the list's answer. */
async function healthDuring(url: string, path: string) {
  const list = send(url, "GET", path);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  const health = await send(url, "GET", "/healthz");
  const took = performance.now() - started;
  return { health, took, list: await list };
}

test("a catastrophic _like pattern over long texts is matched in linear time: /healthz answers within 1 s", async () => {
  const long = "a".repeat(50_000);
  const server = await startDialect({ texts: Array.from({ length: 40 }, (_, id) => ({ id: id + 1, body: `${long}!` })) });
  try {
    const { health, took, list } = await healthDuring(server.url, `/texts?body_like=${encodeURIComponent("(a+)+$")}`);
    assert.equal(health.status, 200);
    assert.ok(took < 1000, `/healthz took ${Math.round(took)} ms`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body, []);
  } finally {
    await server.close();
  }
});

test("_embed names each collection once, and groups the children once an answer: a name repeated 500 times over 3,000 posts and 3,000 comments answers as one, /healthz within 1 s", async () => {
  const posts = Array.from({ length: 3_000 }, (_, index) => ({ id: index + 1, title: `post ${index}` }));
  const comments = Array.from({ length: 3_000 }, (_, index) => ({ id: index + 1, postId: (index % 3_000) + 1, body: "c" }));
  const server = await startDialect({ posts, comments });
  try {
    const once = await send(server.url, "GET", "/posts?_embed=comments");
    const { health, took, list } = await healthDuring(server.url, `/posts?${Array.from({ length: 500 }, () => "_embed=comments").join("&")}`);
    assert.equal(health.status, 200);
    assert.ok(took < 1000, `/healthz took ${Math.round(took)} ms`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body, once.body);
    assert.deepEqual((once.body as Array<{ comments: unknown[] }>)[0]!.comments, [{ id: 1, postId: 1, body: "c" }]);
  } finally {
    await server.close();
  }
});

test("q and _like scans of 100,000 records go in slices: /healthz answers within 1 s, and the scan finds its records", async () => {
  const records = Array.from({ length: 100_000 }, (_, index) => ({ id: index + 1, title: `title ${index}`, body: `some text of record ${index}`, tags: ["x", "y"] }));
  const server = await startDialect({ records }, { storeLimit: 256 * 1024 * 1024 });
  try {
    for (const path of ["/records?q=record%2099999", "/records?body_like=record%209999%24", "/records?title_like=%5Etitle%20(1%7C2)9999%24"]) {
      const { health, took, list } = await healthDuring(server.url, path);
      assert.equal(health.status, 200);
      assert.ok(took < 1000, `/healthz took ${Math.round(took)} ms during ${path}`);
      assert.equal(list.status, 200, path);
      assert.ok(Array.isArray(list.body) && list.body.length >= 1, path);
    }
  } finally {
    await server.close();
  }
});

test("a few values of millions of characters cannot hold the process: _like reads a bounded start of each value, and /healthz answers within 1 s", async () => {
  // About a hundred states over every character: 2,000,000 characters would take seconds each.
  const pattern = encodeURIComponent("[a-z]{1,50}x");
  const long = "a".repeat(2_000_000);
  const texts = Array.from({ length: 20 }, (_, index) => ({ id: index + 1, body: `${long}x` }));
  texts.push({ id: 21, body: `${"a".repeat(2_000)}x${long}` }, { id: 22, body: `${"a".repeat(100_000)}x` });
  const server = await startDialect({ texts }, { storeLimit: 256 * 1024 * 1024 });
  try {
    const { health, took, list } = await healthDuring(server.url, `/texts?body_like=${pattern}`);
    assert.equal(health.status, 200);
    assert.ok(took < 1000, `/healthz took ${Math.round(took)} ms`);
    assert.equal(list.status, 200);
    // Only the record with its match near its start is found: the pattern's states times the characters read stay within LIKE_LIMITS.work.
    assert.deepEqual((list.body as Array<{ id: number }>).map((record) => record.id), [21]);
  } finally {
    await server.close();
  }
});

test("_like's $ matches only at a value's own end, never where the reading stops; q searches a long value whole", async () => {
  const posts = [
    { id: 1, body: "b".repeat(200_000) + "c" },
    { id: 2, body: "b".repeat(10) },
    // A match across the seam of q's 65,536-character chunks, and one at the end of 3,000,000 characters.
    { id: 3, body: `${"x".repeat(65_533)}NEEDLE` },
    { id: 4, body: `${"y".repeat(3_000_000)}Haystack` },
  ];
  const server = await startDialect({ posts }, { storeLimit: 256 * 1024 * 1024 });
  try {
    const ids = async (path: string) => ((await send(server.url, "GET", path)).body as Array<{ id: number }>).map((record) => record.id);
    assert.deepEqual(await ids(`/posts?body_like=${encodeURIComponent("b$")}`), [2]);
    assert.deepEqual(await ids(`/posts?body_like=${encodeURIComponent("^bb")}`), [1, 2]);
    assert.deepEqual(await ids("/posts?q=needle"), [3]);
    assert.deepEqual(await ids("/posts?q=HAYSTACK"), [4]);
  } finally {
    await server.close();
  }
});

test("a _like pattern this server does not take is a 400 with a catalogued code; nothing else is refused", async () => {
  const server = await startDialect({ posts: [{ id: 1, title: "a" }] });
  try {
    // Empty groups repeated, nested: they add no state, but compiling them would take 50^7 steps.
    const nested = `${"(".repeat(7)})${"){50}".repeat(6)}{50}`;
    for (const pattern of ["(a", "\\1", "(?=a)", "a{1000}", "x".repeat(201), nested]) {
      const res = await send(server.url, "GET", `/posts?title_like=${encodeURIComponent(pattern)}`);
      assert.equal(res.status, 400, pattern);
      assert.equal((res.body as { code: string }).code, "INVALID_QUERY");
    }
    const bad = await send(server.url, "GET", `/posts?_where=${encodeURIComponent("{not json")}`);
    assert.equal(bad.status, 400);
    assert.equal((bad.body as { code: string }).code, "INVALID_QUERY");
  } finally {
    await server.close();
  }
});

test("tokens, the body limit, the store limit and Host checks hold in the dialect", async () => {
  const server = await startDialect({ posts: [{ id: 1 }] }, { authTokens: "read:r1,write:w1", bodyLimit: 100, storeLimit: 200 });
  try {
    assert.equal((await send(server.url, "GET", "/posts")).status, 401);
    const read = { authorization: "Bearer r1" };
    const write = { authorization: "Bearer w1" };
    assert.equal((await send(server.url, "GET", "/posts", { headers: read })).status, 200);
    assert.equal((await send(server.url, "POST", "/posts", { json: {}, headers: read })).status, 403);
    const tooLarge = await send(server.url, "POST", "/posts", { json: { text: "x".repeat(200) }, headers: write });
    assert.equal(tooLarge.status, 413);
    let full;
    for (let i = 0; i < 20 && full === undefined; i++) {
      const res = await send(server.url, "POST", "/posts", { json: { text: "y".repeat(50) }, headers: write });
      if (res.status !== 201) full = res;
    }
    assert.equal(full?.status, 507);
    assert.equal((full?.body as { code: string }).code, "STORE_FULL");
    assert.equal((await send(server.url, "GET", "/posts", { headers: { ...read, host: "evil.example" } })).status, 403);
  } finally {
    await server.close();
  }
});

test("a page on another origin gets no CORS headers by default; CORS_ORIGINS (corsOrigins) allows an app's origin, without credentials", async () => {
  const closed = await startDialect({ posts: [] });
  const open = await startDialect({ posts: [] }, { corsOrigins: ["https://app.example.com"] });
  try {
    const refused = await send(closed.url, "GET", "/posts", { headers: { origin: "https://app.example.com" } });
    assert.equal(refused.headers["access-control-allow-origin"], undefined);
    const allowed = await send(open.url, "GET", "/posts?_start=0&_end=1", { headers: { origin: "https://app.example.com" } });
    assert.equal(allowed.headers["access-control-allow-origin"], "https://app.example.com");
    assert.equal(allowed.headers["access-control-allow-credentials"], undefined);
    assert.match(allowed.headers["access-control-expose-headers"] ?? "", /X-Total-Count/i);
  } finally {
    await closed.close();
    await open.close();
  }
});
