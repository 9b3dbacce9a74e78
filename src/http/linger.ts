// Lingering close: a connection refused mid-body is half-closed and drained briefly, not reset.

/** How long a connection may go on sending a refused body before it is cut, in milliseconds. */
export const LINGER_MS = 1000;

type Closable = { end: () => unknown; destroy: () => unknown; once: (event: "close", listener: () => void) => unknown };

/**
 * Makes the coming close of a connection a lingering one, as nginx and Apache do. When
 * an answer (a 413, say) goes out while the client is still sending its body, closing
 * at once leaves that body unread, and the kernel answers unread data with a reset
 * that can destroy the answer before the client reads it. Instead the server sends
 * its FIN after the answer and lets node:http read and discard what still arrives,
 * for LINGER_MS at most; nothing of it is kept.
 */
export function lingerOnClose(socket: Closable & { destroySoon?: () => void }): void {
  // node:http closes a connection after a `Connection: close` answer by calling
  // destroySoon when the socket has one; runtimes that do not keep their own way.
  if (typeof socket.destroySoon !== "function") return;
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref?.();
    socket.once("close", () => clearTimeout(timer));
  };
}
