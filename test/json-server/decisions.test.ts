// The dialect's answers where json-server's tests and docs are silent (docs/decisions.md,
// "json-server's dialect"), and the settings that choose it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { readConfig } from "../../src/config.ts";
import { createFetchApp } from "../../src/index.ts";
import { startDialect } from "./target.ts";
import { send } from "./support.ts";

const DB = { posts: [{ id: 1 }, { id: 2 }], comments: [{ id: 1, postId: 1 }, { id: 2, postId: 9 }, { id: 3, postId: 2 }], notes: [{ id: 1 }] };

test("a create with an id already held is 409 ID_CONFLICT, and nothing is stored", async () => {
  const server = await startDialect(DB);
  try {
    const res = await send(server.url, "POST", "/posts", { json: { id: 1, title: "again" } });
    assert.equal(res.status, 409);
    assert.equal((res.body as { code: string }).code, "ID_CONFLICT");
    assert.deepEqual((await send(server.url, "GET", "/posts")).body, DB.posts);
  } finally {
    await server.close();
  }
});

test("past 2^53 a collection's next id is a random one, never an id already held", async () => {
  const server = await startDialect({ posts: [] });
  try {
    const big = await send(server.url, "POST", "/posts", { json: { id: 9007199254740992, title: "big" } });
    assert.equal(big.status, 201);
    const next = await send(server.url, "POST", "/posts", { json: { title: "next" } });
    assert.equal(next.status, 201);
    const id = (next.body as { id: unknown }).id;
    assert.equal(typeof id, "string");
    assert.match(id as string, /^[0-9a-f-]{36}$/);
    assert.equal(((await send(server.url, "GET", "/posts")).body as unknown[]).length, 2);
  } finally {
    await server.close();
  }
});

test("a delete takes the records that name the one deleted, and theirs; a record already naming no one stays", async () => {
  const server = await startDialect({ ...DB, replies: [{ id: 1, commentId: 3 }] });
  try {
    assert.equal((await send(server.url, "DELETE", "/posts/2")).status, 200);
    const data = (await send(server.url, "GET", "/db")).body as Record<string, unknown[]>;
    assert.deepEqual(data.comments, [DB.comments[0], DB.comments[1]]);
    assert.deepEqual(data.replies, []);
  } finally {
    await server.close();
  }
});

test("a nested list keeps its parent's filter even when no record holds the member", async () => {
  const server = await startDialect({ posts: [{ id: 1 }], comments: [{ id: 1 }] });
  try {
    assert.deepEqual((await send(server.url, "GET", "/posts/1/comments")).body, []);
  } finally {
    await server.close();
  }
});

test("a body of another media type than JSON or a form is 415; a form and no body are taken", async () => {
  const server = await startDialect(DB);
  try {
    const res = await send(server.url, "POST", "/notes", { headers: { "content-type": "text/plain" } });
    assert.equal(res.status, 415);
    assert.equal((res.body as { code: string }).code, "UNSUPPORTED_MEDIA_TYPE");
    assert.deepEqual((await send(server.url, "POST", "/notes")).body, { id: 2 });
  } finally {
    await server.close();
  }
});

test("the dialect is json-server's with a db.json and native without; DIALECT names it, and a data directory is refused with json-server's", () => {
  assert.equal(readConfig({ DB_FILE: "db.json" }).dialect, undefined);
  assert.equal(readConfig({ DIALECT: "json-server" }).dialect, "json-server");
  assert.throws(() => readConfig({ DB_FILE: "db.json", DATA_DIR: "data" }), {
    message: "The json-server dialect keeps its records in memory, so DATA_DIR cannot keep them; leave DATA_DIR unset, or set DIALECT to native",
  });
  assert.equal(readConfig({ DB_FILE: "db.json", DATA_DIR: "data", DIALECT: "native" }).dataDir, "data");
  assert.throws(() => readConfig({ DIALECT: "yaml" }), { message: 'DIALECT must be native or json-server, not "yaml"' });
});

test("createFetchApp takes a db.json in json-server's dialect, and the built-in collections with dialect json-server", async () => {
  const app = createFetchApp({ db: DB });
  const builtIn = createFetchApp({ dialect: "json-server" });
  try {
    const answer = await app.fetch(new Request("http://localhost/posts?_sort=id&_order=desc"));
    assert.deepEqual(await answer.json(), [DB.posts[1], DB.posts[0]]);
    const users = (await (await builtIn.fetch(new Request("http://localhost/users?_limit=1"))).json()) as unknown[];
    assert.equal(users.length, 1);
    assert.equal((await builtIn.fetch(new Request("http://localhost/posts?_page=1&_per_page=5"))).status, 200);
  } finally {
    await app.close();
    await builtIn.close();
  }
});

