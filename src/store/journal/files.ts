// Small promise wrappers over node:fs callbacks, the calls that work alike on Node, Deno and Bun, and the directory sync.
import fs from "node:fs";

// Callbacks rather than node:fs/promises: every runtime implements these few calls, and a
// FileHandle adds an object and a promise per call on the path every write takes.

/** The mode of every file the server writes in a data directory: read and write for its owner, nothing for anyone else. */
export const FILE_MODE = 0o600;

/** The mode of a data directory the server creates (and of any parent it creates with it): its owner's only. */
export const DIR_MODE = 0o700;

/** Opens `path` with `flags` (as fs.open) and resolves with its descriptor; a file it creates gets FILE_MODE less the umask. */
export function open(path: string, flags: string): Promise<number> {
  return new Promise((resolve, reject) => fs.open(path, flags, FILE_MODE, (error, fd) => (error ? reject(error) : resolve(fd))));
}

/**
 * Opens a file of the data directory for writing (`flags` as fs.open) and gives it FILE_MODE,
 * whatever the umask and whatever mode an older file had: the records are nobody else's to
 * read. See setFileMode for why a refused chmod is no failure.
 */
export async function openPrivate(path: string, flags: string): Promise<number> {
  const fd = await open(path, flags);
  await new Promise<void>((resolve) => fs.fchmod(fd, FILE_MODE, () => resolve()));
  return fd;
}

/**
 * Gives an open file FILE_MODE, as openPrivate does, for the synchronous writes of the lock.
 * A chmod that fails is ignored: the file was opened with FILE_MODE, and a umask can only
 * take bits away, so it is never open to group or others; the chmod only gives its owner
 * back what the umask took. It fails only where modes do not apply (a file system without
 * POSIX modes such as FAT, or Windows) or on a file another user made, and the server keeps
 * working there as before.
 */
export function setFileMode(fd: number): void {
  try {
    fs.fchmodSync(fd, FILE_MODE);
  } catch {
    // See above: never more open than FILE_MODE.
  }
}

/** Writes all of `bytes` at the file's end, looping over short writes. */
export async function writeAll(fd: number, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    done += await new Promise<number>((resolve, reject) =>
      // position null: at the current offset, which O_APPEND keeps at the end.
      fs.write(fd, bytes, done, bytes.length - done, null, (error, written) => (error ? reject(error) : resolve(written))),
    );
  }
}

/** Makes the file's data (and the metadata needed to read it back, such as its length) durable: fdatasync(2). */
export function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())));
}

/** Makes the whole file durable, metadata included: fsync(2). */
export function fsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve())));
}

/** Closes a descriptor. */
export function close(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.close(fd, (error) => (error ? reject(error) : resolve())));
}

/**
 * Makes the directory's entries durable: a file just created, renamed or removed in `dir`
 * survives a crash only once the directory itself is synced (fsync(2) on Linux says so).
 * The directory is opened read-only and its descriptor fsynced; Node, Deno and Bun all
 * allow this on Linux and macOS (docs/durability.md has what each was seen to call).
 * Windows cannot open a directory this way, and NTFS journals its metadata, so there it is skipped.
 */
export async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  const fd = await open(dir, "r");
  try {
    await fsync(fd);
  } finally {
    await close(fd);
  }
}
