// Filtered and sorted lists on PostgreSQL, answered from kept rows: every answer equals selectPage's on the same records, across two processes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pg from "pg";
import { readList } from "../../src/api/lists.ts";
import { type RunningServer, startServer } from "../../src/http/server.ts";
import { MAX_FILTER_INDEXES, MAX_SORT_ORDERS } from "../../src/store/memory/list-indexes.ts";
import { selectPage } from "../../src/store/query.ts";
import type { StoredRecord } from "../../src/store/records.ts";
import { call } from "../support/http.ts";
import { type Cluster, startCluster } from "../support/postgres.ts";

let cluster: Cluster;
before(async () => {
  cluster = await startCluster();
});
after(() => cluster.close());

/** Items, the parts under them, and notes with string ids: collections whose records take any members. */
const RESOURCES = {
  resources: {
    items: {},
    parts: { parent: { resource: "items", member: "itemId" } },
    notes: { id: "string" },
  },
};

/** A small seeded generator, so that a failure repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

// Long strings that share their first 1,100 characters: past the sort key's indexed bytes, and the filter's.
const LONG = "L".repeat(1100);
const LONGS = [`${LONG}a`, `${LONG}b`, LONG, `${LONG}\u0000`, "M".repeat(600)];
const STRINGS = ["", "x", "y", "X", "é", "e\u0301", "\ud83d\ude00", "\ud83d\ude00x", "\uffff", "\ue000", "a\u0000b", "\u0000", "1", "3", "true", "null", ...LONGS];
// Strings no URL can carry (lone surrogates): records hold them, filters never name them.
const UNSENDABLE = ["\ud800", "\udc00", "x\udbff", "\udc00\ud800"];
const NUMBERS = [0, 1, 3, -2.5, 0.1, 1e21, 2 ** 53, -1e-7, 1e308, -1e308];
const COMPOSITES: unknown[] = [[], [1], ["x"], [1, 2], [[]], [null], {}, { a: 1 }, { b: 0 }, { a: 1, b: 2 }, { é: 1 }, { aa: 1 }, { a: { b: [1] } }, [{ a: "\u0000" }]];
// More members than a collection keeps (MAX_FILTER_INDEXES), some favoured, so that most lists come from kept rows.
const MEMBERS = ["m0", "m1", "m2", "m3", "é", "😀", "m6", "m7", "m8", "m9", "m10", "m11", "m12"];
const FAVOURED = MEMBERS.slice(0, 5);
// What filters ask for: the filter texts of the values above, and some no record holds.
const TEXTS = [...STRINGS, ...NUMBERS.map((number) => JSON.stringify(number)), "false", "null", "nothing", "2"];
const NOTE_IDS = ["a", "B", "_x", "-", "a1", "Z9", "aa", "A", "b", "z-", "0", "9"];

/** One of the values a member takes: every JSON type. */
function valueOf(pick: () => number): unknown {
  const roll = pick();
  const choose = <T>(items: readonly T[]): T => items[Math.floor(pick() * items.length)]!;
  if (roll < 0.3) return choose(STRINGS);
  if (roll < 0.38) return choose(LONGS);
  if (roll < 0.44) return choose(UNSENDABLE);
  if (roll < 0.65) return choose(NUMBERS);
  if (roll < 0.75) return choose([true, false, null]);
  if (roll < 0.9) return choose(COMPOSITES);
  // A nested value of its own.
  return pick() < 0.5 ? [valueOf(pick), valueOf(pick)] : { k: valueOf(pick), [choose(["a", "bb", "é"])]: valueOf(pick) };
}

/** The records a list holds, in creation order: a collection's, or one parent's children. */
function held(snapshot: Record<string, StoredRecord[]>, path: string): StoredRecord[] | undefined {
  const child = /^\/items\/(\d+)\/parts$/.exec(path);
  if (child === null) return snapshot[path.slice(1)]!;
  const parent = Number(child[1]);
  if (!snapshot.items!.some((item) => item.id === parent)) return undefined;
  return snapshot.parts!.filter((part) => part.itemId === parent);
}

