// The OpenAPI 3.1 document of the whole API, as data; GET /openapi.json serves it.
import {
  BODY_CHECKS,
  errorResponse,
  HEADERS,
  headerRef,
  JSON_MEDIA,
  MERGE_PATCH_MEDIA,
  PARAMETERS,
  parameterRef,
  type Ref,
  type ResponseDoc,
  RESPONSES,
  responseRef,
  SCHEMAS,
  type Schema,
  schemaRef,
} from "./openapi-components.ts";

/** One documented operation. `responses` is keyed by status, plus `default` for answers any request can get. */
export type OperationDoc = {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Ref[];
  requestBody?: { required: true; content: Record<string, { schema: Ref }> };
  responses: Record<string, ResponseDoc | Ref>;
};

/** The methods an operation can be documented under, lower case as OpenAPI spells them. */
export type DocumentedMethod = "get" | "post" | "put" | "patch" | "delete" | "options";

/** One path: its shared parameters and its operations by method. */
export type PathItemDoc = { parameters?: Ref[] } & Partial<Record<DocumentedMethod, OperationDoc>>;

/** The whole document. */
export type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string; summary: string; description: string; license: { name: string; identifier: string } };
  servers: Array<{ url: string; description: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, PathItemDoc>;
  components: {
    schemas: Record<string, Schema>;
    parameters: Record<string, Schema>;
    headers: Record<string, Schema>;
    responses: Record<string, ResponseDoc>;
  };
};

/** What varies from one collection of records to the next. */
type RecordKind = {
  tag: string;
  /** Singular and plural nouns as summaries use them: `post`, `posts`. */
  noun: string;
  plural: string;
  /** Component names: the record schema (`Post`) and its 404 response (`PostNotFound`). */
  schema: string;
  notFound: string;
};

const USERS: RecordKind = { tag: "users", noun: "user", plural: "users", schema: "User", notFound: "UserNotFound" };
const POSTS: RecordKind = { tag: "posts", noun: "post", plural: "posts", schema: "Post", notFound: "PostNotFound" };
const COMMENTS: RecordKind = {
  tag: "comments",
  noun: "comment",
  plural: "comments",
  schema: "Comment",
  notFound: "CommentNotFound",
};
const REPLIES: RecordKind = { tag: "replies", noun: "reply", plural: "replies", schema: "Reply", notFound: "ReplyNotFound" };

function json(description: string, schema: Schema | Ref, headers?: Record<string, Ref>): ResponseDoc {
  const response: ResponseDoc = { description, content: { [JSON_MEDIA]: { schema } } };
  if (headers !== undefined) response.headers = headers;
  return response;
}

/** The 400 of an operation, naming the checks that can fail on it. */
function badRequest(causes: { id?: boolean; query?: boolean; body?: boolean }): ResponseDoc {
  const reasons: string[] = [];
  if (causes.id) reasons.push("INVALID_ID: the path id is not a positive whole number");
  if (causes.query) reasons.push("INVALID_QUERY: `limit` or `offset` is not a non-negative whole number, or is repeated");
  if (causes.body) {
    reasons.push(`a body check: ${BODY_CHECKS}`);
    reasons.push("VALIDATION_FAILED: members break the record's rules; `errors` lists every one");
  }
  const schema = causes.body ? { anyOf: [schemaRef("ValidationError"), schemaRef("Error")] } : schemaRef("Error");
  return json(`The request is not valid. ${reasons.join("; ")}.`, schema);
}

/** Adds what every operation but the probes can answer: 503 during shutdown, and the catch-all. */
function common(responses: Record<string, ResponseDoc | Ref>): Record<string, ResponseDoc | Ref> {
  return { ...responses, "503": responseRef("ShuttingDown"), default: responseRef("Unexpected") };
}

function body(schema: string, mediaTypes: string[] = [JSON_MEDIA]): OperationDoc["requestBody"] {
  return { required: true, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: schemaRef(schema) }])) };
}

const BODY_ERRORS = { "413": responseRef("BodyTooLarge"), "415": responseRef("UnsupportedMediaType") };
// Conditional requests (RFC 9110, section 13): reads answer 304, and any request 412, on their preconditions.
const READ_CONDITIONS = { "304": responseRef("NotModified"), "412": responseRef("PreconditionFailed") };
const WRITE_CONDITIONS = { "412": responseRef("PreconditionFailed") };
const ETAG = { ETag: headerRef("ETag") };
const PAGE = [parameterRef("Limit"), parameterRef("Offset")];