test("a method json-server has no route for is 404 on every path, as json-server answers it, where the native API answers 405", async () => {
  const server = await startDialect(DB);
  try {
    for (const [method, path] of [["PROPFIND", "/posts"], ["LOCK", "/posts/1"], ["REPORT", "/posts/1/comments"], ["PURGE", "/"], ["MKCOL", "/db"]] as const) {
      const res = await send(server.url, method, path);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.deepEqual(res.body, { error: "Not Found" }, `${method} ${path}`);
      assert.equal(res.headers.allow, undefined);
    }
    assert.deepEqual((await send(server.url, "GET", "/posts")).body, DB.posts);
  } finally {
    await server.close();
  }
});

test("PUT /__control/data loads a db.json's whole data in the dialect; the snapshot goes back in, and reset brings the file's data back", async () => {
  const server = await startDialect(DB, { control: true });
  try {
    const snapshot = (await send(server.url, "GET", "/__control/snapshot")).body;
    assert.deepEqual(snapshot, DB);
    const loaded = { posts: [{ id: 7, title: "loaded" }], profile: { name: "typicode" } };
    assert.equal((await send(server.url, "PUT", "/__control/data", { json: loaded })).status, 204);
    assert.deepEqual((await send(server.url, "GET", "/db")).body, loaded);
    assert.deepEqual((await send(server.url, "GET", "/posts/7")).body, loaded.posts[0]);
    assert.deepEqual((await send(server.url, "POST", "/posts", { json: {} })).body, { id: 8 });
    // What the data leaves out is no longer served, as on a server started on that db.json.
    assert.deepEqual((await send(server.url, "GET", "/comments")).body, { error: "Not Found" });
    assert.equal((await send(server.url, "PUT", "/__control/data", { json: snapshot })).status, 204);
    assert.deepEqual((await send(server.url, "GET", "/db")).body, DB);
    await send(server.url, "PUT", "/__control/data", { json: loaded });
    assert.equal((await send(server.url, "POST", "/__control/reset")).status, 204);
    assert.deepEqual((await send(server.url, "GET", "/db")).body, DB);
  } finally {
    await server.close();
  }
});

test("PUT /__control/data refuses what a db.json cannot hold with 400 VALIDATION_FAILED, and data past STORE_LIMIT with 507, changing nothing", async () => {
  const server = await startDialect(DB, { control: true, storeLimit: 4096 });
  try {
    const refusals: Array<[unknown, number, string, unknown]> = [
      [{ "a/b": [] }, 400, "VALIDATION_FAILED", [{ path: "", message: 'db.json "a/b": a name is a path segment of 1 to 64 letters, digits, _ and -' }]],
      [{ healthz: [] }, 400, "VALIDATION_FAILED", [{ path: "", message: 'db.json "healthz": /healthz is the server\'s own path; name the collection otherwise' }]],
      [{ posts: [1] }, 400, "VALIDATION_FAILED", [{ path: "", message: 'db.json "posts"[0] is not an object' }]],
      [{ posts: [{ id: 1 }, { id: 1 }] }, 400, "VALIDATION_FAILED", [{ path: "", message: 'db.json "posts" holds id 1 twice' }]],
      [{ posts: [], count: 3 }, 400, "VALIDATION_FAILED", [{ path: "count", message: "is neither an array of records nor an object" }]],
      [{ posts: [{ id: 1, text: "x".repeat(5000) }] }, 507, "STORE_FULL", undefined],
    ];
    for (const [data, status, code, errors] of refusals) {
      const res = await send(server.url, "PUT", "/__control/data", { json: data });
      assert.equal(res.status, status, JSON.stringify(data).slice(0, 40));
      const body = res.body as { code: string; message: string; errors?: unknown };
      assert.equal(body.code, code);
      assert.match(body.message, /nothing was changed/);
      assert.deepEqual(body.errors, errors);
    }
    assert.deepEqual((await send(server.url, "GET", "/db")).body, DB);
  } finally {
    await server.close();
  }
});

test("a path segment is any percent-decoded text, as json-server reads it: an id with a dot or a space is found, /favicon.ico is 404, bad percent-encoding 400", async () => {
  const server = await startDialect({ posts: [{ id: "v1.2 final", title: "dotted" }] });
  try {
    const found = await send(server.url, "GET", "/posts/v1.2%20final");
    assert.equal(found.status, 200);
    assert.deepEqual(found.body, { id: "v1.2 final", title: "dotted" });
    const created = await send(server.url, "POST", "/posts", { json: { id: "a/b", title: "slashed" } });
    assert.equal(created.headers.location, "/posts/a%2Fb");
    assert.deepEqual((await send(server.url, "GET", created.headers.location!)).body, { id: "a/b", title: "slashed" });
    const icon = await send(server.url, "GET", "/favicon.ico");
    assert.equal(icon.status, 404);
    assert.deepEqual(icon.body, { error: "Not Found" });
    const bad = await send(server.url, "GET", "/posts/%E0%A4%A");
    assert.equal(bad.status, 400);
    assert.equal((bad.body as { code: string }).code, "INVALID_ID");
  } finally {
    await server.close();
  }
});
