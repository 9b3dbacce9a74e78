// A deep copy of a value that is plain JSON, made in one walk: what a seed is checked and loaded with.

/** Why a value is not plain JSON; a copy never holds it. */
const NOT_JSON = Symbol("not JSON");

/** What copyPlainJson gives for a value nested deeper than it was asked to copy. */
export const TOO_DEEP = Symbol("too deep");

/**
 * A deep copy of `value` if it is plain JSON, as JSON.parse could have made it: strings, finite
 * numbers other than -0, booleans, null, dense arrays with no other members, and objects whose
 * prototype is Object.prototype, with own enumerable string members only (a getter's value is
 * taken, as JSON.stringify takes it). Undefined otherwise:
 * a value JSON text would change (undefined, a function, NaN, a Date, a Map, a class instance).
 * TOO_DEEP for an array or object at depth `maxDepth + 1` (`value` is at depth 1): the walk
 * recurses, so it stops there rather than overflow the stack on a value nested thousands of
 * levels deep, or one that holds itself.
 * Fast path: one walk, where a JSON round trip and a deep comparison took three
 * (docs/benchmarks.md, "Start-up at a million records").
 */
export function copyPlainJson(value: unknown, maxDepth: number): unknown {
  const copy = copy_(value, 1, maxDepth);
  return copy === NOT_JSON ? undefined : copy;
}

function copy_(value: unknown, depth: number, maxDepth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0) ? value : NOT_JSON;
    case "object":
      break;
    default:
      return NOT_JSON;
  }
  if (value === null) return null;
  if (depth > maxDepth) return TOO_DEEP;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || Object.keys(value).length !== value.length) return NOT_JSON;
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = copy_(value[i], depth + 1, maxDepth);
      if (item === NOT_JSON || item === TOO_DEEP) return item;
      copy[i] = item;
    }
    return copy;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype || Object.getOwnPropertySymbols(value).length > 0) return NOT_JSON;
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(value)) {
    const member = copy_((value as Record<string, unknown>)[name], depth + 1, maxDepth);
    if (member === NOT_JSON || member === TOO_DEEP) return member;
    // Defined, not assigned: a member named __proto__ stays a member, as JSON.parse makes it.
    if (name === "__proto__") Object.defineProperty(copy, name, { value: member, enumerable: true, writable: true, configurable: true });
    else copy[name] = member;
  }
  return copy;
}
