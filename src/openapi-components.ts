// The reusable parts of the OpenAPI document: schemas, parameters, headers and shared responses.
import { ERROR_CATALOGUE, type ErrorCode } from "./errors.ts";
import { MAX_DEPTH } from "./body.ts";

/** A JSON Schema (2020-12), as OpenAPI 3.1 takes it. */
export type Schema = { [keyword: string]: unknown };

/** A pointer to a component; OpenAPI 3.1 lets it carry its own description. */
export type Ref = { $ref: string; description?: string };

/** One documented response: what it means, its headers, and its JSON body if it has one. */
export type ResponseDoc = {
  description: string;
  headers?: Record<string, Ref>;
  content?: Record<string, { schema: Schema | Ref; example?: unknown }>;
};

/** The media type every body of this API has (its charset is always UTF-8). */
export const JSON_MEDIA = "application/json";

/** The media type of a JSON Merge Patch (RFC 7396), which PATCH takes. */
export const MERGE_PATCH_MEDIA = "application/merge-patch+json";

/** A reference to a component schema. */
export function schemaRef(name: string): Ref {
  return { $ref: `#/components/schemas/${name}` };
}

/** A reference to a shared response. */
export function responseRef(name: string): Ref {
  return { $ref: `#/components/responses/${name}` };
}

/** A reference to a shared header. */
export function headerRef(name: string): Ref {
  return { $ref: `#/components/headers/${name}` };
}

/** A reference to a shared parameter, with a description of its own if given. */
export function parameterRef(name: string, description?: string): Ref {
  const ref: Ref = { $ref: `#/components/parameters/${name}` };
  if (description !== undefined) ref.description = description;
  return ref;
}

/** An error response whose body is an Error, with one example. */
export function errorResponse(description: string, code: ErrorCode, message: string): ResponseDoc {
  return { description, content: { [JSON_MEDIA]: { schema: schemaRef("Error"), example: { message, code } } } };
}

const ID: Schema = { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
// Mirrors validate.ts: a string is non-empty when it has a character that String#trim keeps.
const NON_EMPTY: Schema = { type: "string", pattern: "\\S", description: "A string with a character that is not white space." };
const CREATED_AT: Schema = {
  type: "string",
  format: "date-time",
  readOnly: true,
  description: "When the server stored the record, in ISO 8601 UTC with milliseconds.",
  examples: ["2026-01-31T09:30:00.000Z"],
};
// Mirrors validate.ts's e-mail rule: deliberately loose, at most what SMTP can carry.
const EMAIL: Schema = {
  type: "string",
  maxLength: 254,
  pattern: "^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$",
  examples: ["ada@example.com"],
};

/** A record of the family: its server-set members, the members a client must send, and the rest. */
function familySchemas(name: string, parentKey: string | undefined, required: string[]): Record<string, Schema> {
  const serverSet = ["id", ...(parentKey ? [parentKey] : []), "createdAt"];
  const clientMembers = Object.fromEntries(required.map((member) => [member, NON_EMPTY]));
  const refused = {
    // A client that sends a server-set member gets 400 naming it (contract 5).
    propertyNames: { not: { enum: serverSet } },
    additionalProperties: true,
  };
  const owned: Schema = { ...ID, readOnly: true };
  return {
    [name]: {
      type: "object",
      description: `A ${name.toLowerCase()} as stored. Members other than those listed are kept as the client sent them.`,
      required: [...serverSet, ...required],
      properties: {
        id: owned,
        ...(parentKey ? { [parentKey]: { ...owned, description: "The id of the record it belongs to, from the path." } } : {}),
        ...clientMembers,
        createdAt: CREATED_AT,
      },
      additionalProperties: true,
    },
    [`New${name}`]: {
      type: "object",
      description:
        `A ${name.toLowerCase()} to create. Any other member is stored; ` +
        `${listed(serverSet)} are set by the server and refused.`,
      required,
      properties: clientMembers,
      ...refused,
    },
    [`${name}Changes`]: {
      type: "object",
      description: `Members to merge over a ${name.toLowerCase()} (shallow); members not sent are kept, and {} changes nothing.`,
      properties: clientMembers,
      ...refused,
    },
  };
}

/** `a`, `a and b`, `a, b and c`, each in backticks. */
function listed(names: string[]): string {
  const quoted = names.map((name) => `\`${name}\``);
  return quoted.length < 2 ? quoted.join("") : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)!}`;
}

/** A markdown list of every error code with its status and when it is sent. */
function describeCodes(): string {
  const lines = Object.entries(ERROR_CATALOGUE).map(([code, { status, when }]) => `- \`${code}\` (${status}): ${when}`);
  return ["`code` is for programs and never changes; `message` is for people.", "", ...lines].join("\n");
}