function listOperation(of: RecordKind, parent?: RecordKind): OperationDoc {
  const responses: Record<string, ResponseDoc | Ref> = {
    "200": json(
      `One page of the ${of.plural}${parent ? ` of the ${parent.noun}` : ""}, in creation order.`,
      { type: "array", items: schemaRef(of.schema) },
      { "X-Total-Count": headerRef("X-Total-Count"), ...ETAG },
    ),
    "400": badRequest({ id: parent !== undefined, query: true }),
    ...READ_CONDITIONS,
  };
  if (parent) responses["404"] = responseRef(parent.notFound);
  return {
    operationId: `list${capital(of.plural)}${parent ? `Of${parent.schema}` : ""}`,
    summary: parent ? `List the ${of.plural} of a ${parent.noun}` : `List ${of.plural}`,
    tags: [of.tag],
    parameters: PAGE,
    responses: common(responses),
  };
}

function createOperation(of: RecordKind, options: { parent?: RecordKind; conflict?: boolean }): OperationDoc {
  const { parent } = options;
  const responses: Record<string, ResponseDoc | Ref> = {
    "201": json(`The ${of.noun} as stored.`, schemaRef(of.schema), { Location: headerRef("Location"), ...ETAG }),
    "400": badRequest({ id: parent !== undefined, body: true }),
    ...WRITE_CONDITIONS,
  };
  if (parent) responses["404"] = responseRef(parent.notFound);
  if (options.conflict) {
    responses["409"] = errorResponse(
      `The ${of.noun}'s id is already taken; nothing is stored or overwritten.`,
      "ID_CONFLICT",
      `A ${of.noun} with id 2 already exists; send another id or none`,
    );
  }
  return {
    operationId: parent ? `create${of.schema}On${parent.schema}` : `create${of.schema}`,
    summary: parent ? `Add a ${of.noun} to a ${parent.noun}` : `Create a ${of.noun}`,
    tags: [of.tag],
    requestBody: body(`New${of.schema}`),
    responses: common({ ...responses, ...BODY_ERRORS }),
  };
}

function itemOperations(of: RecordKind, deletedWith = ""): Pick<PathItemDoc, "get" | "put" | "patch" | "delete"> {
  const notFound = { "404": responseRef(of.notFound) };
  return {
    get: {
      operationId: `get${of.schema}`,
      summary: `Read a ${of.noun}`,
      tags: [of.tag],
      responses: common({
        "200": json(`The ${of.noun}.`, schemaRef(of.schema), ETAG),
        "400": badRequest({ id: true }),
        ...notFound,
        ...READ_CONDITIONS,
      }),
    },
    put: {
      operationId: `update${of.schema}`,
      summary: `Update a ${of.noun}`,
      description: "Members sent replace the stored ones; members not sent are kept (a shallow merge).",
      tags: [of.tag],
      requestBody: body(`${of.schema}Changes`),
      responses: common({
        "200": json(`The ${of.noun} as updated.`, schemaRef(of.schema), ETAG),
        "400": badRequest({ id: true, body: true }),
        ...notFound,
        ...WRITE_CONDITIONS,
        ...BODY_ERRORS,
      }),
    },
    patch: {
      operationId: `patch${of.schema}`,
      summary: `Patch a ${of.noun}`,
      description:
        "A JSON Merge Patch (RFC 7396), sent as `application/merge-patch+json` or `application/json`: " +
        "`null` removes a member, objects merge recursively, anything else replaces. The result must pass the record's rules.",
      tags: [of.tag],
      requestBody: body(`${of.schema}Changes`, [MERGE_PATCH_MEDIA, JSON_MEDIA]),
      responses: common({
        "200": json(`The ${of.noun} as patched.`, schemaRef(of.schema), ETAG),
        "400": badRequest({ id: true, body: true }),
        ...notFound,
        ...WRITE_CONDITIONS,
        ...BODY_ERRORS,
      }),
    },
    delete: {
      operationId: `delete${of.schema}`,
      summary: `Delete a ${of.noun}`,
      description: `The ${of.noun} is gone from every read and list.${deletedWith}`,
      tags: [of.tag],
      responses: common({
        "204": { description: `The ${of.noun} is deleted; no body.` },
        "400": badRequest({ id: true }),
        ...notFound,
        ...WRITE_CONDITIONS,
      }),
    },
  };
}

/** `OPTIONS`, which the router answers on every path (contract 2). */
function optionsOperation(path: string, tag: string): OperationDoc {
  const name = path
    .split(/[^A-Za-z]+/)
    .filter((word) => word !== "" && word !== "json")
    .map(capital)
    .join("");
  return {
    operationId: `options${name}`,
    summary: "List the methods this path answers",
    tags: [tag],
    responses: common({ "204": responseRef("Options") }),
  };
}

