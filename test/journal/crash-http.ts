// One keep-alive connection per crash-test client: a request at a time, its answer read whole or reported as lost.
import { Agent, request } from "node:http";

/** An answer read to its end. */
export type Answer = {
  status: number;
  etag: string | undefined;
  total: string | undefined;
  body: unknown;
};

/** A client's connection to the server. */
export type Connection = {
  /** Sends one request; rejects when no whole answer came back (the server was killed, or it timed out). */
  send: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;
  close: () => void;
};

// Far longer than any answer takes; only a server that hangs reaches it, and that fails the run.
const TIMEOUT_MS = 30_000;

/** Opens a connection to `url`: one socket, kept alive between requests, as a real client would. */
export function connect(url: string): Connection {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(url);
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const sent = text === undefined ? headers : { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers };
      const outgoing = request({ host: hostname, port, method, path, agent, headers: sent, timeout: TIMEOUT_MS }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", reject);
        // An answer whose body was cut short is no answer: its write's fate is unknown.
        incoming.on("close", () => {
          if (!incoming.complete) reject(new Error(`${method} ${path}: the answer (${incoming.statusCode}) was cut short`));
        });
        incoming.on("end", () => {
          const raw = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown;
          try {
            parsed = raw === "" ? undefined : JSON.parse(raw);
          } catch {
            reject(new Error(`${method} ${path}: the answer is not JSON: ${raw.slice(0, 200)}`));
            return;
          }
          const header = (name: string) => {
            const value = incoming.headers[name];
            return Array.isArray(value) ? value.join(", ") : value;
          };
          resolve({ status: incoming.statusCode!, etag: header("etag"), total: header("x-total-count"), body: parsed });
        });
      });
      outgoing.on("timeout", () => outgoing.destroy(new Error(`${method} ${path}: no answer in ${TIMEOUT_MS} ms`)));
      outgoing.on("error", reject);
      outgoing.end(text);
    });
  return { send, close: () => agent.destroy() };
}
