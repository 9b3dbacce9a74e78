// Run on Bun and Deno by scripts/check-package.ts in a project that installed the tarball: the package by its name.
import { startServer } from "rest-reference-server";

const running = await startServer({ port: 0 });
const response = await fetch(`${running.url}/healthz`);
const body = await response.json();
await running.close();
// Which file the name resolved to tells whether the runtime ran the source or the build.
console.log(JSON.stringify({ resolved: import.meta.resolve("rest-reference-server"), status: response.status, body }));
