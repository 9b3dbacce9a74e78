// SIGTERM under load: the real entry point, many keep-alive clients, and every answer checked whole.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { readListeningUrl } from "../support/target.ts";
import { dial, ResponseReader, type WireResponse } from "./wire.ts";
import { runtimePath } from "../../scripts/install-runtimes.ts";

/** How to start the server on each runtime, from the project's root (contract 8). */
export const RUNTIMES: Record<string, { command: string; args: string[] }> = {
  node: { command: process.execPath, args: ["--import", "tsx", "src/main.ts"] },
  // The project's own Deno and Bun (runtimes/, see scripts/install-runtimes.ts), else those on PATH.
  deno: { command: runtimePath("deno") ?? "deno", args: ["run", "--allow-net", "--allow-env", "src/main.ts"] },
  bun: { command: runtimePath("bun") ?? "bun", args: ["src/main.ts"] },
};

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Options of shutdownUnderLoad. */
export type ShutdownOptions = {
  command: string;
  args: string[];
  /** Keep-alive clients sending requests one after another. */
  clients: number;
  /** Whole answers to wait for before SIGTERM is sent. */
  answersBeforeSignal: number;
};

/** What the clients saw, and how the process ended. */
export type ShutdownReport = {
  requests: number;
  /** 200 or 201 with the whole body. */
  completed: number;
  /** 503 SHUTTING_DOWN with `Connection: close`. */
  refusedWith503: number;
  /** Connections closed or reset before any byte of an answer. */
  closedBeforeAnswer: number;
  /** New connections refused once the server stopped listening. */
  connectRefused: number;
  /** Answers cut part-way, or wrong in any other way: each is a failure. */
  failures: string[];
  exitCode: number | null;
  exitSignal: string | null;
  /** Milliseconds from SIGTERM to the process's exit. */
  msToExit: number;
};

const JSON_HEADERS = "Host: 127.0.0.1\r\nContent-Type: application/json\r\n";
const USER = '{"name":"Load","email":"load@example.com"}';

/** The requests a client cycles through: reads, creates and updates, one body sent in two writes. */
const REQUESTS: Array<{ parts: string[]; ok: number }> = [
  { parts: ["GET /users/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"], ok: 200 },
  { parts: [`POST /users HTTP/1.1\r\n${JSON_HEADERS}Content-Length: ${USER.length}\r\n\r\n${USER}`], ok: 201 },
  { parts: ["GET /users?limit=5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"], ok: 200 },
  { parts: [`PUT /users/2 HTTP/1.1\r\n${JSON_HEADERS}Content-Length: ${USER.length}\r\n\r\n`, USER], ok: 200 },
  {
    parts: [`POST /posts HTTP/1.1\r\n${JSON_HEADERS}Content-Length: 25\r\n\r\n`, '{"title":"t","body":"b"}\n'],
    ok: 201,
  },
  // Headers in two parts: a connection caught half-way through them at SIGTERM is not idle,
  // so its request is read whole and answered, with 503.
  { parts: ["GET /users/2 HTTP/1.1\r\nHost: 127.0.0.1\r\n", "Accept: application/json\r\n\r\n"], ok: 200 },
];

