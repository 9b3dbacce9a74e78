// CPU time per request of the built server with no network: real node:http parsing and writing over an in-memory socket.
//
//   node bench/in-memory.mjs [get|list|404|post|comments] [requests] [dir holding dist/ | a peer's .mjs file]
//   CONNECTIONS=50 node bench/in-memory.mjs ...   (50 connections, one request at a time on each, as wrk sends them)
//   MIX=1 node bench/in-memory.mjs ...            (the JIT warmed on the users kinds first, as a server answering a mix is)
//
// With LOG_FORMAT=json or text in the environment, this server writes its access log to
// stdout (redirect it: `> /dev/null`), and the figure goes to stderr.
//
// The kernel's share of a request (half or more over loopback) and the noise of a shared
// machine stay out, so a change to the server's own JavaScript shows as a steady figure.
// Run it several times, alternating the builds compared, and compare the medians.
// A peer (bench/peers/*.mjs) is measured the same way through the server it exports.
import { existsSync } from "node:fs";
import { Duplex } from "node:stream";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [kind = "get", count = "100000", target = "."] = process.argv.slice(2);
const isPeer = target.endsWith(".mjs");
const api = isPeer ? await startPeer(target) : await startBuilt(target);

/** This server as built, through startServer (so its per-connection bookkeeping is counted too). */
async function startBuilt(dir) {
  // Builds before the layered layout have dist/server.js.
  const path = existsSync(resolve(dir, "dist/http/server.js")) ? "dist/http/server.js" : "dist/server.js";
  const { startServer } = await import(pathToFileURL(resolve(dir, path)).href);
  // An older build has no logFormat option, and refuses one it does not know.
  const logging = process.env.LOG_FORMAT === undefined ? {} : { logFormat: process.env.LOG_FORMAT };
  // No store budget: a build that has one would refuse the creates past it with 507, whose
  // answers cost another amount. An older build has no storeLimit option, and no budget.
  try {
    return await startServer({ port: 0, ...logging, storeLimit: Number.MAX_SAFE_INTEGER });
  } catch (error) {
    if (!(error instanceof TypeError && /has no option "storeLimit"/.test(error.message))) throw error;
    return startServer({ port: 0, ...logging });
  }
}

/** A peer, which listens on a free port as soon as it is imported and exports its node:http server. */
async function startPeer(file) {
  process.env.PORT = "0";
  const { server } = await import(pathToFileURL(resolve(file)).href);
  if (!server.listening) await new Promise((done) => server.once("listening", done));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

const REQUESTS = {
  get: "GET /users/1 HTTP/1.1\r\nHost: localhost\r\n\r\n",
  list: "GET /users HTTP/1.1\r\nHost: localhost\r\n\r\n",
  404: "GET /users/999999 HTTP/1.1\r\nHost: localhost\r\n\r\n",
  post:
    "POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 51\r\n\r\n" +
    '{"name":"Grace Hopper","email":"grace@example.com"}',
  comments: "GET /posts/1/comments HTTP/1.1\r\nHost: localhost\r\n\r\n",
};
/** The status each kind of request is answered with. */
const EXPECTED = { get: "200", list: "200", 404: "404", post: "201", comments: "200" };
/** Answers with another status than expected, by status. */
const unexpected = new Map();
/** The kind of the requests being sent now (MIX=1 sends others first). */
let kindNow = kind;
if (!(kind in REQUESTS)) throw new Error(`Unknown request kind "${kind}"; use ${Object.keys(REQUESTS).join(", ")}`);
if (process.env.MIX === "1" && kind === "list") {
  throw new Error("MIX=1 measures get, post, 404 or comments: the users its warm-up creates would make the list 20,000 long");
}
// Requests go in pipelined batches of 50 on one connection; the next batch is sent once
// every answer has come back. With CONNECTIONS=50 in the environment they go instead as
// wrk sends them: 50 connections, each sending its next request once its answer is back.
const BATCH = 50;
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 0);
let request = Buffer.from(REQUESTS[kind]);
let batch = Buffer.from(REQUESTS[kind].repeat(BATCH));

/** An in-memory connection to the server; `answered(n)` is told of the answers in each chunk written. */
function connect(answered) {
  const socket = new Duplex({
    read() {},
    write(chunk, _encoding, callback) {
      const text = chunk.toString("latin1");
      let count = 0;
      for (let i = text.indexOf("HTTP/1.1 "); i !== -1; i = text.indexOf("HTTP/1.1 ", i + 1)) {
        count++;
        // A figure is only worth comparing when every answer is the one the kind expects.
        const status = text.slice(i + 9, i + 12);
        if (status !== EXPECTED[kindNow]) unexpected.set(status, (unexpected.get(status) ?? 0) + 1);
      }
      if (count > 0) answered(count);
      callback();
    },
  });
  // The few socket methods node:http calls on a connection, as no-ops.
  socket.setTimeout = socket.setNoDelay = socket.setKeepAlive = () => socket;
  socket.remoteAddress = "127.0.0.1";
  socket.bytesRead = 0;
  api.server.emit("connection", socket);
  return socket;
}

/** Sends `total` requests; resolves once all are answered. */
function run(total) {
  return new Promise((done) => {
    let answered = 0;
    if (CONNECTIONS > 0) {
      let sent = 0;
      const sockets = Array.from({ length: CONNECTIONS }, () => {
        const socket = connect((count) => {
          answered += count;
          if (answered >= total) done();
          else if (sent < total) {
            sent++;
            socket.push(request);
          }
        });
        return socket;
      });
      for (const socket of sockets) {
        sent++;
        socket.push(request);
      }
      return;
    }
    let sent = BATCH;
    const socket = connect((count) => {
      answered += count;
      if (answered >= total) done();
      else if (answered === sent) {
        sent += BATCH;
        socket.push(batch);
      }
    });
    socket.push(batch);
  });
}

// The peers build post 1 and its 50 comments at start-up; this server gets them over HTTP.
if (kind === "comments" && !isPeer) {
  const post = await fetch(`${api.url}/posts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "t", body: "b" }),
  });
  if (post.status !== 201) throw new Error(`POST /posts -> ${post.status}`);
  for (let i = 0; i < 50; i++) {
    await fetch(`${api.url}/posts/1/comments`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ body: `comment ${i}` }),
    });
  }
}
// With MIX=1 the JIT is first warmed on the users kinds (get, list, post, 404), as in a server
// that answers a mix of requests: one kind alone lets every property access see one shape of
// object, which a real server's do not, and flatters whatever code all kinds share. Its 20,000
// POSTs stay in the store, so a list measured after them would be 20,000 users long.
if (process.env.MIX === "1") {
  const measured = [request, batch];
  for (const other of ["get", "list", "post", "404"]) {
    kindNow = other;
    request = Buffer.from(REQUESTS[other]);
    batch = Buffer.from(REQUESTS[other].repeat(BATCH));
    await run(20_000);
  }
  [request, batch] = measured;
  kindNow = kind;
}
await run(20_000); // warms up the JIT; not counted
const before = process.cpuUsage();
await run(Number(count));
const used = process.cpuUsage(before);
if (unexpected.size > 0) throw new Error(`Answers with unexpected statuses: ${JSON.stringify(Object.fromEntries(unexpected))}`);
const figure = JSON.stringify({ kind, microsPerRequest: (used.user + used.system) / Number(count) });
if (process.env.LOG_FORMAT === undefined) console.log(figure);
else console.error(figure);
process.exit(0);
