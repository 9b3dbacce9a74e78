// Creation order by rank: the record at any offset found in a logarithm of the collection's size, not by walking to it.
import type { RecordId } from "../records.ts";
import { Versions } from "./versions.ts";

/** Deleted slots are squeezed out once there are this many, and more than a quarter of the slots. */
const SQUEEZE_AT = 1024;

/**
 * The ids of a collection in creation order, each in a slot; a delete empties its slot. A
 * Fenwick tree counts the held ids over the slots, so the id at rank `k` is found in
 * O(log n) (docs/decisions.md, "Lists cost the page"). Empty slots are squeezed out now and
 * then, each time in O(n), after at least n/4 deletes: O(1) a delete over time.
 */
export class CreationOrder {
  #ids: Array<RecordId | undefined> = [];
  /** Each held id's slot + 1 (Versions keeps 0 for none). */
  #slots = new Versions();
  /**
   * The Fenwick tree over the slots, 1-based: #tree[i] counts the held ids of the slots it
   * covers. Made at the first delete: while no slot is empty an id's rank is its slot, so a
   * collection only ever added to keeps no tree, and a create costs no walk up it.
   */
  #tree: Int32Array | undefined;
  #empty = 0;

  /** How many ids are held. */
  get size(): number {
    return this.#ids.length - this.#empty;
  }

  /** The slot of a held id: a number that only grows with creation order, squeezes keeping it in order; -1 for none. */
  slotOf(id: RecordId): number {
    return (this.#slots.get(id) ?? 0) - 1;
  }

  /** Puts a new id last. */
  append(id: RecordId): void {
    const slot = this.#ids.length;
    this.#ids.push(id);
    this.#slots.set(id, slot + 1);
    if (this.#tree === undefined) return;
    if (slot + 1 >= this.#tree.length) this.#rebuild(this.#tree.length * 2);
    else this.#add(slot, 1);
  }

  /** Takes an id out, leaving its slot empty. */
  remove(id: RecordId): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    this.#slots.delete(id);
    this.#ids[slot - 1] = undefined;
    if (this.#tree === undefined) this.#rebuild(treeLength(this.#ids.length));
    else this.#add(slot - 1, -1);
    this.#empty++;
    if (this.#empty >= SQUEEZE_AT && this.#empty * 4 > this.#ids.length) this.#squeeze();
  }

  clear(): void {
    this.#ids = [];
    this.#slots.clear();
    this.#tree = undefined;
    this.#empty = 0;
  }

  /** The ids from rank `offset` (0 is the oldest), at most `limit` of them: O(limit + log n) with no empty slot, O(limit log n) otherwise. */
  page(offset: number, limit: number): RecordId[] {
    const page: RecordId[] = [];
    const size = this.size;
    if (offset >= size || limit === 0) return page;
    const end = Math.min(size, offset + limit);
    if (this.#empty === 0) {
      for (let slot = offset; slot < end; slot++) page.push(this.#ids[slot]!);
      return page;
    }
    for (let rank = offset; rank < end; rank++) page.push(this.#ids[this.#slotOf(rank)]!);
    return page;
  }

  /** The slot of the id at `rank` (0-based): the tree walked down from its highest power of two. */
  #slotOf(rank: number): number {
    const tree = this.#tree!;
    let position = 0;
    let left = rank + 1;
    for (let step = highestPowerOfTwo(tree.length - 1); step > 0; step >>= 1) {
      const next = position + step;
      if (next < tree.length && tree[next]! < left) {
        position = next;
        left -= tree[next]!;
      }
    }
    return position;
  }

  #add(slot: number, delta: number): void {
    const tree = this.#tree!;
    for (let i = slot + 1; i < tree.length; i += i & -i) tree[i]! += delta;
  }

  /** Drops the empty slots, numbering the held ids' slots again. */
  #squeeze(): void {
    const held: RecordId[] = [];
    for (const id of this.#ids) if (id !== undefined) held.push(id);
    this.#ids = held;
    this.#empty = 0;
    held.forEach((id, slot) => this.#slots.set(id, slot + 1));
    // No slot is empty now: ranks are slots again, until the next delete.
    this.#tree = undefined;
  }

  /** Builds the tree anew over `length - 1` slots, in O(n). */
  #rebuild(length: number): void {
    const tree = new Int32Array(length);
    for (let slot = 0; slot < this.#ids.length; slot++) {
      if (this.#ids[slot] === undefined) continue;
      tree[slot + 1]! += 1;
    }
    for (let i = 1; i < length; i++) {
      const parent = i + (i & -i);
      if (parent < length) tree[parent]! += tree[i]!;
    }
    this.#tree = tree;
  }
}

/** A tree's length for `slots` slots and room to grow: a power of two above them. */
function treeLength(slots: number): number {
  return highestPowerOfTwo(slots + 1) * 2;
}

function highestPowerOfTwo(n: number): number {
  let power = 1;
  while (power * 2 <= n) power *= 2;
  return power;
}
