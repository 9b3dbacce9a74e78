// startServer with databaseUrl against a real PostgreSQL: shared data, seeds, reset and snapshot, lost connections, and a missing adapter.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import pg from "pg";
import { after, before, test } from "node:test";
import { DatabaseError, openDatabaseStore, redact } from "../../src/store/database.ts";
import { defineData } from "../../src/api/dataset.ts";
import { SeedError } from "../../src/api/seed.ts";
import { type RunningServer, startServer } from "../../src/http/server.ts";
import { call } from "../support/http.ts";
import { type Cluster, startCluster } from "../support/postgres.ts";

let cluster: Cluster;
before(async () => {
  cluster = await startCluster();
});
after(() => cluster.close());

const GRACE = { name: "Grace Hopper", email: "grace@example.com" };
const AT = "2026-01-31T09:30:00.000Z";

/** An instance on `url`, closed when the test ends. */
async function serve(t: { after: (fn: () => Promise<void>) => void }, databaseUrl: string, options: Parameters<typeof startServer>[0] = {}): Promise<RunningServer> {
  const server = await startServer({ databaseUrl, clock: () => new Date(AT), ...options });
  t.after(() => server.close());
  return server;
}

test("two instances on one database share its records: a write through one is read through the other, with the same ETag", async (t) => {
  const url = await cluster.createDatabase();
  const [a, b] = [await serve(t, url), await serve(t, url)];
  assert.deepEqual((await call(`${b.url}/users`)).body, [
    { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
    { id: 2, name: "Alan Turing", email: "alan@example.com" },
  ]);
  const created = await call(`${a.url}/users`, { method: "POST", json: GRACE });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get("location"), "/users/3");
  const read = await call(`${b.url}/users/3`);
  assert.deepEqual(read.body, { id: 3, ...GRACE });
  assert.equal(read.headers.get("etag"), created.headers.get("etag"));
  // The next create through the other instance counts the record the first one made.
  const next = await call(`${b.url}/users`, { method: "POST", json: { name: "Kay", email: "kay@example.com" } });
  assert.deepEqual(next.body, { id: 4, name: "Kay", email: "kay@example.com" });
  const stale = await call(`${a.url}/users/3`, { method: "PUT", json: { name: "G" }, headers: { "if-match": '"other-1"' } });
  assert.equal(stale.status, 412);
  const updated = await call(`${a.url}/users/3`, { method: "PUT", json: { name: "G" }, headers: { "if-match": read.headers.get("etag")! } });
  assert.equal(updated.status, 200);
  assert.notEqual(updated.headers.get("etag"), read.headers.get("etag"));
  assert.equal((await call(`${b.url}/users/3`)).headers.get("etag"), updated.headers.get("etag"));
  assert.equal((await call(`${b.url}/users/3`, { headers: { "if-none-match": updated.headers.get("etag")! } })).status, 304);
});

test("a list's X-Total-Count, page, ETag and Link agree; sort and filters work over the database as in memory", async (t) => {
  const url = await cluster.createDatabase();
  const server = await serve(t, url);
  for (const name of ["Cy", "Bo", "Al"]) await call(`${server.url}/users`, { method: "POST", json: { name, email: `${name}@example.com`, team: "x" } });
  const page = await call(`${server.url}/users?limit=2&offset=1`);
  assert.equal(page.headers.get("x-total-count"), "5");
  assert.deepEqual((page.body as Array<{ id: number }>).map((user) => user.id), [2, 3]);
  const sorted = await call(`${server.url}/users?team=x&sort=name&limit=2`);
  assert.equal(sorted.headers.get("x-total-count"), "3");
  assert.deepEqual((sorted.body as Array<{ name: string }>).map((user) => user.name), ["Al", "Bo"]);
  const tag = page.headers.get("etag")!;
  assert.equal((await call(`${server.url}/users`, { headers: { "if-none-match": tag } })).status, 304);
  await call(`${server.url}/users/5`, { method: "DELETE" });
  assert.notEqual((await call(`${server.url}/users`)).headers.get("etag"), tag);
});

