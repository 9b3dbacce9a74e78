// Helpers of the journal tests: temporary data directories, entries, and states to compare.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JournalEntry } from "../../src/journal/format.ts";
import type { DataState } from "../../src/journal/state.ts";

/** A new empty directory, removed after the test. */
export function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), "journal-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An entry that puts one user with this id at this version. */
export function putUser(id: number, version: number, name = `user ${id}`): JournalEntry {
  return { effects: [{ put: "users", record: { id, name }, version }] };
}

/** A state as plain JSON, so deepEqual compares records, versions and creation order. */
export function plain(state: DataState | undefined): unknown {
  if (state === undefined) return undefined;
  return {
    epoch: state.epoch,
    collections: [...state.collections].map(([name, c]) => ({
      name,
      revision: c.revision,
      highestId: c.highestId,
      records: [...c.records.values()],
    })),
  };
}
