// The floor: users on bare node:http with none of the contract's work. An if/else router,
// JSON.stringify, and no checks at all: no id, query, media type or body is looked at twice.
import { createServer } from "node:http";
import { announce, PORT, SEED_USERS, send } from "./data.mjs";

const users = new Map(SEED_USERS.map((user) => [user.id, { ...user }]));

const server = createServer((req, res) => {
  const url = req.url;
  if (url === "/users") {
    if (req.method === "GET") return send(res, 200, [...users.values()], "x-total-count", String(users.size));
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      const user = { id: users.size + 1, ...JSON.parse(text) };
      users.set(user.id, user);
      send(res, 201, user, "location", `/users/${user.id}`);
    });
    return;
  }
  const user = url.startsWith("/users/") ? users.get(Number(url.slice(7))) : undefined;
  if (user !== undefined) return send(res, 200, user);
  send(res, 404, { message: "Not found" });
});

server.listen(PORT, "127.0.0.1", () => announce(server.address().port));

/** The server, for bench/in-memory.mjs. */
export { server };
