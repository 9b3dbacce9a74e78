// A server in a worker thread for the long reliability run: the load has its own core, and the checks stay in-process.
import { parentPort } from "node:worker_threads";
import { startServer } from "../src/http/server.ts";

const port = parentPort;
if (port === null) throw new TypeError("scripts/reliability-server.ts runs only as a worker thread");

const logged: string[] = [];
const prototypeAtStart = Object.getOwnPropertyNames(Object.prototype).sort().join();
const server = await startServer({ logError: (error, line) => logged.push(`${line}: ${String(error)}`) });
port.postMessage({ kind: "listening", url: server.url });

port.on("message", async (message: { kind: string }) => {
  if (message.kind !== "report") return;
  // Any member added to Object.prototype by a request would show here, in the server's own thread.
  const prototypeNow = Object.getOwnPropertyNames(Object.prototype).sort().join();
  await server.close();
  port.postMessage({ kind: "report", logged, prototypeChanged: prototypeNow !== prototypeAtStart });
});
