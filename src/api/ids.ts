// Path ids: digits only, base 10, a safe integer (docs/spec.md#path-ids); or, in a collection with string ids, 1 to 64 URL-safe characters.
import { HttpError } from "./errors.ts";
import { clip, parseWholeNumber } from "./input.ts";
import { STRING_ID } from "../store/ids.ts";

/**
 * Reads a path id. `01` is 1 (base 10, docs/spec.md#path-ids); `abc`, `1.5`, `-1`,
 * `1e3` and numbers past Number.MAX_SAFE_INTEGER are refused with 400. `0` is a
 * well-formed id that no record has, so it leads to a 404, not a 400.
 */
export function parseId(text: string): number {
  const id = parseWholeNumber(text);
  if (id === undefined) throw new HttpError("INVALID_ID", `Id must be a whole number in digits, not "${clip(text)}"`);
  return id;
}

export { STRING_ID };

/** Reads a path id of a collection with string ids: 1 to 64 of A-Z, a-z, 0-9, `_` and `-`, or 400. */
export function parseStringId(text: string): string {
  if (!STRING_ID.test(text)) throw new HttpError("INVALID_ID", `Id must be 1 to 64 of A-Z, a-z, 0-9, _ and -, not "${clip(text)}"`);
  return text;
}
