// Client input as text: whole numbers written in digits, and text clipped before a message echoes it.

const ZERO = 0x30;

/**
 * The value of a whole number written in base-10 digits only (`007` is 7), or
 * undefined for anything else: signs, dots, exponents, spaces, or a value past
 * Number.MAX_SAFE_INTEGER, which could not be told from its neighbours. Read digit by
 * digit: the sum is exact until it passes that bound, and stays past it once it has.
 */
export function parseWholeNumber(text: string): number | undefined {
  if (text.length === 0) return undefined;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return Number.isSafeInteger(value) ? value : undefined;
}

/** Shortens text a client sent before a message echoes it, so a huge input cannot make a huge error. */
export function clip(text: string, max = 64): string {
  if (text.length <= max) return text;
  // Cut between characters, not inside a surrogate pair.
  return `${Array.from(text.slice(0, max + 1)).slice(0, max).join("")}…`;
}
