// Helpers of the journal tests: temporary data directories, entries, and states to compare.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { JournalEntry } from "../../src/store/journal/format.ts";
import type { DataState } from "../../src/store/journal/state.ts";
import { runtimeBinary } from "../support/target.ts";

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

/** The runtimes the journal's child process runs on. */
export const RUNTIMES = ["node", "deno", "bun"] as const;

/** The command that runs test/journal/crash-child.ts on a runtime, with its arguments. */
export function childCommand(runtime: (typeof RUNTIMES)[number], args: string[]): { command: string; args: string[] } {
  const script = fileURLToPath(new URL("./crash-child.ts", import.meta.url));
  switch (runtime) {
    case "node":
      return { command: process.execPath, args: ["--import", "tsx", script, ...args] };
    case "deno":
      // Read and write DATA_DIR, read the environment, and --allow-run for process.kill(pid, 0),
      // without which Deno cannot tell a stale lock from a live one (see acquireLock).
      return { command: runtimeBinary("deno"), args: ["run", "--allow-read", "--allow-write", "--allow-env", "--allow-run", script, ...args] };
    case "bun":
      return { command: runtimeBinary("bun"), args: [script, ...args] };
  }
}
