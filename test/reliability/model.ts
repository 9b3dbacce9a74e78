// A reference model of the whole API, written from the contract with plain arrays and loops and nothing from src/.

/** A request as the model and the server both receive it. */
export type ModelRequest = {
  method: string;
  /** The request target: a path and maybe a query string. */
  target: string;
  /** The Content-Type header, if one is sent. */
  contentType?: string;
  /** The body text, if one is sent. */
  body?: string;
};

/** What the model expects. An error carries its code; a validation error its members; a success its whole body. */
export type Expected =
  | {
      kind: "success";
      status: number;
      body?: unknown;
      location?: string;
      totalCount?: number;
      allow?: string;
      created?: Created;
    }
  | { kind: "error"; status: number; code: string; message?: string; errorPaths?: string[]; allow?: string };

/** Which record a create made: the model takes its `createdAt` from the server's answer. */
export type Created = { collection: "posts" | "comments" | "replies"; id: number };

type Json = Record<string, unknown>;

const SEEDED_USERS: Json[] = [
  { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
  { id: 2, name: "Alan Turing", email: "alan@example.com" },
];

/** The deepest nesting the contract allows a body (contract 3, rule 6); the top-level object is level 1. */
const MAX_DEPTH = 64;

/** The state of one server instance, and how each request changes it. */
export class ApiModel {
  users: Json[] = SEEDED_USERS.map((user) => ({ ...user }));
  posts: Json[] = [];
  comments: Json[] = [];
  replies: Json[] = [];
  // Contract 5: each collection numbers its own ids and never reuses one.
  lastPostId = 0;
  lastCommentId = 0;
  lastReplyId = 0;

  /** Answers a request the way the contract says the server must, changing the state as it does. */
  handle(request: ModelRequest): Expected {
    const questionMark = request.target.indexOf("?");
    let path = questionMark === -1 ? request.target : request.target.slice(0, questionMark);
    const query = questionMark === -1 ? "" : request.target.slice(questionMark + 1);
    // Contract 2: one trailing slash is ignored.
    if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
    const parts = path.split("/").slice(1);

    const route = findRoute(parts);
    if (route === undefined) return error(404, "ROUTE_NOT_FOUND");
    if (!route.methods.includes(request.method)) {
      const allow = allowOf(route.methods);
      if (request.method === "OPTIONS") return { kind: "success", status: 204, allow };
      return { kind: "error", status: 405, code: "METHOD_NOT_ALLOWED", allow };
    }
    // Contract 2: HEAD is answered as GET, without the body.
    const method = request.method === "HEAD" ? "GET" : request.method;
    let id = 0;
    if (route.hasId) {
      const parsed = readId(parts[1]!);
      if (parsed === undefined) return error(400, "INVALID_ID");
      id = parsed;
    }
    let body: Json = {};
    if (method === "POST" || method === "PUT" || method === "PATCH") {
      const checked = checkBody(request.contentType, request.body ?? "", method === "PATCH");
      if (!("value" in checked)) return checked;
      body = checked.value;
    }

    const name = route.name;
    if (name === "users") return method === "GET" ? this.list(this.users, query) : this.createUser(body);
    if (name === "user") return this.user(method, id, body);
    if (name === "posts") return method === "GET" ? this.list(this.posts, query) : this.createPost(body);
    if (name === "post") return this.record(method, "posts", id, body);
    if (name === "post-comments") return this.children(method, "comments", id, body, query);
    if (name === "comment") return this.record(method, "comments", id, body);
    if (name === "comment-replies") return this.children(method, "replies", id, body, query);
    return this.record(method, "replies", id, body);
  }

  /** Records the server's `createdAt` for a record the model created. */
  stamp(created: Created, createdAt: unknown): void {
    for (const record of this[created.collection]) if (record.id === created.id) record.createdAt = createdAt;
  }

  list(records: Json[], query: string): Expected {
    const page = readPage(query);
    if (page === undefined) return error(400, "INVALID_QUERY");
    const items: Json[] = [];
    for (let i = page.offset; i < records.length && items.length < page.limit; i++) items.push(records[i]!);
    return { kind: "success", status: 200, body: items, totalCount: records.length };
  }

  createUser(body: Json): Expected {
    const wrong: string[] = [];
    if (has(body, "id") && !isPositiveSafeInteger(body.id)) wrong.push("id");
    if (!has(body, "name") || !isNonEmptyString(body.name)) wrong.push("name");
    if (!has(body, "email") || !isEmailAddress(body.email)) wrong.push("email");
    if (wrong.length > 0) return invalid(wrong);
    // Seed spec part 2, rules 1 and 2: count + 1, replaced by the body's id.
    const id = has(body, "id") ? (body.id as number) : this.users.length + 1;
    if (findIndex(this.users, id) !== -1) return error(409, "ID_CONFLICT");
    const user = { ...body, id };
    this.users.push(user);
    return { kind: "success", status: 201, body: user, location: `/users/${id}` };
  }

  user(method: string, id: number, body: Json): Expected {
    const index = findIndex(this.users, id);
    if (index === -1) return error(404, "USER_NOT_FOUND", "User not found");
    if (method === "GET") return { kind: "success", status: 200, body: this.users[index] };
    if (method === "DELETE") {
      this.users.splice(index, 1);
      return { kind: "success", status: 204 };
    }
    const wrong: string[] = [];
    if (has(body, "id") && body.id !== id) wrong.push("id");
    if (method === "PATCH") {
      // RFC 7396: the result of the merge must pass the create rules.
      const merged = mergePatch(this.users[index], body) as Json;
      if (!has(merged, "name") || !isNonEmptyString(merged.name)) wrong.push("name");
      if (!has(merged, "email") || !isEmailAddress(merged.email)) wrong.push("email");
      if (wrong.length > 0) return invalid(wrong);
      this.users[index] = { ...merged, id };
      return { kind: "success", status: 200, body: this.users[index] };
    }
    if (has(body, "name") && !isNonEmptyString(body.name)) wrong.push("name");
    if (has(body, "email") && !isEmailAddress(body.email)) wrong.push("email");
    if (wrong.length > 0) return invalid(wrong);
    const user = { ...this.users[index], ...body, id };
    this.users[index] = user;
    return { kind: "success", status: 200, body: user };
  }

  createPost(body: Json): Expected {
    const wrong = serverMembersSent(body, ["id", "createdAt"]);
    if (!has(body, "title") || !isNonEmptyString(body.title)) wrong.push("title");
    if (!has(body, "body") || !isNonEmptyString(body.body)) wrong.push("body");
    if (wrong.length > 0) return invalid(wrong);
    const id = ++this.lastPostId;
    const post = { ...body, id };
    this.posts.push(post);
    return { kind: "success", status: 201, body: post, location: `/posts/${id}`, created: { collection: "posts", id } };
  }

  /** GET or POST of the comments of a post, or of the replies of a comment. */
  children(method: string, collection: "comments" | "replies", parentId: number, body: Json, query: string): Expected {
    const parents = collection === "comments" ? this.posts : this.comments;
    const key = collection === "comments" ? "postId" : "commentId";
    if (method === "GET") {
      // The list controls are read before the parent is looked up, like a path id.
      if (readPage(query) === undefined) return error(400, "INVALID_QUERY");
    }
    if (findIndex(parents, parentId) === -1) {
      return collection === "comments"
        ? error(404, "POST_NOT_FOUND", "Post not found")
        : error(404, "COMMENT_NOT_FOUND", "Comment not found");
    }
    const records = this[collection];
    if (method === "GET") {
      const mine: Json[] = [];
      for (const record of records) if (record[key] === parentId) mine.push(record);
      return this.list(mine, query);
    }
    const wrong = serverMembersSent(body, ["id", key, "createdAt"]);
    if (!has(body, "body") || !isNonEmptyString(body.body)) wrong.push("body");
    if (wrong.length > 0) return invalid(wrong);
    const id = collection === "comments" ? ++this.lastCommentId : ++this.lastReplyId;
    const record = { ...body, id, [key]: parentId };
    records.push(record);
    return {
      kind: "success",
      status: 201,
      body: record,
      location: `/${collection}/${id}`,
      created: { collection, id },
    };
  }

  /** GET, PUT, PATCH or DELETE of one post, comment or reply. */
  record(method: string, collection: "posts" | "comments" | "replies", id: number, body: Json): Expected {
    const records = this[collection];
    const index = findIndex(records, id);
    if (index === -1) {
      if (collection === "posts") return error(404, "POST_NOT_FOUND", "Post not found");
      if (collection === "comments") return error(404, "COMMENT_NOT_FOUND", "Comment not found");
      return error(404, "REPLY_NOT_FOUND", "Reply not found");
    }
    if (method === "GET") return { kind: "success", status: 200, body: records[index] };
    if (method === "DELETE") {
      this.remove(collection, id);
      return { kind: "success", status: 204 };
    }
    const serverSet = ["id", "createdAt"];
    if (collection === "comments") serverSet.push("postId");
    if (collection === "replies") serverSet.push("commentId");
    const wrong = serverMembersSent(body, serverSet);
    if (method === "PATCH") {
      const merged = mergePatch(records[index], body) as Json;
      if (collection === "posts" && (!has(merged, "title") || !isNonEmptyString(merged.title))) wrong.push("title");
      if (!has(merged, "body") || !isNonEmptyString(merged.body)) wrong.push("body");
      if (wrong.length > 0) return invalid(wrong);
      records[index] = { ...merged, id };
      return { kind: "success", status: 200, body: records[index] };
    }
    if (collection === "posts" && has(body, "title") && !isNonEmptyString(body.title)) wrong.push("title");
    if (has(body, "body") && !isNonEmptyString(body.body)) wrong.push("body");
    if (wrong.length > 0) return invalid(wrong);
    const updated = { ...records[index], ...body, id };
    records[index] = updated;
    return { kind: "success", status: 200, body: updated };
  }

  /** Deletes a record and, as contract 5 says, everything under it. */
  remove(collection: "posts" | "comments" | "replies", id: number): void {
    if (collection === "posts") {
      this.posts = this.posts.filter((post) => post.id !== id);
      for (const comment of this.comments.filter((comment) => comment.postId === id)) {
        this.remove("comments", comment.id as number);
      }
    } else if (collection === "comments") {
      this.comments = this.comments.filter((comment) => comment.id !== id);
      this.replies = this.replies.filter((reply) => reply.commentId !== id);
    } else {
      this.replies = this.replies.filter((reply) => reply.id !== id);
    }
  }
}

type RouteInfo = { name: string; methods: string[]; hasId: boolean };

/** The routes of contract 4 and 5, matched segment by segment. */
function findRoute(parts: string[]): RouteInfo | undefined {
  const [first, second, third] = parts;
  const one = (name: string): RouteInfo => ({ name, methods: ["GET", "HEAD", "POST"], hasId: false });
  const item = (name: string): RouteInfo => ({ name, methods: ["GET", "HEAD", "PUT", "PATCH", "DELETE"], hasId: true });
  const under = (name: string): RouteInfo => ({ name, methods: ["GET", "HEAD", "POST"], hasId: true });
  if (parts.length === 1 && first === "users") return one("users");
  if (parts.length === 1 && first === "posts") return one("posts");
  // An empty segment (`/users//`) is no id, so no route.
  if (parts.length === 2 && second !== "") {
    if (first === "users") return item("user");
    if (first === "posts") return item("post");
    if (first === "comments") return item("comment");
    if (first === "replies") return item("reply");
  }
  if (parts.length === 3 && second !== "") {
    if (first === "posts" && third === "comments") return under("post-comments");
    if (first === "comments" && third === "replies") return under("comment-replies");
  }
  return undefined;
}

function allowOf(methods: string[]): string {
  return [...methods, "OPTIONS"].join(", ");
}

/** Contract 2: digits only, base 10, a safe integer. 0 is well formed; no record has it, so it finds none. */
function readId(text: string): number | undefined {
  if (text.length === 0) return undefined;
  for (const character of text) if (character < "0" || character > "9") return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** Contract 6: `limit` and `offset` are non-negative whole numbers, each given at most once. */
function readPage(query: string): { offset: number; limit: number } | undefined {
  let offset: number | undefined;
  let limit: number | undefined;
  if (query === "") return { offset: 0, limit: Infinity };
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const name = decodeURIComponent((equals === -1 ? pair : pair.slice(0, equals)).replaceAll("+", " "));
    const value = decodeURIComponent((equals === -1 ? "" : pair.slice(equals + 1)).replaceAll("+", " "));
    if (name !== "limit" && name !== "offset") continue;
    if ((name === "limit" ? limit : offset) !== undefined) return undefined;
    let count = value === "" ? NaN : 0;
    for (const character of value) if (character < "0" || character > "9") count = NaN;
    if (!Number.isNaN(count)) count = Number(value);
    if (!Number.isSafeInteger(count)) return undefined;
    if (name === "limit") limit = count;
    else offset = count;
  }
  return { offset: offset ?? 0, limit: limit ?? Infinity };
}

/** Contract 3, in its order: media type, empty, malformed, not an object, forbidden names, depth. */
function checkBody(contentType: string | undefined, text: string, patch: boolean): { value: Json } | Expected {
  if (contentType === undefined) return error(415, "UNSUPPORTED_MEDIA_TYPE");
  const [type, ...parameters] = contentType.split(";");
  const mediaType = type!.trim().toLowerCase();
  // A PATCH also takes a JSON Merge Patch's own media type (RFC 7396, section 4).
  if (mediaType !== "application/json" && !(patch && mediaType === "application/merge-patch+json")) {
    return error(415, "UNSUPPORTED_MEDIA_TYPE");
  }
  for (const parameter of parameters) {
    const [name = "", value = ""] = parameter.split("=");
    if (name.trim().toLowerCase() !== "charset") continue;
    let charset = value.trim().toLowerCase();
    if (charset.startsWith('"') && charset.endsWith('"') && charset.length >= 2) charset = charset.slice(1, -1);
    if (charset !== "utf-8" && charset !== "utf8") return error(415, "UNSUPPORTED_MEDIA_TYPE");
  }
  let blank = true;
  for (const character of text)
    if (character !== " " && character !== "\t" && character !== "\n" && character !== "\r") blank = false;
  if (blank) return error(400, "EMPTY_BODY");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return error(400, "INVALID_JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return error(400, "BODY_NOT_OBJECT");
  const found = { forbidden: false, deep: false, infinite: false };
  walk(value, 1, found);
  if (found.forbidden) return error(400, "FORBIDDEN_KEY");
  if (found.deep) return error(400, "BODY_TOO_DEEP");
  // A number JSON can write but a double cannot hold (1e400) would be stored as null: refused.
  if (found.infinite) return error(400, "NUMBER_OUT_OF_RANGE");
  return { value: value as Json };
}

function walk(value: unknown, depth: number, found: { forbidden: boolean; deep: boolean; infinite: boolean }): void {
  if (typeof value === "number" && !Number.isFinite(value)) found.infinite = true;
  if (typeof value !== "object" || value === null) return;
  if (depth > MAX_DEPTH) found.deep = true;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, depth + 1, found);
    return;
  }
  for (const key of Object.keys(value)) {
    if (key === "__proto__" || key === "constructor" || key === "prototype") found.forbidden = true;
    walk((value as Json)[key], depth + 1, found);
  }
}

