// This server's fetch handler (createFetchApp, from dist/) on the runtime's own server: Deno.serve on Deno,
// Bun.serve on Bun. The same answers as dist/main.js, without the connection's rules node:http keeps
// (docs/runtimes.md, "The runtime's own server").
import { createFetchApp } from "../../dist/index.js";

const app = createFetchApp({ storeLimit: Number(process.env.STORE_LIMIT ?? 64 * 1024 * 1024) });
const port = Number(process.env.PORT ?? 3000);
const listening = (bound) => console.log(`Listening on http://127.0.0.1:${bound}`);

if (typeof Deno !== "undefined") {
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: ({ port }) => listening(port) }, app.fetch);
  Deno.addSignalListener("SIGTERM", () => server.shutdown().then(() => Deno.exit(0)));
} else if (typeof Bun !== "undefined") {
  const server = Bun.serve({ hostname: "127.0.0.1", port, fetch: app.fetch });
  listening(server.port);
  process.on("SIGTERM", () => {
    server.stop(true);
    process.exit(0);
  });
} else {
  throw new Error("native-fetch.mjs runs on Deno or Bun; Node has no server of its own over fetch handlers");
}