/** Asserts that a list's answer, through `server`, equals selectPage's on the records the database holds, and that its ETag is the plain list's. */
async function assertList(server: RunningServer, path: string, search: URLSearchParams, label: string): Promise<void> {
  const snapshot = (await server.snapshot()) as unknown as Record<string, StoredRecord[]>;
  const answer = await call(`${server.url}${path}?${search}`);
  const records = held(snapshot, path);
  if (records === undefined) {
    assert.equal(answer.status, 404, label);
    return;
  }
  assert.equal(answer.status, 200, `${label}: ${answer.text}`);
  const expected = selectPage(records, readList(search));
  assert.equal(answer.headers.get("x-total-count"), String(expected.total), label);
  assert.deepEqual(answer.body, expected.items, label);
  const plain = await call(`${server.url}${path}?limit=0`);
  assert.equal(answer.headers.get("etag"), plain.headers.get("etag"), `${label}: the list's ETag is the collection's revision`);
}

/** A random list query: filters on one to three members, a sort of up to three keys, a page. */
function listQuery(pick: () => number): URLSearchParams {
  const choose = <T>(items: readonly T[]): T => items[Math.floor(pick() * items.length)]!;
  const member = () => (pick() < 0.7 ? choose(FAVOURED) : choose([...MEMBERS, "id", "constructor", "itemId"]));
  const search = new URLSearchParams();
  const filters = Math.floor(pick() * 3);
  for (let i = 0; i < filters; i++) {
    const name = member();
    if (search.has(name)) continue;
    search.append(name, choose(TEXTS));
    if (pick() < 0.25) search.append(name, choose(TEXTS));
  }
  if (filters === 0 || pick() < 0.6) {
    // A few sorts often, so that they are kept; others now and then, past the bound.
    const keys = pick() < 0.7 ? choose(["m0", "-m1", "m2,-m0", "-é,id"]) : [...new Set([member(), member()])].map((key) => `${pick() < 0.5 ? "-" : ""}${key}`).join(",");
    search.set("sort", keys);
  }
  if (pick() < 0.7) search.set("limit", String(Math.floor(pick() * 8)));
  if (pick() < 0.5) search.set("offset", String(Math.floor(pick() * 6)));
  return search;
}

test("filtered and sorted lists equal selectPage's on the same records, through 1,200 random writes and lists on two processes", async (t) => {
  const url = await cluster.createDatabase();
  const servers = [await startServer({ databaseUrl: url, resources: RESOURCES }), await startServer({ databaseUrl: url, resources: RESOURCES })];
  t.after(() => Promise.all(servers.map((server) => server.close())));
  const pick = random(20260131);
  const choose = <T>(items: readonly T[]): T => items[Math.floor(pick() * items.length)]!;
  const body = () => {
    const made: Record<string, unknown> = {};
    for (const member of MEMBERS) if (pick() < 0.6) made[member] = valueOf(pick);
    return made;
  };
  let lists = 0;
  for (let step = 0; step < 1200; step++) {
    const server = choose(servers);
    const snapshot = (await server.snapshot()) as unknown as Record<string, StoredRecord[]>;
    const roll = pick();
    const label = `step ${step}`;
    if (roll < 0.2) {
      const collection = choose(["items", "items", "notes", "parts"]);
      const path = collection === "parts" ? `/items/${choose(snapshot.items!.map((item) => item.id as number).concat([1]))}/parts` : `/${collection}`;
      const made = collection === "notes" ? { ...body(), id: choose(NOTE_IDS) } : body();
      const answer = await call(`${server.url}${path}`, { method: "POST", json: made });
      assert.ok([201, 404, 409].includes(answer.status), `${label}: ${answer.status} ${answer.text}`);
    } else if (roll < 0.32) {
      const collection = choose(["items", "parts", "notes"]);
      const records = snapshot[collection]!;
      if (records.length === 0) continue;
      const { id } = choose(records);
      // PUT sends members to replace; PATCH (merge patch) can also remove them with null.
      const patch = pick() < 0.5;
      const change: Record<string, unknown> = body();
      if (patch) for (const member of MEMBERS) if (pick() < 0.2) change[member] = null;
      const answer = await call(`${server.url}/${collection}/${id}`, {
        method: patch ? "PATCH" : "PUT",
        body: JSON.stringify(change),
        headers: { "content-type": patch ? "application/merge-patch+json" : "application/json" },
      });
      assert.equal(answer.status, 200, `${label}: ${answer.text}`);
    } else if (roll < 0.38) {
      const collection = choose(["items", "parts", "notes"]);
      const records = snapshot[collection]!;
      if (records.length === 0) continue;
      assert.equal((await call(`${server.url}/${collection}/${choose(records).id}`, { method: "DELETE" })).status, 204, label);
    } else if (roll < 0.381) {
      await server.reset();
    } else {
      const path = choose(["/items", "/items", "/notes", `/items/${choose(snapshot.items!.map((item) => item.id as number).concat([999]))}/parts`]);
      const search = listQuery(pick);
      await assertList(server, path, search, `${label}: GET ${path}?${search}`);
      lists++;
    }
  }
  assert.ok(lists > 600);
  // Some lists were answered from kept rows, and never more members or sorts were kept than the bound allows.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.after(() => client.end());
  const { rows } = await client.query<{ collection: string; kind: string; count: string }>("SELECT collection, kind, count(*) FROM rest_kept_lists GROUP BY 1, 2");
  assert.ok(rows.length > 0);
  for (const row of rows) assert.ok(Number(row.count) <= (row.kind === "filter" ? MAX_FILTER_INDEXES : MAX_SORT_ORDERS), JSON.stringify(row));
});

