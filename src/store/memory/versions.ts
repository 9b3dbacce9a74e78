// Record versions by id: a typed array for the small ids records mostly have, a Map for the rest.
import type { RecordId } from "../records.ts";

/** Ids below this many slots start in the array; it doubles as records with higher ids arrive. */
const INITIAL_SLOTS = 1024;

/**
 * The version of each held record, by id; versions start at 1, and 0 in a slot means none.
 * Ids up to a bound sit in a Float64Array, which the garbage collector does not trace and a
 * look-up does not hash. Fast path: no second Map beside the records' own for the small ids
 * records mostly have (docs/benchmarks.md, "Measurements behind fast paths in the code").
 * The bound doubles when an id just past it arrives while more than half the slots are in
 * use; any other id (a client may choose any id up to 2^53 - 1) goes to a Map. So the array
 * only grows to four slots per record held, however a client picks its ids.
 */
export class Versions {
  #slots = new Float64Array(INITIAL_SLOTS);
  /** How many slots hold a version. */
  #used = 0;
  readonly #far = new Map<RecordId, number>();

  /** The version of the record with this id, if held; a string id is always far. */
  get(id: RecordId): number | undefined {
    if (typeof id === "number" && id < this.#slots.length) {
      const version = this.#slots[id]!;
      return version === 0 ? undefined : version;
    }
    return this.#far.get(id);
  }

  set(id: RecordId, version: number): void {
    if (typeof id === "string") {
      this.#far.set(id, version);
      return;
    }
    const length = this.#slots.length;
    if (id >= length && id < length * 2 && this.#used * 2 > length) this.#grow();
    if (id >= this.#slots.length) {
      this.#far.set(id, version);
      return;
    }
    if (this.#slots[id] === 0) this.#used++;
    this.#slots[id] = version;
  }

  delete(id: RecordId): void {
    if (typeof id === "string" || id >= this.#slots.length) {
      this.#far.delete(id);
      return;
    }
    if (this.#slots[id] !== 0) this.#used--;
    this.#slots[id] = 0;
  }

  clear(): void {
    this.#slots = new Float64Array(INITIAL_SLOTS);
    this.#used = 0;
    this.#far.clear();
  }

  /** Doubles the array, and moves into it the far ids it now reaches, where get() looks for them. */
  #grow(): void {
    const slots = new Float64Array(this.#slots.length * 2);
    slots.set(this.#slots);
    this.#slots = slots;
    for (const [id, version] of this.#far) {
      if (typeof id === "number" && id < slots.length) {
        slots[id] = version;
        this.#used++;
        this.#far.delete(id);
      }
    }
  }
}
