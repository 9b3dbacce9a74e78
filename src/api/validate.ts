// Member rules for request bodies; each rule returns what is wrong with a value, or nothing.
import type { FieldError } from "./errors.ts";
import { STRING_ID } from "./ids.ts";
import type { IdPolicy } from "../store/seam.ts";

/** Checks one member's value; returns a message saying what is wrong, or undefined. */
export type Rule = (value: unknown) => string | undefined;

/**
 * A member a resource knows about: whether a create must send it, its rule, and a
 * valid value the OpenAPI document shows in its examples.
 */
export type FieldSpec = { required: boolean; rule: Rule; example: unknown };

/** A string with at least one character that is not white space. */
export const nonEmptyString: Rule = (value) =>
  typeof value === "string" && value.trim() !== "" ? undefined : "must be a non-empty string";

/**
 * What emailAddress accepts, and the OpenAPI document shows as its pattern. Deliberately loose:
 * one "@", something before it, a dot in the part after it, no spaces. Deliverability is the
 * mail system's job; this only catches values that cannot be an address. Fast path: the group
 * captures nothing, so a test records no capture
 * (docs/benchmarks.md, "Measurements behind fast paths in the code").
 */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

/** The longest address SMTP can carry (RFC 5321, section 4.5.3.1.3), which emailAddress accepts. */
export const MAX_EMAIL_LENGTH = 254;

/** A string shaped like an e-mail address (`name@example.com`). */
export const emailAddress: Rule = (value) =>
  typeof value === "string" && value.length <= MAX_EMAIL_LENGTH && EMAIL_SHAPE.test(value)
    ? undefined
    : "must be an e-mail address such as name@example.com";

/** A whole number from 1 up to Number.MAX_SAFE_INTEGER. */
export const positiveSafeInteger: Rule = (value) =>
  Number.isSafeInteger(value) && (value as number) > 0 ? undefined : "must be a positive whole number";

/**
 * Checks the known members of a body. A create must send every required member;
 * an update checks only the members it sends. Every wrong member is reported.
 */
export function checkFields(
  body: Record<string, unknown>,
  fields: Record<string, FieldSpec>,
  options: { partial: boolean },
): FieldError[] {
  const errors: FieldError[] = [];
  for (const path in fields) {
    const spec = fields[path]!;
    if (!Object.hasOwn(body, path)) {
      if (spec.required && !options.partial) errors.push({ path, message: "is required" });
      continue;
    }
    const message = spec.rule(body[path]);
    if (message !== undefined) errors.push({ path, message });
  }
  return errors;
}

/** A string id as a client may choose it: 1 to 64 of A-Z, a-z, 0-9, `_` and `-`. */
export const stringId: Rule = (value) =>
  typeof value === "string" && STRING_ID.test(value) ? undefined : "must be 1 to 64 of A-Z, a-z, 0-9, _ and -";

/** The rule of a resource's ids: whole numbers from 1, or string ids where its collection makes them. */
export function idRule(ids: IdPolicy): Rule {
  return ids === "random" ? stringId : positiveSafeInteger;
}
