// The users API on Hono 4 served by the runtime's own server (Deno.serve, Bun.serve), sending the
// headers this server sends (ETag, Vary: Origin, X-Request-Id, the JSON type with its charset),
// made the plain way: the same work on the wire, with Hono's router, c.req.json() and c.json().
import { Hono } from "hono";
import {
  createStore, INVALID_ID, INVALID_JSON, INVALID_QUERY, JSON_TYPE, page, parseId, readPage, serveNative, UNSUPPORTED, USER_NOT_FOUND,
} from "./data.mjs";

const store = createStore();
const app = new Hono();
const PREFIX = "3f9a1c0b22d4-";
let count = 0;
const tags = new Map();

/** The headers of every answer: the type, Vary, a request id; and those a route adds. */
function headers(extra) {
  return { "content-type": JSON_TYPE, vary: "Origin", "x-request-id": PREFIX + ++count, ...extra };
}

/** The ETag of a record as read: made on the first read, then kept, as this server keeps a record's view. */
function tagOf(id) {
  let tag = tags.get(id);
  if (tag === undefined) tags.set(id, (tag = `"e-${id}"`));
  return tag;
}

app.get("/users", (c) => {
  const range = readPage(c.req.query("offset"), c.req.query("limit"));
  if (range === undefined) return c.json(INVALID_QUERY, 400, headers());
  return c.json(page(store.users, range), 200, headers({ "x-total-count": String(store.users.size) }));
});

app.get("/users/:id", (c) => {
  const id = parseId(c.req.param("id"));
  if (id === undefined) return c.json(INVALID_ID, 400, headers());
  const user = store.users.get(id);
  return user === undefined ? c.json(USER_NOT_FOUND, 404, headers()) : c.json(user, 200, headers({ etag: tagOf(id) }));
});

app.post("/users", async (c) => {
  if (!/^application\/json\s*(;|$)/i.test(c.req.header("content-type") ?? "")) return c.json(UNSUPPORTED, 415, headers());
  let body;
  try {
    body = await c.req.json();
  } catch {
    return c.json(INVALID_JSON, 400, headers());
  }
  const created = store.createUser(body);
  const extra = created.status === 201 ? { location: `/users/${created.body.id}`, etag: tagOf(created.body.id) } : {};
  return c.json(created.body, created.status, headers(extra));
});

serveNative(app.fetch, "hono-native.mjs");
