// White-box tests of src/store/memory/order.ts: the page at any rank equals a plain array's, through appends, removes, squeezes and clears.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CreationOrder } from "../../src/store/memory/order.ts";
import type { RecordId } from "../../src/store/records.ts";

/** A small seeded generator, so that a failure repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

test("pages at every offset equal a plain array's, through 20,000 random appends and removes with squeezes", () => {
  const next = random(7);
  const order = new CreationOrder();
  const model: RecordId[] = [];
  let id = 0;
  for (let step = 0; step < 20_000; step++) {
    // Removes win two times in five, so that the order both grows and squeezes out its empty slots.
    if (model.length > 0 && next() < 0.4) {
      const [removed] = model.splice(Math.floor(next() * model.length), 1);
      order.remove(removed!);
    } else {
      const added = next() < 0.1 ? `s${id++}` : id++;
      order.append(added);
      model.push(added);
    }
    assert.equal(order.size, model.length);
    if (step % 97 === 0) {
      const offset = Math.floor(next() * (model.length + 3));
      const limit = Math.floor(next() * 30);
      assert.deepEqual(order.page(offset, limit), model.slice(offset, offset + limit), `step ${step}, offset ${offset}, limit ${limit}`);
    }
  }
  assert.deepEqual(order.page(0, Infinity), model);
});

test("a run of removes in one stretch leaves every page right, before and after the squeeze", () => {
  const order = new CreationOrder();
  const model = Array.from({ length: 5000 }, (_, i) => i + 1);
  for (const id of model) order.append(id);
  // 1,300 removes from the middle: past SQUEEZE_AT, but not yet a quarter of the slots.
  const removed = model.splice(2000, 1300);
  for (const id of removed) order.remove(id);
  assert.deepEqual(order.page(1990, 20), model.slice(1990, 2010));
  // Enough more that the empty slots pass a quarter, and are squeezed out.
  for (const id of model.splice(0, 1000)) order.remove(id);
  assert.deepEqual(order.page(0, Infinity), model);
  assert.deepEqual(order.page(1500, 7), model.slice(1500, 1507));
  order.remove(123456);
  assert.equal(order.size, model.length);
});

test("clear forgets every id, and the order starts again", () => {
  const order = new CreationOrder();
  for (let id = 1; id <= 100; id++) order.append(id);
  order.remove(50);
  order.clear();
  assert.equal(order.size, 0);
  assert.deepEqual(order.page(0, 10), []);
  order.append(50);
  order.append(1);
  assert.deepEqual(order.page(1, 10), [1]);
});
