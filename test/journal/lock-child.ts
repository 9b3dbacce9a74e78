// A process that takes a data directory's lock when told to (a line on stdin), says whether it got it, and holds it until stdin ends.
import { acquireLock, LockedError } from "../../src/store/journal/lock.ts";

const dir = process.argv[2]!;
process.stdout.write("ready\n");
process.stdin.once("data", () => {
  try {
    const lock = acquireLock(dir);
    process.stdout.write("locked\n");
    process.stdin.once("end", () => lock.release());
    process.stdin.resume();
  } catch (error) {
    if (!(error instanceof LockedError)) throw error;
    process.stdout.write("refused\n");
    process.exit(0);
  }
});
