// A thin node:http server over a fetch handler, so that the black-box suite can reach createFetchApp over a socket (TEST_TARGET=fetch).
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FetchApp } from "../../src/http/fetch-app.ts";

/** A server that hands every request to `app.fetch` and writes back what it answers, nothing more. */
export async function serveFetch(app: FetchApp): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer({ requireHostHeader: false }, (incoming, outgoing) => void bridge(app, incoming, outgoing));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

async function bridge(app: FetchApp, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const method = incoming.method ?? "GET";
  const headers = new Headers();
  for (let i = 0; i < incoming.rawHeaders.length; i += 2) headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
  // What the handler leaves unread (a body past the limit) closes the connection, as the server's own answer would.
  let unread = false;
  const framed = (incoming.headers["content-length"] ?? "0") !== "0" || incoming.headers["transfer-encoding"] !== undefined;
  // A Request cannot carry a body on GET or HEAD; the server ignores one there anyway.
  const hasBody = method !== "GET" && method !== "HEAD" && framed;
  const body = hasBody
    ? new ReadableStream<Uint8Array>({
        start(controller) {
          incoming.on("data", (chunk: Buffer) => {
            controller.enqueue(new Uint8Array(chunk));
            if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
          });
          incoming.on("end", () => controller.close());
          // A client gone mid-body fails the stream, as a hang-up fails a body read from a socket.
          incoming.on("close", () => {
            if (!incoming.complete) controller.error(new Error("The client hung up mid-body"));
          });
        },
        pull: () => void incoming.resume(),
        cancel: () => {
          unread = !incoming.complete;
          incoming.pause();
        },
      })
    : undefined;
  let response: Response;
  try {
    const init = { method, headers, body, duplex: "half" } as RequestInit;
    response = await app.fetch(new Request(`http://localhost${incoming.url ?? "/"}`, init));
  } catch {
    // A rejected fetch is a dropped connection (Prefer: fault=reset), or a request the Request class refuses.
    incoming.socket.destroy();
    return;
  }
  const list: string[] = [];
  response.headers.forEach((value, name) => list.push(name, value));
  if (unread) list.push("connection", "close");
  outgoing.writeHead(response.status, list);
  if (response.body !== null) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (!outgoing.write(chunk)) await once(outgoing, "drain");
    }
  }
  outgoing.end();
}
