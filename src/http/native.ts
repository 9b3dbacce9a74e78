// The runtime's own HTTP server, where there is one: Deno.serve on Deno, Bun.serve on Bun. The command
// serves through it and the fetch front end (fetch-front.ts) there, rather than through the runtime's
// node:http compatibility layer, which costs about half of what the runtime can do (docs/runtimes.md).

/** Which native server this runtime has: none on Node. */
export type NativeServerName = "Deno.serve" | "Bun.serve";

/** A native server listening: where, and how to stop it. */
export type NativeListener = {
  hostname: string;
  port: number;
  /** Stops taking connections; resolves once every request in flight is answered, or at once with `force`. */
  stop: (force: boolean) => Promise<void>;
};

/** What a native server needs: the handler, where to listen, and how long an idle connection stays open. */
export type NativeOptions = {
  fetch: (request: Request) => Response | Promise<Response>;
  port: number;
  host: string;
  /** An idle keep-alive connection is closed after this time, in ms, where the server takes a setting for it. */
  keepAliveTimeout: number;
  /** Told of an error the server met outside any request (a connection that broke). */
  onError: (error: unknown) => void;
};

type DenoServer = { addr: { hostname: string; port: number }; shutdown: () => Promise<void>; finished: Promise<void> };
type DenoServe = (options: Record<string, unknown>, handler: (request: Request) => Response | Promise<Response>) => DenoServer;
type BunServer = { hostname: string; port: number; stop: (closeActiveConnections?: boolean) => Promise<void> | void };
type BunServe = (options: Record<string, unknown>) => BunServer;

const runtime = globalThis as { Deno?: { serve?: DenoServe }; Bun?: { serve?: BunServe } };

/** The native server of this runtime, or undefined on Node. */
export function nativeServerName(): NativeServerName | undefined {
  if (typeof runtime.Bun?.serve === "function") return "Bun.serve";
  if (typeof runtime.Deno?.serve === "function") return "Deno.serve";
  return undefined;
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
                // Aborting a server that has shut down already throws in Deno.
                if (force) {
                  if (!stopped) abort.abort();
                } else await server!.shutdown();
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
