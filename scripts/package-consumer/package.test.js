// The package's API by its name under plain node (startServer, and createApp in a server of one's own), run by scripts/check-package.ts in a fresh project that installed the tarball.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { once } from "node:events";
import { createServer } from "node:http";
import { createApp, LockedError, startServer } from "rest-reference-server";

const seed = JSON.parse(readFileSync(new URL("./seed.json", import.meta.url), "utf8"));
const NEW_USER = { id: 7, name: "Ada Lovelace", email: "ada@example.com" };

/** GETs a path and returns its status and parsed body. */
async function get(url) {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

test("startServer with a seed answers the seed's records, snapshot holds a create, and reset restores the seed", async (t) => {
  const running = await startServer({ port: 0, seed });
  t.after(() => running.close());

  assert.deepEqual(await get(`${running.url}/users`), { status: 200, body: seed.users });
  assert.deepEqual(await get(`${running.url}/users/5`), { status: 200, body: seed.users[0] });
  assert.deepEqual(await get(`${running.url}/posts/3`), { status: 200, body: seed.posts[0] });
  assert.deepEqual(await get(`${running.url}/posts/3/comments`), { status: 200, body: seed.comments });
  assert.deepEqual(await get(`${running.url}/comments/4/replies`), { status: 200, body: seed.replies });

  const created = await fetch(`${running.url}/users`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(NEW_USER),
  });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get("location"), "/users/7");
  assert.deepEqual(await created.json(), NEW_USER);
  assert.deepEqual(await running.snapshot(), { ...seed, users: [...seed.users, NEW_USER] });

  await running.reset();
  assert.deepEqual(await running.snapshot(), seed);
  assert.deepEqual(await get(`${running.url}/users/7`), {
    status: 404,
    body: { message: "User not found", code: "USER_NOT_FOUND" },
  });
  assert.deepEqual(await get(`${running.url}/users`), { status: 200, body: seed.users });
});

test("createApp, mounted in a node:http server of one's own, serves its seed", async (t) => {
  const server = createServer(createApp({ seed: { users: seed.users } }));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => new Promise((done) => server.close(done)));
  const { port } = server.address();
  assert.deepEqual(await get(`http://127.0.0.1:${port}/users`), { status: 200, body: seed.users });
});

test("startServer with dataDir keeps a create across a restart, and refuses a second instance on the directory", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "consumer-data-"));
  let second;
  // Hooks run in the order they are added: the server closes before its directory goes.
  t.after(async () => {
    await second?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const first = await startServer({ port: 0, dataDir: dir });
  const created = await fetch(`${first.url}/users`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(NEW_USER),
  });
  assert.equal(created.status, 201);
  await assert.rejects(startServer({ port: 0, dataDir: dir }), LockedError);
  await first.close();
  second = await startServer({ port: 0, dataDir: dir });
  assert.deepEqual(await get(`${second.url}/users/7`), { status: 200, body: NEW_USER });
});
