// What an update changed in a record, as the journal keeps it: the members set, removed or changed within, never the whole record.
import type { StoredRecord } from "../records.ts";

/**
 * The change from one version of an object to the next: members `set` to a value (changed
 * or added, added ones in the order the new object holds them), members removed (`unset`),
 * and members that are objects on both sides changed `in` themselves. Pairs rather than
 * objects keep the order of what is set exactly, whatever the names.
 */
export type Change = { set?: [string, unknown][]; unset?: string[]; in?: [string, Change][] };

// Deeper than this, a changed member is journaled whole: the walks below recurse, and a
// record nested thousands of levels deep must not overflow the stack.
const MAX_DEPTH = 32;

/**
 * The change that turns `before` into `after`, applied by applyChange into an object equal
 * to `after` with its members in the same order (a record's JSON text, and so its answers,
 * must not change across a restart). Undefined when `after` does not keep `before`'s
 * members in their order (a PUT that sends them in another order) or reuses none of its
 * members unchanged: then the whole record is what to journal. A merge patch of one member
 * gives a change about that member only, whatever the size of the rest of the record.
 */
export function changeOf(before: StoredRecord, after: StoredRecord): Change | undefined {
  const change = diff(before, after, 1);
  if (change === undefined) return undefined;
  const set = change.set?.length ?? 0;
  return set > 0 && set === Object.keys(after).length ? undefined : change;
}

function diff(before: Record<string, unknown>, after: Record<string, unknown>, depth: number): Change | undefined {
  const names = Object.keys(before);
  const kept = names.filter((name) => Object.hasOwn(after, name));
  const next = Object.keys(after);
  // The members kept must come first, in their order, and the added ones after them, as
  // applyChange puts them; an object in another order is set whole.
  for (let i = 0; i < next.length; i++) {
    if (i < kept.length ? next[i] !== kept[i] : Object.hasOwn(before, next[i]!)) return undefined;
  }
  const change: Change = {};
  const unset = names.filter((name) => !Object.hasOwn(after, name));
  if (unset.length > 0) change.unset = unset;
  for (const name of kept) {
    const was = before[name];
    const now = after[name];
    // A merge patch copies only what it changes: the members it leaves alone are the same values.
    if (was === now) continue;
    if (isPlainObject(was) && isPlainObject(now) && depth < MAX_DEPTH) {
      const inner = diff(was, now, depth + 1);
      if (inner !== undefined) {
        if (!isEmpty(inner)) (change.in ??= []).push([name, inner]);
        continue;
      }
    }
    if (!equal(was, now, depth)) (change.set ??= []).push([name, now]);
  }
  for (let i = kept.length; i < next.length; i++) (change.set ??= []).push([next[i]!, after[next[i]!]]);
  return change;
}

/**
 * Whether two JSON values have the same JSON text: members in the same order. False past
 * MAX_DEPTH, which only makes the change carry a value that did not change.
 */
function equal(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || depth >= MAX_DEPTH) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i], depth + 1)) return false;
    return true;
  }
  const names = Object.keys(a);
  const others = Object.keys(b);
  if (names.length !== others.length) return false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (others[i] !== name || !equal((a as Record<string, unknown>)[name], (b as Record<string, unknown>)[name], depth + 1)) return false;
  }
  return true;
}

/**
 * A new object: `before` with `change` applied, members removed, changed within and set, in
 * that order; `before` itself is never changed (a compaction may be writing it). A reason
 * instead when the change does not fit `before` (a member removed or changed within that it
 * does not hold): the journal would then not be the one this state was written with.
 */
export function applyChange(before: Record<string, unknown>, change: Change): Record<string, unknown> | string {
  const after: Record<string, unknown> = {};
  for (const name of Object.keys(before)) define(after, name, before[name]);
  for (const name of change.unset ?? []) {
    if (!Object.hasOwn(after, name)) return `the member ${JSON.stringify(name)} is removed but not held`;
    delete after[name];
  }
  for (const [name, inner] of change.in ?? []) {
    const was = after[name];
    if (!Object.hasOwn(after, name) || !isPlainObject(was)) return `the member ${JSON.stringify(name)} is changed within but is not an object`;
    const now = applyChange(was, inner);
    if (typeof now === "string") return now;
    define(after, name, now);
  }
  for (const [name, value] of change.set ?? []) define(after, name, value);
  return after;
}

/** Whether a decoded value is a change this server could have written. */
export function isChange(value: unknown, depth = 1): value is Change {
  if (!isPlainObject(value) || depth > MAX_DEPTH) return false;
  const { set, unset, in: inner } = value;
  if (set !== undefined && !(Array.isArray(set) && set.every((pair) => isPair(pair) && pair[1] !== undefined))) return false;
  if (unset !== undefined && !(Array.isArray(unset) && unset.every((name) => typeof name === "string"))) return false;
  return inner === undefined || (Array.isArray(inner) && inner.every((pair) => isPair(pair) && isChange(pair[1], depth + 1)));
}

function isPair(value: unknown): value is [string, unknown] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === "string";
}

function isEmpty(change: Change): boolean {
  return change.set === undefined && change.unset === undefined && change.in === undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Defined, not assigned: a member named __proto__ stays a member, as JSON.parse makes it.
function define(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === "__proto__") Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}
