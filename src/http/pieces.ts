// Long answers written in pieces by one scheduler: every other request is served between its turns, no answer is held whole in memory, and one that makes no progress loses its connection.
import { performance } from "node:perf_hooks";
import { clearTimeout, setImmediate, setTimeout } from "node:timers";
import { PIECE_CHARS } from "../store/list-text.ts";

/** How long a long answer waits for its reader to take a piece, by default: the request time-out's default too. */
export const DEFAULT_STALL_TIMEOUT = 30_000;

/**
 * How many long answers may be written at once on one server. Each holds a piece in its socket
 * and what it lists; one past this gets `503 SERVER_BUSY` (docs/decisions.md, "Access and limits").
 */
export const LONG_ANSWERS = 512;

/**
 * The most characters of a text answer written at once: a record, at most BODY_LIMIT, always is,
 * so a client that half-closes its side after asking still gets it whole. A longer text (a
 * snapshot, the request log) goes out in pieces.
 */
export const LONG_TEXT = 1024 * 1024;

/** How many characters of long texts (a record read, a snapshot) may be held by answers at once: past it, 503. */
export const LONG_TEXT_CHARS = 64 * 1024 * 1024;

/**
 * How long one turn of the scheduler writes pieces before it lets the event loop take new
 * connections and requests: /healthz waits at most about this long behind any number of lists.
 */
const TURN_MS = 8;

/** What a long answer is made of: a list's records, serialised a piece at a time, or a text already made, or its bytes. */
export type LongBody = readonly unknown[] | string | Uint8Array;

/** How a long answer is written: its head once its length is known, then its body unless `head`. */
export type LongOptions = { head: boolean; writeHead: (length: number) => void; stallTimeout: number };

/**
 * The scheduler of one server's long answers. `write` starts one and says whether it was taken:
 * false when too many are being written already. `done` is told the body bytes written (0 for
 * HEAD), or -1 once the client has gone or stopped reading.
 */
export type Pacer = { write: (response: PieceSink, body: LongBody, options: LongOptions, done: (bytes: number) => void) => boolean };

/**
 * Where a long answer's pieces go: node:http's ServerResponse is one, and the fetch front end's
 * stream of a Response's body another (fetch-front.ts). `write` says, as a socket's does, whether
 * the reader has taken what it had; `drain` says that it has; `close`, that it has gone.
 */
export type PieceSink = {
  /** The request answered: its connection goes first when an answer waits behind another on it. */
  readonly req?: { readonly socket?: { readonly destroyed: boolean; destroy: () => void; once: (event: "close", listener: () => void) => unknown; off: (event: "close", listener: () => void) => unknown } | null };
  write: (piece: string | Uint8Array) => boolean;
  end: (piece?: string | Uint8Array) => unknown;
  destroy: () => unknown;
  once: (event: "close" | "drain", listener: () => void) => unknown;
  off: (event: "close", listener: () => void) => unknown;
};

/** Something the scheduler gives turns to: an answer, or the measuring of a list that answers share. */
type Task = { step: () => void; queued: boolean };

/** The byte length of a list's JSON text, measured once for every answer that lists the same array at once. */
type Measure = Task & { items: readonly unknown[]; index: number; length: number; waiting: Set<Answer> };

/** One long answer on its way: `fail` breaks it off, its connection with it. */
type Answer = Task & { finished: boolean; fail: () => void };

/**
 * A scheduler for long answers. Each turn (an immediate) gives pieces to the answers whose
 * sockets take them, round robin, for at most TURN_MS; between turns the event loop accepts
 * connections and serves other requests. An answer whose socket is full waits for `drain` out
 * of the queue, so a reader that does not read costs no turn; one that takes nothing for
 * `stallTimeout` loses its connection.
 *
 * A list's JSON text has an exact Content-Length, so its length is known before its first byte:
 * the records are serialised once to count their bytes, and once more as they are written.
 * Answers listing the same array at once (the store gives the same one until the next write)
 * share the counting, so each of them serialises its list once (docs/decisions.md, "Access and limits").
 * At most `answers` are written at once, and their texts hold at most `textChars` characters.
 */
