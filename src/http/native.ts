// The runtime's own HTTP server, where there is one: Deno.serve on Deno, Bun.serve on Bun. The command
// serves through it and the fetch front end (fetch-front.ts) there, rather than through the runtime's
// node:http compatibility layer, which costs about half of what the runtime can do (docs/runtimes.md).

/** Which native server this runtime has: none on Node. */
export type NativeServerName = "Deno.serve" | "Bun.serve";

/** A native server listening: where, and how to stop it. */
export type NativeListener = {
  hostname: string;
  port: number;
  /**
   * Stops taking connections; resolves once every request in flight is answered. With `force`, cuts
   * the connections, where the server can (Bun; Deno when no shutdown has begun), and resolves at once.
   */
  stop: (force: boolean) => Promise<void>;
};

/** What a native server needs: the handler, where to listen, and how long an idle connection stays open. */
export type NativeOptions = {
  /** The handler; Deno gives it the connection's info beside the request, Bun its server (remoteOf reads either). */
  fetch: (request: Request, peer: unknown) => Response | Promise<Response>;
  port: number;
  host: string;
  /** An idle keep-alive connection is closed after this time, in ms, where the server takes a setting for it. */
  keepAliveTimeout: number;
  /** Told of an error the handler threw or rejected with, which the server answers with `500`. */
  onError: (error: unknown) => void;
};

type DenoServer = { addr: { hostname: string; port: number }; shutdown: () => Promise<void>; finished: Promise<void> };
type DenoServe = (options: Record<string, unknown>, handler: (request: Request, info: unknown) => Response | Promise<Response>) => DenoServer;
type BunServer = { hostname: string; port: number; stop: (closeActiveConnections?: boolean) => Promise<void> | void };
type BunServe = (options: Record<string, unknown>) => BunServer;

const runtime = globalThis as { Deno?: { serve?: DenoServe }; Bun?: { serve?: BunServe } };

/** The native server of this runtime, or undefined on Node. */
export function nativeServerName(): NativeServerName | undefined {
  if (typeof runtime.Bun?.serve === "function") return "Bun.serve";
  if (typeof runtime.Deno?.serve === "function") return "Deno.serve";
  return undefined;
}

/** The client's address, for the access log: Deno gives a handler the connection's info, Bun its server, which knows it. */
export function remoteOf(request: Request, peer: unknown): string | undefined {
  const given = peer as { remoteAddr?: { hostname?: string }; requestIP?: (request: Request) => { address: string } | null } | undefined;
  if (typeof given?.requestIP === "function") return given.requestIP(request)?.address;
  return given?.remoteAddr?.hostname;
}

/** Listens with the runtime's own server; a port in use rejects, as node:http's listen does. */
export async function listenNative(options: NativeOptions): Promise<NativeListener> {
  if (typeof runtime.Bun?.serve === "function") return listenBun(runtime.Bun.serve, options);
  if (typeof runtime.Deno?.serve === "function") return listenDeno(runtime.Deno.serve, options);
  throw new TypeError("This runtime has no native HTTP server; Deno.serve and Bun.serve are Deno's and Bun's");
}

function listenDeno(serve: DenoServe, options: NativeOptions): Promise<NativeListener> {
  const abort = new AbortController();
  let stopped = false;
  let shuttingDown = false;
  return new Promise((resolve, reject) => {
    let server: DenoServer | undefined;
    try {
      server = serve(
        {
          port: options.port,
          hostname: options.host,
          signal: abort.signal,
          // The command writes its own listening line. Deno tells the address before serve() returns.
          onListen: (address: { hostname: string; port: number }) => {
            resolve({
              hostname: address.hostname,
              port: address.port,
              stop: async (force) => {
                if (!force) {
                  shuttingDown = true;
                  await server!.shutdown();
                  stopped = true;
                  return;
                }
                // Aborting a server that has shut down, or is shutting down, throws in Deno where no
                // caller can catch it (BadResource), and the process would end with 1. The
                // connections a shutdown still waits on are cut when the process exits.
                if (stopped || shuttingDown) return;
                abort.abort();
                await server!.finished;
                stopped = true;
              },
            });
          },
          onError: (error: unknown) => {
            options.onError(error);
            return new Response(null, { status: 500 });
          },
        },
        options.fetch,
      );
    } catch (error) {
      reject(error);
    }
  });
}

function listenBun(serve: BunServe, options: NativeOptions): NativeListener {
  const server = serve({
    port: options.port,
    hostname: options.host,
    fetch: options.fetch,
    // Bun counts an idle connection in whole seconds, at most 255.
    idleTimeout: Math.min(255, Math.max(1, Math.ceil(options.keepAliveTimeout / 1000))),
    error: (error: unknown) => {
      options.onError(error);
      return new Response(null, { status: 500 });
    },
  });
  return {
    hostname: server.hostname,
    port: server.port,
    stop: async (force) => {
      await server.stop(force);
    },
  };
}
