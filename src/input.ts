// Client input as text: whole numbers written in digits, and text clipped before a message echoes it.

const DIGITS = /^[0-9]+$/;

/**
 * The value of a whole number written in base-10 digits only (`007` is 7), or
 * undefined for anything else: signs, dots, exponents, spaces, or a value past
 * Number.MAX_SAFE_INTEGER, which could not be told from its neighbours.
 */
export function parseWholeNumber(text: string): number | undefined {
  if (!DIGITS.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** Shortens text a client sent before a message echoes it, so a huge input cannot make a huge error. */
export function clip(text: string, max = 64): string {
  if (text.length <= max) return text;
  // Cut between characters, not inside a surrogate pair.
  return `${Array.from(text.slice(0, max + 1)).slice(0, max).join("")}…`;
}
