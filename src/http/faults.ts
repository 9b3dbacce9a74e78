// Test control's faults (`CONTROL=on`, docs/testing-clients.md): an error status asked for with
// `Prefer: status=NNN`, and a connection dropped with `Prefer: fault=reset`.
import { gone } from "./accounting.ts";
import { PREFERRED_STATUS } from "../api/errors.ts";
import type { Reply } from "../api/reply.ts";
import type { Exchange } from "./serving.ts";

/**
 * Drops a request's connection without an answer (`Prefer: fault=reset`), once its delay has
 * passed; the request is not carried out. Says whether that comes later.
 */
export function dropLater<R, S>(exchange: Exchange<R, S>): boolean {
  const wait = exchange.delay;
  exchange.delay = 0;
  if (wait === 0) {
    drop(exchange);
    return false;
  }
  later(() => {
    drop(exchange);
    // What was pipelined behind it finds its connection gone, and is counted so.
    exchange.serving.queue.proceed(exchange.serving.front.connection(exchange));
  }, wait);
  return true;
}

/** Drops a request's connection, as a reset does, for a client that must survive one. */
function drop<R, S>(exchange: Exchange<R, S>): void {
  const { serving } = exchange;
  serving.dropped.add(serving.front.connection(exchange));
  serving.drops++;
  serving.front.drop(exchange);
  gone(exchange);
}

/** The answer to `Prefer: status=NNN`: that status, with the error shape. */
export function preferredError(status: number): Reply {
  const message = `Answered ${status} because the request asked for it with Prefer: status=${status}; nothing was read or changed`;
  return { status, body: { message, code: PREFERRED_STATUS } };
}

/** Runs `work` after `wait` ms, on a timer that keeps no process alive: a server's own handle does, and an app closed owes nothing. */
export function later(work: () => void, wait: number): void {
  setTimeout(work, wait).unref?.();
}
