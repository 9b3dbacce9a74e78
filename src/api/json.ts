// JSON bodies: parsed into a plain object, and refused, in the order of docs/spec.md#3-request-bodies, when they hold too much, reach a prototype or nest too deep.
import { type ErrorCode, HttpError } from "./errors.ts";

/** The deepest nesting of arrays and objects a body may have; the top-level object is level 1. */
export const MAX_DEPTH = 64;

/**
 * The most values (members, elements, and the strings, numbers and literals in them) a body may
 * hold. A value can cost a hundred times its bytes in memory once parsed (`[{},{},…]`), so this,
 * with BODY_LIMIT, bounds what parsing one body can take (docs/decisions.md, "Access and limits").
 */
export const MAX_VALUES = 100_000;

/** The 400 codes a body can get from parseJsonObject, in the order its checks run (docs/spec.md#3-request-bodies). */
export const BODY_ERROR_CODES = [
  "EMPTY_BODY",
  "INVALID_ENCODING",
  "INVALID_JSON",
  "BODY_NOT_OBJECT",
  "FORBIDDEN_KEY",
  "BODY_TOO_DEEP",
  "NUMBER_OUT_OF_RANGE",
] as const satisfies readonly ErrorCode[];

/**
 * Whether a member name is refused at any depth (`__proto__`, `constructor`, `prototype`), so
 * that no body can reach an object prototype. Fast path: compared directly, where a Set's
 * look-up hashes every name of every body
 * (docs/benchmarks.md, "Measurements behind fast paths in the code").
 */
function isForbiddenName(name: string): boolean {
  return name.length === 9 ? name === "__proto__" || name === "prototype" : name === "constructor";
}

/** A parsed JSON object body. */
export type JsonObject = Record<string, unknown>;

// Only the four characters JSON itself counts as white space (RFC 8259, section 2).
const JSON_WHITESPACE_ONLY = /^[ \t\n\r]*$/;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Parses bytes into a JSON object, or throws the HttpError docs/spec.md#3-request-bodies names. */
export function parseJsonObject(bytes: Uint8Array): JsonObject {
  // A value takes a byte at least, so only a body longer than the limit can hold too many (docs/spec.md#3-request-bodies, step 2: size).
  if (bytes.length > MAX_VALUES) {
    const { values, depth } = measureJson(bytes);
    if (values > MAX_VALUES) {
      // A body this full is not parsed. Nested past the limit, it is refused as too deep
      // whatever its count, as a shallower one would be (docs/decisions.md, "Access and limits").
      if (depth > MAX_DEPTH) throw tooDeep("Request body");
      throw new HttpError("BODY_TOO_LARGE", `Request body must not hold more than ${MAX_VALUES} values (members, elements and what they hold)`);
    }
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (cause) {
    throw new HttpError("INVALID_ENCODING", "Request body must be valid UTF-8", { cause });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    // Only a text that is not JSON can be empty or white space alone, so a body that parses is never tested for it.
    if (JSON_WHITESPACE_ONLY.test(text)) throw new HttpError("EMPTY_BODY", "Request body is empty; send a JSON object");
    throw new HttpError("INVALID_JSON", "Request body is malformed JSON", { cause });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError("BODY_NOT_OBJECT", `Request body must be a JSON object, not ${describeValue(value)}`);
  }
  const problem = treeProblem(value, "Request body");
  if (problem !== undefined) throw problem;
  return value as JsonObject;
}

/**
 * How many values a JSON text holds, counted on its bytes before it is parsed: the text itself,
 * each member's value (a `:`), and each element of an array (its first, and one a `,`).
 * Malformed text is counted the same way; the parser refuses it afterwards.
 */
export function countValues(bytes: Uint8Array): number {
  return measureJson(bytes).values;
}

/**
 * How many values a JSON text holds (as countValues counts them) and how deep its arrays and
 * objects nest (the top-level one is level 1), read on its bytes in one pass without parsing.
 */
export function measureJson(bytes: Uint8Array): { values: number; depth: number } {
  let count = 1;
  let depth = 0;
  let inString = false;
  // Whether each open container is an array (1) or an object (0); a `,` adds a value only in an array.
  const open: number[] = [];
  let first = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      // A backslash escapes the next byte, a quote among them.
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
      continue;
    }
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    // The first element of an array, unless the array is empty.
    if (first) {
      first = false;
      if (byte !== 0x5d) count++;
    }
    if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      first = byte === 0x5b;
      if (open.push(first ? 1 : 0) > depth) depth = open.length;
    } else if (byte === 0x5d || byte === 0x7d) open.pop();
    else if (byte === 0x3a) count++;
    else if (byte === 0x2c && open[open.length - 1] === 1) count++;
  }
  return { values: count, depth };
}

/**
 * Walks a parsed tree without recursion (a deep body must not overflow the stack)
 * and returns, in this order, a forbidden member name, nesting past MAX_DEPTH, or
 * a number too large to hold, as the error whose message begins with `subject`.
 */
export function treeProblem(root: object, subject: string): HttpError | undefined {
  if (isFlatAndSound(root)) return undefined;
  let forbidden: string | undefined;
  let deep = false;
  let infinite = false;
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value === "number") {
      if (!Number.isFinite(value)) infinite = true;
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    // The walk goes on past the depth limit, so a forbidden name anywhere is
    // reported first, as docs/spec.md#3-request-bodies orders; the body limit bounds the work.
    if (depth > MAX_DEPTH) deep = true;
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, depth + 1]);
      continue;
    }
    for (const key of Object.keys(value)) {
      if (isForbiddenName(key)) forbidden ??= key;
      stack.push([(value as JsonObject)[key], depth + 1]);
    }
  }
  if (forbidden !== undefined) {
    return new HttpError("FORBIDDEN_KEY", `${subject} must not have a member named "${forbidden}"`);
  }
  if (deep) return tooDeep(subject);
  if (infinite) return new HttpError("NUMBER_OUT_OF_RANGE", `${subject} has a number too large to be held`);
  return undefined;
}

/** The refusal of nesting past MAX_DEPTH, its message beginning with `subject`. */
function tooDeep(subject: string): HttpError {
  return new HttpError("BODY_TOO_DEEP", `${subject} must not be nested deeper than ${MAX_DEPTH} levels`);
}

/**
 * Whether a value is one object whose members are all strings, finite numbers, booleans or
 * null, under names that are not forbidden: most bodies are, and one pass over the members
 * settles them without the walk's stack of [value, depth] pairs (see readBody for what the two saved).
 * Anything else, inherited enumerable members included, is left to the whole walk.
 */
function isFlatAndSound(value: object): boolean {
  if (Array.isArray(value)) return false;
  for (const key in value) {
    if (isForbiddenName(key)) return false;
    const member = (value as JsonObject)[key];
    if (typeof member === "object" ? member !== null : typeof member === "number" && !Number.isFinite(member)) return false;
  }
  return true;
}

/** What kind of JSON value this is, for a message: `null`, `an array`, `a string`. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
