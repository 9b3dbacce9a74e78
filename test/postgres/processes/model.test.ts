// The model-based tests across two server processes on one PostgreSQL database, each request on a new connection to the next process.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startServer } from "../../../src/http/server.ts";
import { runModel } from "../../reliability/operations.ts";
import { readSeed } from "../../reliability/seed.ts";
import { type Cluster, startCluster } from "../../support/postgres.ts";
import { alternate } from "../../support/proxy.ts";
import { startProcesses } from "./servers.ts";

let cluster: Cluster;
before(async () => {
  cluster = await startCluster();
});
after(() => cluster.close());

test("two processes on one database answer every step of 200 random sequences as the model does, requests alternating between them", async (t) => {
  const databaseUrl = await cluster.createDatabase();
  const [first, second] = await startProcesses(t, databaseUrl);
  const proxy = await alternate([first!.url, second!.url]);
  t.after(() => proxy.close());
  // An instance in this process on the same database puts it back to the two seeded users before each sequence.
  const resetter = await startServer({ databaseUrl });
  t.after(() => resetter.close());
  const seed = readSeed();
  t.diagnostic(`seed ${seed} (replay with RELIABILITY_SEED=${seed})`);
  const stats = await runModel({ seed, runs: 200, maxSteps: 40, shared: { url: proxy.url, reset: resetter.reset } });
  t.diagnostic(`${stats.sequences} sequences, ${stats.steps} steps`);
  assert.ok(stats.steps >= 2000, `only ${stats.steps} steps ran`);
});
