// The error that refuses to start on a damaged data file: one line naming the file and the byte offset.

/**
 * A data file (journal or snapshot) holds something other than what this server wrote and
 * cannot be explained by a crash mid-append. Start-up must end (exit 1) rather than skip
 * it, since skipping would silently drop or reorder answered writes.
 */
export class JournalDamageError extends Error {
  /** The damaged file. */
  readonly file: string;
  /** The byte offset in `file` where the damaged line begins. */
  readonly offset: number;

  constructor(file: string, offset: number, reason: string) {
    // One line, so that start-up prints it as the single line the operator reads.
    super(`${file} is damaged at byte ${offset}: ${reason.replace(/\s+/g, " ")}; the server will not start until it is repaired or restored`);
    this.name = "JournalDamageError";
    this.file = file;
    this.offset = offset;
  }
}
