// One process per data directory: a lock file holding the owner's pid, host name and start, with stale locks taken over.
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
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
 * Takes the directory's lock: creates `lock` holding `<pid> <hostname>` and when this process
 * started (createWhole, startOf). If it exists and names a live process other than this one,
 * throws a LockedError (one line). If it names a dead process (a server that was killed never
 * removed it), a live one that started after the lock's owner (its pid given again), or this
 * very pid (a container restarted runs as pid 1 again), it is stale and is taken over (takeOver).
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
  const started = startOf(process.pid);
  const content = `${process.pid} ${hostName()}\n${started === undefined ? "" : `started ${started}\n`}`;
  try {
    createWhole(path, content);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    refuseIfHeld(dir, path);
    takeOver(dir, path, content);
  }
  let released = false;
  heldHere.add(path);
  return {
    path,
    release: () => {
      if (released) return;
      released = true;
      heldHere.delete(path);
      // Only a lock that is still this process's own is removed; one that cannot be read is.
      let owner: number | undefined = process.pid;
      try {
        owner = pidIn(path);
      } catch {
        // Unreadable: removed as before, rather than left to block the next start.
      }
      if (owner === process.pid) rmSync(path, { force: true });
    },
  };
}

/**
 * Throws a LockedError if the lock names a live process other than this one. A live pid is
 * the lock's owner unless the lock says when its owner started and the process with that pid
 * now started at another time: the owner died and the pid was given again (to anything, a
 * shell, another server) after a crash or a reboot. That is told only from a lock written on
 * this host (the host name), where /proc shows the start; elsewhere, and where /proc cannot be
 * read (Deno without --allow-all, macOS), the pid alone decides, as before.
 */
function refuseIfHeld(dir: string, path: string): void {
  const { pid, host, started } = readLock(path);
  if (pid === undefined || pid === process.pid) return;
  const alive = isAlive(pid);
  // Refusing is safe where liveness cannot be checked; two writers on one journal are not.
  if (alive === undefined) throw new LockedError(dir, pid, `${dir} is locked by process ${pid}, which this runtime may not check (Deno needs --allow-run); if it is gone, remove ${path}`);
  if (!alive) return;
  if (started !== undefined && host !== "" && host === hostName()) {
    const now = startOf(pid);
    if (now !== undefined && now !== started) return;
  }
  throw new LockedError(dir, pid);
}

/**
 * When the process with this pid started, as `<boot id>:<start time in clock ticks since
 * boot>` from /proc: the pair names one process, once, on one host, where a pid is given again.
 * Undefined where /proc cannot be read.
 */
export function startOf(pid: number): string | undefined {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name, in parentheses, may hold spaces and parentheses: fields are counted after
    // the last ")", where the third field (the state) begins; the start time is the 22nd.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[22 - 3];
    return boot !== "" && start !== undefined && /^\d+$/.test(start) ? `${boot}:${start}` : undefined;
  } catch {
    // No /proc (macOS, Windows), a process gone, or a runtime not allowed to read it (Deno).
    return undefined;
  }
}

/**
 * Takes over a stale lock (or an unreadable one, as an older version could leave after a crash),
 * one process at a time: under a guard file created exclusively, the lock is read again, and
 * only if it is still stale is a temporary file renamed over it, so no moment exists without a
 * lock. Without the guard, two processes that both found the same stale lock both renamed, and
 * one could read its own pid back before the other's rename landed: both served, and wrote the
 * same ids and versions into one journal.
 */
function takeOver(dir: string, path: string, content: string): void {
  const guard = `${path}.takeover`;
  try {
    createWhole(guard, content);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Another process is taking the lock over now; or one was killed while it did, and its
    // guard is stale too: removed, and tried once more. (A guard removed as stale just as a third
    // process made its own is the window left: it needs a process killed inside a takeover and
    // two more starting in the same instant.)
    refuseIfHeld(dir, guard);
    rmSync(guard, { force: true });
    try {
      createWhole(guard, content);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== "EEXIST") throw again;
      throw new LockedError(dir, pidIn(guard) ?? 0, `${dir} is being locked by another process; stop it or use another DATA_DIR`);
    }
  }
  try {
    // Another process may have taken the lock over, and released its guard, since it was read.
    refuseIfHeld(dir, path);
    const temp = `${path}.${process.pid}.tmp`;
    try {
      writeDurably(temp, content, "w");
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  } finally {
    rmSync(guard, { force: true });
  }
}

/** The pid a lock file names; undefined for none (missing, or not holding one). */
function pidIn(path: string): number | undefined {
  return readLock(path).pid;
}

/**
 * What a lock file says: `<pid> <host name>` on its first line, and, where /proc could be read,
 * `started <boot id>:<ticks>` on the second (a lock of an earlier version has no second line).
 */
function readLock(path: string): { pid: number | undefined; host: string; started: string | undefined } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { pid: undefined, host: "", started: undefined };
    throw error;
  }
  const [first = "", second = ""] = text.split("\n");
  const pid = Number.parseInt(first, 10);
  const space = first.indexOf(" ");
  return {
    pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined,
    host: space === -1 ? "" : first.slice(space + 1),
    started: second.startsWith("started ") ? second.slice("started ".length) : undefined,
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

/**
 * Creates a file holding `content` from its first moment, or throws EEXIST if one is there: the
 * content is written to a temporary file, which is then linked to the name (a link, like
 * O_EXCL, never replaces a file). A file made with O_EXCL is empty until it is written, and a
 * process that read it then took it for one a crash had left empty, and stale.
 */
function createWhole(path: string, content: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeDurably(temp, content, "w");
    linkSync(temp, path);
  } finally {
    // Whatever happened, even a disk too full to write the pid, no temporary file is left.
    rmSync(temp, { force: true });
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