test("posts, comments and replies: ids from a sequence never reused, child lists by parent, and a delete that cascades in one transaction", async (t) => {
  const url = await cluster.createDatabase();
  const [a, b] = [await serve(t, url), await serve(t, url)];
  const post = async (server: RunningServer) => (await call(`${server.url}/posts`, { method: "POST", json: { title: "T", body: "B" } })).body as { id: number };
  assert.equal((await post(a)).id, 1);
  assert.equal((await post(b)).id, 2);
  const comment = await call(`${a.url}/posts/1/comments`, { method: "POST", json: { body: "c" } });
  assert.deepEqual(comment.body, { id: 1, postId: 1, body: "c", createdAt: AT });
  await call(`${b.url}/posts/2/comments`, { method: "POST", json: { body: "d" } });
  const reply = await call(`${b.url}/comments/1/replies`, { method: "POST", json: { body: "r" } });
  assert.deepEqual(reply.body, { id: 1, commentId: 1, body: "r", createdAt: AT });
  const list = await call(`${a.url}/posts/1/comments`);
  assert.equal(list.headers.get("x-total-count"), "1");
  assert.deepEqual(list.body, [comment.body]);
  assert.equal((await call(`${a.url}/posts/9/comments`)).status, 404);
  assert.equal((await call(`${a.url}/posts/1`, { method: "DELETE" })).status, 204);
  assert.equal((await call(`${b.url}/comments/1`)).status, 404);
  assert.equal((await call(`${b.url}/replies/1`)).status, 404);
  assert.equal((await call(`${b.url}/comments/1/replies`, { method: "POST", json: { body: "late" } })).status, 404);
  assert.equal((await call(`${b.url}/posts/2/comments`)).headers.get("x-total-count"), "1");
  // Sequences go on past the deleted ids.
  assert.equal((await post(b)).id, 3);
  const snapshot = await a.snapshot();
  assert.deepEqual(snapshot.posts.map((record) => record.id), [2, 3]);
  assert.deepEqual(snapshot.comments.map((record) => record.id), [2]);
  assert.deepEqual(snapshot.replies, []);
});

test("racing creates of the count + 1 user id through two instances: each a 201 with its own id, or a 409; never two records with one id", async (t) => {
  const url = await cluster.createDatabase();
  const [a, b] = [await serve(t, url), await serve(t, url)];
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, index) =>
      call(`${(index % 2 === 0 ? a : b).url}/users`, {
        method: "POST",
        // Half choose one of five ids, so that creates race for the same id.
        json: { ...(index % 4 < 2 ? {} : { id: 3 + (index % 5) }), name: `U${index}`, email: `u${index}@example.com` },
      }),
    ),
  );
  const created = answers.filter((answer) => answer.status === 201).map((answer) => answer.body as { id: number; name: string });
  assert.deepEqual([...new Set(answers.map((answer) => answer.status))].filter((status) => status !== 201 && status !== 409), []);
  assert.ok(created.length >= 1);
  assert.ok(answers.some((answer) => answer.status === 409), "no create raced another for its id");
  assert.equal(new Set(created.map((user) => user.id)).size, created.length, "two 201s gave one id");
  const held = (await a.snapshot()).users;
  assert.equal(held.length, 2 + created.length);
  for (const user of created) assert.deepEqual(held.find((record) => record.id === user.id), user);
});

test("a seed fills a new database only: on one that holds data, one warning, the data kept, and the seed still checked", async (t) => {
  const url = await cluster.createDatabase();
  const seed = { users: [{ id: 7, name: "Eve", email: "eve@example.com" }] };
  const warnings: string[] = [];
  const first = await serve(t, url, { seed, logWarning: (line) => warnings.push(line) });
  assert.deepEqual((await call(`${first.url}/users`)).body, seed.users);
  assert.equal(warnings.length, 0);
  const second = await serve(t, url, { seed: { users: [] }, logWarning: (line) => warnings.push(line) });
  assert.deepEqual(warnings, ["The database holds data already, so the seed was not loaded; a seed fills only a new database"]);
  assert.deepEqual((await call(`${second.url}/users`)).body, seed.users);
  await assert.rejects(startServer({ databaseUrl: url, seed: { users: [{ id: 0 }] } as never }), SeedError);
  // A start without a seed says nothing.
  await serve(t, url, { logWarning: (line) => warnings.push(line) });
  assert.equal(warnings.length, 1);
});

