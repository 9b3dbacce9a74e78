// White-box tests of src/dataset.ts and the seed, clock, reset and snapshot options of startServer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createApp } from "../src/http/app.ts";
import { createDataSet } from "../src/api/dataset.ts";
import { SEED_USERS } from "../src/api/resources/users.ts";
import { SeedError } from "../src/api/seed.ts";
import { startServer } from "../src/http/server.ts";
import { memoryData } from "./support/data.ts";
import { call } from "./support/http.ts";

const AT = "2026-01-31T09:30:00.000Z";

test("createDataSet without a seed holds the two seeded users and no posts", async () => {
  const data = createDataSet();
  assert.deepEqual(await data.store.snapshot(), { users: SEED_USERS, posts: [], comments: [], replies: [] });
});

test("createDataSet with a seed holds exactly its records; ids continue by each collection's rule", async () => {
  const seed = {
    users: [{ id: 7, name: "Eve", email: "eve@example.com" }],
    posts: [{ id: 4, title: "T", body: "B", createdAt: AT }, { id: 2, title: "U", body: "C", createdAt: AT }],
  };
  const h = memoryData({ seed });
  // Users: the number held + 1 (seed spec part 2, rule 1); posts: one past the highest seeded id.
  assert.equal(h.create("users", { name: "N", email: "n@example.com" }).id, 2);
  assert.equal(h.create("posts", { title: "V", body: "D" }).id, 5);
  assert.deepEqual((await h.data.store.snapshot()).posts.map((post) => post.id), [4, 2, 5]);
});

test("the clock option gives createdAt", () => {
  const h = memoryData({ clock: () => new Date(AT) });
  assert.equal(h.create("posts", { title: "T", body: "B" }).createdAt, AT);
});

test("createDataSet refuses a clock that is not a function", () => {
  assert.throws(() => createDataSet({ clock: "now" as never }), { name: "TypeError", message: "clock must be a function that returns a Date" });
});

test("reset puts back the starting records and indexes, and sequences start again after them", async () => {
  const seed = {
    posts: [{ id: 1, title: "T", body: "B", createdAt: AT }],
    comments: [{ id: 1, postId: 1, body: "C", createdAt: AT }],
  };
  const h = memoryData({ seed, clock: () => new Date(AT) });
  h.create("comments", { body: "D" }, 1);
  h.update("posts", 1, { title: "Changed" });
  h.remove("posts", 1);
  await h.data.store.reset();
  assert.deepEqual(await h.data.store.snapshot(), { users: [], ...seed, replies: [] });
  assert.deepEqual(h.list("comments", 1).items.map((comment) => comment.id), [1]);
  assert.equal(h.create("comments", { body: "E" }, 1).id, 2);
});

test("snapshot is a deep copy: changing it changes nothing held", async () => {
  const data = createDataSet({ seed: { users: [{ id: 1, name: "A", email: "a@example.com", tags: ["x"] }] } });
  const first = await data.store.snapshot();
  first.users[0]!.name = "Changed";
  (first.users[0]!.tags as string[]).push("y");
  assert.deepEqual(await data.store.snapshot(), { users: [{ id: 1, name: "A", email: "a@example.com", tags: ["x"] }], posts: [], comments: [], replies: [] });
});

test("startServer with a seed serves it; reset and snapshot act on what the server holds", async (t) => {
  const seed = { users: [{ id: 3, name: "Eve", email: "eve@example.com" }] };
  const api = await startServer({ seed, clock: () => new Date(AT) });
  t.after(() => api.close());
  assert.deepEqual((await call(`${api.url}/users`)).body, seed.users);
  const post = await call(`${api.url}/posts`, { method: "POST", json: { title: "T", body: "B" } });
  assert.deepEqual(post.body, { id: 1, title: "T", body: "B", createdAt: AT });
  assert.deepEqual(await api.snapshot(), { users: seed.users, posts: [post.body], comments: [], replies: [] });
  await api.reset();
  assert.deepEqual(await api.snapshot(), { users: seed.users, posts: [], comments: [], replies: [] });
  assert.equal((await call(`${api.url}/posts/1`)).status, 404);
});

test("startServer and createApp refuse a misspelt option instead of ignoring it", async () => {
  await assert.rejects(startServer({ sead: {} } as never), {
    name: "TypeError",
    message:
      'startServer has no option "sead"; its options are allowedHosts, authTokens, authTokensFile, readOnly, storeLimit, port, host, bodyLimit, corsOrigins, logError, logFormat, metrics, seed, resources, clock, db, dialect, headersTimeout, requestTimeout, keepAliveTimeout, shutdownTimeout, dataDir, databaseUrl, fsync, compactBytes, logWarning, onStoreFailure, control, controlLog, delay',
  });
  assert.throws(() => createApp({ port: 1 } as never), {
    name: "TypeError",
    message: 'createApp has no option "port"; its options are allowedHosts, authTokens, authTokensFile, readOnly, storeLimit, bodyLimit, corsOrigins, isDraining, logError, logFormat, metrics, seed, resources, clock, db, dialect, control, controlLog, delay',
  });
  assert.throws(() => createApp(null as never), { name: "TypeError", message: "createApp takes an options object" });
});

test("startServer refuses a seed that breaks the rules with one SeedError naming every problem, before listening", async () => {
  const seed = {
    users: [{ id: 1, name: "", email: "a@example.com" }],
    comments: [{ id: 1, postId: 2, body: "C", createdAt: AT }],
  };
  await assert.rejects(startServer({ seed }), (error: unknown) => {
    assert.ok(error instanceof SeedError);
    assert.deepEqual(error.problems, [
      "users[0].name must be a non-empty string",
      "comments[0].postId must be the id of a post of the seed; none has id 2",
    ]);
    assert.equal(error.message, `The seed is not valid: ${error.problems.join("; ")}`);
    return true;
  });
});
