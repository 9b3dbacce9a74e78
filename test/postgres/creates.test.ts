// Creates on a real PostgreSQL: posts and comments side by side through two instances, users one at a time, exact ids, lists and conditional creates, and the move from the earlier layout.
import assert from "node:assert/strict";
import pg from "pg";
import { after, before, test } from "node:test";
import { type RunningServer, startServer } from "../../src/http/server.ts";
import { call, type JsonResponse } from "../support/http.ts";
import { type Cluster, startCluster } from "../support/postgres.ts";

let cluster: Cluster;
before(async () => {
  cluster = await startCluster();
});
after(() => cluster.close());

const AT = "2026-01-31T09:30:00.000Z";
const POST = { title: "T", body: "B" };

/** An instance on `url`, closed when the test ends. */
async function serve(t: { after: (fn: () => Promise<void>) => void }, databaseUrl: string): Promise<RunningServer> {
  const server = await startServer({ databaseUrl, clock: () => new Date(AT) });
  t.after(() => server.close());
  return server;
}

/** A connection of the test's own to the data set at `url`, closed when the test ends. */
async function connect(t: { after: (fn: () => Promise<void>) => void }, url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.after(() => client.end());
  return client;
}

/** How many of the servers' connections wait for a lock now (the cluster is this file's own). */
async function waiting(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ count: string }>(
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'rest-reference-server' AND wait_event_type = 'Lock'",
  );
  return Number(rows[0]!.count);
}

