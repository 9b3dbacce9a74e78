// Connection faults: clients that hang up mid-request or mid-answer, pipeline, expect 100-continue, half-close, stall.
import { once } from "node:events";
import type { Socket } from "node:net";
import { setImmediate as nextTurn } from "node:timers/promises";
import { dial, exchange, ResponseReader, type WireResponse } from "./wire.ts";

const HOST = "Host: 127.0.0.1\r\n";
const JSON_HEADERS = `${HOST}Content-Type: application/json\r\n`;
const UPDATE = '{"name":"Ada Lovelace","email":"ada@example.com"}';

/** A small seeded generator (mulberry32), so a run of faults replays from its seed. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Ends a connection from the client's side, by a close or a reset, and waits until its handle is gone. */
async function hangUp(socket: Socket, how: "close" | "reset" = "close"): Promise<void> {
  if (how === "reset") socket.resetAndDestroy();
  else socket.destroy();
  if (!socket.closed) await once(socket, "close");
}

/** Resolves when the socket has sent its first byte back, or has closed. */
function firstData(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off("data", done);
      socket.off("close", done);
      resolve();
    };
    socket.once("data", done);
    socket.once("close", done);
  });
}

/** Reads `count` responses, or fewer if the server closes first. */
function responses(socket: Socket, count: number, reader = new ResponseReader()): Promise<WireResponse[]> {
  return new Promise((resolve, reject) => {
    const finals = () => reader.responses.filter((response) => response.status >= 200);
    const finish = () => {
      socket.off("data", onData);
      socket.off("close", finish);
      if (reader.pending > 0 && finals().length < count)
        reject(new Error(`a response was cut after ${reader.pending} bytes`));
      else resolve(finals());
    };
    const onData = (chunk: Buffer) => {
      reader.push(chunk);
      if (finals().length >= count) finish();
    };
    socket.on("data", onData);
    socket.once("close", finish);
    socket.on("error", () => undefined);
  });
}

function expectStatuses(got: WireResponse[], want: number[], fault: string): void {
  const statuses = got.map((response) => response.status);
  if (statuses.join() !== want.join())
    throw new Error(`${fault}: got ${statuses.join() || "nothing"}, wanted ${want.join()}`);
}

/** One kind of fault: opens its own connection, misbehaves, and checks what it can. */
export type Fault = { name: string; run: (url: string) => Promise<void> };

