// react-admin's json-server client, `ra-data-json-server` as published, driven through every
// method of its dataProvider against a server started on a db.json over a real socket (on the
// target TEST_TARGET names, target.ts). Each check is what a react-admin page asks and what it
// needs back: a list page's sort, filters and range with X-Total-Count, a reference field's
// getMany, a tab of related records, and the edits, whose answers it reads as json-server's.
import assert from "node:assert/strict";
import { test } from "node:test";
import jsonServerProvider from "ra-data-json-server";
import { startDialect } from "./target.ts";

type Row = Record<string, unknown>;

const DB = {
  users: [
    { id: 1, name: "Leanne Graham", email: "leanne@example.com" },
    { id: 2, name: "Ervin Howell", email: "ervin@example.com" },
  ],
  posts: [
    { id: 1, userId: 1, title: "sunt aut facere", views: 120, author: { name: "leanne" } },
    { id: 2, userId: 1, title: "qui est esse", views: 80, author: { name: "leanne" } },
    { id: 3, userId: 2, title: "ea molestias quasi", views: 300, author: { name: "ervin" } },
    { id: 4, userId: 2, title: "eum et est occaecati", views: 45, author: { name: "ervin" } },
    { id: 5, userId: 1, title: "nesciunt quas odio", views: 210, author: { name: "leanne" } },
  ],
  comments: [
    { id: 1, postId: 1, body: "laudantium enim" },
    { id: 2, postId: 1, body: "est natus enim" },
    { id: 3, postId: 3, body: "quia molestiae" },
    { id: 4, postId: 1, body: "non et atque" },
  ],
};

/** A fresh server on DB for one check, and react-admin's dataProvider over it. */
async function admin(t: { after: (fn: () => Promise<void>) => void }) {
  const server = await startDialect(structuredClone(DB));
  t.after(() => server.close());
  return { provider: jsonServerProvider(server.url), url: server.url };
}

/** What the server holds now, by collection. */
async function held(url: string): Promise<Record<string, Row[]>> {
  return (await (await fetch(`${url}/db`)).json()) as Record<string, Row[]>;
}

const ids = (rows: readonly Row[]) => rows.map((row) => row.id);

test("getList: a list page's sort and range (_sort, _order, _start, _end) with the total of every page", async (t) => {
  const { provider } = await admin(t);
  const page = await provider.getList("posts", { pagination: { page: 2, perPage: 2 }, sort: { field: "title", order: "ASC" }, filter: {} });
  assert.deepEqual(ids(page.data), [5, 2]);
  assert.equal(page.total, 5);
  const last = await provider.getList("posts", { pagination: { page: 3, perPage: 2 }, sort: { field: "title", order: "ASC" }, filter: {} });
  assert.deepEqual(ids(last.data), [1]);
});

test("getList: filters (a member, a member's path, json-server's _gte) with the sort descending", async (t) => {
  const { provider } = await admin(t);
  const list = await provider.getList("posts", {
    pagination: { page: 1, perPage: 10 },
    sort: { field: "views", order: "DESC" },
    filter: { userId: 1, author: { name: "leanne" }, views_gte: 100 },
  });
  assert.deepEqual(ids(list.data), [5, 1]);
  assert.equal(list.total, 2);
});

test("getList: react-admin's search box (q), case-insensitive over every value, and meta.embed", async (t) => {
  const { provider } = await admin(t);
  const list = await provider.getList("posts", { pagination: { page: 1, perPage: 10 }, sort: { field: "id", order: "ASC" }, filter: { q: "ERVIN" }, meta: { embed: "comments" } });
  assert.deepEqual(ids(list.data), [3, 4]);
  assert.equal(list.total, 2);
  assert.deepEqual(list.data[0]!.comments, [DB.comments[2]]);
  assert.deepEqual(list.data[1]!.comments, []);
});

