// The server's log: one access line per answered request on stdout, errors and notices on stderr, as JSON or text.
import { redactQuery } from "./redact.ts";

/** How lines are written: `json` (one object a line, for log collectors), `text` (for a person), or `off` (no access log). */
export type LogFormat = "json" | "text" | "off";

/** Every format, as LOG_FORMAT and the logFormat option take them. */
export const LOG_FORMATS: readonly LogFormat[] = ["json", "text", "off"];

/** One answered request, as its access line tells it. */
export type AccessEntry = {
  method: string;
  /** The request target as sent: the path and the query; the log hides the values of secret query parameters (redact.ts). */
  path: string;
  status: number;
  /** Body bytes sent (none for HEAD, 204 and 304). */
  bytes: number;
  /** From the request's arrival to its answer handed to the connection, in milliseconds. */
  milliseconds: number;
  requestId: string;
  /** The client's address, as the connection has it (a proxy's, behind one). */
  remote: string | undefined;
};

/** Where the lines go: stdout for access lines, stderr for errors and notices. */
export type LogSinks = { out: (text: string) => void; err: (text: string) => void };

/** A log in one format. */
export type Logger = {
  format: LogFormat;
  /** Writes the access line of an answered request; nothing with `off`. Lines are batched (see flush). */
  access(entry: AccessEntry): void;
  /** Writes an error on stderr at once: what failed, the request it failed in (secret query parameters hidden), and the error with its stack. */
  error(message: string, requestId: string | undefined, error?: unknown): void;
  /** Writes a notice (a torn journal tail dropped, a seed not loaded) on stderr at once. */
  warn(message: string): void;
  /** Writes a line on stdout: in `json`, as an object with `level` info. */
  info(message: string): void;
  /** Writes the access lines still batched. */
  flush(): void;
};

// Set once stdout or stderr has failed (its reader went away: EPIPE): the log stops writing
// there, and the server goes on serving. Without a listener, the failed write's error event
// would end the process.
const broken = { out: false, err: false };
let watching = false;

function watchStandardStreams(): void {
  if (watching) return;
  watching = true;
  process.stdout.on("error", () => {
    if (broken.out) return;
    broken.out = true;
    if (!broken.err) process.stderr.write("stdout cannot be written to (its reader has gone); access lines are dropped from now on\n");
  });
  process.stderr.on("error", () => {
    broken.err = true;
  });
}

const STANDARD_SINKS: LogSinks = {
  out: (text) => {
    if (!broken.out) process.stdout.write(text);
  },
  err: (text) => {
    if (!broken.err) process.stderr.write(text);
  },
};

/** Access lines wait at most for the end of this turn of the event loop, or until this many characters are batched. */
const BATCH_CHARACTERS = 16 * 1024;

/**
 * Creates a log. Access lines of one turn of the event loop go out in one write: a write per
 * line cost the server a system call per request (see docs/benchmarks.md). Errors and notices
 * are written at once. `off` writes no access line; errors and notices still go to stderr, as text.
 */
export function createLogger(format: LogFormat, sinks: LogSinks = STANDARD_SINKS): Logger {
  if (sinks === STANDARD_SINKS) watchStandardStreams();
  let batch = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (batch === "") return;
    const text = batch;
    batch = "";
    sinks.out(text);
  };
  const json = format === "json";
  return {
    format,
    access:
      format === "off"
        ? () => {}
        : (entry) => {
            batch += json ? accessJson(entry) : accessText(entry);
            if (batch.length >= BATCH_CHARACTERS) flush();
            else if (!scheduled) {
              scheduled = true;
              setImmediate(flush);
            }
          },
    error(text, requestId, error) {
      const message = redactQuery(text);
      const detail = error === undefined ? undefined : describe(error);
      if (json) {
        sinks.err(`${JSON.stringify({ time: new Date().toISOString(), level: "error", message, requestId, error: detail })}\n`);
      } else {
        const id = requestId === undefined ? "" : ` ${requestId}`;
        sinks.err(`${new Date().toISOString()} error${id} ${message}${detail === undefined ? "" : `\n${detail}`}\n`);
      }
    },
    warn(message) {
      sinks.err(json ? `${JSON.stringify({ time: new Date().toISOString(), level: "warn", message })}\n` : `${message}\n`);
    },
    info(message) {
      sinks.out(json ? `${JSON.stringify({ time: new Date().toISOString(), level: "info", message })}\n` : `${message}\n`);
    },
    flush,
  };
}

// The request id is sane or made here, and the address an IP address: neither needs escaping
// in JSON. The method and the path are passed through JSON.stringify, whatever a runtime's parser lets in.
function accessJson(entry: AccessEntry): string {
  return (
    `{"time":"${timestamp()}","level":"info","method":${JSON.stringify(entry.method)},"path":${JSON.stringify(redactQuery(entry.path))},` +
    `"status":${entry.status},"bytes":${entry.bytes},"durationMs":${round(entry.milliseconds)},` +
    `"requestId":"${entry.requestId}","remote":${entry.remote === undefined ? "null" : `"${entry.remote}"`}}\n`
  );
}

// The request target cannot hold white space (the HTTP parser refuses it), so the line splits on spaces.
function accessText(entry: AccessEntry): string {
  return `${timestamp()} ${entry.method} ${redactQuery(entry.path)} ${entry.status} ${entry.bytes}B ${round(entry.milliseconds)}ms ${entry.remote ?? "-"} ${entry.requestId}\n`;
}

let lastMillisecond = 0;
let lastTimestamp = "";

/** The current time in ISO 8601, made once per millisecond: under load many lines share it. */
function timestamp(): string {
  const now = Date.now();
  if (now !== lastMillisecond) {
    lastMillisecond = now;
    lastTimestamp = new Date(now).toISOString();
  }
  return lastTimestamp;
}

/** Milliseconds to the microsecond. */
function round(milliseconds: number): number {
  return Math.round(milliseconds * 1000) / 1000;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}