/** Every kind of connection fault the runs inject. `big` is a path whose answer is large (over 1 MB). */
export function faults(big: string): Fault[] {
  return [
    {
      name: "hang up mid-headers",
      run: async (url) => {
        const socket = await dial(url);
        socket.write(`GET /users/1 HTTP/1.1\r\n${HOST}X-Partial: `);
        await nextTurn();
        await hangUp(socket);
      },
    },
    {
      name: "hang up mid-body",
      run: async (url) => {
        const socket = await dial(url);
        socket.write(`PUT /users/1 HTTP/1.1\r\n${JSON_HEADERS}Content-Length: 100\r\n\r\n{"name":`);
        await nextTurn();
        await hangUp(socket);
      },
    },
    {
      name: "reset mid-body",
      run: async (url) => {
        const socket = await dial(url);
        socket.write(`POST /users HTTP/1.1\r\n${JSON_HEADERS}Transfer-Encoding: chunked\r\n\r\n5\r\n{"nam\r\n`);
        await nextTurn();
        await hangUp(socket, "reset");
      },
    },
    {
      name: "hang up mid-response",
      run: async (url) => {
        const socket = await dial(url);
        const first = firstData(socket);
        socket.write(`GET ${big} HTTP/1.1\r\n${HOST}\r\n`);
        await first;
        await hangUp(socket);
      },
    },
    {
      name: "stalled reader",
      run: async (url) => {
        const socket = await dial(url);
        socket.pause();
        socket.write(`GET ${big} HTTP/1.1\r\n${HOST}\r\n`);
        // The client reads nothing while the server writes over 1 MB, then leaves.
        for (let turn = 0; turn < 20; turn++) await nextTurn();
        await hangUp(socket, "reset");
      },
    },
    {
      name: "reset right after the request",
      run: async (url) => {
        const socket = await dial(url);
        socket.write(`PUT /users/1 HTTP/1.1\r\n${JSON_HEADERS}Content-Length: ${UPDATE.length}\r\n\r\n${UPDATE}`);
        await hangUp(socket, "reset");
      },
    },
    {
      name: "pipelined requests",
      run: async (url) => {
        const socket = await dial(url);
        const read = responses(socket, 5);
        socket.write(
          `GET /healthz HTTP/1.1\r\n${HOST}\r\n` +
            `PUT /users/1 HTTP/1.1\r\n${JSON_HEADERS}Content-Length: ${UPDATE.length}\r\n\r\n${UPDATE}` +
            `GET /users/1 HTTP/1.1\r\n${HOST}\r\n` +
            `GET /nowhere HTTP/1.1\r\n${HOST}\r\n` +
            `PUT /users/1 HTTP/1.1\r\n${JSON_HEADERS}Content-Length: 1\r\n\r\n{`,
        );
        const got = await read;
        await hangUp(socket);
        expectStatuses(got, [200, 200, 200, 404, 400], "pipelined requests");
      },
    },
    {
      name: "Expect: 100-continue",
      run: async (url) => {
        const socket = await dial(url);
        const reader = new ResponseReader();
        const interim = new Promise<void>((resolve) => {
          const onData = (chunk: Buffer) => {
            if (reader.push(chunk).some((response) => response.status === 100)) {
              socket.off("data", onData);
              resolve();
            }
          };
          socket.on("data", onData);
        });
        socket.write(
          `PUT /users/1 HTTP/1.1\r\n${JSON_HEADERS}Content-Length: ${UPDATE.length}\r\nExpect: 100-continue\r\n\r\n`,
        );
        await interim;
        const final = responses(socket, 1, reader);
        socket.write(UPDATE);
        const got = await final;
        await hangUp(socket);
        expectStatuses(got, [200], "Expect: 100-continue");
      },
    },
    {
      name: "half-close after the request",
      run: async (url) => {
        const socket = await dial(url);
        const read = responses(socket, 2);
        socket.end(`GET /users/1 HTTP/1.1\r\n${HOST}\r\nGET /healthz HTTP/1.1\r\n${HOST}\r\n`);
        const got = await read;
        await hangUp(socket);
        expectStatuses(got, [200, 200], "half-close after the request");
      },
    },
    {
      name: "half-close mid-headers",
      run: async (url) => {
        const socket = await dial(url);
        const read = responses(socket, 1);
        socket.end(`GET /users/1 HTTP/1.1\r\n${HOST}X-Cut: yes`);
        const got = await read;
        await hangUp(socket);
        expectStatuses(got, [400], "half-close mid-headers");
      },
    },
    {
      name: "connect and leave",
      run: async (url) => {
        const socket = await dial(url);
        await hangUp(socket);
      },
    },
  ];
}

/**
 * Adds `count` users of 50 kB each, so that GET /users is larger than the socket
 * buffers hold; each on its own connection, closed after the answer.
 */
export async function addLargeUsers(url: string, count: number): Promise<void> {
  const body = JSON.stringify({ name: "n", email: "n@example.com", bio: "b".repeat(50_000) });
  for (let i = 0; i < count; i++) {
    const head = `POST /users HTTP/1.1\r\n${JSON_HEADERS}Connection: close\r\nContent-Length: ${body.length}\r\n\r\n`;
    const request = head + body;
    const outcome = await exchange(url, request);
    if (outcome.responses[0]?.status !== 201)
      throw new Error(`POST /users -> ${outcome.responses[0]?.status ?? "no answer"}`);
  }
}

/**
 * Waits until the server has taken in every connection the faults opened and closed
 * them all. A client can leave before the server accepts its connection; connections
 * are accepted in order, so once one opened now is answered, every earlier one is in.
 */
export async function settle(url: string, counter: { idle: () => Promise<void> }): Promise<void> {
  const socket = await dial(url);
  const answered = responses(socket, 1);
  socket.write(`GET /healthz HTTP/1.1\r\n${HOST}Connection: close\r\n\r\n`);
  const [response] = await answered;
  await hangUp(socket);
  if (response?.status !== 200) throw new Error(`GET /healthz -> ${response?.status ?? "no answer"}`);
  await counter.idle();
}

/** Figures of a fault run. */
export type FaultStats = { connections: number; byFault: Record<string, number> };

/**
 * Injects `connections` faults, `concurrency` at a time, drawn from `seed`;
 * throws at the first fault whose connection was answered wrongly.
 */
export async function runFaults(
  url: string,
  options: { seed: number; connections: number; concurrency: number; big: string },
): Promise<FaultStats> {
  const kinds = faults(options.big);
  const next = random(options.seed);
  const stats: FaultStats = { connections: 0, byFault: {} };
  let started = 0;
  const lane = async () => {
    while (started < options.connections) {
      started++;
      const fault = kinds[Math.floor(next() * kinds.length)]!;
      await fault.run(url);
      stats.connections++;
      stats.byFault[fault.name] = (stats.byFault[fault.name] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  return stats;
}
