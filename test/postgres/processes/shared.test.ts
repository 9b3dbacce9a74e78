// Several server processes on one PostgreSQL database under load: racing creates, and PostgreSQL restarted while requests go on.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { call, type JsonResponse } from "../../support/http.ts";
import { type Cluster, startCluster } from "../../support/postgres.ts";
import { startProcesses } from "./servers.ts";

let cluster: Cluster;
before(async () => {
  cluster = await startCluster();
});
after(() => cluster.close());

type User = { id: number; name: string; email: string };

test("200 clients creating users at once through two processes: every 201 is a distinct stored record, nothing is overwritten, no 500", async (t) => {
  const databaseUrl = await cluster.createDatabase();
  const targets = await startProcesses(t, databaseUrl);
  // Half take the count + 1 id, half choose one of 40 ids, so that creates race for the same id.
  const answers = await Promise.all(
    Array.from({ length: 200 }, (_, index) =>
      call(`${targets[index % 2]!.url}/users`, {
        method: "POST",
        json: { ...(index % 4 < 2 ? {} : { id: 3 + (index % 40) }), name: `Client ${index}`, email: `c${index}@example.com` },
      }),
    ),
  );
  const statuses = new Map<number, number>();
  for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  t.diagnostic(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`);
  assert.deepEqual([...statuses.keys()].filter((status) => status !== 201 && status !== 409), []);
  const created = answers.filter((answer) => answer.status === 201).map((answer) => answer.body as User);
  assert.ok(created.length > 1, "the races left only one create standing");
  assert.equal(new Set(created.map((user) => user.id)).size, created.length, "two 201s gave the same id");
  for (const target of targets) {
    const held = (await call(`${target.url}/users`)).body as User[];
    assert.equal(held.length, 2 + created.length);
    // Each created record is held exactly as its 201 said: no later create overwrote it.
    for (const user of created) assert.deepEqual(held.find((record) => record.id === user.id), user);
  }
  const conflicts = answers.filter((answer) => answer.status === 409);
  assert.ok(conflicts.length > 0, "no create raced another for its id");
  for (const answer of conflicts) assert.equal((answer.body as { code: string }).code, "ID_CONFLICT");
});

test("racing deletes of a post and creates of comments under it through two processes: no comment outlives its post, no 500", async (t) => {
  const databaseUrl = await cluster.createDatabase();
  const [a, b] = await startProcesses(t, databaseUrl);
  for (let round = 0; round < 10; round++) {
    const post = (await call(`${a!.url}/posts`, { method: "POST", json: { title: "T", body: "B" } })).body as { id: number };
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, index) => call(`${(index % 2 ? a : b)!.url}/posts/${post.id}/comments`, { method: "POST", json: { body: "c" } })),
      call(`${b!.url}/posts/${post.id}`, { method: "DELETE" }),
    ]);
    assert.deepEqual(answers.filter((answer) => ![201, 204, 404].includes(answer.status)), []);
    for (const answer of answers.filter((answer) => answer.status === 201)) {
      assert.equal((await call(`${a!.url}/comments/${(answer.body as { id: number }).id}`)).status, 404, "a comment outlived its post");
    }
  }
});

test("PostgreSQL restarted under load: only 503 STORE_UNAVAILABLE while it is down, never a 500 or a hang, then full service again", async (t) => {
  const databaseUrl = await cluster.createDatabase();
  const targets = await startProcesses(t, databaseUrl);
  const seen = new Map<string, number>();
  let phase: "up" | "down" | "back" = "up";
  let running = true;
  const wrong: string[] = [];
  const client = async (index: number) => {
    const target = targets[index % 2]!;
    for (let n = 0; running; n++) {
      const write = n % 3 === 0;
      const began = Date.now();
      const answer: JsonResponse = await call(`${target.url}${write ? "/users" : "/users/1"}`, {
        method: write ? "POST" : "GET",
        json: write ? { id: 1000 + index * 100_000 + n, name: "L", email: "l@example.com" } : undefined,
        signal: AbortSignal.timeout(15_000),
      });
      const took = Date.now() - began;
      const key = `${phase} ${answer.status}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      // 5 s for a connect or query time-out, and a margin for a loaded machine.
      if (took > 8_000) wrong.push(`${phase}: an answer took ${took} ms`);
      if (answer.status === 503) {
        if ((answer.body as { code: string }).code !== "STORE_UNAVAILABLE") wrong.push(`${phase}: ${answer.text}`);
      } else if (answer.status !== (write ? 201 : 200)) wrong.push(`${phase}: ${answer.status} ${answer.text}`);
    }
  };
  const clients = Array.from({ length: 8 }, (_, index) => client(index));
  await waitFor(() => (seen.get("up 201") ?? 0) > 20, "writes before the restart");
  cluster.stop();
  phase = "down";
  await waitFor(() => (seen.get("down 503") ?? 0) > 20, "503s while PostgreSQL is down");
  for (const target of targets) assert.equal((await call(`${target.url}/readyz`)).status, 503);
  cluster.start();
  phase = "back";
  await waitFor(async () => (await Promise.all(targets.map(async (target) => (await call(`${target.url}/readyz`)).status))).every((status) => status === 200), "readiness");
  const before = seen.get("back 201") ?? 0;
  await waitFor(() => (seen.get("back 201") ?? 0) > before + 20, "writes after the restart");
  running = false;
  await Promise.all(clients);
  t.diagnostic(`answers by phase and status: ${JSON.stringify(Object.fromEntries(seen))}`);
  // Answers to requests sent just before the stop may still be 201/200; after the start, 503s of requests sent before it.
  assert.deepEqual(wrong, []);
  assert.equal(seen.get("down 500"), undefined);
});

/** Polls `check` every 50 ms until it holds, failing after 30 s. */
async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
