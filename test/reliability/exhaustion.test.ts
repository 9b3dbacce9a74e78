// Exhaustion attacks on memory and time (contract 13): default settings hold the process under 512 MiB, and /healthz answers within 1 s.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../support/target.ts";
import { LIMIT, memoryAttack, timeAttack, unfinishedBodiesAttack, WORST_BODIES } from "./exhaustion.ts";

// The attacks run the build, and read resident memory from /proc.
const built = existsSync(join(ROOT, "dist/main.js")) && process.platform === "linux";

test("every worst-shape body fits the body's limits", () => {
  for (const [name, body] of Object.entries(WORST_BODIES)) assert.ok(Buffer.byteLength(body) <= LIMIT, name);
});

for (const durable of [false, true]) {
  const where = durable ? "in DATA_DIR" : "in memory";
  test(`600 worst-shape 1 MiB bodies ${where}, with whole lists read between them, keep the process under 512 MiB; deletes make room again`, { skip: !built && "needs dist/ and /proc", timeout: 300_000 }, async () => {
    const { peak, statuses, afterDeletes } = await memoryAttack(durable);
    console.log(`# ${where}: peak RSS ${Math.round(peak / 1048576)} MiB; ${statuses.get(201)} stored, ${statuses.get(507)} refused`);
    assert.deepEqual([...statuses.keys()].sort(), [201, 507], "bodies were stored until the store was full, then refused");
    assert.ok(peak < 512 * 1024 * 1024, `peak RSS ${Math.round(peak / 1048576)} MiB`);
    assert.equal(afterDeletes, 201);
  });
}

test("600 connections each holding a 1 MiB body but its last byte keep the process under 512 MiB: past 32 bodies at once, each is refused with 503", { skip: !built && "needs dist/ and /proc", timeout: 120_000 }, async () => {
  const { peak, statuses, health } = await unfinishedBodiesAttack();
  console.log(`# peak RSS ${Math.round(peak / 1048576)} MiB; answers ${JSON.stringify(Object.fromEntries(statuses))}; /healthz took ${Math.round(health)} ms`);
  assert.ok(peak < 512 * 1024 * 1024, `peak RSS ${Math.round(peak / 1048576)} MiB`);
  // At most 32 bodies of BODY_LIMIT are held at once; which ones depends on how their pieces interleave.
  assert.deepEqual([...statuses.keys()], [503]);
  assert.ok(statuses.get(503)! >= 600 - 32, `${statuses.get(503)} refused`);
  assert.ok(health < 1_000, `${health} ms`);
});

test("with the store filled to its default budget, a /healthz sent during the worst sort, filter and whole lists answers within 1 s", { skip: !built && "needs dist/", timeout: 300_000 }, async () => {
  const { sort, filter, wholeLists } = await timeAttack();
  console.log(`# /healthz took ${Math.round(sort)} ms during a sort, ${Math.round(filter)} ms during a filter, ${Math.round(wholeLists)} ms during two whole lists`);
  for (const took of [sort, filter, wholeLists]) assert.ok(took < 1_000, `${took} ms`);
});