function capital(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function idOf(noun: string): Ref[] {
  return [parameterRef("Id", `The ${noun}'s id.`)];
}

/** Each path with its operations; `OPTIONS` is added to every one below. */
const PATHS: Array<[string, string, PathItemDoc]> = [
  [
    "/healthz",
    "health",
    {
      get: {
        operationId: "getHealth",
        summary: "Liveness: answers while the process is alive, during shutdown too",
        tags: ["health"],
        responses: { "200": json("The process is alive.", schemaRef("Health")), default: responseRef("Unexpected") },
      },
    },
  ],
  [
    "/readyz",
    "health",
    {
      get: {
        operationId: "getReadiness",
        summary: "Readiness: 503 once shutdown has begun",
        tags: ["health"],
        responses: {
          "200": json("The server takes requests.", schemaRef("Readiness")),
          "503": errorResponse(
            "Shutdown has begun; send requests elsewhere.",
            "SHUTTING_DOWN",
            "Server is shutting down; send no more requests here",
          ),
          default: responseRef("Unexpected"),
        },
      },
    },
  ],
  [
    "/openapi.json",
    "meta",
    {
      get: {
        operationId: "getOpenApiDocument",
        summary: "This document",
        tags: ["meta"],
        responses: common({ "200": json("The OpenAPI 3.1 document of this API.", { type: "object" }) }),
      },
    },
  ],
  ["/users", "users", { get: listOperation(USERS), post: createOperation(USERS, { conflict: true }) }],
  ["/users/{id}", "users", { parameters: idOf("user"), ...itemOperations(USERS) }],
  ["/posts", "posts", { get: listOperation(POSTS), post: createOperation(POSTS, {}) }],
  [
    "/posts/{id}",
    "posts",
    { parameters: idOf("post"), ...itemOperations(POSTS, " Its comments and their replies are deleted with it.") },
  ],
  [
    "/posts/{id}/comments",
    "comments",
    {
      parameters: idOf("post"),
      get: listOperation(COMMENTS, POSTS),
      post: createOperation(COMMENTS, { parent: POSTS }),
    },
  ],
  [
    "/comments/{id}",
    "comments",
    { parameters: idOf("comment"), ...itemOperations(COMMENTS, " Its replies are deleted with it.") },
  ],
  [
    "/comments/{id}/replies",
    "replies",
    {
      parameters: idOf("comment"),
      get: listOperation(REPLIES, COMMENTS),
      post: createOperation(REPLIES, { parent: COMMENTS }),
    },
  ],
  ["/replies/{id}", "replies", { parameters: idOf("reply"), ...itemOperations(REPLIES) }],
];

const DESCRIPTION = `A JSON REST server: users, and posts with comments with replies.

- Every body is JSON, sent as \`application/json; charset=utf-8\` with an exact \`Content-Length\`.
  Every error body is \`{"message", "code"}\`; a validation failure adds \`errors\`, one entry per wrong member.
- Every \`GET\` also answers \`HEAD\` (same status and headers, no body); \`HEAD\` is not listed per operation.
  \`OPTIONS\` on any path answers 204 with \`Allow\`. Another method on a known path is a 405 METHOD_NOT_ALLOWED
  with \`Allow\`; an unknown path is a 404 ROUTE_NOT_FOUND. One trailing slash is ignored.
- Checks run in this order: route (404, 405), path id (400), query (400), body (415, 413, 400),
  the record or its parent (404), preconditions (304, 412), the record's rules (400 VALIDATION_FAILED),
  conflicts (409).
- Every record and list answer has a strong \`ETag\`. \`If-None-Match\` on a GET or HEAD answers 304 when it
  matches; \`If-Match\` that does not match, or \`If-None-Match\` that does on a write, answers 412
  PRECONDITION_FAILED and changes nothing. A create's preconditions are evaluated against its list's ETag.
- Posts, comments and replies each number their own ids from 1 and never reuse one. Deleting a post
  deletes its comments and their replies; deleting a comment deletes its replies.
- Once shutdown has begun, every request but \`GET /healthz\` and \`GET /readyz\` gets 503 SHUTTING_DOWN.`;

/** The OpenAPI 3.1 document of the whole API. */
export const OPENAPI_DOCUMENT: OpenApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "REST reference server",
    version: "0.1.0",
    summary: "Users, posts, comments and replies over JSON.",
    description: DESCRIPTION,
    license: { name: "MIT", identifier: "MIT" },
  },
  // The first entry suits a client that loads the document from the server itself; the second, a saved copy.
  servers: [
    { url: "/", description: "The instance that serves this document" },
    { url: "http://localhost:3000", description: "A local instance on the default port" },
  ],
  tags: [
    { name: "health", description: "Liveness and readiness probes" },
    { name: "meta", description: "This document" },
    { name: "users", description: "The seed spec's users" },
    { name: "posts", description: "Posts; each has comments" },
    { name: "comments", description: "Comments on a post; each has replies" },
    { name: "replies", description: "Replies to a comment" },
  ],
  paths: Object.fromEntries(
    PATHS.map(([path, tag, item]) => [path, { ...item, options: optionsOperation(path, tag) }]),
  ),
  components: { schemas: SCHEMAS, parameters: PARAMETERS, headers: HEADERS, responses: RESPONSES },
};
