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
      /** The Link header of a list answer; undefined when none is due. */
      link?: string;
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
    if (name === "users") return method === "GET" ? this.list(this.users, query, "/users") : this.createUser(body);
    if (name === "user") return this.user(method, id, body);
    if (name === "posts") return method === "GET" ? this.list(this.posts, query, "/posts") : this.createPost(body);
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

  /** Contract 6 and 10: filter, sort, then cut the page; a Link header when the page holds fewer than match. */
  list(records: Json[], query: string, path: string): Expected {
    const list = readList(query);
    if ("code" in list) return error(400, list.code);
    const matches: Json[] = [];
    for (const record of records) if (matchesAll(record, list.filters)) matches.push(record);
    const sorted = sortByKeys(matches, list.sort);
    const items: Json[] = [];
    for (let i = list.offset; i < sorted.length && items.length < list.limit; i++) items.push(sorted[i]!);
    const expected: Expected = { kind: "success", status: 200, body: items, totalCount: matches.length };
    const link = linkOf(path, list, items.length, matches.length);
    return link === undefined ? expected : { ...expected, link };
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
      const list = readList(query);
      if ("code" in list) return error(400, list.code);
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
      return this.list(mine, query, `/${collection === "comments" ? "posts" : "comments"}/${parentId}/${collection}`);
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

/** A list request read from its query: the page, the sort keys, the filters, and the parameters a Link keeps. */
type ListRequest = {
  offset: number;
  limit: number;
  sort: Array<{ member: string; descending: boolean }>;
  filters: Array<{ member: string; texts: string[] }>;
  kept: Array<[string, string]>;
};

/** The query's name=value pairs, decoded as a form is: `+` is a space. Empty pairs are skipped. */
function queryPairs(query: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const name = decodeURIComponent((equals === -1 ? pair : pair.slice(0, equals)).replaceAll("+", " "));
    const value = decodeURIComponent((equals === -1 ? "" : pair.slice(equals + 1)).replaceAll("+", " "));
    pairs.push([name, value]);
  }
  return pairs;
}

/**
 * Contract 6 and docs/decisions.md: `limit` and `offset` (non-negative whole numbers,
 * each at most once), then `sort`, then filters (every other parameter), in that order of checks.
 */
function readList(query: string): ListRequest | { code: string } {
  const pairs = queryPairs(query);
  let offset: number | undefined;
  let limit: number | undefined;
  for (const [name, value] of pairs) {
    if (name !== "limit" && name !== "offset") continue;
    if ((name === "limit" ? limit : offset) !== undefined) return { code: "INVALID_QUERY" };
    let count = value === "" ? NaN : 0;
    for (const character of value) if (character < "0" || character > "9") count = NaN;
    if (!Number.isNaN(count)) count = Number(value);
    if (!Number.isSafeInteger(count)) return { code: "INVALID_QUERY" };
    if (name === "limit") limit = count;
    else offset = count;
  }
  const sorts = pairs.filter(([name]) => name === "sort");
  if (sorts.length > 1) return { code: "INVALID_SORT" };
  const sort: ListRequest["sort"] = [];
  if (sorts.length === 1) {
    const text = sorts[0]![1];
    if (text === "") return { code: "INVALID_SORT" };
    for (const key of text.split(",")) {
      const descending = key.startsWith("-");
      const member = descending ? key.slice(1) : key;
      if (member === "" || member.trim() !== member) return { code: "INVALID_SORT" };
      if (sort.some((earlier) => earlier.member === member)) return { code: "INVALID_SORT" };
      sort.push({ member, descending });
    }
    if (sort.length > 5) return { code: "INVALID_SORT" };
  }
  const filters: ListRequest["filters"] = [];
  const kept: Array<[string, string]> = [];
  for (const [name, value] of pairs) {
    if (name === "limit" || name === "offset") continue;
    kept.push([name, value]);
    if (name === "sort") continue;
    if (name === "") return { code: "INVALID_QUERY" };
    const filter = filters.find((earlier) => earlier.member === name);
    if (filter !== undefined) filter.texts.push(value);
    else if (filters.length === 20) return { code: "INVALID_QUERY" };
    else filters.push({ member: name, texts: [value] });
  }
  return { offset: offset ?? 0, limit: limit ?? Infinity, sort, filters, kept };
}

