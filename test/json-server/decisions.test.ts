// The dialect's answers where json-server's tests and docs are silent (docs/decisions.md,
// "json-server's dialect"), and the settings that choose it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { readConfig } from "../../src/config.ts";
import { createFetchApp, startServer } from "../../src/index.ts";
import { send } from "./support.ts";

const DB = { posts: [{ id: 1 }, { id: 2 }], comments: [{ id: 1, postId: 1 }, { id: 2, postId: 9 }, { id: 3, postId: 2 }], notes: [{ id: 1 }] };

test("a create with an id already held is 409 ID_CONFLICT, and nothing is stored", async () => {
  const server = await startServer({ db: DB });
  try {
    const res = await send(server.url, "POST", "/posts", { json: { id: 1, title: "again" } });
    assert.equal(res.status, 409);
    assert.equal((res.body as { code: string }).code, "ID_CONFLICT");
    assert.deepEqual((await send(server.url, "GET", "/posts")).body, DB.posts);
  } finally {
    await server.close();
  }
});

test("a delete takes the records that name the one deleted, and theirs; a record already naming no one stays", async () => {
  const server = await startServer({ db: { ...DB, replies: [{ id: 1, commentId: 3 }] } });
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
  const server = await startServer({ db: { posts: [{ id: 1 }], comments: [{ id: 1 }] } });
  try {
    assert.deepEqual((await send(server.url, "GET", "/posts/1/comments")).body, []);
  } finally {
    await server.close();
  }
});

test("a body of another media type than JSON or a form is 415; a form and no body are taken", async () => {
  const server = await startServer({ db: DB });
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
