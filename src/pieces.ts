// Long list answers, written in pieces: other requests are served between them, and no answer is held whole in memory.
import type { ServerResponse } from "node:http";
import { setImmediate } from "node:timers";

/**
 * The most characters of JSON text a list answer is made of in one step: a list whose text is
 * longer is written in pieces of about this size (docs/decisions.md, "Bounded time").
 */
export const PIECE_CHARS = 64 * 1024;

/** Lists this short are serialised in one call: each record is answered whole by a read anyway. */
const WHOLE_ITEMS = 4;

/**
 * The JSON text of a list, exactly as JSON.stringify gives it, when it is at most PIECE_CHARS
 * long; undefined for a longer one, which writeInPieces sends. Stops as soon as the text passes
 * the limit, so a long list costs one piece here.
 */
export function shortListText(items: readonly unknown[]): string | undefined {
  if (items.length <= WHOLE_ITEMS) {
    const text = JSON.stringify(items);
    return text.length <= PIECE_CHARS || items.length <= 1 ? text : undefined;
  }
  const parts: string[] = [];
  let length = 2;
  for (let i = 0; i < items.length; i++) {
    const text = JSON.stringify(items[i]);
    length += text.length + 1;
    if (length > PIECE_CHARS) return undefined;
    parts.push(text);
  }
  return `[${parts.join(",")}]`;
}

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
