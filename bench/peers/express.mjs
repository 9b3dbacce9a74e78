// The users API on Express 5: its router, express.json() and res.json(); no ETag, no X-Powered-By.
import express from "express";
import {
  announce, createStore, INVALID_ID, INVALID_QUERY, page, parseId, PORT, POST_NOT_FOUND, readPage, UNSUPPORTED,
  USER_NOT_FOUND,
} from "./data.mjs";

const store = createStore();
const app = express();
// Both add headers (and an ETag costs a hash of every body) that no other peer sends.
app.disable("x-powered-by");
app.set("etag", false);

function list(req, res, map) {
  const range = readPage(req.query.offset, req.query.limit);
  if (range === undefined) return res.status(400).json(INVALID_QUERY);
  res.set("x-total-count", String(map.size)).json(page(map, range));
}

app.get("/users", (req, res) => list(req, res, store.users));
app.get("/posts", (req, res) => list(req, res, store.posts));

app.get("/users/:id", (req, res) => {
  const id = parseId(req.params.id);
  if (id === undefined) return res.status(400).json(INVALID_ID);
  const user = store.users.get(id);
  if (user === undefined) return res.status(404).json(USER_NOT_FOUND);
  res.json(user);
});

app.post("/users", express.json(), (req, res) => {
  // express.json() leaves the body undefined when the request is not JSON.
  if (req.body === undefined) return res.status(415).json(UNSUPPORTED);
  const created = store.createUser(req.body);
  if (created.status === 201) res.set("location", `/users/${created.body.id}`);
  res.status(created.status).json(created.body);
});

app.get("/posts/:id/comments", (req, res) => {
  const id = parseId(req.params.id);
  if (id === undefined) return res.status(400).json(INVALID_ID);
  const comments = store.commentsOf(id);
  if (comments === undefined) return res.status(404).json(POST_NOT_FOUND);
  res.set("x-total-count", String(comments.length)).json(comments);
});

/** The node:http server under Express, for bench/in-memory.mjs. */
export const server = app.listen(PORT, "127.0.0.1", () => announce(server.address().port));
