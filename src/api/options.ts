// Option objects of the public API, checked at start-up: a misspelt name is refused, not ignored.

/**
 * Throws a TypeError naming every option `options` has that `known` lacks, so that
 * `startServer({ sead })` fails at once instead of starting with the default data.
 */
export function refuseUnknownOptions(options: object, known: Record<string, true>, caller: string): void {
  if (typeof options !== "object" || options === null) throw new TypeError(`${caller} takes an options object`);
  const unknown = Object.keys(options).filter((name) => !Object.hasOwn(known, name));
  if (unknown.length === 0) return;
  const names = unknown.map((name) => `"${name.slice(0, 40)}"`).join(", ");
  throw new TypeError(`${caller} has no option ${names}; its options are ${Object.keys(known).join(", ")}`);
}