test("reset() puts the starting records back for every instance, ids start again and ETags are never given twice; snapshot() copies them all", async (t) => {
  const url = await cluster.createDatabase();
  const [a, b] = [await serve(t, url), await serve(t, url)];
  const before = await call(`${a.url}/users/1`);
  await call(`${a.url}/users/1`, { method: "PUT", json: { name: "Changed" } });
  await call(`${a.url}/posts`, { method: "POST", json: { title: "T", body: "B" } });
  await b.reset();
  const after = await call(`${a.url}/users/1`);
  assert.deepEqual(after.body, before.body);
  assert.notEqual(after.headers.get("etag"), before.headers.get("etag"));
  assert.deepEqual(await a.snapshot(), {
    users: [
      { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
      { id: 2, name: "Alan Turing", email: "alan@example.com" },
    ],
    posts: [],
    comments: [],
    replies: [],
  });
  assert.equal(((await call(`${b.url}/posts`, { method: "POST", json: { title: "T", body: "B" } })).body as { id: number }).id, 1);
});

test("while PostgreSQL is stopped, requests for data get 503 STORE_UNAVAILABLE and /readyz 503; once it is back, both serve again", async (t) => {
  // A cluster of its own: stopping the shared one would break the other tests.
  const own = await startCluster();
  t.after(() => own.close());
  const server = await serve(t, await own.createDatabase());
  assert.equal((await call(`${server.url}/readyz`)).status, 200);
  own.stop();
  for (const [method, path, json] of [
    ["GET", "/users/1"],
    ["GET", "/users"],
    ["GET", "/users?sort=name&role=x"],
    ["POST", "/users", GRACE],
    ["PUT", "/users/1", { name: "X" }],
    ["DELETE", "/users/2"],
    ["GET", "/posts/1/comments"],
  ] as const) {
    const answer = await call(`${server.url}${path}`, { method, json });
    assert.equal(answer.status, 503, `${method} ${path}: ${answer.text}`);
    assert.equal((answer.body as { code: string }).code, "STORE_UNAVAILABLE");
    assert.match((answer.body as { message: string }).message, /^The database cannot be used now \(.+\); retry shortly/);
  }
  assert.deepEqual((await call(`${server.url}/readyz`)).body, {
    message: "The data store cannot serve requests now; send none here",
    code: "STORE_UNAVAILABLE",
  });
  await assert.rejects(server.snapshot(), (error: Error & { status?: number }) => error.status === 503);
  await assert.rejects(server.reset(), (error: Error & { status?: number }) => error.status === 503);
  assert.equal((await call(`${server.url}/healthz`)).status, 200);
  own.start();
  assert.equal((await call(`${server.url}/readyz`)).status, 200);
  assert.equal((await call(`${server.url}/users`, { method: "POST", json: GRACE })).status, 201);
  assert.deepEqual((await call(`${server.url}/users/3`)).body, { id: 3, ...GRACE });
});

test("/metrics counts the database's records and times its queries and transactions", async (t) => {
  const url = await cluster.createDatabase();
  const server = await serve(t, url);
  assert.equal((await call(`${server.url}/users`, { method: "POST", json: GRACE })).status, 201);
  assert.equal((await call(`${server.url}/users/3`)).status, 200);
  const text = (await call(`${server.url}/metrics`)).text;
  const sample = (key: string) => Number(text.split("\n").find((line) => line.startsWith(`${key} `))?.slice(key.length + 1));
  assert.equal(sample('rest_records{collection="users"}'), 3);
  assert.equal(sample('rest_records{collection="posts"}'), 0);
  assert.equal(sample('rest_store_duration_seconds_count{operation="transaction"}'), 1);
  assert.ok(sample('rest_store_duration_seconds_count{operation="query"}') >= 1);
});

test("startServer with a database that cannot be reached rejects with a DatabaseError of one line, the password hidden", async () => {
  const port = await closedPort();
  await assert.rejects(
    startServer({ databaseUrl: `postgres://rest:secret@127.0.0.1:${port}/rest` }),
    new DatabaseError(`Cannot use the database at postgres://rest:***@127.0.0.1:${port}/rest (ECONNREFUSED); check DATABASE_URL and that the database server runs`),
  );
});

test("startServer refuses databaseUrl with dataDir, with the journal's settings, or when it is not a PostgreSQL URL", async () => {
  const databaseUrl = cluster.url("rest");
  await assert.rejects(startServer({ databaseUrl, dataDir: "/tmp/x" }), new TypeError("databaseUrl and dataDir cannot be given together; choose one store"));
  await assert.rejects(startServer({ databaseUrl, fsync: "always" }), new TypeError("fsync and compactBytes need dataDir"));
  await assert.rejects(
    startServer({ databaseUrl: "mysql://localhost/rest" }),
    new TypeError("databaseUrl must be a PostgreSQL URL such as postgres://user:password@localhost:5432/name"),
  );
});

test("openDatabaseStore says how to install an adapter that is missing, and refuses a package that is not one", async () => {
  const { resources, starting } = defineData();
  const options = { resources, starting, seeded: false, warn: () => {} };
  await assert.rejects(
    openDatabaseStore("postgres://localhost/rest", { ...options, adapter: "rest-reference-server-no-such-adapter" }),
    (error: Error) => {
      assert.ok(error instanceof DatabaseError);
      assert.match(
        error.message,
        /^DATABASE_URL needs the package rest-reference-server-no-such-adapter, which cannot be loaded \(.+\); install it beside the server: npm install rest-reference-server-no-such-adapter$/,
      );
      return true;
    },
  );
  await assert.rejects(
    openDatabaseStore("postgres://localhost/rest", { ...options, adapter: "node:os" }),
    new DatabaseError("The package node:os does not export openPostgresStore; install a version made for this server"),
  );
});

test("redact hides a URL's password, keeps one without, and names DATABASE_URL for text that is no URL", () => {
  assert.equal(redact("postgres://rest:secret@db:5432/rest"), "postgres://rest:***@db:5432/rest");
  assert.equal(redact("postgres://db/rest"), "postgres://db/rest");
  assert.equal(redact("postgres://rest:secret@[db/rest"), "DATABASE_URL");
});

test("redact hides the values of the password, sslpassword and oauth_client_secret parameters, in any case or encoding, and keeps the rest as written", () => {
  assert.equal(redact("postgres://app@127.0.0.1:1/rest?password=s3cret"), "postgres://app@127.0.0.1:1/rest?password=***");
  assert.equal(
    redact("postgres://rest:one@db/rest?sslmode=require&PassWord=two&sslpassword=three&options=-c%20search_path%3Dx&pass%77ord=four&oauth_client_secret=five&password"),
    "postgres://rest:***@db/rest?sslmode=require&PassWord=***&sslpassword=***&options=-c%20search_path%3Dx&pass%77ord=***&oauth_client_secret=***&password=***",
  );
  // What pg itself reads as the password is hidden, whichever of the two places holds it.
  for (const url of ["postgres://db/rest?password=s3cret", "postgres://app:s3cret@db/rest", "postgres://db/rest?a=1&&password=s3cret=x&password=%zz"]) {
    assert.doesNotMatch(redact(url), /s3cret/, url);
  }
  assert.equal(redact("postgres://db/rest?sslmode=disable&application_name=app"), "postgres://db/rest?sslmode=disable&application_name=app");
});

/** A port on the loopback where nothing listens. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

test("a file's collections on a database: two instances share them, nested lists and cascades work, and a restart keeps them", async (t) => {
  const url = await cluster.createDatabase();
  const resources = {
    resources: {
      projects: { schema: { type: "object", required: ["name"], properties: { name: { type: "string" } } } },
      todos: { parent: { resource: "projects", member: "projectId" } },
    },
  };
  const seed = { projects: [{ id: 1, name: "Home" }] };
  const [a, b] = [await serve(t, url, { resources, seed }), await serve(t, url, { resources, seed })];
  assert.deepEqual((await call(`${a.url}/projects/1/todos`, { method: "POST", json: { title: "Sweep" } })).body, { id: 1, projectId: 1, title: "Sweep" });
  assert.deepEqual((await call(`${b.url}/projects/1/todos`)).body, [{ id: 1, projectId: 1, title: "Sweep" }]);
  assert.equal((await call(`${b.url}/projects`, { method: "POST", json: {} })).status, 400);
  assert.equal((await call(`${a.url}/projects`, { method: "POST", json: { name: "Work" } })).headers.get("location"), "/projects/2");
  await a.close();
  await b.close();
  const again = await serve(t, url, { resources });
  assert.deepEqual((await call(`${again.url}/projects`)).body, [{ id: 1, name: "Home" }, { id: 2, name: "Work" }]);
  assert.equal((await call(`${again.url}/projects/1`, { method: "DELETE" })).status, 204);
  assert.deepEqual((await call(`${again.url}/todos/1`)).body, { message: "Todo not found", code: "RECORD_NOT_FOUND" });
});

test("string ids on a database: made by the server or chosen, shared by two instances, children under them, cascades", async (t) => {
  const url = await cluster.createDatabase();
  const resources = { resources: { notes: { id: "string" }, pages: { parent: { resource: "notes", member: "noteId" } } } };
  const seed = { notes: [{ id: "seeded", text: "s" }], pages: [{ id: 1, noteId: "seeded" }] };
  const [a, b] = [await serve(t, url, { resources, seed }), await serve(t, url, { resources, seed })];
  const made = await call(`${a.url}/notes`, { method: "POST", json: { text: "a" } });
  assert.match((made.body as { id: string }).id, /^[A-Za-z0-9_-]{22}$/);
  assert.deepEqual((await call(`${b.url}/notes`, { method: "POST", json: { id: "mine" } })).body, { id: "mine" });
  assert.equal((await call(`${a.url}/notes`, { method: "POST", json: { id: "mine" } })).status, 409);
  assert.deepEqual((await call(`${b.url}/notes/mine/pages`, { method: "POST", json: { n: 1 } })).body, { id: 2, noteId: "mine", n: 1 });
  assert.deepEqual((await call(`${a.url}/notes/seeded/pages`)).body, [{ id: 1, noteId: "seeded" }]);
  assert.equal((await call(`${a.url}/notes/mine`, { method: "DELETE" })).status, 204);
  assert.equal((await call(`${b.url}/pages/2`)).status, 404);
  const ids = ((await call(`${b.url}/notes?sort=id`)).body as Array<{ id: string }>).map((note) => note.id);
  assert.deepEqual(ids, [(made.body as { id: string }).id, "seeded"].sort());
});

test("a database made when ids were whole-number columns is moved to text ids once, its records kept", async (t) => {
  const url = await cluster.createDatabase();
  const first = await startServer({ databaseUrl: url, clock: () => new Date(AT) });
  await call(`${first.url}/posts`, { method: "POST", json: { title: "T", body: "B" } });
  await call(`${first.url}/posts/1/comments`, { method: "POST", json: { body: "C" } });
  await first.close();
  // The columns as earlier versions made them, which had no kept lists.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("DROP TABLE rest_list_filters, rest_list_sorts, rest_kept_lists");
  await client.query("ALTER TABLE rest_records ALTER COLUMN id TYPE bigint USING id::bigint, ALTER COLUMN parent_id TYPE bigint USING parent_id::bigint");
  await client.end();
  const again = await serve(t, url);
  assert.deepEqual((await call(`${again.url}/posts/1/comments`)).body, [{ id: 1, postId: 1, body: "C", createdAt: AT }]);
  assert.equal((await call(`${again.url}/posts/1`, { method: "DELETE" })).status, 204);
  assert.equal((await call(`${again.url}/comments/1`)).status, 404);
  const check = new pg.Client({ connectionString: url });
  await check.connect();
  const { rows } = await check.query(
    "SELECT data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'rest_records' AND column_name IN ('id', 'parent_id')",
  );
  await check.end();
  assert.deepEqual(rows.map((row: { data_type: string }) => row.data_type), ["text", "text"]);
});