export function createPacer({ answers: most = LONG_ANSWERS, textChars: mostChars = LONG_TEXT_CHARS } = {}): Pacer {
  const queue: Task[] = [];
  let head = 0;
  let scheduled = false;
  let answers = 0;
  let textChars = 0;
  const lengths = new WeakMap<readonly unknown[], number>();
  const measures = new WeakMap<readonly unknown[], Measure>();

  function enqueue(task: Task): void {
    if (task.queued) return;
    task.queued = true;
    queue.push(task);
    if (!scheduled) {
      scheduled = true;
      setImmediate(turn);
    }
  }

  function turn(): void {
    // `scheduled` stays true through the turn, so that what its tasks queue waits for the next one.
    const deadline = performance.now() + TURN_MS;
    while (head < queue.length) {
      const task = queue[head++]!;
      task.queued = false;
      // A task guards its own work; this keeps a defect in one from taking the scheduler, and the process, with it.
      try {
        task.step();
      } catch {
        (task as Partial<Answer>).fail?.();
      }
      if (performance.now() >= deadline) break;
    }
    // What was taken is cut off once it is half the queue, so each task is moved at most once a turn.
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    } else if (head * 2 >= queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    scheduled = head < queue.length;
    if (scheduled) setImmediate(turn);
  }

  /** Counts a list's bytes once for every answer that waits for them, a piece a turn. */
  function measure(items: readonly unknown[], answer: Answer & { measured: (length: number) => void }): void {
    const known = lengths.get(items);
    if (known !== undefined) return answer.measured(known);
    let job = measures.get(items);
    if (job === undefined) {
      const created: Measure = {
        items,
        index: 0,
        length: 2 + items.length - 1,
        waiting: new Set(),
        queued: false,
        step: () => {
          for (const waiting of created.waiting) if (waiting.finished) created.waiting.delete(waiting);
          // Nobody waits any more: the counting stops, and a later answer begins it again.
          if (created.waiting.size === 0) return void measures.delete(items);
          const all = created.items;
          let index = created.index;
          try {
            for (let chars = 0; index < all.length && chars < PIECE_CHARS; index++) {
              const text = JSON.stringify(all[index]);
              chars += text.length;
              created.length += Buffer.byteLength(text);
            }
          } catch {
            // A record that cannot be serialised breaks off every answer listing it, not the process.
            measures.delete(items);
            for (const waiting of created.waiting) waiting.fail();
            return;
          }
          created.index = index;
          if (index < all.length) return enqueue(created);
          measures.delete(items);
          lengths.set(items, created.length);
          for (const waiting of created.waiting) (waiting as Answer & { measured: (length: number) => void }).measured(created.length);
        },
      };
      job = created;
      measures.set(items, job);
      enqueue(job);
    }
    job.waiting.add(answer);
  }

  function write(response: PieceSink, body: LongBody, options: LongOptions, done: (bytes: number) => void): boolean {
    const text = typeof body === "string" || body instanceof Uint8Array ? body : undefined;
    if (answers >= most || (text !== undefined && textChars + text.length > mostChars)) return false;
    answers++;
    if (text !== undefined) textChars += text.length;
    // An answer pipelined behind another has no socket of its own yet, and its response tells
    // nothing if the connection goes first: its request's socket does.
    const socket = response.req?.socket;
    let items: readonly unknown[] | undefined = text === undefined ? (body as readonly unknown[]) : undefined;
    let length = 0;
    let index = 0;
    let stall: ReturnType<typeof setTimeout> | undefined;
    const gone = () => finish(-1);
    const answer: Answer & { measured: (length: number) => void } = {
      finished: false,
      queued: false,
      step: () => guarded(next),
      fail: () => {
        response.destroy();
        finish(-1);
      },
      measured: (measured: number) => {
        length = measured;
        guarded(begin);
      },
    };
    const finish = (bytes: number) => {
      if (answer.finished) return;
      answer.finished = true;
      answers--;
      if (text !== undefined) textChars -= text.length;
      items = undefined;
      clearTimeout(stall);
      response.off("close", gone);
      socket?.off("close", gone);
      done(bytes);
    };
    // A piece runs in a turn of its own, where nothing would catch what it throws: a record that
    // cannot be serialised breaks this answer off, not the process.
    const guarded = (step: () => void) => {
      if (answer.finished) return;
      try {
        step();
      } catch {
        answer.fail();
      }
    };
    // Head, then the first piece in the scheduler's next turn.
    const begin = () => {
      options.writeHead(length);
      if (options.head) {
        response.end();
        return finish(0);
      }
      enqueue(answer);
    };
    const next = () => {
      const piece = text === undefined ? listPiece() : textPiece();
      if (piece === undefined) return;
      // A socket that takes the piece gets the next one in a later turn; one that is full is
      // waited for, out of the queue, so that a reader that stops holds a piece, not a turn.
      if (response.write(piece)) return enqueue(answer);
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
        enqueue(answer);
      });
    };
    /** The next piece of a list, or undefined once the last has been sent with the end. */
    const listPiece = (): string | undefined => {
      const all = items!;
      let piece = index === 0 ? "[" : ",";
      for (let chars = 0; index < all.length && chars < PIECE_CHARS; index++) {
        const json = JSON.stringify(all[index]);
        piece += index === 0 || piece === "," ? json : `,${json}`;
        chars += json.length;
      }
      if (index < all.length) return piece;
      response.end(`${piece}]`);
      finish(length);
      return undefined;
    };
    /** The next piece of a text, never cutting a surrogate pair in two, or of its bytes; undefined once the last has been sent. */
    const textPiece = (): string | Uint8Array | undefined => {
      let end = Math.min(index + PIECE_CHARS, text!.length);
      let piece: string | Uint8Array;
      if (typeof text === "string") {
        const last = text.charCodeAt(end - 1);
        if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
        piece = text.slice(index, end);
      } else piece = text!.subarray(index, end);
      index = end;
      if (index < text!.length) return piece;
      response.end(piece);
      finish(length);
      return undefined;
    };

    // The client may hang up at any point, a wait for `drain` among them, or before the answer
    // was begun: a request pipelined behind another is answered once that one is done.
    if (socket?.destroyed === true) {
      finish(-1);
      return true;
    }
    response.once("close", gone);
    socket?.once("close", gone);
    if (text !== undefined) {
      length = Buffer.byteLength(text);
      guarded(begin);
    } else measure(items!, answer);
    return true;
  }

  return { write };
}
