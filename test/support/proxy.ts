// A TCP proxy for tests: each new connection goes to the next of several servers in turn, so requests alternate between them.
import { connect, createServer, type Server, type Socket } from "node:net";

/** A listening proxy: its URL, and how to close it with every connection through it. */
export type Proxy = { url: string; close: () => Promise<void> };

/**
 * Listens on a free port of the loopback and relays each connection, byte for byte and
 * half-close for half-close, to the next of `targets` (base URLs such as http://127.0.0.1:4100).
 */
export async function alternate(targets: readonly string[]): Promise<Proxy> {
  const upstreams = targets.map((target) => new URL(target));
  const sockets = new Set<Socket>();
  let next = 0;
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const target = upstreams[next++ % upstreams.length]!;
    const upstream = connect({ host: target.hostname, port: Number(target.port), allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      // A reset on one side is a reset on the other.
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