/** Starts the command with PORT=0, loads it, sends SIGTERM, and reports what every client saw. */
export async function shutdownUnderLoad(options: ShutdownOptions): Promise<ShutdownReport> {
  const child = spawn(options.command, options.args, {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    return await loadAndStop(child, options);
  } finally {
    // A run that failed part-way leaves no process behind.
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

async function loadAndStop(child: ChildProcess, options: ShutdownOptions): Promise<ShutdownReport> {
  const exited = once(child, "exit") as Promise<[number | null, string | null]>;
  const url = await readListeningUrl(child);
  const report: ShutdownReport = {
    requests: 0,
    completed: 0,
    refusedWith503: 0,
    closedBeforeAnswer: 0,
    connectRefused: 0,
    failures: [],
    exitCode: null,
    exitSignal: null,
    msToExit: 0,
  };
  let signalled: () => void = () => undefined;
  const answersReached = new Promise<void>((resolve) => (signalled = resolve));
  const clients = Array.from({ length: options.clients }, (_, index) =>
    runClient(url, index, report, () => {
      if (report.completed >= options.answersBeforeSignal) signalled();
    }),
  );

  await answersReached;
  const sentAt = Date.now();
  child.kill("SIGTERM");
  const [code, signal] = await exited;
  report.msToExit = Date.now() - sentAt;
  report.exitCode = code;
  report.exitSignal = signal;
  await Promise.all(clients);
  return report;
}

/**
 * One client: keep-alive requests until a new connection is refused, checking each answer.
 * Odd clients pipeline two requests at a time, so shutdown can begin between a request
 * in flight and the next one already sent.
 */
async function runClient(url: string, index: number, report: ShutdownReport, onAnswer: () => void): Promise<void> {
  let turn = index;
  const batch = index % 2 === 1 ? 2 : 1;
  // Every third client is slow: the rest of its last request follows 5 ms later.
  const pause = index % 3 === 2 ? 5 : 0;
  for (;;) {
    let socket: Socket;
    try {
      socket = await dial(url);
    } catch {
      // The server has stopped listening: this client is done.
      report.connectRefused++;
      return;
    }
    // Resets are expected and classified below; none may go unhandled.
    socket.on("error", () => undefined);
    for (let open = true; open;) {
      const requests = Array.from({ length: batch }, () => REQUESTS[turn++ % REQUESTS.length]!);
      report.requests += batch;
      const outcome = await ask(
        socket,
        requests.map((request) => request.parts),
        { count: batch, pause },
      );
      for (const [position, response] of outcome.responses.entries()) {
        const request = requests[position]!;
        const close = response.headers["connection"] === "close";
        if (response.status === request.ok) {
          report.completed++;
          onAnswer();
        } else if (response.status === 503) {
          const code = (JSON.parse(response.body.toString("utf8")) as { code?: string }).code;
          if (!close || code !== "SHUTTING_DOWN")
            report.failures.push(`a 503 came without Connection: close, or with ${code}`);
          else report.refusedWith503++;
        } else {
          const line = request.parts[0]!.split("\r\n")[0];
          report.failures.push(`${line} -> ${response.status} ${response.body.toString("utf8").slice(0, 200)}`);
        }
        if (close) open = false;
      }
      if (outcome.responses.length < batch) {
        if (outcome.partial > 0) report.failures.push(`an answer was cut after ${outcome.partial} bytes`);
        else report.closedBeforeAnswer += batch - outcome.responses.length;
        open = false;
      }
    }
    socket.destroy();
  }
}

type Outcome = { responses: WireResponse[]; partial: number };

/**
 * Sends requests at once (the last one's rest after `pause` ms) and reads `count`
 * answers, or as many as came before the connection ended.
 */
function ask(socket: Socket, requests: string[][], options: { count: number; pause: number }): Promise<Outcome> {
  const { count, pause } = options;
  return new Promise((resolve) => {
    const reader = new ResponseReader();
    const finish = () => {
      socket.off("data", onData);
      socket.off("close", finish);
      socket.off("error", finish);
      const responses = reader.responses.filter((response) => response.status >= 200);
      resolve({ responses, partial: responses.length < count ? reader.pending : 0 });
    };
    const onData = (chunk: Buffer) => {
      reader.push(chunk);
      if (reader.responses.filter((response) => response.status >= 200).length >= count) finish();
    };
    socket.on("data", onData);
    socket.once("close", finish);
    socket.once("error", finish);
    if (socket.destroyed || !socket.writable) return finish();
    // Every request whole but the last one's body, which follows a moment later,
    // so shutdown can begin between a request's headers and its body.
    const last = requests.at(-1)!;
    socket.write([...requests.slice(0, -1).map((parts) => parts.join("")), last[0]!].join(""));
    const rest = last.slice(1).join("");
    if (rest !== "") setTimeout(() => socket.writable && socket.write(rest), pause);
  });
}
