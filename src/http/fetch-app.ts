// createFetchApp: the API as a WHATWG fetch handler, answered through the same steps as a socket's request, with no socket.
import { APP_OPTIONS, type AppOptions, createFetchApi } from "./app.ts";
import { refuseUnknownOptions } from "../api/options.ts";
import type { Snapshot } from "../store/records.ts";

/** The API in one process, for a test or a runtime's own server: `Deno.serve(app.fetch)`, `Bun.serve({ fetch: app.fetch })`. */
export type FetchApp = {
  /**
   * Answers a request as a server on a socket would: the same status, headers and body bytes,
   * without `Date` or the connection's headers. Its URL's host is the request's `Host`, checked
   * like any (`http://localhost/users/1`). Rejects, as a client's fetch does, when the request
   * asked for a dropped connection (`Prefer: fault=reset`, with `control`).
   */
  fetch: (request: Request) => Promise<Response>;
  /** Puts every collection back to the starting records (the seed, or the two seeded users); id sequences start again. */
  reset: () => Promise<void>;
  /** A deep copy of every record held, by collection, in creation order. */
  snapshot: () => Promise<Snapshot>;
  /** Lets go of the data; requests after it get 503 SHUTTING_DOWN. */
  close: () => Promise<void>;
};

/**
 * The API as a fetch handler over its own fresh data, with createApp's options (`seed`,
 * `resources`, `authTokens`, `control`, `delay`, ...). Two apps never share records.
 */
export function createFetchApp(options: AppOptions = {}): FetchApp {
  refuseUnknownOptions(options, APP_OPTIONS, "createFetchApp");
  let closed = false;
  const isDraining = options.isDraining;
  // The same steps as a socket's request, from a Request to a Response (fetch-front.ts).
  const api = createFetchApi({ ...options, isDraining: () => closed || (isDraining?.() ?? false) });
  const { store } = api.data;
  return {
    // A promise always, as a client's fetch gives; a throw becomes a rejection.
    fetch: async (request) => api.fetch(request),
    reset: () => store.reset(),
    snapshot: () => store.snapshot(),
    close: async () => {
      closed = true;
      // The answers still owed are broken off, as closing a server cuts its connections.
      api.abortAll(new TypeError("fetch failed", { cause: new Error("The app was closed before it answered") }));
      await store.close();
    },
  };
}
