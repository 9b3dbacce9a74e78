// A process that takes a data directory's lock each time it is told to, for many rounds of one test: a line
// `go` on stdin makes it try and say `locked` or `refused`; `release` lets go of a lock it holds and says
// `released`. Started once for all the rounds, since a process start costs more than a round.
import { createInterface } from "node:readline";
import { acquireLock, LockedError, type Lock } from "../../src/store/journal/lock.ts";

const dir = process.argv[2]!;
let held: Lock | undefined;
process.stdout.write("ready\n");
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "go") {
    try {
      held = acquireLock(dir);
      process.stdout.write("locked\n");
    } catch (error) {
      if (!(error instanceof LockedError)) throw error;
      process.stdout.write("refused\n");
    }
  } else if (line === "release") {
    held?.release();
    held = undefined;
    process.stdout.write("released\n");
  }
}
held?.release();
