// Long list answers, written in pieces: other requests are served between them, and no answer is held whole in memory.
import type { ServerResponse } from "node:http";
import { setImmediate } from "node:timers";
import { PIECE_CHARS } from "../store/list-text.ts";

/**
 * Writes a long list as a JSON array, byte for byte the text JSON.stringify(items) would be,
 * with an exact Content-Length. It serialises the records twice, a piece a turn of the event
 * loop: first to count the bytes (the headers go first), then to write them, waiting for the
 * socket to drain before the next piece. The records are the objects held when the request was
 * answered; a write replaces a record rather than changing it, so both passes see the same list.
 * `writeHead` sends the status and headers given the length; `done` is told the body bytes
 * written (0 for HEAD), or -1 once the client has gone.
 */
export function writeInPieces(
  response: ServerResponse,
  items: readonly unknown[],
  options: { head: boolean; writeHead: (length: number) => void },
  done: (bytes: number) => void,
): void {
  let finished = false;
  const finish = (bytes: number) => {
    if (finished) return;
    finished = true;
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
    if (response.write(piece)) setImmediate(write);
    else response.once("drain", write);
  };

  measure();
}
