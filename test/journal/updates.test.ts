// What an update writes to the journal with DATA_DIR: what changed, not the whole record; and a restart replays it to the same answers.
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { DEFAULT_BODY_LIMIT } from "../../src/http/body.ts";
import { startServer } from "../../src/http/server.ts";
import { call } from "../support/http.ts";
import { closeFirst, tempDir } from "../support/temp.ts";

const AT = "2026-01-31T09:30:00.000Z";
const MERGE = { "content-type": "application/merge-patch+json" };

/** The bytes every journal of the directory holds. */
function journalBytes(dir: string): number {
  return readdirSync(dir)
    .filter((name) => name.startsWith("journal-"))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

/** What the API answers for the post and the whole list: bodies and ETags, byte for byte. */
async function answers(url: string): Promise<string[]> {
  const one = await call(`${url}/posts/1`);
  const all = await call(`${url}/posts`);
  return [one.text, one.headers.get("etag")!, all.text, all.headers.get("etag")!];
}

test("a one-member PATCH of a record grown to the body limit writes less than 64 KiB to the journal, and a restart answers the same", async (t) => {
  const dir = tempDir(t);
  let api = await startServer({ dataDir: dir, clock: () => new Date(AT) });
  closeFirst(t, () => api.close());
  // The largest record one request makes: a body just under BODY_LIMIT.
  const big = "b".repeat(DEFAULT_BODY_LIMIT - 1024);
  assert.equal((await call(`${api.url}/posts`, { method: "POST", json: { title: "T", body: big, meta: { views: 1, note: "n" } } })).status, 201);
  const grown = journalBytes(dir);
  assert.ok(grown > DEFAULT_BODY_LIMIT - 1024, `${grown} bytes after the create`);

  const patched = await call(`${api.url}/posts/1`, { method: "PATCH", headers: MERGE, body: JSON.stringify({ title: "U" }) });
  assert.equal(patched.status, 200);
  const one = journalBytes(dir) - grown;
  assert.ok(one < 64 * 1024, `a one-member PATCH wrote ${one} bytes`);
  // A nested member, a member removed and a PUT of the same record with one member changed are as small.
  const nested = await call(`${api.url}/posts/1`, { method: "PATCH", headers: MERGE, body: JSON.stringify({ meta: { views: 2, note: null } }) });
  assert.equal(nested.status, 200);
  const put = await call(`${api.url}/posts/1`, { method: "PUT", json: { title: "V", body: big } });
  assert.equal(put.status, 200);
  const three = journalBytes(dir) - grown - one;
  assert.ok(three < 3 * 1024, `a nested PATCH then a PUT resending the body wrote ${three} bytes`);

  const before = await answers(api.url);
  assert.equal(JSON.parse(before[0]!).title, "V");
  assert.deepEqual(JSON.parse(before[0]!).meta, { views: 2 });
  const held = await api.snapshot();
  await api.close();
  api = await startServer({ dataDir: dir, clock: () => new Date(AT) });
  assert.deepEqual(await answers(api.url), before);
  assert.deepEqual(await api.snapshot(), held);
});

test("PATCH bodies that grow one record write about what they carry to the journal, not the record again each time", async (t) => {
  const dir = tempDir(t);
  const api = await startServer({ dataDir: dir, clock: () => new Date(AT) });
  closeFirst(t, () => api.close());
  assert.equal((await call(`${api.url}/posts`, { method: "POST", json: { title: "T", body: "B" } })).status, 201);
  const start = journalBytes(dir);
  let received = 0;
  // 16 members of 48 KiB each: the record ends near 768 KiB, under BODY_LIMIT.
  for (let i = 0; i < 16; i++) {
    const body = JSON.stringify({ [`part${i}`]: String(i % 10).repeat(48 * 1024) });
    received += Buffer.byteLength(body);
    assert.equal((await call(`${api.url}/posts/1`, { method: "PATCH", headers: MERGE, body })).status, 200);
  }
  const written = journalBytes(dir) - start;
  // Each whole record journaled again made this about 8.5 times what was received.
  assert.ok(written / received < 1.1, `${written} bytes journaled for ${received} received`);
  const restarted = await restart(api.url, api.close, dir);
  closeFirst(t, () => restarted.close());
  const read = await call(`${restarted.url}/posts/1`);
  assert.equal(Object.keys(read.body as object).length, 2 + 16 + 2);
});

async function restart(url: string, close: () => Promise<void>, dir: string) {
  const before = await answers(url);
  await close();
  const api = await startServer({ dataDir: dir, clock: () => new Date(AT) });
  assert.deepEqual(await answers(api.url), before);
  return api;
}

test("updates replayed over snapshots that compactions wrote between them give the same answers after a restart", async (t) => {
  const dir = tempDir(t);
  // A compaction after every write: each update is replayed onto a record a snapshot restored.
  const api = await startServer({ dataDir: dir, clock: () => new Date(AT), compactBytes: 1 });
  closeFirst(t, () => api.close());
  assert.equal((await call(`${api.url}/posts`, { method: "POST", json: { title: "T", body: "B", meta: { a: 1 } } })).status, 201);
  for (const patch of [{ title: "U" }, { meta: { b: 2 } }, { meta: { a: null } }, { extra: [1, 2] }, { body: "C" }]) {
    assert.equal((await call(`${api.url}/posts/1`, { method: "PATCH", headers: MERGE, body: JSON.stringify(patch) })).status, 200);
  }
  const restarted = await restart(api.url, api.close, dir);
  closeFirst(t, () => restarted.close());
  assert.deepEqual((await call(`${restarted.url}/posts/1`)).body, { id: 1, title: "U", body: "C", meta: { b: 2 }, createdAt: AT, extra: [1, 2] });
});
