// The seed of a random run: RELIABILITY_SEED replays one, otherwise a new one is drawn and printed.

/** The seed to run with: `RELIABILITY_SEED` if set, else a fresh one. */
export function readSeed(): number {
  const text = process.env.RELIABILITY_SEED;
  if (text === undefined || text === "") return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new RangeError(`RELIABILITY_SEED must be a whole number, not "${text}"`);
  return seed;
}
