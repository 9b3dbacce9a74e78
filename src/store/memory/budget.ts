// The store's budget: what a record costs in memory, counted so that the worst shapes cannot slip past it.

/**
 * The default most the records may cost, in bytes as recordCost counts them: 64 MiB, which keeps
 * the whole process under 512 MiB of resident memory with every shape tried (docs/decisions.md, "Access and limits").
 */
export const DEFAULT_STORE_LIMIT = 64 * 1024 * 1024;

// What each part of a record costs, in bytes. Each is an upper bound of what V8 holds for it
// (an object's header and a member's slot, key and property details; an array's element
// slots with room to grow) plus what the record's JSON text, kept for reads, adds: two bytes a
// character, since one two-byte character makes the whole text two-byte. A string counts 4
// bytes a character (2 in the heap, 2 in the text), more when its text escapes characters; a
// number its heap box (16 bytes) and up to 25 characters of text (50), with room to spare.
const RECORD = 96;
const OBJECT = 56;
const MEMBER = 48;
const ARRAY = 32;
const ELEMENT = 16;
const STRING = 32;
const PER_CHARACTER = 4;
const NUMBER = 72;
const LITERAL = 8;

/**
 * What a record costs the store: its own bookkeeping and every value in it, walked without
 * recursion. The cost depends on the record alone, so a delete frees exactly what its create
 * took.
 */
export function recordCost(record: object): number {
  // Most records are one object of strings, numbers, booleans and null: one pass, no stack.
  let cost = RECORD + OBJECT;
  for (const key in record) {
    const value = (record as Record<string, unknown>)[key];
    if (typeof value === "object" && value !== null) return nestedCost(record);
    cost += MEMBER + stringCost(key) + (typeof value === "string" ? stringCost(value) : typeof value === "number" ? NUMBER : LITERAL);
  }
  return cost;
}

/** recordCost of a record that holds objects or arrays: the whole tree walked without recursion. */
function nestedCost(record: object): number {
  let cost = RECORD;
  const stack: unknown[] = [record];
  while (stack.length > 0) {
    const value = stack.pop();
    switch (typeof value) {
      case "string":
        cost += stringCost(value);
        break;
      case "number":
        cost += NUMBER;
        break;
      case "object":
        if (value === null) cost += LITERAL;
        else if (Array.isArray(value)) {
          cost += ARRAY + ELEMENT * value.length;
          for (let i = 0; i < value.length; i++) stack.push(value[i]);
        } else {
          cost += OBJECT;
          for (const key in value) {
            cost += MEMBER + stringCost(key);
            stack.push((value as Record<string, unknown>)[key]);
          }
        }
        break;
      default:
        cost += LITERAL;
    }
  }
  return cost;
}

// What JSON writes as an escape: a control character or lone surrogate takes six characters
// (`\u0001`), a quote or backslash two.
const ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** What a string costs: 2 bytes a character in the heap, 2 for each character of its text. */
function stringCost(value: string): number {
  if (!ESCAPED.test(value)) return STRING + PER_CHARACTER * value.length;
  return STRING + 2 * value.length + 2 * (JSON.stringify(value).length - 2);
}

/** A size in bytes as messages show it: `64 MiB`, `1.5 GiB`, or bytes. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ["GiB", 1024 ** 3],
    ["MiB", 1024 ** 2],
    ["KiB", 1024],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}
