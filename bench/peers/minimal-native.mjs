// The runtime's own floor: users on Deno.serve or Bun.serve with none of the contract's work, as
// minimal-bare.mjs is on node:http. An if/else router, JSON.stringify, and no checks at all.
//
// With CONTRACT_HEADERS=1 every answer also carries the headers this server adds to them (ETag,
// Vary, X-Request-Id), made the plain way: what the answer's headers alone cost the floor.
import { JSON_TYPE, SEED_USERS, serveNative } from "./data.mjs";

const users = new Map(SEED_USERS.map((user) => [user.id, { ...user }]));
const CONTRACT_HEADERS = process.env.CONTRACT_HEADERS === "1";
const PREFIX = "3f9a1c0b22d4-";
let count = 0;
const json = (status, body, headers = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: CONTRACT_HEADERS
      ? { "content-type": JSON_TYPE, etag: `"e-${body.id}"`, vary: "Origin", "x-request-id": PREFIX + ++count, ...headers }
      : { "content-type": JSON_TYPE, ...headers },
  });

async function answer(request) {
  const path = request.url.slice(request.url.indexOf("/", 8));
  if (path === "/users") {
    if (request.method === "GET") return json(200, [...users.values()], { "x-total-count": String(users.size) });
    const user = { id: users.size + 1, ...(await request.json()) };
    users.set(user.id, user);
    return json(201, user, { location: `/users/${user.id}` });
  }
  const user = path.startsWith("/users/") ? users.get(Number(path.slice(7))) : undefined;
  if (user !== undefined) return json(200, user);
  return json(404, { message: "Not found" });
}

serveNative(answer, "minimal-native.mjs");
