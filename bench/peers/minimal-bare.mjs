// The floor: users on bare node:http with none of the contract's work. An if/else router,
// JSON.stringify, and no checks at all: no id, query, media type or body is looked at twice.
//
// With CONTRACT_HEADERS=1 every answer also carries the two headers the contract adds to
// these answers, an ETag and an X-Request-Id, made the plain way (the ETag of a
// read kept per record, the id a count after a prefix): what the answer's shape alone costs the floor.
import { createServer } from "node:http";
import { announce, JSON_TYPE, PORT, SEED_USERS, send } from "./data.mjs";

const users = new Map(SEED_USERS.map((user) => [user.id, { ...user }]));
const CONTRACT_HEADERS = process.env.CONTRACT_HEADERS === "1";
const PREFIX = "3f9a1c0b22d4-";
const tags = new Map();
let count = 0;

/** send(), with an ETag and an X-Request-Id when CONTRACT_HEADERS=1. */
function answer(res, status, body, tag, name, value) {
  if (!CONTRACT_HEADERS) return send(res, status, body, name, value);
  const text = JSON.stringify(body);
  const headers = { etag: tag, "x-request-id": PREFIX + ++count, "content-type": JSON_TYPE, "content-length": Buffer.byteLength(text) };
  if (name !== undefined) headers[name] = value;
  res.writeHead(status, headers);
  res.end(text);
}

/** The ETag of a user as read: made on the first read, then kept. */
function tagOf(id) {
  let tag = tags.get(id);
  if (tag === undefined) tags.set(id, (tag = `"e-${id}"`));
  return tag;
}

const server = createServer((req, res) => {
  const url = req.url;
  if (url === "/users") {
    if (req.method === "GET") return answer(res, 200, [...users.values()], `"e-list-${users.size}"`, "x-total-count", String(users.size));
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      const user = { id: users.size + 1, ...JSON.parse(text) };
      users.set(user.id, user);
      answer(res, 201, user, `"e-${user.id}-${count}"`, "location", `/users/${user.id}`);
    });
    return;
  }
  const user = url.startsWith("/users/") ? users.get(Number(url.slice(7))) : undefined;
  if (user !== undefined) return answer(res, 200, user, tagOf(user.id));
  send(res, 404, { message: "Not found" });
});

server.listen(PORT, "127.0.0.1", () => announce(server.address().port));

/** The server, for bench/in-memory.mjs. */
export { server };
