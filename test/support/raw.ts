// A raw HTTP/1.1 client over node:net, for requests fetch refuses to send.
import { connect, type Socket } from "node:net";

/** A response read off a raw socket. */
export type RawResponse = {
  status: number;
  headers: Record<string, string>;
  body: string;
};

/** Opens a TCP connection to the host and port of a base URL. */
export async function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/** Sends bytes as they are and reads one response (the server must close or send Content-Length). */
export async function rawRequest(url: string, bytes: string | Buffer): Promise<RawResponse> {
  const socket = await openSocket(url);
  const response = readResponse(socket);
  socket.write(bytes);
  const result = await response;
  socket.destroy();
  return result;
}

/** Reads one response from a socket: the headers, then Content-Length bytes or up to the close. */
export function readResponse(socket: Socket): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const tryParse = (ended: boolean) => {
      const end = buffer.indexOf("\r\n\r\n");
      if (end === -1) {
        if (ended) finish(new Error(`Connection closed before a response: ${JSON.stringify(buffer.toString())}`));
        return;
      }
      const [statusLine = "", ...lines] = buffer.subarray(0, end).toString("latin1").split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
      const body = buffer.subarray(end + 4);
      // A HEAD answer declares a length but sends no body; the close ends it.
      if (ended || (length !== undefined && body.length >= length)) {
        finish(undefined, {
          status: Number(statusLine.split(" ")[1]),
          headers,
          body: body.subarray(0, length).toString("utf8"),
        });
      }
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      tryParse(false);
    };
    const onEnd = () => tryParse(true);
    const finish = (error: Error | undefined, response?: RawResponse) => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("close", onEnd);
      socket.off("error", onError);
      if (error) reject(error);
      else resolve(response!);
    };
    const onError = (error: Error) => finish(error);
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("close", onEnd);
    socket.on("error", onError);
  });
}

/** Resolves when the server has closed the connection. */
export function closed(socket: Socket): Promise<void> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    socket.resume();
    socket.once("close", () => resolve());
  });
}
