// White-box tests of src/memory/versions.ts: versions by id, in the array and past it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Versions } from "../../src/store/memory/versions.ts";

test("Versions gives back what was set, and nothing for an id never set or deleted", () => {
  const versions = new Versions();
  assert.equal(versions.get(1), undefined);
  versions.set(1, 3);
  versions.set(2, 5);
  assert.equal(versions.get(1), 3);
  assert.equal(versions.get(2), 5);
  versions.set(1, 7);
  assert.equal(versions.get(1), 7);
  versions.delete(1);
  assert.equal(versions.get(1), undefined);
  assert.equal(versions.get(0), undefined);
});

test("Versions keeps ids counted up well past its first array, and ids far past any array", () => {
  const versions = new Versions();
  for (let id = 1; id <= 50_000; id++) versions.set(id, id + 1);
  const far = Number.MAX_SAFE_INTEGER;
  versions.set(far, 9);
  versions.set(1e9, 10);
  for (let id = 1; id <= 50_000; id++) assert.equal(versions.get(id), id + 1);
  assert.equal(versions.get(50_001), undefined);
  assert.equal(versions.get(far), 9);
  assert.equal(versions.get(1e9), 10);
  versions.delete(far);
  assert.equal(versions.get(far), undefined);
  assert.equal(versions.get(1e9), 10);
});

test("Versions still finds a far id once the array has grown to reach it", () => {
  const versions = new Versions();
  // 5,000 is more than twice the first array (1,024 slots): it goes to the Map.
  versions.set(5_000, 4);
  // Ids counted up from 1 fill more than half of each array, so each id just past it doubles
  // it: 2,048, 4,096, then 8,192 slots, which take 5,000 in from the Map.
  for (let id = 1; id <= 4_096; id++) versions.set(id, 5);
  assert.equal(versions.get(5_000), 4);
  assert.equal(versions.get(4_096), 5);
  versions.set(5_000, 6);
  assert.equal(versions.get(5_000), 6);
  versions.delete(5_000);
  assert.equal(versions.get(5_000), undefined);
});

test("Versions.clear forgets every id, in the array and past it", () => {
  const versions = new Versions();
  for (let id = 1; id <= 3_000; id++) versions.set(id, 1);
  versions.set(1e12, 2);
  versions.clear();
  assert.equal(versions.get(1), undefined);
  assert.equal(versions.get(2_999), undefined);
  assert.equal(versions.get(1e12), undefined);
  versions.set(5, 8);
  assert.equal(versions.get(5), 8);
});

test("Versions does not grow its array for ids a client picks at each doubling, only for ids counted up", () => {
  const versions = new Versions();
  // Were each of these to double the array, the last would ask for 2^41 slots (16 TiB) and throw.
  for (let power = 10; power <= 40; power++) versions.set(2 ** power, power);
  for (let power = 10; power <= 40; power++) assert.equal(versions.get(2 ** power), power);
  // Counted-up ids still fill the array and grow it, and the picked ids it reaches stay found.
  for (let id = 1; id <= 5_000; id++) versions.set(id, 1);
  assert.equal(versions.get(4_096), 1);
  assert.equal(versions.get(2 ** 20), 20);
  versions.delete(2 ** 20);
  assert.equal(versions.get(2 ** 20), undefined);
});
