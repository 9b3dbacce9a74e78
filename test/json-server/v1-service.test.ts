// Ported from json-server v1.0.0-beta.15, src/service.test.ts (MIT, typicode), with its
// assertions; the Service is reached over HTTP (./service.ts: each call is the request 1.0's
// app makes for it, a 404 read as the Service's `undefined`), and `db.data` is set by starting
// the server on it and read with GET /db. Where the in-process test compares by reference
// (`assert.equal(res, obj)`), the answer over HTTP is compared by value.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { differs } from "./support.ts";
import { httpService } from "./service.ts";

const service = httpService();

const POSTS = "posts";
const COMMENTS = "comments";
const OBJECT = "object";

const UNKNOWN_RESOURCE = "xxx";
const UNKNOWN_ID = "xxx";

const post1 = { id: "1", title: "a", views: 100, published: true, author: { name: "foo" }, tags: ["foo", "bar"] };
const post2 = { id: "2", title: "b", views: 200, published: false, author: { name: "bar" }, tags: ["bar"] };
const post3 = { id: "3", title: "c", views: 300, published: false, author: { name: "baz" }, tags: ["foo"] };
const comment1 = { id: "1", title: "a", postId: "1" };
const obj = { f1: "foo" };

beforeEach(() => service.setData(structuredClone({ posts: [post1, post2, post3], comments: [comment1], object: obj })));

await test("findById", async () => {
  const data = await service.data();
  const cases: Array<[[string, string, { _embed?: string[] | string }], unknown]> = [
    [[POSTS, "1", {}], data[POSTS]![0]],
    [[POSTS, UNKNOWN_ID, {}], undefined],
    [[POSTS, "1", { _embed: ["comments"] }], { ...post1, comments: [comment1] }],
    [[COMMENTS, "1", { _embed: ["post"] }], { ...comment1, post: post1 }],
    [[UNKNOWN_RESOURCE, "1", {}], undefined],
  ];
  for (const [[name, id, query], expected] of cases) assert.deepEqual(await service.findById(name, id, query), expected);
});

await test("find", async (t) => {
  const whereFromPayload = JSON.parse('{"author":{"name":{"eq":"bar"}}}') as Record<string, unknown>;
  const cases: Array<[{ where: Record<string, unknown>; sort?: string; page?: number; perPage?: number }, unknown]> = [
    [{ where: { title: { eq: "b" } } }, [post2]],
    [{ where: whereFromPayload }, [post2]],
    [{ where: {}, sort: "-views" }, [post3, post2, post1]],
    [{ where: {}, page: 2, perPage: 2 }, { first: 1, prev: 1, next: null, last: 2, pages: 2, items: 3, data: [post3] }],
  ];
  for (const [opts, expected] of cases) {
    await t.test(JSON.stringify(opts), async () => assert.deepEqual(await service.find(POSTS, opts), expected));
  }
});

await test("create", async () => {
  const post = { title: "new post" };
  let res = await service.create(POSTS, post);
  assert.equal(res?.["title"], post.title);
  assert.equal(typeof res?.["id"], "string", "id should be a string");
  await differs("a client's own id is kept on create, as 0.17 keeps it", async () => {
    res = await service.create(POSTS, { ...post, id: "foo" });
    assert.notEqual(res?.["id"], "foo", "user should not be able to set id");
    assert.equal(await service.create(UNKNOWN_RESOURCE, post), undefined);
  });
});

await test("update", async () => {
  const obj = { f1: "bar" };
  const res = await service.update(OBJECT, obj);
  assert.deepEqual(res, obj);
  assert.equal(await service.update(UNKNOWN_RESOURCE, obj), undefined, "should ignore unknown resources");
  assert.equal(await service.update(POSTS, {}), undefined, "should ignore arrays");
});

await test("patch", async () => {
  const obj = { f2: "bar" };
  const res = await service.patch(OBJECT, obj);
  assert.deepEqual(res, { f1: "foo", ...obj });
  assert.equal(await service.patch(UNKNOWN_RESOURCE, obj), undefined, "should ignore unknown resources");
  assert.equal(await service.patch(POSTS, {}), undefined, "should ignore arrays");
});

await test("updateById", async () => {
  const post = { id: "xxx", title: "updated post" };
  const res = await service.updateById(POSTS, post1.id, post);
  assert.equal(res?.["id"], post1.id, "id should not change");
  assert.equal(res?.["title"], post.title);
  assert.equal(await service.updateById(UNKNOWN_RESOURCE, post1.id, post), undefined);
  assert.equal(await service.updateById(POSTS, UNKNOWN_ID, post), undefined);
});

await test("patchById", async () => {
  const post = { id: "xxx", title: "updated post" };
  const res = await service.patchById(POSTS, post1.id, post);
  assert.notEqual(res, undefined);
  assert.equal(res?.["id"], post1.id);
  assert.equal(res?.["title"], post.title);
  assert.equal(await service.patchById(UNKNOWN_RESOURCE, post1.id, post), undefined);
  assert.equal(await service.patchById(POSTS, UNKNOWN_ID, post), undefined);
});

await test("destroy", async (t) => {
  await t.test("nullifies foreign keys", async () => {
    await differs("deleting a record deletes the records that name it, as 0.17 does", async () => {
      const prevLength = Number((await service.data())[POSTS]?.length) || 0;
      await service.destroyById(POSTS, post1.id);
      assert.equal((await service.data())[POSTS]?.length, prevLength - 1);
      assert.deepEqual((await service.data())[COMMENTS], [{ ...comment1, postId: null }]);
    });
  });
  await t.test("deletes dependent resources", async () => {
    const prevLength = Number((await service.data())[POSTS]?.length) || 0;
    await service.destroyById(POSTS, post1.id, [COMMENTS]);
    assert.equal((await service.data())[POSTS]!.length, prevLength - 1);
    assert.equal((await service.data())[COMMENTS]!.length, 0);
  });
  await t.test("ignores unknown resources", async () => {
    assert.equal(await service.destroyById(UNKNOWN_RESOURCE, post1.id), undefined);
    assert.equal(await service.destroyById(POSTS, UNKNOWN_ID), undefined);
  });
});

// The tests above are awaited in turn; the server goes with the last.
await service.close();
