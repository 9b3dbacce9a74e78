// Temporary directories for tests that run servers on them: removed only after those servers are closed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

type TestContext = { after: (fn: () => unknown) => void };

const closers = new WeakMap<TestContext, Array<() => unknown>>();

/**
 * A fresh temporary directory, removed when the test ends. node:test runs `after` hooks in
 * the order they were added, so a server closed by a later hook could still write into a
 * directory being removed; what `closeFirst` registers runs before the removal instead.
 */
export function tempDir(t: TestContext, prefix = "rest-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const list: Array<() => unknown> = [];
  closers.set(t, list);
  t.after(async () => {
    for (const close of list.reverse()) await close();
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Runs `close` when the test ends, before its temporary directory is removed. */
export function closeFirst(t: TestContext, close: () => unknown): void {
  const list = closers.get(t);
  if (list === undefined) t.after(close);
  else list.push(close);
}
