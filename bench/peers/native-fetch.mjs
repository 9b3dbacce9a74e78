// This server's fetch handler (createFetchApp, from dist/) on the runtime's own server: Deno.serve on Deno,
// Bun.serve on Bun. The same answers as dist/main.js, without the connection's rules node:http keeps
// (docs/runtimes.md, "The runtime's own server").
import { createFetchApp } from "../../dist/index.js";
import { serveNative } from "./data.mjs";

const app = createFetchApp({ storeLimit: Number(process.env.STORE_LIMIT ?? 64 * 1024 * 1024) });
serveNative(app.fetch, "native-fetch.mjs");
