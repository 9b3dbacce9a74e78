// What answers that differ from one another cost bare node:http, measured as bench/in-memory.mjs measures.
//
//   node bench/varying-answers.mjs [same|alternating|unique] [requests]
//
// A minimal node:http server answers every request over one in-memory connection with a
// header `x-id` that is the same every time (`same`), one of two constants (`alternating`),
// or a new string each time (`unique`, as a request id is). It prints the CPU time per
// request. This is why a request id costs more in bench/in-memory.mjs, whose GET /users/1
// answers were byte for byte the same before request ids, than its few lines of code
// (docs/benchmarks.md, "Request ids, metrics and the access log").
import { createServer } from "node:http";
import { Duplex } from "node:stream";

const [mode = "unique", count = "300000"] = process.argv.slice(2);
if (!["same", "alternating", "unique"].includes(mode)) throw new Error(`Unknown mode "${mode}"; use same, alternating or unique`);
let counter = 0;
const server = createServer((_request, response) => {
  counter++;
  const id = mode === "same" ? "3f9a1c0b22d4-1" : mode === "alternating" ? (counter % 2 === 0 ? "3f9a1c0b22d4-1" : "3f9a1c0b22d4-2") : `3f9a1c0b22d4-${counter}`;
  response.writeHead(200, ["x-id", id, "content-type", "application/json; charset=utf-8", "content-length", 2]);
  response.end("{}");
});

const BATCH = 50;
const batch = Buffer.from("GET /users/1 HTTP/1.1\r\nHost: x\r\n\r\n".repeat(BATCH));

/** Sends `total` requests over one in-memory connection, in pipelined batches; resolves once all are answered. */
function run(total) {
  return new Promise((done) => {
    let answered = 0;
    let sent = BATCH;
    const socket = new Duplex({
      read() {},
      write(chunk, _encoding, callback) {
        const text = chunk.toString("latin1");
        for (let i = text.indexOf("HTTP/1.1 "); i !== -1; i = text.indexOf("HTTP/1.1 ", i + 1)) answered++;
        if (answered >= total) done();
        else if (answered === sent) {
          sent += BATCH;
          socket.push(batch);
        }
        callback();
      },
    });
    socket.setTimeout = socket.setNoDelay = socket.setKeepAlive = () => socket;
    socket.remoteAddress = "127.0.0.1";
    socket.bytesRead = 0;
    server.emit("connection", socket);
    socket.push(batch);
  });
}

await run(20_000); // warms up the JIT; not counted
const before = process.cpuUsage();
await run(Number(count));
const used = process.cpuUsage(before);
console.log(JSON.stringify({ mode, microsPerRequest: (used.user + used.system) / Number(count) }));
process.exit(0);