function error(status: number, code: string, message?: string): Expected {
  return message === undefined ? { kind: "error", status, code } : { kind: "error", status, code, message };
}

function invalid(paths: string[]): Expected {
  return { kind: "error", status: 400, code: "VALIDATION_FAILED", errorPaths: [...paths].sort() };
}

/** RFC 7396, section 2, written out again: null removes, objects merge, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const base = typeof target === "object" && target !== null && !Array.isArray(target) ? (target as Json) : {};
  const result: Json = { ...base };
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else result[name] = mergePatch(has(result, name) ? result[name] : undefined, value);
  }
  return result;
}

function serverMembersSent(body: Json, members: string[]): string[] {
  const sent: string[] = [];
  for (const member of members) if (has(body, member)) sent.push(member);
  return sent;
}

function has(body: Json, member: string): boolean {
  return Object.hasOwn(body, member);
}

function findIndex(records: Json[], id: number): number {
  for (let i = 0; i < records.length; i++) if (records[i]!.id === id) return i;
  return -1;
}

function isNonEmptyString(value: unknown): boolean {
  // docs/api-family.md: a non-empty string has a character that is not white space.
  return typeof value === "string" && value.trim() !== "";
}

function isPositiveSafeInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
}

/** One `@`; something before it; after it, two or more dot-separated labels; no white space; at most 254 characters. */
function isEmailAddress(value: unknown): boolean {
  if (typeof value !== "string" || value.length > 254 || /\s/.test(value)) return false;
  const halves = value.split("@");
  if (halves.length !== 2 || halves[0] === "") return false;
  const labels = halves[1]!.split(".");
  if (labels.length < 2) return false;
  for (const label of labels) if (label === "") return false;
  return true;
}
