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
  let finished = false;
  let stall: ReturnType<typeof setTimeout> | undefined;
  const finish = (bytes: number) => {
    if (finished) return;
    finished = true;
    clearTimeout(stall);
    done(bytes);
  };
  // The client may hang up at any point, a wait for `drain` among them.
  response.once("close", () => finish(-1));

  let index = 0;
  let length = 2 + items.length - 1;
  const measure = () => {
    if (finished) return;
    for (let chars = 0; index < items.length && chars < PIECE_CHARS; index++) {
      const text = JSON.stringify(items[index]);
      chars += text.length;
      length += Buffer.byteLength(text);
    }
    if (index < items.length) return void setImmediate(measure);
    options.writeHead(length);
    if (options.head) {
      finished = true;
      response.end();
      return done(0);
    }
    index = 0;
    write();
  };

  const write = () => {
    if (finished) return;
    let piece = index === 0 ? "[" : ",";
    for (let chars = 0; index < items.length && chars < PIECE_CHARS; index++) {
      const text = JSON.stringify(items[index]);
      piece += index === 0 || piece === "," ? text : `,${text}`;
      chars += text.length;
    }
    if (index === items.length) {
      finished = true;
      response.end(`${piece}]`);
      return done(length);
    }
    // The next piece waits for the socket to take this one, so a slow reader holds one piece, not the list.
    if (response.write(piece)) return void setImmediate(write);
    if (options.stallTimeout > 0) stall = setTimeout(() => response.destroy(), options.stallTimeout);
    response.once("drain", () => {
      clearTimeout(stall);
      write();
    });
  };

  measure();
}
