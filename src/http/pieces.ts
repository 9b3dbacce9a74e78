// Long list answers, written in pieces: other requests are served between them, and no answer is held whole in memory.
import type { ServerResponse } from "node:http";
import { setImmediate, setTimeout, clearTimeout } from "node:timers";
import { PIECE_CHARS } from "../store/list-text.ts";

/** How long a list in pieces waits for its reader to take a piece, by default: the request time-out's default too. */
export const DEFAULT_STALL_TIMEOUT = 30_000;

/**
 * Writes a long list as a JSON array, byte for byte the text JSON.stringify(items) would be,
 * with an exact Content-Length. It serialises the records twice, a piece a turn of the event
 * loop: first to count the bytes (the headers go first), then to write them, waiting for the
 * socket to drain before the next piece. The records are the objects held when the request was
 * answered; a write replaces a record rather than changing it, so both passes see the same list.
 * `writeHead` sends the status and headers given the length; `done` is told the body bytes
 * written (0 for HEAD), or -1 once the client has gone. A reader that takes nothing for
 * `stallTimeout` ms (0: no limit) loses its connection, so that it cannot hold the records for ever.
 */
export function writeInPieces(
  response: ServerResponse,
  items: readonly unknown[],
  options: { head: boolean; writeHead: (length: number) => void; stallTimeout: number },
  done: (bytes: number) => void,
): void {
  // The records, let go of once the answer is done: a listener left on the response must not keep them.
  let list: readonly unknown[] | undefined = items;
  let finished = false;
  let stall: ReturnType<typeof setTimeout> | undefined;
  // An answer pipelined behind another has no socket of its own yet, and its response tells
  // nothing if the connection goes first: its request's socket does.
  const socket = response.req?.socket;
  const gone = () => finish(-1);
  const finish = (bytes: number) => {
    if (finished) return;
    finished = true;
    list = undefined;
    clearTimeout(stall);
    socket?.off("close", gone);
    done(bytes);
  };
  // The client may hang up at any point, a wait for `drain` among them, or before the answer
  // was begun: a request pipelined behind another is answered once that one is done.
  if (socket?.destroyed === true) return finish(-1);
  response.once("close", gone);
  socket?.once("close", gone);

  let index = 0;
  let length = 2 + items.length - 1;
  // A piece runs in an immediate, where nothing would catch what it throws: a record that
  // cannot be serialised breaks this answer off, not the process.
  const guarded = (step: () => void) => () => {
    try {
      step();
    } catch {
      response.destroy();
      finish(-1);
    }
  };
  const measure = () => {
    if (finished) return;
    const all = list!;
    for (let chars = 0; index < all.length && chars < PIECE_CHARS; index++) {
      const text = JSON.stringify(all[index]);
      chars += text.length;
      length += Buffer.byteLength(text);
    }
    if (index < all.length) return void setImmediate(guarded(measure));
    options.writeHead(length);
    if (options.head) {
      response.end();
      return finish(0);
    }
    index = 0;
    write();
  };

  const write = () => {
    if (finished) return;
    const all = list!;
    let piece = index === 0 ? "[" : ",";
    for (let chars = 0; index < all.length && chars < PIECE_CHARS; index++) {
      const text = JSON.stringify(all[index]);
      piece += index === 0 || piece === "," ? text : `,${text}`;
      chars += text.length;
    }
    if (index === all.length) {
      response.end(`${piece}]`);
      return finish(length);
    }
    // The next piece waits for the socket to take this one, so a slow reader holds one piece, not the list.
    if (response.write(piece)) return void setImmediate(guarded(write));
    if (options.stallTimeout > 0) {
      stall = setTimeout(() => {
        socket?.destroy();
        response.destroy();
        finish(-1);
      }, options.stallTimeout);
      // The server's own handle keeps a process alive; an in-process app that was closed owes nothing.
      stall.unref?.();
    }
    response.once("drain", () => {
      clearTimeout(stall);
      guarded(write)();
    });
  };

  guarded(measure)();
}
