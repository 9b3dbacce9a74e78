// startNativeServer: startServer's instance served by the runtime's own server (native.ts) through
// the fetch front end, on Deno and Bun. The time-outs, the shutdown and the answers to bad bytes that
// startServer's node:http server gives are the native server's own here (docs/runtimes.md).
import { createFetchApi } from "./app.ts";
import { wasBrokenOff } from "./fetch-front.ts";
import { refuseUnknownOptions } from "../api/options.ts";
import { listenNative, nativeServerName, type NativeServerName, remoteOf } from "./native.ts";
import { openInstance, SERVER_OPTIONS, type ServerOptions } from "./server.ts";
import type { Snapshot } from "../store/records.ts";

/** A listening instance on the runtime's own server: where it is, what it holds, and how to stop it. */
export type NativeRunningServer = {
  /** The base URL, such as `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  /** Which server answers: `Deno.serve` or `Bun.serve`. */
  serverName: NativeServerName;
  reset: () => Promise<void>;
  snapshot: () => Promise<Snapshot>;
  /** Stops accepting, lets in-flight requests finish until the shutdown time-out, and resolves once the data is kept. */
  close: () => Promise<void>;
};

/** startServer on Deno.serve or Bun.serve; a TypeError on Node, which has neither. */
export async function startNativeServer(options: ServerOptions = {}): Promise<NativeRunningServer> {
  refuseUnknownOptions(options, SERVER_OPTIONS, "startNativeServer");
  const serverName = nativeServerName();
  if (serverName === undefined) throw new TypeError("startNativeServer needs Deno or Bun; on Node, use startServer");
  const instance = await openInstance(options);
  const { data, logger, state, settings } = instance;
  const { store } = data;
  try {
    const api = createFetchApi(instance.appOptions, data, { logger, metrics: instance.metrics, stallTimeout: settings.requestTimeout, place: "native", remoteOf });
    const listener = await listenNative({
      fetch: api.fetch,
      port: settings.port,
      host: settings.host,
      keepAliveTimeout: settings.keepAliveTimeout,
      // A handler fails on purpose when its exchange was broken off; anything else is a fault to report.
      onError: (error) => {
        if (!wasBrokenOff(error)) logger.error("The native server's handler failed", "-", error);
      },
    });
    let closing: Promise<void> | undefined;
    const shutdown = async () => {
      // New requests get 503 SHUTTING_DOWN; those in flight are answered until the deadline, then cut:
      // by Bun's server, or, on Deno, whose server cannot cut them then, as the process exits (native.ts).
      state.draining = true;
      let deadline: ReturnType<typeof setTimeout> | undefined;
      const cut = new Promise<void>((resolve) => {
        deadline = setTimeout(resolve, settings.shutdownTimeout);
      });
      await Promise.race([listener.stop(false), cut]);
      clearTimeout(deadline);
      await listener.stop(true);
      try {
        await store.close();
      } finally {
        logger.flush();
      }
    };
    const host = listener.hostname.includes(":") ? `[${listener.hostname}]` : listener.hostname;
    return {
      url: `http://${host}:${listener.port}`,
      port: listener.port,
      serverName,
      reset: store.reset,
      snapshot: store.snapshot,
      close: () => (closing ??= shutdown()),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
