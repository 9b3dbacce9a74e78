// Which runtimes this run tests: all three, unless TEST_RUNTIMES names fewer (`npm test` runs Node only, needing no download).
import { ensureRuntimes } from "../../scripts/install-runtimes.ts";

/** The runtimes of `all` that this run tests; the others are not part of it, so none is ever skipped for want of a binary. */
export function testedRuntimes<T extends string>(all: readonly T[]): T[] {
  const named = process.env.TEST_RUNTIMES?.split(",").map((name) => name.trim());
  return named === undefined ? [...all] : all.filter((runtime) => named.includes(runtime));
}

/** Installs Deno and Bun when this run tests either (a missing runtime then fails the test, never skips it). */
export function ensureTestedRuntimes(all: readonly string[]): void {
  if (testedRuntimes(all).some((runtime) => runtime !== "node")) ensureRuntimes();
}