/** A query string as URLSearchParams reads it. */
const q = (text: string) => new URLSearchParams(text);

test("a second process stays exact after the first registers a filter or a sort, and after a reset through the other", async (t) => {
  const url = await cluster.createDatabase();
  const [a, b] = [await startServer({ databaseUrl: url }), await startServer({ databaseUrl: url })];
  t.after(() => Promise.all([a.close(), b.close()]));
  const user = (name: string, role: unknown) => ({ name, email: `${name.toLowerCase()}@example.com`, role });
  // b writes first, having read that nothing is kept.
  assert.equal((await call(`${b.url}/users`, { method: "POST", json: user("Cy", "x") })).status, 201);
  await assertList(a, "/users", q("role=x"), "a registers role");
  assert.equal((await call(`${b.url}/users`, { method: "POST", json: user("Al", "x") })).status, 201);
  assert.equal((await call(`${b.url}/users`, { method: "POST", json: user("Bo", ["x"]) })).status, 201);
  await assertList(a, "/users", q("role=x"), "b's creates, after a registered role");
  await assertList(b, "/users", q("role=x&sort=-name"), "b registers the sort");
  assert.equal((await call(`${a.url}/users/3`, { method: "PUT", json: { name: "Zed" } })).status, 200);
  assert.equal((await call(`${a.url}/users/4`, { method: "PUT", json: { role: "y" } })).status, 200);
  await assertList(b, "/users", q("role=x&sort=-name"), "a's replaces, after b registered the sort");
  await assertList(a, "/users", q("sort=-name&limit=2&offset=1"), "a's replaces, through a");
  assert.equal((await call(`${b.url}/users/3`, { method: "DELETE" })).status, 204);
  await assertList(a, "/users", q("role=x&sort=-name"), "b's delete");
  await a.reset();
  assert.equal((await call(`${a.url}/users`, { method: "POST", json: user("Di", "x") })).status, 201);
  // b still knows the slots the reset removed: its list finds them gone, and registers them again.
  await assertList(b, "/users", q("role=x&sort=-name"), "after a's reset");
  assert.equal((await call(`${b.url}/users`, { method: "POST", json: user("Ed", "x") })).status, 201);
  await assertList(a, "/users", q("role=x&sort=-name"), "creates after the reset, through a");
  await assertList(b, "/users", q("role=x"), "creates after the reset, through b");
});

test("registrations racing creates and replaces through another process stay exact", async (t) => {
  const url = await cluster.createDatabase();
  const [a, b] = [await startServer({ databaseUrl: url, resources: RESOURCES }), await startServer({ databaseUrl: url, resources: RESOURCES })];
  t.after(() => Promise.all([a.close(), b.close()]));
  const pick = random(7);
  const body = () => Object.fromEntries(["m0", "m1", "m2", "m3"].map((member) => [member, valueOf(pick)]));
  for (let i = 0; i < 40; i++) await call(`${a.url}/items`, { method: "POST", json: body() });
  const writes = Array.from({ length: 80 }, (_, index) =>
    index % 2 === 0
      ? call(`${b.url}/items`, { method: "POST", json: body() })
      : call(`${b.url}/items/${1 + (index % 40)}`, { method: "PUT", json: body() }),
  );
  const lists = ["m0=x", "m1=1&sort=m2", "sort=-m3,id", "m2=true", "sort=m0&limit=3"].map((search) => call(`${a.url}/items?${search}`));
  for (const answer of [...(await Promise.all(writes)), ...(await Promise.all(lists))]) assert.ok(answer.status === 200 || answer.status === 201, answer.text);
  for (const search of ["m0=x", "m1=1&sort=m2", "sort=-m3,id", "m2=true", "sort=m0&limit=3"]) {
    await assertList(a, "/items", q(search), `through a: ${search}`);
    await assertList(b, "/items", q(search), `through b: ${search}`);
  }
});

