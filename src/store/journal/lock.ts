// One process per data directory: a lock file holding the owner's pid and host name, with stale locks taken over.
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync, fsyncSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { FILE_MODE, setFileMode } from "./files.ts";

/** The lock file's name in a data directory. */
export const LOCK_FILE = "lock";

/** A held lock; release() removes it. */
export type Lock = { path: string; release: () => void };

/** The directory is locked by another live process. */
export class LockedError extends Error {
  /** The pid named in the lock. */
  readonly pid: number;

  constructor(dir: string, pid: number, message = `${dir} is in use by process ${pid}; stop it or use another DATA_DIR`) {
    super(message);
    this.name = "LockedError";
    this.pid = pid;
  }
}

/**
 * Takes the directory's lock: creates `lock` with O_EXCL, holding `<pid> <hostname>`. If it
 * exists and names a live process other than this one, throws a LockedError (one line). If
 * it names a dead process (a server that was killed never removed it) or this very pid (a
 * container restarted runs as pid 1 again), it is stale and is replaced atomically: a
 * temporary file renamed over it, so no moment exists without a lock.
 *
 * The limit: a pid means something on one host only. Two hosts sharing a volume (NFS, a
 * cluster file system) each see the other's pid as dead, or as some unrelated live process,
 * so the lock protects only processes on the same host (or in the same pid namespace).
 * The host name is written for people reading the file; it is not trusted, since a
 * container's host name can repeat.
 */
export function acquireLock(dir: string): Lock {
  const path = join(dir, LOCK_FILE);
  // A lock naming this pid is stale to the file system check below (a restarted container
  // is pid 1 again), so two servers in one process are told apart here.
  if (heldHere.has(path)) throw new LockedError(dir, process.pid, `${dir} is in use by another server in this process; close it or use another DATA_DIR`);
  const content = `${process.pid} ${hostName()}\n`;
  try {
    writeDurably(path, content, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid) {
      const alive = isAlive(pid);
      // Refusing is safe where liveness cannot be checked; two writers on one journal are not.
      if (alive === undefined) throw new LockedError(dir, pid, `${dir} is locked by process ${pid}, which this runtime may not check (Deno needs --allow-run); if it is gone, remove ${path}`);
      if (alive) throw new LockedError(dir, pid);
    }
    // Stale (or unreadable, as a crash while it was written leaves it): take it over atomically.
    const temp = `${path}.${process.pid}.tmp`;
    writeDurably(temp, content, "w");
    renameSync(temp, path);
    // Two processes taking over the same stale lock at once both rename; the last one wins,
    // and the other finds out here.
    const owner = Number.parseInt(readFileSync(path, "utf8"), 10);
    if (owner !== process.pid) throw new LockedError(dir, owner);
  }
  let released = false;
  heldHere.add(path);
  return {
    path,
    release: () => {
      if (released) return;
      released = true;
      heldHere.delete(path);
      rmSync(path, { force: true });
    },
  };
}

// The lock files this process holds.
const heldHere = new Set<string>();

// Deno asks for --allow-sys to read the host name; the lock works without it.
function hostName(): string {
  try {
    return hostname();
  } catch {
    return "";
  }
}

function writeDurably(path: string, content: string, flags: string): void {
  const fd = openSync(path, flags, FILE_MODE);
  try {
    setFileMode(fd);
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether a process with this pid exists: signal 0 checks without sending anything.
 * Undefined when the runtime may not ask: Deno refuses process.kill without --allow-run
 * (NotCapable, no errno code), and it guards /proc behind --allow-all, so nothing else
 * can tell either.
 */
function isAlive(pid: number): boolean | undefined {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ESRCH") return false;
    // EPERM: it exists but belongs to another user, so it is alive.
    return code === "EPERM" ? true : undefined;
  }
}