/** Polls every 20 ms until `count` of the servers' connections wait for a lock, failing after 10 s. */
async function untilWaiting(client: pg.Client, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await waiting(client)) < count) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${count} connections to wait for a lock`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The tables as the earlier version made them, each collection's counts in its row. */
const OLD_LAYOUT = `
    CREATE TABLE rest_collections (name text PRIMARY KEY, rank integer NOT NULL, epoch text NOT NULL,
      revision bigint NOT NULL DEFAULT 0, size bigint NOT NULL DEFAULT 0, highest_id bigint NOT NULL DEFAULT 0);
    CREATE TABLE rest_records (collection text NOT NULL, id text NOT NULL, parent_id text, place bigint NOT NULL,
      version bigint NOT NULL, body text NOT NULL, PRIMARY KEY (collection, id));`;

const idsOf = (answers: JsonResponse[]) => answers.map((answer) => (answer.body as { id: number }).id).sort((x, y) => x - y);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

test("a create of a comment held open does not hold up another through a second instance; a create of a user held open holds up the next", async (t) => {
  const url = await cluster.createDatabase();
  const [a, b] = [await serve(t, url), await serve(t, url)];
  for (let n = 0; n < 2; n++) assert.equal((await call(`${a.url}/posts`, { method: "POST", json: POST })).status, 201);
  const holder = await connect(t, url);
  // Post 1 locked as a delete of it holds it: a comment's create under it waits there, after taking its counter row.
  await holder.query("BEGIN");
  await holder.query("SELECT 1 FROM rest_records WHERE collection = 'posts' AND id = '1' FOR UPDATE");
  const first = call(`${a.url}/posts/1/comments`, { method: "POST", json: { body: "first" } });
  await untilWaiting(holder, 1);
  const second = await call(`${b.url}/posts/2/comments`, { method: "POST", json: { body: "second" } });
  assert.equal(second.status, 201, second.text);
  assert.equal(await waiting(holder), 1, "the first create stopped waiting");
  await holder.query("ROLLBACK");
  const firstAnswer = await first;
  assert.equal(firstAnswer.status, 201, firstAnswer.text);
  assert.deepEqual(idsOf([firstAnswer, second]), [1, 2]);

  // A user with id 10 inserted and not committed: a create of that id waits for it, holding the users' one counter row.
  await holder.query("BEGIN");
  await holder.query("INSERT INTO rest_records (collection, id, place, version, body) VALUES ('users', '10', 0, 0, '{\"id\":10}')");
  const chosen = call(`${a.url}/users`, { method: "POST", json: { id: 10, name: "Ten", email: "ten@example.com" } });
  await untilWaiting(holder, 1);
  const counted = call(`${b.url}/users`, { method: "POST", json: { name: "Next", email: "next@example.com" } });
  // The count + 1 create waits for the first to end: users' ids need the count as the creates before left it.
  await untilWaiting(holder, 2);
  await holder.query("ROLLBACK");
  assert.deepEqual((await chosen).body, { id: 10, name: "Ten", email: "ten@example.com" });
  assert.deepEqual((await counted).body, { id: 4, name: "Next", email: "next@example.com" });
});

test("60 creates of posts and of comments at once through two instances: ids 1 to 60 each, lists exact while they run, ids not reused after deletes", async (t) => {
  const url = await cluster.createDatabase();
  const [a, b] = [await serve(t, url), await serve(t, url)];
  assert.equal((await call(`${a.url}/posts`, { method: "POST", json: POST })).status, 201);
  // Lists read while the creates run: each ETag stands for one body, and X-Total-Count counts it.
  const bodies = new Map<string, string>();
  const wrong: string[] = [];
  let running = true;
  const read = async (server: RunningServer, path: string) => {
    while (running) {
      const list = await call(`${server.url}${path}`);
      const total = Number(list.headers.get("x-total-count"));
      if (total !== (list.body as unknown[]).length) wrong.push(`${path}: X-Total-Count ${total} for ${(list.body as unknown[]).length} records`);
      const tag = list.headers.get("etag")!;
      const seen = bodies.get(`${path} ${tag}`);
      if (seen === undefined) bodies.set(`${path} ${tag}`, list.text);
      else if (seen !== list.text) wrong.push(`${path}: ETag ${tag} for two bodies`);
    }
  };
  const readers = [read(a, "/posts"), read(b, "/posts"), read(a, "/posts/1/comments"), read(b, "/posts/1/comments")];
  const answers = await Promise.all(
    Array.from({ length: 120 }, (_, index) => {
      const server = index % 2 === 0 ? a : b;
      return index % 4 < 2
        ? call(`${server.url}/posts`, { method: "POST", json: POST })
        : call(`${server.url}/posts/1/comments`, { method: "POST", json: { body: `c${index}` } });
    }),
  );
  running = false;
  await Promise.all(readers);
  assert.deepEqual(wrong, []);
  assert.ok(bodies.size > 2, `only ${bodies.size} lists were read`);
  assert.deepEqual([...new Set(answers.map((answer) => answer.status))], [201]);
  const posts = answers.filter((answer) => answer.headers.get("location")!.startsWith("/posts/"));
  const comments = answers.filter((answer) => answer.headers.get("location")!.startsWith("/comments/"));
  assert.deepEqual(idsOf(posts), range(2, 61));
  assert.deepEqual(idsOf(comments), range(1, 60));
  for (const [server, other] of [[a, b], [b, a]] as const) {
    const list = await call(`${server.url}/posts/1/comments`);
    assert.equal(list.headers.get("x-total-count"), "60");
    assert.equal(list.headers.get("etag"), (await call(`${other.url}/posts/1/comments`)).headers.get("etag"));
    assert.equal((await call(`${server.url}/posts?limit=1`)).headers.get("x-total-count"), "61");
  }
  // The highest ids deleted, then created again: the sequences go on past them.
  for (const id of range(56, 60)) assert.equal((await call(`${(id % 2 ? a : b).url}/comments/${id}`, { method: "DELETE" })).status, 204);
  assert.equal((await call(`${a.url}/posts/61`, { method: "DELETE" })).status, 204);
  const again = await Promise.all(range(1, 4).map((n) => call(`${(n % 2 ? a : b).url}/posts/1/comments`, { method: "POST", json: { body: "again" } })));
  assert.deepEqual(idsOf(again), range(61, 64));
  assert.equal((await call(`${b.url}/posts`, { method: "POST", json: POST })).headers.get("location"), "/posts/62");
  assert.equal((await call(`${b.url}/posts/1/comments`)).headers.get("x-total-count"), "59");
  assert.equal((await call(`${a.url}/posts`)).headers.get("x-total-count"), "61");
});

test("creates with If-Match of one list ETag racing through two instances, among creates without: one of them is created, the others get 412", async (t) => {
  const url = await cluster.createDatabase();
  const [a, b] = [await serve(t, url), await serve(t, url)];
  assert.equal((await call(`${a.url}/posts`, { method: "POST", json: POST })).status, 201);
  for (const path of ["/posts", "/posts/1/comments"]) {
    const json = path === "/posts" ? POST : { body: "c" };
    const tag = (await call(`${a.url}${path}`)).headers.get("etag")!;
    const conditional = Array.from({ length: 12 }, (_, index) =>
      call(`${(index % 2 ? a : b).url}${path}`, { method: "POST", json, headers: { "if-match": tag } }),
    );
    const plain = Array.from({ length: 12 }, (_, index) => call(`${(index % 2 ? b : a).url}${path}`, { method: "POST", json }));
    const [answers, others] = await Promise.all([Promise.all(conditional), Promise.all(plain)]);
    const statuses = answers.map((answer) => answer.status).sort();
    // Every create without a condition may come first, and then none with it passes.
    assert.ok(statuses.filter((status) => status === 201).length <= 1, `${path}: ${statuses}`);
    assert.deepEqual(statuses.filter((status) => status !== 201 && status !== 412), [], path);
    assert.deepEqual([...new Set(others.map((answer) => answer.status))], [201], path);
    // Alone, a race of creates with the list's current ETag lets exactly one through.
    const now = (await call(`${b.url}${path}`)).headers.get("etag")!;
    const race = await Promise.all(
      Array.from({ length: 12 }, (_, index) => call(`${(index % 2 ? a : b).url}${path}`, { method: "POST", json, headers: { "if-match": now } })),
    );
    assert.deepEqual(race.map((answer) => answer.status).sort(), [201, ...Array.from({ length: 11 }, () => 412)], path);
    // If-None-Match of the current ETag refuses; of an older one, creates.
    const current = (await call(`${a.url}${path}`)).headers.get("etag")!;
    assert.equal((await call(`${b.url}${path}`, { method: "POST", json, headers: { "if-none-match": current } })).status, 412);
    assert.equal((await call(`${b.url}${path}`, { method: "POST", json, headers: { "if-none-match": tag } })).status, 201);
  }
  // No id went missing: the refused creates took none.
  const held = await a.snapshot();
  for (const records of [held.posts, held.comments]) {
    assert.deepEqual(records.map((record) => Number(record.id)).sort((x, y) => x - y), range(1, records.length));
  }
});

test("refused creates take no id from the sequence: a 404, a 400 and a 412 leave the next id as it was", async (t) => {
  const url = await cluster.createDatabase();
  const server = await serve(t, url);
  assert.equal((await call(`${server.url}/posts/1/comments`, { method: "POST", json: { body: "c" } })).status, 404);
  assert.equal((await call(`${server.url}/posts`, { method: "POST", json: { title: "" } })).status, 400);
  assert.equal((await call(`${server.url}/posts`, { method: "POST", json: POST, headers: { "if-match": '"other-1"' } })).status, 412);
  assert.equal((await call(`${server.url}/posts`, { method: "POST", json: POST })).headers.get("location"), "/posts/1");
  assert.equal((await call(`${server.url}/posts/1/comments`, { method: "POST", json: { id: 5, body: "c" } })).status, 400);
  assert.equal((await call(`${server.url}/posts/2/comments`, { method: "POST", json: { body: "c" } })).status, 404);
  assert.equal((await call(`${server.url}/posts/1/comments`, { method: "POST", json: { body: "c" } })).headers.get("location"), "/comments/1");
});

test("collections of a resources file whose names need quotes, or pass an identifier's 63 bytes, each number their ids from 1", async (t) => {
  const url = await cluster.createDatabase();
  const long = `L${"o".repeat(61)}ng`;
  const alike = `${long.slice(0, -1)}x`;
  const resources = { resources: { "Big-Things": {}, [long]: {}, [alike]: {} } };
  const server = await startServer({ databaseUrl: url, resources });
  t.after(() => server.close());
  for (const name of ["Big-Things", long, alike]) {
    for (const id of [1, 2]) assert.equal((await call(`${server.url}/${name}`, { method: "POST", json: {} })).headers.get("location"), `/${name}/${id}`);
  }
  assert.equal((await call(`${server.url}/${long}/1`, { method: "DELETE" })).status, 204);
  assert.equal((await call(`${server.url}/${long}`, { method: "POST", json: {} })).headers.get("location"), `/${long}/3`);
});

test("a database of the earlier layout, each collection's counts in its row, is moved once: ids, lists and ETags go on from it", async (t) => {
  const url = await cluster.createDatabase();
  const old = await connect(t, url);
  // The tables as the earlier version made them, holding users 1 and 2 and posts 1 and 3 (post 2 deleted).
  await old.query(`
    ${OLD_LAYOUT}
    INSERT INTO rest_collections VALUES ('users', 0, 'old', 3, 2, 2), ('posts', 1, 'old', 9, 2, 3), ('comments', 2, 'old', 1, 0, 0), ('replies', 3, 'old', 1, 0, 0);
    INSERT INTO rest_records VALUES
      ('users', '1', NULL, 2, 2, '{"id":1,"name":"Ada Lovelace","email":"ada@example.com"}'),
      ('users', '2', NULL, 3, 3, '{"id":2,"name":"Alan Turing","email":"alan@example.com"}'),
      ('posts', '1', NULL, 2, 7, '{"id":1,"title":"One","body":"B"}'),
      ('posts', '3', NULL, 6, 6, '{"id":3,"title":"Three","body":"B"}');
  `);
  const [a, b] = [await serve(t, url), await serve(t, url)];
  const before = await call(`${a.url}/posts`);
  assert.deepEqual((before.body as Array<{ id: number }>).map((post) => post.id), [1, 3]);
  assert.equal(before.headers.get("x-total-count"), "2");
  assert.equal(before.headers.get("etag"), `"old-${(9).toString(36)}"`);
  assert.equal((await call(`${b.url}/posts/1`)).headers.get("etag"), `"old-7"`);
  const created = await call(`${b.url}/posts`, { method: "POST", json: POST });
  assert.equal(created.headers.get("location"), "/posts/4");
  assert.equal((await call(`${a.url}/users`, { method: "POST", json: { name: "Grace", email: "g@example.com" } })).headers.get("location"), "/users/3");
  // New versions come after every version given: no ETag is given twice.
  const tags = [created, await call(`${a.url}/posts/3`, { method: "PUT", json: { title: "3" } })].map((answer) => answer.headers.get("etag")!);
  for (const tag of tags) assert.ok(parseInt(/-(\w+)"$/.exec(tag)![1]!, 36) > 9, tag);
  const after = await call(`${a.url}/posts`);
  assert.equal(after.headers.get("x-total-count"), "3");
  assert.notEqual(after.headers.get("etag"), before.headers.get("etag"));
  const { rows } = await old.query("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'rest_collections' ORDER BY ordinal_position");
  assert.deepEqual(rows.map((row: { column_name: string }) => row.column_name), ["name", "rank", "epoch"]);
});

test("a reset through one instance leaves the collections it does not serve, with their counts", async (t) => {
  const url = await cluster.createDatabase();
  const things = await startServer({ databaseUrl: url, resources: { resources: { things: {} } } });
  t.after(() => things.close());
  const users = await serve(t, url);
  assert.equal((await call(`${things.url}/things`, { method: "POST", json: { n: 1 } })).status, 201);
  const before = await call(`${things.url}/things`);
  await users.reset();
  const after = await call(`${things.url}/things`);
  assert.deepEqual(after.body, [{ id: 1, n: 1 }]);
  assert.equal(after.headers.get("x-total-count"), "1");
  assert.equal(after.headers.get("etag"), before.headers.get("etag"));
});

test("the move from the earlier layout waits for a write of the earlier version under way, and counts it", async (t) => {
  const url = await cluster.createDatabase();
  const old = await connect(t, url);
  await old.query(`
    ${OLD_LAYOUT}
    CREATE INDEX rest_records_order ON rest_records (collection, place);
    CREATE INDEX rest_records_children ON rest_records (collection, parent_id, place);
    INSERT INTO rest_collections VALUES ('users', 0, 'old', 1, 0, 0), ('posts', 1, 'old', 1, 0, 0), ('comments', 2, 'old', 1, 0, 0), ('replies', 3, 'old', 1, 0, 0);
  `);
  // A create of post 1 by a process of the earlier version, its collection row locked, not yet committed.
  await old.query("BEGIN");
  await old.query("SELECT revision FROM rest_collections WHERE name = 'posts' FOR NO KEY UPDATE");
  await old.query(`INSERT INTO rest_records VALUES ('posts', '1', NULL, 2, 2, '{"id":1,"title":"One","body":"B"}')`);
  await old.query("UPDATE rest_collections SET revision = 2, size = 1, highest_id = 1 WHERE name = 'posts'");
  const starting = serve(t, url);
  const watcher = await connect(t, url);
  await untilWaiting(watcher, 1);
  await old.query("COMMIT");
  const server = await starting;
  const list = await call(`${server.url}/posts`);
  assert.equal(list.headers.get("x-total-count"), "1");
  assert.equal(list.headers.get("etag"), `"old-2"`);
  assert.equal((await call(`${server.url}/posts`, { method: "POST", json: POST })).headers.get("location"), "/posts/2");
});
