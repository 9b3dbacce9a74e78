// The ceiling: the users API on bare node:http with an if/else router and nothing else in the way.
import { createServer } from "node:http";
import {
  announce, createStore, INVALID_ID, INVALID_JSON, INVALID_QUERY, page, parseId, PORT,
  POST_NOT_FOUND, readPage, ROUTE_NOT_FOUND, send, UNSUPPORTED, USER_NOT_FOUND,
} from "./data.mjs";

const store = createStore();

function list(res, search, map) {
  const query = new URLSearchParams(search);
  const range = readPage(query.get("offset") ?? undefined, query.get("limit") ?? undefined);
  if (range === undefined) return send(res, 400, INVALID_QUERY);
  send(res, 200, page(map, range), "x-total-count", String(map.size));
}

function createUser(req, res) {
  if (!/^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? "")) return send(res, 415, UNSUPPORTED);
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(res, 400, INVALID_JSON);
    }
    const created = store.createUser(body);
    if (created.status !== 201) return send(res, created.status, created.body);
    send(res, 201, created.body, "location", `/users/${created.body.id}`);
  });
}

const server = createServer((req, res) => {
  const url = req.url;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const search = q === -1 ? "" : url.slice(q + 1);
  const method = req.method;
  if (path === "/users") {
    if (method === "GET") return list(res, search, store.users);
    if (method === "POST") return createUser(req, res);
  } else if (path.startsWith("/users/")) {
    const id = parseId(path.slice(7));
    if (id === undefined) return send(res, 400, INVALID_ID);
    const user = store.users.get(id);
    if (method === "GET") return user === undefined ? send(res, 404, USER_NOT_FOUND) : send(res, 200, user);
  } else if (path === "/posts") {
    if (method === "GET") return list(res, search, store.posts);
  } else if (path.startsWith("/posts/") && path.endsWith("/comments")) {
    const id = parseId(path.slice(7, -9));
    if (id === undefined) return send(res, 400, INVALID_ID);
    const comments = store.commentsOf(id);
    if (comments === undefined) return send(res, 404, POST_NOT_FOUND);
    return send(res, 200, comments, "x-total-count", String(comments.length));
  }
  send(res, 404, ROUTE_NOT_FOUND);
});

server.listen(PORT, "127.0.0.1", () => announce(server.address().port));

/** The server, for bench/in-memory.mjs. */
export { server };
