// The connections of one server: the answers each still owes, in order, and closing each once it owes none during shutdown.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * What the server keeps of one open connection: the answers it may still owe, oldest first
 * (those already closed are dropped as it goes, so an idle connection holds at most its last
 * answer), and whether it closes once it owes nothing (bad bytes followed pipelined requests).
 */
export type Connection = { owed: ServerResponse[]; closeWhenAnswered: boolean };

/** The bookkeeping of one server's connections; see trackConnections. */
export type Connections = {
  /** Every open connection, by socket. */
  all: Map<Socket, Connection>;
  /** Notes that a connection owes this answer (in the order requests arrive on it). */
  owe: (request: IncomingMessage, response: ServerResponse) => void;
  /** The answers a connection still owes, oldest first. */
  pending: (connection: Connection) => ServerResponse[];
  /** Closes a connection once it has sent every answer it owes (bad bytes came behind them). */
  closeWhenAnswered: (socket: Socket, connection: Connection) => void;
  /** Shutdown has begun: each connection closes once it has sent every answer it owes. */
  drain: () => void;
  /** Resolves once every answer that has ended has also been sent, or cut off with its connection. */
  sent: () => Promise<void>;
  /** Starts tracking a new connection, as the server accepts it. */
  track: (socket: Socket) => Connection;
};

/**
 * The bookkeeping of one server's connections. Once shutdown has begun (`state.draining`), or
 * after bad bytes behind pipelined requests, a connection that has sent its last answer closes.
 *
 * Fast path: while neither has happened, an answer gets no listener and no subclass; a
 * connection's list is trimmed of the answers already closed (`destroyed`, which Node, Deno and
 * Bun all set once an answer has closed) when the next one is owed. Only then are the answers
 * still owed told to report their `close` (docs/benchmarks.md, "Measurements behind fast paths in the code").
 */
export function trackConnections(state: { draining: boolean }): Connections {
  // Every open connection, with the answers it still owes in the order they are owed.
  const connections = new Map<Socket, Connection>();
  // The answers already told to report their `close`, so none is told twice.
  const watched = new WeakSet<ServerResponse>();

  const track = (socket: Socket): Connection => {
    const connection: Connection = { owed: [], closeWhenAnswered: false };
    connections.set(socket, connection);
    socket.once("close", () => connections.delete(socket));
    return connection;
  };

  /** The answers a connection still owes: its list, trimmed of those that have closed. */
  const pending = (connection: Connection): ServerResponse[] => {
    const owed = connection.owed;
    // Keep-alive answers close in order: usually only the front is trimmed, in one cut however
    // many pipelined answers closed, so a long line costs each answer a step.
    let closed = 0;
    while (closed < owed.length && owed[closed]!.destroyed) closed++;
    if (closed > 0) owed.splice(0, closed);
    if (owed.some((response) => response.destroyed)) connection.owed = owed.filter((response) => !response.destroyed);
    return connection.owed;
  };

  /** Has each answer a connection still owes report its `close`, and closes it now if it owes none. */
  const watch = (socket: Socket, connection: Connection): void => {
    const owed = pending(connection);
    if (owed.length === 0) return closeSocket(socket);
    for (const response of owed) {
      if (watched.has(response)) continue;
      watched.add(response);
      response.once("close", () => settled(socket, connection));
    }
  };

  /** Told once an answer of a watched connection has closed: sent whole, or cut off with its connection. */
  function settled(socket: Socket, connection: Connection): void {
    if (pending(connection).length > 0) return;
    // Once shutdown has begun, or the connection broke behind its last request,
    // a connection that has sent its last answer goes.
    if (state.draining || connection.closeWhenAnswered) closeSocket(socket);
  }

  const owe = (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket as Socket;
    const connection = connections.get(socket) ?? track(socket);
    if (connection.owed.length > 0 && connection.owed[0]!.destroyed) pending(connection);
    connection.owed.push(response);
    if (state.draining || connection.closeWhenAnswered) watch(socket, connection);
  };

  const closeWhenAnswered = (socket: Socket, connection: Connection) => {
    connection.closeWhenAnswered = true;
    watch(socket, connection);
  };

  // A connection that owes nothing is left to server.close(), which closes the idle ones, and
  // to its next request's answer, which carries `Connection: close`.
  const drain = () => {
    for (const [socket, connection] of connections) if (pending(connection).length > 0) watch(socket, connection);
  };

  const sent = async () => {
    const ended = [...connections.values()].flatMap((connection) => pending(connection).filter((response) => response.writableEnded));
    await Promise.all(ended.map((response) => new Promise((resolve) => (response.destroyed ? resolve(undefined) : response.once("close", resolve)))));
  };

  return { all: connections, owe, pending, closeWhenAnswered, drain, sent, track };
}

function closeSocket(socket: Socket): void {
  if (!socket.destroyed) socket.end(() => socket.destroy());
}
