// Users on Fastify 5 with none of the contract's work: its router and JSON body parser,
// reply.send, no schemas and no checks. What a user writes in twenty lines.
import Fastify from "fastify";
import { announce, JSON_TYPE, PORT, SEED_USERS } from "./data.mjs";

const users = new Map(SEED_USERS.map((user) => [user.id, { ...user }]));
const app = Fastify({ logger: false });

app.get("/users", (request, reply) => {
  reply.header("x-total-count", String(users.size)).type(JSON_TYPE).send([...users.values()]);
});

app.get("/users/:id", (request, reply) => {
  const user = users.get(Number(request.params.id));
  if (user === undefined) return reply.code(404).type(JSON_TYPE).send({ message: "Not found" });
  reply.type(JSON_TYPE).send(user);
});

app.post("/users", (request, reply) => {
  const user = { id: users.size + 1, ...request.body };
  users.set(user.id, user);
  reply.code(201).header("location", `/users/${user.id}`).type(JSON_TYPE).send(user);
});

const address = await app.listen({ port: PORT, host: "127.0.0.1" });
announce(new URL(address).port);

/** The node:http server under Fastify, for bench/in-memory.mjs. */
export const server = app.server;
