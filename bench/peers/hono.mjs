// The users API on Hono 4 served by @hono/node-server: its router, c.req.json() and c.json().
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import {
  announce, createStore, INVALID_ID, INVALID_JSON, INVALID_QUERY, JSON_TYPE, page, parseId, PORT, POST_NOT_FOUND,
  readPage, UNSUPPORTED, USER_NOT_FOUND,
} from "./data.mjs";

const store = createStore();
const app = new Hono();
// c.json() alone sends `application/json`; the server under test and the other peers add the charset.
const TYPE = { "content-type": JSON_TYPE };

function list(c, map) {
  const range = readPage(c.req.query("offset"), c.req.query("limit"));
  if (range === undefined) return c.json(INVALID_QUERY, 400, TYPE);
  return c.json(page(map, range), 200, { ...TYPE, "x-total-count": String(map.size) });
}

app.get("/users", (c) => list(c, store.users));
app.get("/posts", (c) => list(c, store.posts));

app.get("/users/:id", (c) => {
  const id = parseId(c.req.param("id"));
  if (id === undefined) return c.json(INVALID_ID, 400, TYPE);
  const user = store.users.get(id);
  return user === undefined ? c.json(USER_NOT_FOUND, 404, TYPE) : c.json(user, 200, TYPE);
});

app.post("/users", async (c) => {
  if (!/^application\/json\s*(;|$)/i.test(c.req.header("content-type") ?? "")) return c.json(UNSUPPORTED, 415, TYPE);
  let body;
  try {
    body = await c.req.json();
  } catch {
    return c.json(INVALID_JSON, 400, TYPE);
  }
  const created = store.createUser(body);
  const headers = created.status === 201 ? { ...TYPE, location: `/users/${created.body.id}` } : TYPE;
  return c.json(created.body, created.status, headers);
});

app.get("/posts/:id/comments", (c) => {
  const id = parseId(c.req.param("id"));
  if (id === undefined) return c.json(INVALID_ID, 400, TYPE);
  const comments = store.commentsOf(id);
  if (comments === undefined) return c.json(POST_NOT_FOUND, 404, TYPE);
  return c.json(comments, 200, { ...TYPE, "x-total-count": String(comments.length) });
});

/** The node:http server under Hono, for bench/in-memory.mjs. */
export const server = serve({ fetch: app.fetch, port: PORT, hostname: "127.0.0.1" }, (info) => announce(info.port));