test("past the kept filters and sorts, or for a name too long to keep, lists are answered by a scan, still exactly", async (t) => {
  const url = await cluster.createDatabase();
  const server = await startServer({ databaseUrl: url, resources: RESOURCES });
  t.after(() => server.close());
  for (let id = 1; id <= 30; id++) {
    const made: Record<string, unknown> = {};
    for (let m = 0; m < 14; m++) made[`m${m}`] = (id * (m + 1)) % 3;
    await call(`${server.url}/items`, { method: "POST", json: made });
  }
  const searches = [
    ...Array.from({ length: MAX_FILTER_INDEXES + 4 }, (_, m) => `m${m}=1&limit=4`),
    ...Array.from({ length: MAX_SORT_ORDERS + 3 }, (_, m) => `sort=${m % 2 === 1 ? "-" : ""}m${m},id&offset=3`),
    `${"m".repeat(1100)}=1`,
    `sort=${"m".repeat(1100)}`,
  ];
  for (const search of searches) await assertList(server, "/items", q(search), search);
  await call(`${server.url}/items/7`, { method: "DELETE" });
  await call(`${server.url}/items/8`, { method: "PUT", json: { m0: 1, m9: 1 } });
  for (const search of searches) await assertList(server, "/items", q(search), `after writes: ${search}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.after(() => client.end());
  const { rows } = await client.query<{ kind: string; count: string }>("SELECT kind, count(*) FROM rest_kept_lists GROUP BY kind ORDER BY kind");
  assert.deepEqual(rows.map((row) => [row.kind, Number(row.count)]), [["filter", MAX_FILTER_INDEXES], ["sort", MAX_SORT_ORDERS]]);
});

test("a registration fills the rows of a collection larger than one chunk, and of a parent's children", async (t) => {
  const url = await cluster.createDatabase();
  const items = Array.from({ length: 4500 }, (_, index) => ({ id: index + 1, team: `t${index % 7}`, rank: (index * 7919) % 4500 }));
  const parts = Array.from({ length: 300 }, (_, index) => ({ id: index + 1, itemId: 1 + (index % 3), team: `t${index % 4}` }));
  const server = await startServer({ databaseUrl: url, resources: RESOURCES, seed: { items, parts } });
  t.after(() => server.close());
  await assertList(server, "/items", q("team=t3&sort=-rank&limit=5&offset=100"), "items");
  await assertList(server, "/items", q("sort=rank&offset=4490"), "the end of a sort");
  await assertList(server, "/items/2/parts", q("team=t1&limit=5&offset=2"), "a parent's children");
  await assertList(server, "/items/2/parts", q("sort=-team,id&limit=5"), "a parent's children, sorted");
  await assertList(server, "/items/4501/parts", q("team=t1"), "no such parent");
});

test("writes through another process while a fill runs, over several chunks, leave every kept list exact", async (t) => {
  const url = await cluster.createDatabase();
  const size = 16_000;
  const items = Array.from({ length: size }, (_, index) => ({ id: index + 1, team: `t${index % 5}`, rank: (index * 7919) % size }));
  const parts = Array.from({ length: 600 }, (_, index) => ({ id: index + 1, itemId: 1 + ((index * 13) % size), team: `t${index % 3}` }));
  const [a, b] = [await startServer({ databaseUrl: url, resources: RESOURCES, seed: { items, parts } }), await startServer({ databaseUrl: url, resources: RESOURCES })];
  t.after(() => Promise.all([a.close(), b.close()]));
  // b's connections open before the fill begins, so that its writes run while the fill does.
  await Promise.all(Array.from({ length: 10 }, () => call(`${b.url}/items/1`)));
  const pick = random(99);
  const id = () => 1 + Math.floor(pick() * size);
  const writes: Array<Promise<{ status: number }>> = [];
  const searches = ["team=t2&sort=-rank&limit=7&offset=3", "sort=rank,id&limit=9"];
  const lists = searches.map((search) => call(`${a.url}/items?${search}`));
  for (let i = 0; i < 240; i++) {
    const roll = pick();
    // Writes spread over the collection, so that some land on chunks already written and some on chunks still to come.
    if (roll < 0.3) writes.push(call(`${b.url}/items/${id()}`, { method: "PUT", json: { team: `t${i % 6}`, rank: -i } }));
    else if (roll < 0.5) writes.push(call(`${b.url}/items/${id()}`, { method: "PATCH", body: JSON.stringify({ team: null, rank: null }), headers: { "content-type": "application/merge-patch+json" } }));
    else if (roll < 0.7) writes.push(call(`${b.url}/items/${id()}`, { method: "DELETE" }));
    else writes.push(call(`${b.url}/items`, { method: "POST", json: { team: "t2", rank: i } }));
  }
  for (const answer of await Promise.all(writes)) assert.ok([200, 201, 204, 404].includes(answer.status), String(answer.status));
  for (const answer of await Promise.all(lists)) assert.equal(answer.status, 200);
  for (const search of searches) {
    await assertList(a, "/items", q(search), `through a: ${search}`);
    await assertList(b, "/items", q(search), `through b: ${search}`);
  }
  await assertList(b, "/items/13/parts", q("team=t1"), "children after cascades");
  // The lists came from kept rows: every slot was filled.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.after(() => client.end());
  const { rows } = await client.query<{ collection: string; name: string; ready: boolean }>("SELECT collection, name, ready FROM rest_kept_lists ORDER BY collection, name");
  assert.deepEqual(rows, [
    { collection: "items", name: '"team"', ready: true },
    { collection: "items", name: '[["rank",false],["id",false]]', ready: true },
    { collection: "items", name: '[["rank",true]]', ready: true },
    { collection: "parts", name: '"team"', ready: true },
  ]);
});

test("a slot another process is filling is answered by a scan meanwhile, and a fill whose process died is taken over", async (t) => {
  const url = await cluster.createDatabase();
  const server = await startServer({ databaseUrl: url, resources: RESOURCES });
  t.after(() => server.close());
  for (let i = 0; i < 20; i++) await call(`${server.url}/items`, { method: "POST", json: { team: `t${i % 3}` } });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.after(() => client.end());
  // A slot registered by a process that is filling it: it holds the slot's session lock.
  const { rows } = await client.query<{ slot: string }>(`INSERT INTO rest_kept_lists (collection, kind, name) VALUES ('items', 'filter', '"team"') RETURNING slot`);
  const slot = rows[0]!.slot;
  const filler = new pg.Client({ connectionString: url });
  await filler.connect();
  await filler.query("SELECT pg_advisory_lock(-$1::bigint)", [slot]);
  await assertList(server, "/items", q("team=t1&limit=3"), "while another process fills");
  const ready = async () => (await client.query<{ ready: boolean }>("SELECT ready FROM rest_kept_lists WHERE slot = $1", [slot])).rows[0]!.ready;
  assert.equal(await ready(), false);
  // The filler dies: its session lock goes with its connection, and the next list fills the slot.
  await filler.end();
  await call(`${server.url}/items/2`, { method: "PUT", json: { team: "t1" } });
  await assertList(server, "/items", q("team=t1&limit=3"), "after the filler died");
  assert.equal(await ready(), true);
});

test("first lists at once fill their slots one at a time, on one of the pool's connections, and each answers exactly", async (t) => {
  const url = await cluster.createDatabase();
  const size = 12_000;
  const items = Array.from({ length: size }, (_, index) => ({ id: index + 1, a: index % 3, b: `v${index % 5}`, c: index % 2 === 0, d: (index * 7919) % size }));
  const server = await startServer({ databaseUrl: url, resources: RESOURCES, seed: { items } });
  t.after(() => server.close());
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.after(() => client.end());
  // A fill holds a session lock on its slot from its first chunk to its last: the processes holding one are the fills running.
  let most = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await client.query<{ fills: string }>("SELECT count(DISTINCT pid) AS fills FROM pg_locks WHERE locktype = 'advisory' AND granted");
      most = Math.max(most, Number(rows[0]!.fills));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const searches = ["a=1&limit=3", "b=v2&limit=3", "c=true&limit=3", "sort=-d&limit=3", "sort=b,-a&limit=3", "a=2&sort=d&limit=3"];
  const answers = await Promise.all(searches.map((search) => call(`${server.url}/items?${search}`)));
  sampling = false;
  await sampler;
  for (const answer of answers) assert.equal(answer.status, 200);
  assert.equal(most, 1, "one fill at a time");
  for (const search of searches) await assertList(server, "/items", q(search), search);
});