/** Exact match on own top-level members: strings as they are, numbers, booleans and null as JSON text. */
function matchesAll(record: Json, filters: ListRequest["filters"]): boolean {
  for (const { member, texts } of filters) {
    if (!has(record, member)) return false;
    const value = record[member];
    let text: string | undefined;
    if (typeof value === "string") text = value;
    else if (typeof value === "number" || typeof value === "boolean" || value === null) text = JSON.stringify(value);
    if (text === undefined || !texts.includes(text)) return false;
  }
  return true;
}

/** Sorts by the keys, then id ascending, by insertion into a new list; a missing member is above every value. */
function sortByKeys(records: Json[], keys: ListRequest["sort"]): Json[] {
  if (keys.length === 0) return records;
  const before = (a: Json, b: Json): boolean => {
    for (const { member, descending } of keys) {
      const hasA = has(a, member);
      const hasB = has(b, member);
      let order = 0;
      if (hasA && hasB) order = compareValues(a[member], b[member]);
      else if (hasA !== hasB) order = hasA ? -1 : 1;
      if (order !== 0) return descending ? order > 0 : order < 0;
    }
    return (a.id as number) < (b.id as number);
  };
  const sorted: Json[] = [];
  for (const record of records) {
    let at = sorted.length;
    while (at > 0 && before(record, sorted[at - 1]!)) at--;
    sorted.splice(at, 0, record);
  }
  return sorted;
}

/** jsonb's order: null < string < number < boolean < array < object, then by value. */
function compareValues(a: unknown, b: unknown): number {
  const rank = (value: unknown) =>
    value === null
      ? 0
      : typeof value === "string"
        ? 1
        : typeof value === "number"
          ? 2
          : typeof value === "boolean"
            ? 3
            : Array.isArray(value)
              ? 4
              : 5;
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === "string") {
    // By code point, read whole characters at a time.
    const x = Array.from(a, (character) => character.codePointAt(0)!);
    const y = Array.from(b as string, (character) => character.codePointAt(0)!);
    for (let i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  }
  if (typeof a === "number") return a === b ? 0 : a < (b as number) ? -1 : 1;
  if (typeof a === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return a.length - other.length;
    for (let i = 0; i < a.length; i++) {
      const order = compareValues(a[i], other[i]);
      if (order !== 0) return order;
    }
    return 0;
  }
  if (a === null) return 0;
  const objectA = a as Json;
  const objectB = b as Json;
  const keyOrder = (x: string, y: string) =>
    Buffer.byteLength(x) - Buffer.byteLength(y) || Buffer.compare(Buffer.from(x), Buffer.from(y));
  const namesA = Object.keys(objectA).sort(keyOrder);
  const namesB = Object.keys(objectB).sort(keyOrder);
  if (namesA.length !== namesB.length) return namesA.length - namesB.length;
  for (let i = 0; i < namesA.length; i++) {
    const order = keyOrder(namesA[i]!, namesB[i]!) || compareValues(objectA[namesA[i]!], objectB[namesB[i]!]);
    if (order !== 0) return order;
  }
  return 0;
}

/**
 * docs/decisions.md: first and last always, prev past offset 0 (the last page when past the
 * end), next while records follow; none when the page holds every match or `limit` is 0.
 */
function linkOf(path: string, list: ListRequest, shown: number, total: number): string | undefined {
  if (list.limit === 0 || shown === total) return undefined;
  let last = 0;
  if (list.limit !== Infinity) while (last + list.limit < total) last += list.limit;
  const target = (offset: number) => {
    const parts = list.kept.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    if (list.limit !== Infinity) parts.push(`limit=${list.limit}`);
    parts.push(`offset=${offset}`);
    return `<${path}?${parts.join("&")}>`;
  };
  const links = [`${target(0)}; rel="first"`];
  if (list.offset > 0) links.push(`${target(Math.min(Math.max(0, list.offset - list.limit), last))}; rel="prev"`);
  if (list.offset + list.limit < total) links.push(`${target(list.offset + list.limit)}; rel="next"`);
  links.push(`${target(last)}; rel="last"`);
  return links.join(", ");
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
