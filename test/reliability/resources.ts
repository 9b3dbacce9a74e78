// What this process holds: heap and resident memory after a full collection, open files, handles and timers.
import { readdirSync } from "node:fs";
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** One reading of what the process holds. */
export type Holdings = {
  heapUsed: number;
  rss: number;
  /** Open file descriptors, where /proc can count them. */
  fds: number | undefined;
  /** Active handles and requests by kind: TCPSocketWrap, Timeout, ... */
  resources: Record<string, number>;
};

// A full collection is needed for a fair reading; exposing gc at run time avoids a flag on every test command.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

/** Collects garbage, then reads the heap, the resident set, open files and active resources. */
export function measure(): Holdings {
  collect();
  collect();
  const resources: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
  let fds: number | undefined;
  try {
    fds = readdirSync("/proc/self/fd").length;
  } catch {
    fds = undefined;
  }
  const memory = process.memoryUsage();
  return { heapUsed: memory.heapUsed, rss: memory.rss, fds, resources };
}

/** Counts a server's open connections and resolves `idle()` once none is left. */
export class ConnectionCounter {
  open = 0;
  #waiters: Array<() => void> = [];

  constructor(server: Server) {
    server.on("connection", (socket: Socket) => {
      this.open++;
      socket.once("close", () => {
        this.open--;
        if (this.open === 0) for (const wake of this.#waiters.splice(0)) wake();
      });
    });
  }

  /** Resolves once the server holds no connection. */
  idle(): Promise<void> {
    if (this.open === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** Megabytes with one decimal, for reports. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
