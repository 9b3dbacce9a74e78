// A journal writer run as its own process by the crash and strace tests: appends as fast as it can, printing each id once durable.
// Usage: <runtime> test/journal/crash-child.ts DIR [LIMIT]
// Prints `ready <next id>`, then `ack <id>` for each entry only after append() resolved, so
// whatever is printed must be found in DIR after a SIGKILL at any moment. With LIMIT it stops
// after that many entries, closes the journal and releases the lock.
import { writeSync } from "node:fs";
import process from "node:process";
import { openJournal } from "../../src/store/journal/journal.ts";
import { acquireLock, LockedError } from "../../src/store/journal/lock.ts";
import { applyEntry, copyState, emptyState } from "../../src/store/journal/state.ts";
import type { JournalEntry } from "../../src/store/journal/format.ts";

const [dir, limitArg] = process.argv.slice(2);
if (dir === undefined) throw new TypeError("Name a data directory");
const limit = limitArg === undefined ? Infinity : Number(limitArg);
// Small, so that compactions happen often and a kill lands in the middle of some.
const compactBytes = Number(process.env.COMPACT_BYTES ?? 16 * 1024);
const fsync = process.env.FSYNC === "interval" ? "interval" : "always";
// Appends in flight at once, so that group commit has something to group.
const CONCURRENCY = 8;

let lock;
try {
  lock = acquireLock(dir);
} catch (error) {
  if (!(error instanceof LockedError)) throw error;
  writeSync(2, `${error.message}\n`);
  process.exit(1);
}

const opened = await openJournal(dir, {
  fsync,
  compactBytes,
  initial: () => emptyState("crash", ["items", "counters"]),
  capture: () => copyState(opened.state),
  onError: (error) => {
    writeSync(2, `${error.message}\n`);
    process.exit(1);
  },
});
const { journal, state, warnings } = opened;
for (const warning of warnings) writeSync(2, `${warning}\n`);
const items = state.collections.get("items")!;
const counters = state.collections.get("counters")!;
let nextId = items.highestId + 1;
let started = 0;
writeSync(1, `ready ${nextId}\n`);

async function work(): Promise<void> {
  while (started < limit) {
    started++;
    const id = nextId++;
    // Two effects in one entry, and multi-byte characters, as real entries have.
    const entry: JournalEntry = {
      effects: [
        { put: "items", record: { id, text: `item ${id} — ✓ ü` }, version: items.revision + 1 },
        { put: "counters", record: { id: 1, last: id }, version: counters.revision + 1 },
      ],
    };
    // Applied and appended in one synchronous step, as the store will do.
    applyEntry(state, entry);
    await journal.append(entry);
    writeSync(1, `ack ${id}\n`);
  }
}

await Promise.all(Array.from({ length: CONCURRENCY }, work));
await journal.close();
lock.release();
