// The PostgreSQL store on every runtime: node (the build), Deno and Bun processes share one database.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { call } from "../../support/http.ts";
import { type Cluster, startCluster } from "../../support/postgres.ts";
import { type ProcessMode, serverCommand, spawnTarget } from "../../support/target.ts";

let cluster: Cluster;
before(async () => {
  cluster = await startCluster();
});
after(() => cluster.close());

test("a node, a Deno and a Bun process on one database each create a user that the others read", async (t) => {
  const databaseUrl = await cluster.createDatabase();
  const modes: ProcessMode[] = ["dist", "deno", "bun"];
  const targets = [];
  for (const mode of modes) {
    const { command, args, cwd } = serverCommand(mode);
    const target = await spawnTarget(command, args, { DATABASE_URL: databaseUrl }, cwd);
    t.after(() => target.close());
    targets.push(target);
  }
  for (const [index, target] of targets.entries()) {
    const created = await call(`${target.url}/users`, { method: "POST", json: { name: modes[index], email: `${modes[index]}@example.com` } });
    assert.equal(created.status, 201, `${modes[index]}: ${created.text}`);
  }
  for (const [index, target] of targets.entries()) {
    const users = (await call(`${target.url}/users`)).body as Array<{ id: number; name: string }>;
    assert.deepEqual(users.slice(2).map((user) => [user.id, user.name]), [[3, "dist"], [4, "deno"], [5, "bun"]], modes[index]);
  }
  for (const [index, target] of targets.entries()) assert.equal(await target.stop("SIGTERM"), 0, `${modes[index]} did not exit 0`);
});
