// The users API on Fastify 5: its router, its JSON body parser and its reply; no response schemas.
import Fastify from "fastify";
import {
  announce, createStore, INVALID_ID, INVALID_QUERY, JSON_TYPE, page, parseId, PORT, POST_NOT_FOUND, readPage,
  USER_NOT_FOUND,
} from "./data.mjs";

const store = createStore();
// Records may carry any members a client sent, so a response schema (which drops unknown
// members) would change the answers; replies are serialised with JSON.stringify, as ours are.
const app = Fastify({ logger: false });

function list(request, reply, map) {
  const range = readPage(request.query.offset, request.query.limit);
  if (range === undefined) return reply.code(400).type(JSON_TYPE).send(INVALID_QUERY);
  return reply.header("x-total-count", String(map.size)).type(JSON_TYPE).send(page(map, range));
}

app.get("/users", (request, reply) => list(request, reply, store.users));
app.get("/posts", (request, reply) => list(request, reply, store.posts));

app.get("/users/:id", (request, reply) => {
  const id = parseId(request.params.id);
  if (id === undefined) return reply.code(400).type(JSON_TYPE).send(INVALID_ID);
  const user = store.users.get(id);
  if (user === undefined) return reply.code(404).type(JSON_TYPE).send(USER_NOT_FOUND);
  return reply.type(JSON_TYPE).send(user);
});

app.post("/users", (request, reply) => {
  const created = store.createUser(request.body);
  if (created.status === 201) reply.header("location", `/users/${created.body.id}`);
  return reply.code(created.status).type(JSON_TYPE).send(created.body);
});

app.get("/posts/:id/comments", (request, reply) => {
  const id = parseId(request.params.id);
  if (id === undefined) return reply.code(400).type(JSON_TYPE).send(INVALID_ID);
  const comments = store.commentsOf(id);
  if (comments === undefined) return reply.code(404).type(JSON_TYPE).send(POST_NOT_FOUND);
  return reply.header("x-total-count", String(comments.length)).type(JSON_TYPE).send(comments);
});

const address = await app.listen({ port: PORT, host: "127.0.0.1" });
announce(new URL(address).port);

/** The node:http server under Fastify, for bench/in-memory.mjs. */
export const server = app.server;
