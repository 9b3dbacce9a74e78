// The data every peer serves: the same users, posts and comments as the server under test, held in Maps.

/** The two users every instance starts with, as the server under test seeds them. */
export const SEED_USERS = [
  { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
  { id: 2, name: "Alan Turing", email: "alan@example.com" },
];

const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Reads a whole number from the environment, or the fallback. */
function count(name, fallback) {
  const text = process.env[name];
  return text === undefined || text === "" ? fallback : Number(text);
}

/**
 * Builds the store. Post 1 has LIST_COMMENTS comments (ids 1..50); OTHER_COMMENTS more
 * are spread over further posts, 100 a post, as the benchmark creates them on the server
 * under test. USERS and POSTS fill the collections for the list-size measurements.
 */
export function createStore() {
  const users = new Map(SEED_USERS.map((user) => [user.id, { ...user }]));
  const posts = new Map();
  const comments = new Map();
  // A per-post index of comment ids: a post's list costs time in proportion to that list.
  const commentsByPost = new Map();
  const createdAt = new Date().toISOString();

  const addPost = (id) => posts.set(id, { id, title: "t", body: "b", createdAt });
  const addComment = (postId, body) => {
    const id = comments.size + 1;
    comments.set(id, { id, postId, body, createdAt });
    let ids = commentsByPost.get(postId);
    if (ids === undefined) commentsByPost.set(postId, (ids = []));
    ids.push(id);
  };

  const listComments = count("LIST_COMMENTS", 50);
  const otherComments = count("OTHER_COMMENTS", 0);
  const otherPosts = Math.ceil(otherComments / 100);
  addPost(1);
  for (let i = 0; i < listComments; i++) addComment(1, `comment ${i}`);
  for (let p = 0; p < otherPosts; p++) addPost(2 + p);
  for (let i = 0; i < otherComments; i++) addComment(2 + (i % otherPosts), "other");
  for (let id = users.size + 1; id <= count("USERS", 2); id++) {
    users.set(id, { id, name: "Grace Hopper", email: "grace@example.com" });
  }
  for (let id = posts.size + 1; id <= count("POSTS", 0); id++) addPost(id);

  return {
    users,
    posts,
    /** The comments of a post, or undefined when the post does not exist. */
    commentsOf(postId) {
      if (!posts.has(postId)) return undefined;
      return (commentsByPost.get(postId) ?? []).map((id) => comments.get(id));
    },
    /**
     * Creates a user with the rules of the server under test: name and email checked,
     * id = users held + 1 unless the body sends one, no overwrite. Returns status and body.
     */
    createUser(body) {
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        return { status: 400, body: { message: "Request body must be a JSON object", code: "BODY_NOT_OBJECT" } };
      }
      const errors = [];
      if (Object.hasOwn(body, "id") && !(Number.isSafeInteger(body.id) && body.id > 0)) {
        errors.push({ path: "id", message: "must be a positive whole number" });
      }
      if (typeof body.name !== "string" || body.name.trim() === "") {
        errors.push({ path: "name", message: "must be a non-empty string" });
      }
      if (typeof body.email !== "string" || body.email.length > 254 || !EMAIL_SHAPE.test(body.email)) {
        errors.push({ path: "email", message: "must be an e-mail address such as name@example.com" });
      }
      if (errors.length > 0) {
        return { status: 400, body: { message: "The user is not valid", code: "VALIDATION_FAILED", errors } };
      }
      const id = Object.hasOwn(body, "id") ? body.id : users.size + 1;
      if (users.has(id)) return { status: 409, body: { message: `User ${id} exists`, code: "ID_CONFLICT" } };
      const user = { id, ...body };
      users.set(id, user);
      return { status: 201, body: user };
    },
  };
}

/** Reads `limit` and `offset` (non-negative whole numbers, as the framework parsed them); undefined if bad. */
export function readPage(offset = "0", limit = undefined) {
  if (!/^[0-9]+$/.test(String(offset)) || (limit !== undefined && !/^[0-9]+$/.test(String(limit)))) return undefined;
  return { offset: Number(offset), limit: limit === undefined ? Infinity : Number(limit) };
}

/** One page of a Map's values in insertion order. */
export function page(map, { offset, limit }) {
  const items = [];
  if (limit === 0) return items;
  let skipped = 0;
  for (const item of map.values()) {
    if (skipped++ < offset) continue;
    items.push(item);
    if (items.length >= limit) break;
  }
  return items;
}

/** Parses a path id the way the server under test does: digits only, a positive safe integer. */
export function parseId(text) {
  const id = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

export const JSON_TYPE = "application/json; charset=utf-8";
export const USER_NOT_FOUND = { message: "User not found", code: "USER_NOT_FOUND" };
export const POST_NOT_FOUND = { message: "Post not found", code: "POST_NOT_FOUND" };
export const ROUTE_NOT_FOUND = { message: "No such route", code: "ROUTE_NOT_FOUND" };
export const UNSUPPORTED = { message: "Content-Type must be application/json", code: "UNSUPPORTED_MEDIA_TYPE" };
export const INVALID_JSON = { message: "Request body is malformed JSON", code: "INVALID_JSON" };
export const INVALID_ID = { message: "Id must be a positive whole number", code: "INVALID_ID" };
export const INVALID_QUERY = { message: "limit and offset must be non-negative whole numbers", code: "INVALID_QUERY" };

/**
 * Sends a JSON answer on bare node:http, with one more header when `name` is given. The
 * headers object is built in place: spreading the extra headers into a new object cost
 * 1.7 µs more CPU per `GET /users` (7.98 against 6.27 µs, bench/in-memory.mjs).
 */
export function send(res, status, body, name, value) {
  const text = JSON.stringify(body);
  const headers = { "content-type": JSON_TYPE, "content-length": Buffer.byteLength(text) };
  if (name !== undefined) headers[name] = value;
  res.writeHead(status, headers);
  res.end(text);
}

/** Prints the line the benchmark waits for, in the same words as the server under test. */
export function announce(port) {
  console.log(`Listening on http://127.0.0.1:${port}`);
}

/** Serves a fetch handler on the runtime's own server (Deno.serve, Bun.serve) at PORT, says where, and stops on SIGTERM. */
export function serveNative(fetch, file) {
  if (typeof Deno !== "undefined") {
    const server = Deno.serve({ hostname: "127.0.0.1", port: PORT, onListen: ({ port }) => announce(port) }, fetch);
    Deno.addSignalListener("SIGTERM", () => server.shutdown().then(() => Deno.exit(0)));
  } else if (typeof Bun !== "undefined") {
    const server = Bun.serve({ hostname: "127.0.0.1", port: PORT, fetch });
    announce(server.port);
    process.on("SIGTERM", () => {
      server.stop(true);
      process.exit(0);
    });
  } else {
    throw new Error(`${file} runs on Deno or Bun; Node has no server of its own over fetch handlers`);
  }
}

// Leaving through process.exit lets `node --cpu-prof` write its profile when the benchmark stops a peer.
process.once("SIGTERM", () => process.exit(0));

/** The port from PORT, 0 (a free one) by default. */
export const PORT = count("PORT", 0);
