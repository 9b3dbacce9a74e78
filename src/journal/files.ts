// Small promise wrappers over node:fs callbacks, the calls that work alike on Node, Deno and Bun, and the directory sync.
import fs from "node:fs";

// Callbacks rather than node:fs/promises: every runtime implements these few calls, and a
// FileHandle adds an object and a promise per call on the path every write takes.

/** Opens `path` with `flags` (as fs.open) and resolves with its descriptor. */
export function open(path: string, flags: string): Promise<number> {
  return new Promise((resolve, reject) => fs.open(path, flags, 0o644, (error, fd) => (error ? reject(error) : resolve(fd))));
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