test("getOne: a record, and with meta.embed its children", async (t) => {
  const { provider } = await admin(t);
  assert.deepEqual((await provider.getOne("posts", { id: 3 })).data, DB.posts[2]);
  const embedded = await provider.getOne("posts", { id: 1, meta: { embed: "comments" } });
  assert.deepEqual(embedded.data, { ...DB.posts[0], comments: [DB.comments[0], DB.comments[1], DB.comments[3]] });
});

test("getOne of a record not held rejects with react-admin's HttpError, status 404", async (t) => {
  const { provider } = await admin(t);
  await assert.rejects(provider.getOne("posts", { id: 99 }), (error: Error & { status?: number }) => {
    assert.equal(error.name, "HttpError");
    assert.equal(error.status, 404);
    return true;
  });
});

test("getMany: a reference field's records (id=1&id=3), in the order held", async (t) => {
  const { provider } = await admin(t);
  const many = await provider.getMany("users", { ids: [2, 1] });
  assert.deepEqual(many.data, DB.users);
  assert.deepEqual((await provider.getMany("posts", { ids: [3, 1] })).data, [DB.posts[0], DB.posts[2]]);
});

test("getManyReference: the records whose target names the record, sorted and ranged, with their total", async (t) => {
  const { provider } = await admin(t);
  const comments = await provider.getManyReference("comments", {
    target: "postId",
    id: 1,
    pagination: { page: 1, perPage: 2 },
    sort: { field: "id", order: "DESC" },
    filter: {},
  });
  assert.deepEqual(ids(comments.data), [4, 2]);
  assert.equal(comments.total, 3);
  const posts = await provider.getManyReference("posts", { target: "userId", id: 2, pagination: { page: 1, perPage: 10 }, sort: { field: "views", order: "ASC" }, filter: { q: "EST" } });
  assert.deepEqual(ids(posts.data), [4, 3]);
  assert.equal(posts.total, 2);
});

test("create: the record is stored with the next id, and react-admin gets it back", async (t) => {
  const { provider, url } = await admin(t);
  const created = await provider.create("posts", { data: { userId: 2, title: "a new post", views: 0 } });
  assert.deepEqual(created.data, { id: 6, userId: 2, title: "a new post", views: 0 });
  assert.deepEqual((await held(url)).posts!.at(-1), created.data);
});

test("update: the whole record, id included, as react-admin sends it, replaces the record", async (t) => {
  const { provider, url } = await admin(t);
  const previousData = DB.posts[1]!;
  const data = { ...previousData, title: "edited", author: { name: "ervin" } };
  const updated = await provider.update("posts", { id: 2, data, previousData });
  assert.deepEqual(updated.data, data);
  assert.deepEqual((await held(url)).posts![1], data);
});

test("updateMany: each record replaced by the data (json-server's PUT), answered with their ids", async (t) => {
  const { provider, url } = await admin(t);
  const updated = await provider.updateMany("users", { ids: [1, 2], data: { name: "Anonymous", email: "anonymous@example.com" } });
  assert.deepEqual(updated.data, [1, 2]);
  assert.deepEqual((await held(url)).users, [
    { name: "Anonymous", email: "anonymous@example.com", id: 1 },
    { name: "Anonymous", email: "anonymous@example.com", id: 2 },
  ]);
});

test("delete: the record goes, with the comments that name it, and the answer is json-server's 200 {}", async (t) => {
  const { provider, url } = await admin(t);
  const deleted = await provider.delete("posts", { id: 1, previousData: DB.posts[0] });
  assert.deepEqual(deleted.data, {});
  const data = await held(url);
  assert.deepEqual(ids(data.posts!), [2, 3, 4, 5]);
  assert.deepEqual(ids(data.comments!), [3]);
});

test("deleteMany: every record goes, and a body on each answer (no 204) keeps react-admin's client from throwing", async (t) => {
  const { provider, url } = await admin(t);
  const deleted = await provider.deleteMany("comments", { ids: [1, 2, 3] });
  assert.deepEqual(deleted.data, [undefined, undefined, undefined]);
  assert.deepEqual((await held(url)).comments, [DB.comments[3]]);
});
