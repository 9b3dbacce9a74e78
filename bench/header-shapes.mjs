// A server that answers every request with the headers of this server's `GET /users/1`, handed
// to writeHead in one of three shapes (SHAPE): a flat [name, value, ...] list, as respond.ts
// builds it; an object; or that list made into an object per answer, as respond.ts does on Bun.
// Which shape a runtime's node:http takes fastest, raced with bench/fresh-starts.mjs:
//
//   node bench/fresh-starts.mjs 5 list="env SHAPE=list bun bench/header-shapes.mjs" \
//     object="env SHAPE=object bun bench/header-shapes.mjs" converted="env SHAPE=converted bun bench/header-shapes.mjs"
//
// On Deno, each command is `env SHAPE=... deno run --allow-env --allow-net bench/header-shapes.mjs`.
import { createServer } from "node:http";

const SHAPE = process.env.SHAPE ?? "list";
if (!["list", "object", "converted"].includes(SHAPE)) throw new Error("SHAPE is list, object or converted");
const TYPE = "application/json; charset=utf-8";
const text = JSON.stringify({ id: 1, name: "Ada Lovelace", email: "ada@example.com" });
let count = 0;

/** The list as an object, each name once: what respond.ts's headerObject makes. */
function toObject(list) {
  const headers = {};
  for (let i = 0; i < list.length; i += 2) {
    const had = headers[list[i]];
    headers[list[i]] = had === undefined ? list[i + 1] : `${had}, ${list[i + 1]}`;
  }
  return headers;
}

const server = createServer((request, response) => {
  const id = `3f9a1c0b22d4-${++count}`;
  const length = Buffer.byteLength(text);
  if (SHAPE === "object") {
    response.writeHead(200, { etag: '"e-1"', vary: "Origin", "x-request-id": id, "content-type": TYPE, "content-length": length });
  } else {
    const list = ["etag", '"e-1"', "vary", "Origin", "x-request-id", id, "content-type", TYPE, "content-length", length];
    response.writeHead(200, SHAPE === "list" ? list : toObject(list));
  }
  response.end(text);
});
server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1");
