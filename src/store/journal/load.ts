// Start-up from a data directory: the newest snapshot, then every journal after it, with torn tails cut and damage refused.
import { readdirSync, rmSync, truncateSync, fsyncSync, openSync, closeSync, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { JournalDamageError } from "./damage.ts";
import { scanJournal } from "./format.ts";
import { SNAPSHOT_FILE, SNAPSHOT_TEMP_FILE, readSnapshot } from "./snapshot.ts";
import { applyEntry, type DataState } from "./state.ts";

/** What a data directory holds at start-up. */
export type LoadedDataDir = {
  /** The snapshot with every journal after it replayed; undefined for a directory never used. */
  state: DataState | undefined;
  /** The generation of the journal to append to next: the newest one, or the one after the snapshot. */
  generation: number;
  /** That journal's length in bytes (0 if it does not exist yet). */
  size: number;
  /** The generations of the journals read (all after the snapshot), oldest first. */
  journals: number[];
  /** One line per torn tail cut off; the caller logs them. */
  warnings: string[];
};

const JOURNAL_NAME = /^journal-(\d+)\.log$/;

/** The file name of the journal of a generation: `journal-<generation>.log`. */
export function journalName(generation: number): string {
  return `journal-${generation}.log`;
}

/**
 * Loads a data directory as start-up needs it. The snapshot covers journals up to its
 * generation; only journals after it are replayed, in order, so nothing is applied twice.
 * Left-overs of a compaction cut short are removed: `snapshot.tmp` (never renamed, so the
 * journals it would have replaced are all still here) and journals the snapshot already
 * covers (a crash after the rename, before their removal). A torn last entry of the newest
 * journal is cut off, with one warning. Anything else wrong (a bad line before the last, a
 * torn entry in an older journal, which is closed and synced before the next one is written,
 * a missing journal, the snapshot's next journal among them, journals without a snapshot, an
 * entry that does not follow the state)
 * throws a JournalDamageError, and nothing is changed on disk.
 */
export function loadDataDir(dir: string): LoadedDataDir {
  const names = readdirSync(dir);
  const snapshotPath = join(dir, SNAPSHOT_FILE);
  const snapshot = existsSync(snapshotPath) ? readSnapshot(snapshotPath) : undefined;
  const covered = snapshot?.generation ?? 0;
  const generations = names
    .map((name) => JOURNAL_NAME.exec(name)?.[1])
    .filter((match) => match !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const stale = generations.filter((generation) => generation <= covered);
  const journals = generations.filter((generation) => generation > covered);
  if (snapshot === undefined && journals.length > 0) {
    // A new directory's first start cut short: journal 1 is made, empty, before the first snapshot.
    if (journals.length === 1 && journals[0] === 1 && statSync(join(dir, journalName(1))).size === 0) {
      return { state: undefined, generation: 1, size: 0, journals: [], warnings: [] };
    }
    throw new JournalDamageError(snapshotPath, 0, `the snapshot is missing but ${journalName(journals[0]!)} needs it`);
  }
  // The journal after a snapshot is made before the snapshot is put in place (openJournal,
  // Journal.compact), and only removed by a later snapshot: without it, writes were lost.
  if (snapshot !== undefined && journals[0] !== covered + 1) {
    throw new JournalDamageError(snapshotPath, 0, `${journalName(covered + 1)}, the journal after it, is missing, and the writes kept there with it`);
  }
  const state = snapshot?.state;
  const warnings: string[] = [];
  let truncate: { path: string; end: number } | undefined;
  let size = 0;
  journals.forEach((generation, i) => {
    const path = join(dir, journalName(generation));
    // Generations follow one another: a gap means a journal was lost.
    const expected = i === 0 ? covered + 1 : journals[i - 1]! + 1;
    if (generation !== expected) throw new JournalDamageError(path, 0, `${journalName(expected)} is missing before it`);
    const scan = scanJournal(path);
    const last = i === journals.length - 1;
    if (scan.torn && !last) throw new JournalDamageError(path, scan.end, "an older journal ends with a torn entry");
    scan.entries.forEach((entry, e) => {
      const reason = applyEntry(state!, entry);
      if (reason !== undefined) throw new JournalDamageError(path, scan.offsets[e]!, reason);
    });
    if (scan.torn) {
      truncate = { path, end: scan.end };
      warnings.push(`${path}: dropped a torn last entry at byte ${scan.end} (${scan.size - scan.end} bytes), left by a crash mid-append`);
    }
    size = scan.end;
  });
  // Changes on disk only once everything has been read and found whole.
  if (truncate !== undefined) {
    truncateSync(truncate.path, truncate.end);
    const fd = openSync(truncate.path, "r+");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  if (names.includes(SNAPSHOT_TEMP_FILE)) rmSync(join(dir, SNAPSHOT_TEMP_FILE), { force: true });
  for (const generation of stale) rmSync(join(dir, journalName(generation)), { force: true });
  return { state, generation: journals.at(-1) ?? covered + 1, size, journals, warnings };
}
