// Test control's behaviour on request: the `Prefer` header (RFC 7240) read for delay, status and fault, and the DELAY setting.

/** What a request may ask for with `Prefer` when control is on: a wait, an error status, or a dropped connection. */
export type Preferences = { delay?: number; status?: number; fault?: "reset" };

/** A wait before every API answer: `min` to `max` ms, drawn uniformly (equal for a fixed delay). */
export type Delay = { min: number; max: number };

/** The longest wait a setting or a `Prefer: delay` may ask for: one minute, so that no answer is owed for ever. */
export const MAX_DELAY = 60_000;

/** What a delay is written as, for the messages that refuse one. */
export const DELAY_FORMAT = `N or MIN-MAX milliseconds, whole numbers from 0 to ${MAX_DELAY}, such as 200 or 100-500`;

// One preference: a token, an optional `=` value (a token, or a whole quoted string), then parameters, which are ignored.
// The white space before `=` sits inside the optional group: two `\s*` side by side would try a
// run of spaces every way it can be split, a time that grows with its square.
const PREFERENCE = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s*=\s*("(?:[^"\\]|\\.)*"|[^;,\s"]*))?\s*(?:;|$)/;

/**
 * The preferences this server knows in a `Prefer` header, as RFC 7240 reads it: comma-separated,
 * names in any case, a value a token or a quoted string, the first of a name winning (section 2).
 * One it does not know, or a value it cannot honour, is ignored, as section 2 asks: a delay that is
 * not a whole number of ms up to MAX_DELAY, a status outside 400 to 599, a fault other than `reset`.
 */
export function readPreferences(header: string | undefined): Preferences | undefined {
  if (header === undefined) return undefined;
  const found: Preferences = {};
  const seen = new Set<string>();
  for (const part of splitPreferences(header)) {
    const match = PREFERENCE.exec(part);
    if (match === null) continue;
    const name = match[1]!.toLowerCase();
    if (seen.has(name)) continue;
    seen.add(name);
    const raw = match[2] ?? "";
    const value = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw;
    if (name === "delay" && /^\d{1,5}$/.test(value) && Number(value) <= MAX_DELAY) found.delay = Number(value);
    else if (name === "status" && /^[45]\d\d$/.test(value)) found.status = Number(value);
    else if (name === "fault" && value.toLowerCase() === "reset") found.fault = "reset";
  }
  return found.delay === undefined && found.status === undefined && found.fault === undefined ? undefined : found;
}

/**
 * A header's preferences, split at the commas outside quoted strings; at most 16 of them, so
 * that a long header costs no more than a short one.
 */
function splitPreferences(header: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < header.length && parts.length < 16; i++) {
    const char = header[i];
    if (quoted && char === "\\") i++;
    else if (char === '"') quoted = !quoted;
    else if (char === "," && !quoted) {
      parts.push(header.slice(start, i));
      start = i + 1;
    }
  }
  if (parts.length < 16) parts.push(header.slice(start));
  return parts;
}

/** The `Preference-Applied` value for what was honoured, in the order RFC 7240's examples use: `delay=300, status=503`. */
export function appliedText(preferences: Preferences): string {
  const applied: string[] = [];
  if (preferences.delay !== undefined) applied.push(`delay=${preferences.delay}`);
  if (preferences.status !== undefined) applied.push(`status=${preferences.status}`);
  if (preferences.fault !== undefined) applied.push(`fault=${preferences.fault}`);
  return applied.join(", ");
}

/**
 * A delay as the `delay` option takes it (ms, or `{ min, max }`) or the DELAY setting's text
 * (`200`, `100-500`), checked: whole numbers from 0 to MAX_DELAY, min no more than max.
 * Undefined or 0 is no delay. Throws a RangeError saying what to write.
 */
export function readDelay(value: number | Delay | string | undefined): Delay | undefined {
  if (value === undefined) return undefined;
  let delay: Delay | undefined;
  if (typeof value === "number") delay = { min: value, max: value };
  else if (typeof value === "string") {
    const match = /^(\d{1,9})(?:\s*-\s*(\d{1,9}))?$/.exec(value.trim());
    if (match !== null) delay = { min: Number(match[1]), max: Number(match[2] ?? match[1]) };
  } else if (typeof value === "object" && value !== null) delay = { min: value.min, max: value.max };
  if (delay === undefined || !isMilliseconds(delay.min) || !isMilliseconds(delay.max) || delay.min > delay.max) {
    throw new RangeError(`delay must be ${DELAY_FORMAT}`);
  }
  return delay.max === 0 ? undefined : delay;
}

/** A wait drawn from a delay: uniform over its whole milliseconds. */
export function drawDelay({ min, max }: Delay): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

function isMilliseconds(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_DELAY;
}
