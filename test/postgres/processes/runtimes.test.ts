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

test("a node, a Deno and a Bun process on one database each create a user that the others read, in filtered and sorted lists too", async (t) => {
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
    // Each registers a filter and a sort of its own (a long text among them), which the others' creates then keep.
    const [member, sort] = [`m${index}`, `${index % 2 === 0 ? "-" : ""}name`];
    assert.equal((await call(`${target.url}/users?${member}=${"x".repeat(600)}&sort=${sort}`)).status, 200, modes[index]);
  }
  for (const [index, target] of targets.entries()) {
    const created = await call(`${target.url}/users`, { method: "POST", json: { name: modes[index], email: `${modes[index]}@example.com`, m0: "x".repeat(600), m1: "x".repeat(600), m2: "x".repeat(600) } });
    assert.equal(created.status, 201, `${modes[index]}: ${created.text}`);
  }
  for (const [index, target] of targets.entries()) {
    const users = (await call(`${target.url}/users`)).body as Array<{ id: number; name: string }>;
    assert.deepEqual(users.slice(2).map((user) => [user.id, user.name]), [[3, "dist"], [4, "deno"], [5, "bun"]], modes[index]);
    const filtered = await call(`${target.url}/users?m${index}=${"x".repeat(600)}&sort=${index % 2 === 0 ? "-" : ""}name`);
    const names = (filtered.body as Array<{ name: string }>).map((user) => user.name);
    assert.deepEqual(names, index % 2 === 0 ? ["dist", "deno", "bun"] : ["bun", "deno", "dist"], modes[index]);
  }
  for (const [index, target] of targets.entries()) assert.equal(await target.stop("SIGTERM"), 0, `${modes[index]} did not exit 0`);
});