/** The component schemas: records, create and update bodies, errors and probe answers. */
export const SCHEMAS: Record<string, Schema> = {
  User: {
    type: "object",
    description: "A user as stored. Members other than those listed are kept as the client sent them.",
    required: ["id", "name", "email"],
    properties: { id: ID, name: NON_EMPTY, email: EMAIL },
    additionalProperties: true,
  },
  NewUser: {
    type: "object",
    description:
      "A user to create. Without `id` the server assigns the number of users held + 1; " +
      "a taken id is a 409. Any other member is stored.",
    required: ["name", "email"],
    properties: { id: ID, name: NON_EMPTY, email: EMAIL },
    additionalProperties: true,
  },
  UserChanges: {
    type: "object",
    description: "Members to merge over a user (shallow); members not sent are kept, and {} changes nothing.",
    properties: { id: { ...ID, description: "If sent, must equal the id in the path." }, name: NON_EMPTY, email: EMAIL },
    additionalProperties: true,
  },
  ...familySchemas("Post", undefined, ["title", "body"]),
  ...familySchemas("Comment", "postId", ["body"]),
  ...familySchemas("Reply", "commentId", ["body"]),
  Error: {
    type: "object",
    description: "Every error answer has this shape.",
    required: ["message", "code"],
    properties: {
      message: { type: "string", description: "One sentence a person can act on." },
      code: { type: "string", enum: Object.keys(ERROR_CATALOGUE), description: describeCodes() },
    },
  },
  FieldError: {
    type: "object",
    description: "One wrong member of a request body.",
    required: ["path", "message"],
    properties: {
      path: { type: "string", description: "The member's name." },
      message: { type: "string", description: "What is wrong with it." },
    },
  },
  ValidationError: {
    description: "An Error that lists every wrong member of the body at once.",
    allOf: [
      schemaRef("Error"),
      {
        type: "object",
        required: ["errors"],
        properties: {
          code: { const: "VALIDATION_FAILED" },
          errors: { type: "array", minItems: 1, items: schemaRef("FieldError") },
        },
      },
    ],
  },
  Health: { type: "object", required: ["status"], properties: { status: { const: "ok" } } },
  Readiness: { type: "object", required: ["status"], properties: { status: { const: "ready" } } },
};

/** The path and query parameters every operation shares. */
export const PARAMETERS: Record<string, Schema> = {
  Id: {
    name: "id",
    in: "path",
    required: true,
    description:
      "A record's id: digits only, read in base 10 (`01` is 1); anything else is a 400 INVALID_ID. Records count from 1, so 0 finds none (404).",
    schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
  Limit: {
    name: "limit",
    in: "query",
    required: false,
    description: "The most records to answer with; absent means all. At most once.",
    schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
  Offset: {
    name: "offset",
    in: "query",
    required: false,
    description: "How many records to skip first. At most once.",
    schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
  },
};

/** The headers some answers carry. */
export const HEADERS: Record<string, Schema> = {
  Location: {
    description: "The address of the created record.",
    required: true,
    schema: { type: "string", examples: ["/posts/1"] },
  },
  "X-Total-Count": {
    description: "The size of the whole list, whatever `limit` and `offset` cut from it.",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
  Allow: {
    description: "The methods this path answers.",
    required: true,
    schema: { type: "string", examples: ["GET, HEAD, PUT, PATCH, DELETE, OPTIONS"] },
  },
  ETag: {
    description:
      "The strong entity tag of the record or list answered: send it back in `If-None-Match` (304 while unchanged) or `If-Match` (412 once changed).",
    required: true,
    schema: { type: "string", examples: ['"3f9c2a1b-1k"'] },
  },
};

/** Responses that many operations share. */
export const RESPONSES: Record<string, ResponseDoc> = {
  Options: { description: "The methods this path answers, in `Allow`; no body.", headers: { Allow: headerRef("Allow") } },
  UserNotFound: errorResponse("No user has this id.", "USER_NOT_FOUND", "User not found"),
  PostNotFound: errorResponse("No post has this id.", "POST_NOT_FOUND", "Post not found"),
  CommentNotFound: errorResponse("No comment has this id.", "COMMENT_NOT_FOUND", "Comment not found"),
  ReplyNotFound: errorResponse("No reply has this id.", "REPLY_NOT_FOUND", "Reply not found"),
  BodyTooLarge: errorResponse(
    "The body is larger than `BODY_LIMIT` bytes (1 MiB by default).",
    "BODY_TOO_LARGE",
    "Request body must not be larger than 1048576 bytes",
  ),
  NotModified: {
    description: "`If-None-Match` matches the current ETag: the copy the client holds is current. No body.",
    headers: { ETag: headerRef("ETag") },
  },
  PreconditionFailed: errorResponse(
    "`If-Match` does not match the current ETag, or `If-None-Match` matches it on a write; nothing is changed.",
    "PRECONDITION_FAILED",
    "The user has changed since the ETag in If-Match; nothing was changed. Read it again and retry with its current ETag",
  ),
  UnsupportedMediaType: errorResponse(
    "The body is not sent as `application/json` (a PATCH: `application/merge-patch+json` or `application/json`) in UTF-8.",
    "UNSUPPORTED_MEDIA_TYPE",
    "Content-Type must be application/json",
  ),
  ShuttingDown: errorResponse(
    "The server is shutting down; the answer closes the connection. Retry on a new connection.",
    "SHUTTING_DOWN",
    "Server is shutting down; retry on a new connection",
  ),
  Unexpected: {
    description:
      "Answers any request can get: 500 INTERNAL_ERROR (logged, no internals), 408 REQUEST_TIMEOUT, " +
      "431 HEADERS_TOO_LARGE, or 400 BAD_REQUEST for a request that is not valid HTTP/1.1.",
    content: {
      [JSON_MEDIA]: { schema: schemaRef("Error"), example: { message: "Internal server error", code: "INTERNAL_ERROR" } },
    },
  },
};

/** The checks every POST, PUT and PATCH body goes through, for the description of its 400. */
export const BODY_CHECKS =
  "the body is empty, not UTF-8, malformed JSON, not an object, has a member named `__proto__`, " +
  `\`constructor\` or \`prototype\`, is nested deeper than ${MAX_DEPTH} levels, or holds a number too large`;
