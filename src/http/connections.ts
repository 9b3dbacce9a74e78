// The connections of one server: the answers each still owes, in order, and closing each once it owes none during shutdown.
import { type IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * What the server keeps of one open connection: the answers it owes, oldest first, and whether
 * it closes once it owes nothing (bad bytes followed pipelined requests).
 */
export type Connection = { owed: ServerResponse[]; closeWhenAnswered: boolean };

/** The bookkeeping of one server's connections; see trackConnections. */
export type Connections = {
  /** Every open connection, by socket. */
  all: Map<Socket, Connection>;
  /** The ServerResponse class the server makes its answers with: each tells the bookkeeping when it closes. */
  Response: typeof ServerResponse;
  /** Notes that a connection owes this answer (in the order requests arrive on it). */
  owe: (request: IncomingMessage, response: ServerResponse) => void;
  /** Starts tracking a new connection, as the server accepts it. */
  track: (socket: Socket) => Connection;
};

/**
 * The bookkeeping of one server's connections. Once shutdown has begun (`state.draining`), or
 * after bad bytes behind pipelined requests, a connection that has sent its last answer closes.
 */
export function trackConnections(state: { draining: boolean }): Connections {
  // Every open connection, with the answers it still owes in the order they are owed.
  const connections = new Map<Socket, Connection>();

  const track = (socket: Socket): Connection => {
    const connection: Connection = { owed: [], closeWhenAnswered: false };
    connections.set(socket, connection);
    socket.once("close", () => connections.delete(socket));
    return connection;
  };

  /** Told once an answer has closed: sent whole, or cut off with its connection. */
  function settled(response: OwedResponse): void {
    // An answer refused before the listener (an Expect it cannot meet) is owed by none; its
    // connection is looked up, so that it still closes once it owes nothing during shutdown.
    const connection = response.owedBy ?? connections.get(response.req.socket as Socket);
    if (connection === undefined) return;
    const owed = connection.owed;
    // Answers usually close in the order they are owed.
    if (owed[0] === response) owed.shift();
    else {
      const index = owed.indexOf(response);
      if (index !== -1) owed.splice(index, 1);
    }
    if (owed.length > 0) return;
    // Once shutdown has begun, or the connection broke behind its last request,
    // a connection that has sent its last answer goes.
    if (!state.draining && !connection.closeWhenAnswered) return;
    const socket = response.req.socket as Socket;
    if (!socket.destroyed) socket.end(() => socket.destroy());
  }

  /**
   * The answers of this instance: each tells settled() when it closes, as it emits `close`,
   * and knows the connection that owes it. Node, Deno and Bun all emit an answer's `close`
   * through its emit(). Fast path: no `close` listener is added to every answer
   * (docs/benchmarks.md, "Measurements behind fast paths in the code"). The class is made per
   * instance, for its bookkeeping; several instances in one process each have their own.
   */
  class OwedResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
    /** The connection that owes this answer, told when its request arrives. */
    owedBy: Connection | undefined = undefined;

    override emit(event: string | symbol, ...args: unknown[]): boolean {
      if (event === "close") settled(this);
      return super.emit(event, ...args);
    }
  }

  const owe = (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket as Socket;
    const connection = connections.get(socket) ?? track(socket);
    connection.owed.push(response);
    (response as OwedResponse).owedBy = connection;
  };
  return { all: connections, Response: OwedResponse as typeof ServerResponse, owe, track };
}
