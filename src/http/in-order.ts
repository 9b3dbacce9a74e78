// Pipelined requests answered in order: a request that arrives behind one answered later waits for it (RFC 9112, section 9.3.2).
import type { IncomingMessage } from "node:http";
import { setImmediate } from "node:timers";

/**
 * The most requests that wait behind an answer that comes later on one connection before the
 * server stops reading that connection. Past it a client's pipelined requests stay in its own
 * socket (TCP's flow control), as Node's own back-pressure leaves them while answers pile up
 * unread; reading goes on once half of them are served (docs/decisions.md, "Access and limits").
 */
export const PIPELINE_LIMIT = 32;

/** Marks a connection the queue stopped reading: true while stopped, false once read again. */
const STOPPED = Symbol("stopped");

/**
 * A connection as node:http keeps it. node:http resumes a connection itself, as a request's body
 * is read and as its answers drain, so a stopped connection's `resume` is held back until the
 * queue reads it again. node:http stops a connection of its own accord while its answers pile up
 * unread (marking it `_paused`, which the queue leaves alone): reading it again is then left to
 * node:http, once they drain. Deno and Bun have no such mark: there pause() and resume() alone do
 * what they can.
 */
type Reading = {
  pause: () => unknown;
  resume: () => unknown;
  destroyed: boolean;
  _paused?: boolean;
  [STOPPED]?: boolean;
};

/** Stops reading a connection until readAgain. */
function stopReading(socket: Reading): void {
  if (socket[STOPPED] === true || typeof socket.pause !== "function") return;
  if (socket[STOPPED] === undefined) {
    const resume = socket.resume;
    socket.resume = () => (socket[STOPPED] === true ? socket : resume.call(socket));
  }
  socket[STOPPED] = true;
  socket.pause();
}

/** Reads a connection again, unless node:http holds it for its own back-pressure. */
function readAgain(socket: Reading): void {
  socket[STOPPED] = false;
  if (socket._paused === true || socket.destroyed) return;
  socket.resume();
}

/**
 * How many requests a connection that has had an answer come later may have served in a row
 * before its reading yields a turn of the event loop. A parser hands over every request of what
 * it read at once, and libuv reads a connection up to 32 times a turn: a client that pipelined
 * megabytes behind a delayed answer got them all served in one go, holding `/healthz` for
 * seconds (docs/decisions.md, "Access and limits").
 */
export const BURST = 256;

/** What the queue needs of a request: its connection. */
type Queued = { request: IncomingMessage };

/**
 * A connection as the queue sees it: whether a request on it is being answered later, the
 * requests waiting behind that one from `head` on, whether its reading is paused for them, how
 * many it has served since it last yielded, and whether it is yielding a turn now.
 */
type Line<E> = { busy: boolean; waiting: E[]; head: number; paused: boolean; served: number; yielding: boolean };

/**
 * The in-order queue of one listener over `handle`, which answers a request and says whether
 * its answer comes later (its body is still arriving, its store answers later, or it is written
 * in pieces). `serve` runs a request at once on a free connection, or queues it behind the one
 * answered later; `proceed` is called when that one is answered, and serves what waited.
 */
export function inOrder<E extends Queued>(handle: (exchange: E) => boolean): { serve: (exchange: E) => void; proceed: (connection: object) => void } {
  // A connection is here from its first request answered later until its socket is collected,
  // marked busy and free again rather than added and removed, which keeps a keep-alive POST to
  // a look-up (docs/benchmarks.md, "Measurements behind fast paths in the code").
  const lines = new WeakMap<object, Line<E>>();

  function serve(exchange: E): void {
    const connection = exchange.request.socket;
    const line = lines.get(connection);
    // Fast path: a connection that never had an answer come later has no line, and counts nothing.
    if (line !== undefined && ++line.served >= BURST) yieldTurn(line, connection as Reading);
    if (line?.busy) {
      line.waiting.push(exchange);
      // The parser has handed over what it had read; no more is read until the line is shorter.
      if (line.waiting.length - line.head >= PIPELINE_LIMIT) {
        line.paused = true;
        stopReading(connection as Reading);
      }
    } else if (handle(exchange)) {
      if (line === undefined) lines.set(connection, { busy: true, waiting: [], head: 0, paused: false, served: 0, yielding: false });
      else line.busy = true;
    }
  }

  /** Serves the requests waiting on a connection, in order, until one is answered later or none is left. */
  function proceed(connection: object): void {
    const line = lines.get(connection);
    if (line === undefined) return;
    const { waiting } = line;
    // Taken from a moving head, not shifted: a long line costs each request a step, not the line.
    while (line.head < waiting.length) {
      const next = waiting[line.head]!;
      waiting[line.head++] = undefined as unknown as E;
      // What was taken is cut off once it is half the array, so each request is moved at most once.
      if (line.head === waiting.length) {
        waiting.length = 0;
        line.head = 0;
      } else if (line.head >= PIPELINE_LIMIT && line.head * 2 >= waiting.length) {
        waiting.splice(0, line.head);
        line.head = 0;
      }
      if (handle(next)) return resumeIfShort(line, connection as Reading);
    }
    line.busy = false;
    resumeIfShort(line, connection as Reading);
  }

  /** Reads the connection again once half of the most that may wait is left. */
  function resumeIfShort(line: Line<E>, connection: Reading): void {
    if (line.paused && line.waiting.length - line.head <= PIPELINE_LIMIT / 2) {
      line.paused = false;
      if (!line.yielding) readAgain(connection);
    }
  }

  /** Stops reading a connection until the next turn of the event loop, so that others are served first. */
  function yieldTurn(line: Line<E>, connection: Reading): void {
    line.served = 0;
    if (line.yielding || typeof connection.pause !== "function") return;
    line.yielding = true;
    stopReading(connection);
    setImmediate(() => {
      line.yielding = false;
      if (!line.paused) readAgain(connection);
    });
  }

  return { serve, proceed };
}
