// What answers that differ from one another cost bare node:http, measured by bench/in-memory.mjs:
//
//   ANSWERS=same|alternating|unique node bench/in-memory.mjs get 300000 bench/varying-answers.mjs
//
// A minimal node:http server answers every request with a header `x-id` that is the same
// every time (`same`), one of two constants (`alternating`), or a new string each time
// (`unique`, as a request id is). This is why a request id costs more in bench/in-memory.mjs,
// whose GET /users/1 answers were byte for byte the same before request ids, than its few
// lines of code (docs/benchmarks.md, "Request ids, metrics and the access log").
import { createServer } from "node:http";

const mode = process.env.ANSWERS ?? "unique";
if (!["same", "alternating", "unique"].includes(mode)) throw new Error(`Unknown ANSWERS "${mode}"; use same, alternating or unique`);
let counter = 0;

export const server = createServer((_request, response) => {
  counter++;
  const id = mode === "same" ? "3f9a1c0b22d4-1" : mode === "alternating" ? (counter % 2 === 0 ? "3f9a1c0b22d4-1" : "3f9a1c0b22d4-2") : `3f9a1c0b22d4-${counter}`;
  response.writeHead(200, ["x-id", id, "content-type", "application/json; charset=utf-8", "content-length", 2]);
  response.end("{}");
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1");
