// Path ids: digits only, base 10, a safe integer (contract 2).
import { HttpError } from "./errors.ts";

const DIGITS = /^[0-9]+$/;

/**
 * Reads a path id. `01` is 1 (seed spec part 4, rule 1: base 10); `abc`, `1.5`, `-1`,
 * `1e3`, `0` and numbers past Number.MAX_SAFE_INTEGER are refused with 400.
 */
export function parseId(text: string): number {
  const id = DIGITS.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new HttpError("INVALID_ID", `Id must be a positive whole number, not "${clip(text)}"`);
  }
  return id;
}

/** Shortens user input echoed in a message, so a huge path cannot make a huge error. */
export function clip(text: string, max = 64): string {
  if (text.length <= max) return text;
  // Cut between characters, not inside a surrogate pair.
  return `${Array.from(text.slice(0, max + 1)).slice(0, max).join("")}…`;
}
