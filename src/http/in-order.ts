// Pipelined requests answered in order: a request that arrives behind one answered later waits for it (RFC 9112, section 9.3.2).
import type { IncomingMessage } from "node:http";

/** What the queue needs of a request: its connection. */
type Queued = { request: IncomingMessage };

/** A connection as the queue sees it: whether a request on it is being answered later, and the requests waiting behind that one. */
type Line<E> = { busy: boolean; waiting: E[] };

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
    if (line?.busy) line.waiting.push(exchange);
    else if (handle(exchange)) {
      if (line === undefined) lines.set(connection, { busy: true, waiting: [] });
      else line.busy = true;
    }
  }

  /** Serves the requests waiting on a connection, in order, until one is answered later or none is left. */
  function proceed(connection: object): void {
    const line = lines.get(connection);
    if (line === undefined) return;
    for (let next = line.waiting.shift(); next !== undefined; next = line.waiting.shift()) {
      if (handle(next)) return;
    }
    line.busy = false;
  }

  return { serve, proceed };
}
