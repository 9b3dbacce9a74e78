// The parts of the OpenAPI document that no route defines: shared schemas, parameters, headers and responses.
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE } from "../api/headers.ts";
import { ERROR_CATALOGUE, type ErrorCode } from "../api/errors.ts";
import { MAX_FILTERS, MAX_SORT_KEYS } from "../api/lists.ts";
import type { Schema } from "../api/handler.ts";
import { EMAIL_SHAPE, emailAddress, MAX_EMAIL_LENGTH, nonEmptyString, type Rule } from "../api/validate.ts";

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

/** A reference to a shared parameter. */
export function parameterRef(name: string): Ref {
  return { $ref: `#/components/parameters/${name}` };
}

/** The headers every answer can carry: its request id, and the CORS headers of a request with an allowed `Origin` (docs/spec.md#10-browsers-caches-and-concurrent-editors). */
export const ANSWER_HEADERS: Record<string, Ref> = {
  "X-Request-Id": headerRef("X-Request-Id"),
  "Access-Control-Allow-Origin": headerRef("Access-Control-Allow-Origin"),
  "Access-Control-Expose-Headers": headerRef("Access-Control-Expose-Headers"),
  Vary: headerRef("Vary"),
};

/** A response with the headers every answer can carry added to its own. */
export function withAnswerHeaders(response: ResponseDoc): ResponseDoc {
  return { ...response, headers: { ...response.headers, ...ANSWER_HEADERS } };
}

/** The same response to a HEAD: its status and headers, no body. */
export function withoutBody(response: ResponseDoc): ResponseDoc {
  const { content: _content, ...rest } = response;
  return { ...rest, description: `${response.description} No body: this answers a HEAD.` };
}

/** A markdown list of some error codes with when each is sent, from the catalogue. */
export function describeCodes(codes: readonly ErrorCode[]): string {
  return codes.map((code) => `- \`${code}\`: ${ERROR_CATALOGUE[code].when}`).join("\n");
}

/**
 * An error response for some codes: its description lists when each is sent; its
 * schema narrows `code` to them; a message makes an example with the first code.
 */
export function errorResponse(
  summary: string,
  codes: readonly ErrorCode[],
  options: { message?: string; headers?: Record<string, Ref> } = {},
): ResponseDoc {
  const error = codes.includes("VALIDATION_FAILED") ? { anyOf: [schemaRef("ValidationError"), schemaRef("Error")] } : schemaRef("Error");
  const schema = { allOf: [error, { type: "object", properties: { code: { enum: codes } } }] };
  const media: { schema: Schema; example?: unknown } = { schema };
  if (options.message !== undefined) media.example = { message: options.message, code: codes[0] };
  const response: ResponseDoc = { description: `${summary}\n\n${describeCodes(codes)}`, content: { [JSON_MEDIA]: media } };
  if (options.headers !== undefined) response.headers = options.headers;
  return withAnswerHeaders(response);
}

/** JSON Schemas of the member rules of validate.ts, so a record's schema says what its rules accept. */
export const RULE_SCHEMAS = new Map<Rule, Schema>([
  // Mirrors validate.ts: a string is non-empty when it has a character that String#trim keeps.
  [nonEmptyString, { type: "string", pattern: "\\S", description: "A string with a character that is not white space." }],
  // validate.ts's e-mail rule itself: its pattern and its length limit.
  [emailAddress, { type: "string", maxLength: MAX_EMAIL_LENGTH, pattern: EMAIL_SHAPE.source }],
]);

/** A record id in a body or an answer. */
export const ID_SCHEMA: Schema = { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER };

/** The id of a record of a collection with string ids. */
export const STRING_ID_SCHEMA: Schema = { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" };

/** The id the examples give a record of a collection with string ids: its create sends it, and the later operations find it. */
export const EXAMPLE_STRING_ID = "example";

/** `createdAt`, which the server sets on records with timestamps. */
export const CREATED_AT_SCHEMA: Schema = {
  type: "string",
  format: "date-time",
  readOnly: true,
  description: "When the server stored the record, in ISO 8601 UTC with milliseconds.",
  examples: ["2026-01-31T09:30:00.000Z"],
};

/** The error schemas every error answer uses. */
export const ERROR_SCHEMAS: Record<string, Schema> = {
  Error: {
    type: "object",
    description: "Every error answer has this shape.",
    required: ["message", "code"],
    properties: {
      message: { type: "string", description: "One sentence a person can act on." },
      requestId: {
        type: "string",
        description: "On a 500 only: the request's id, as in `X-Request-Id`, which finds the error in the server's log.",
      },
      code: {
        type: "string",
        enum: Object.keys(ERROR_CATALOGUE),
        description: `For programs; it never changes. Each with its status:\n\n${Object.entries(ERROR_CATALOGUE)
          .map(([code, { status, when }]) => `- \`${code}\` (${status}): ${when}`)
          .join("\n")}`,
      },
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
};

// An entity tag that no answer of this server ever carries: its ETags are "<8 hex digits>-<version>".
const NEVER_MATCHES = '"never-matches"';

/** The query parameters and conditional headers operations share. */
export const PARAMETERS: Record<string, Schema> = {
  Limit: {
    name: "limit",
    in: "query",
    required: false,
    description: "The most records to answer with; absent means all. At most once.",
    schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    example: 10,
  },
  Offset: {
    name: "offset",
    in: "query",
    required: false,
    description: "How many records to skip first. At most once.",
    schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
    example: 0,
  },
  Sort: {
    name: "sort",
    in: "query",
    required: false,
    description:
      `Top-level members to sort by, separated by commas, each ascending or, written \`-member\`, descending; at most ${MAX_SORT_KEYS}, at most once. ` +
      "Ties are broken by `id`; a record without the member comes after those with it (first when descending). " +
      "Values compare as PostgreSQL's jsonb does: by type (null, string, number, boolean, array, object), then by value; strings by code point.",
    schema: { type: "string", pattern: "^-?[^,]+(,-?[^,]+)*$" },
    example: "-id",
  },
  IfMatch: {
    name: "If-Match",
    in: "header",
    required: false,
    description:
      "Go on only if the target's current ETag is one of these (strong comparison), or it exists (`*`); otherwise 412 and nothing changes. " +
      "The target of a create is its list: a POST's If-Match is compared with the list's ETag.",
    schema: { type: "string" },
    example: "*",
  },
  IfNoneMatch: {
    name: "If-None-Match",
    in: "header",
    required: false,
    description:
      "Answer 304 (no body) if the current ETag is one of these (weak comparison), or for `*`. " +
      `The example is a tag this server never gives, so it answers in full.`,
    schema: { type: "string" },
    example: NEVER_MATCHES,
  },
};

/** The filters of a list: any query parameter but `limit`, `offset` and `sort`, with an example that matches some records. */
export function filtersParameter(example: Record<string, string>): Schema {
  return {
    name: "filters",
    in: "query",
    required: false,
    description:
      "Exact-match filters on top-level members, written `member=value`: a string member matches when it equals the text; " +
      "a number, boolean or null when its JSON text does (`?id=3`, `?active=true`). Several members must all match; " +
      `one member given several times matches any of its values. At most ${MAX_FILTERS} different members. ` +
      "`X-Total-Count` counts the matches.",
    style: "form",
    explode: true,
    schema: { type: "object", additionalProperties: { type: "string" } },
    example,
  };
}

/** The headers answers carry. */
export const HEADERS: Record<string, Schema> = {
  Location: {
    description: "The address of the created record.",
    required: true,
    schema: { type: "string", examples: ["/posts/1"] },
  },
  "X-Total-Count": {
    description: "How many records match: the whole list, or its filtered part, whatever `limit` and `offset` cut from it.",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
  Link: {
    description:
      "Sent when the page holds fewer records than match (RFC 8288): `first`, `prev`, `next` and `last`, each a relative " +
      "reference to the same list with the same query and another `offset`.",
    required: false,
    schema: { type: "string", examples: ['</users?limit=1&offset=0>; rel="first", </users?limit=1&offset=1>; rel="next", </users?limit=1&offset=1>; rel="last"'] },
  },
  Allow: {
    description: "The methods this path answers.",
    required: true,
    schema: { type: "string", examples: ["GET, HEAD, PUT, PATCH, DELETE, OPTIONS"] },
  },
  ETag: {
    description:
      "The strong entity tag of the record or list: send it back in `If-None-Match` (304 while unchanged) or `If-Match` (412 once changed).",
    required: true,
    schema: { type: "string", examples: ['"3f9c2a1b-1k"'] },
  },
  "X-Request-Id": {
    description:
      "The request's id: the `X-Request-Id` the request sent, if it is 1 to 128 letters, digits or `-_.:+=/`, else a new one. " +
      "The access log line and any logged error carry it.",
    required: true,
    schema: { type: "string", pattern: "^[A-Za-z0-9\\-_.:+=/]{1,128}$", examples: ["3f9a1c0b22d4-52"] },
  },
  "Access-Control-Allow-Origin": {
    description: "Sent when the request has an `Origin` that `CORS_ORIGINS` allows (by default a page served from this machine): that origin, or `*`.",
    required: false,
    schema: { type: "string", examples: ["http://localhost:5173"] },
  },
  "Access-Control-Expose-Headers": {
    description: "Sent with `Access-Control-Allow-Origin`: the answer headers a page may read.",
    required: false,
    schema: { type: "string", const: CORS_EXPOSE_HEADERS },
  },
  Vary: {
    description: "`Origin` unless `CORS_ORIGINS` is `*` or `off`, since the answer then depends on the request's `Origin`.",
    required: false,
    schema: { type: "string", const: "Origin" },
  },
  "Access-Control-Allow-Methods": {
    description: "On a preflight (`Access-Control-Request-Method` and an allowed `Origin`): the methods of this path, as in `Allow`.",
    required: false,
    schema: { type: "string", examples: ["GET, HEAD, POST, OPTIONS"] },
  },
  "Access-Control-Allow-Headers": {
    description: "On a preflight: the request headers a page may send.",
    required: false,
    schema: { type: "string", const: CORS_ALLOW_HEADERS },
  },
  "Access-Control-Max-Age": {
    description: "On a preflight: how many seconds a browser may reuse it.",
    required: false,
    schema: { type: "string", const: String(CORS_MAX_AGE) },
  },
};

/** Responses that many operations share. */
export const RESPONSES: Record<string, ResponseDoc> = {
  Options: withAnswerHeaders({
    description:
      "The methods this path answers, in `Allow`; no body. A CORS preflight from an allowed origin also gets what a page may send.",
    headers: {
      Allow: headerRef("Allow"),
      "Access-Control-Allow-Methods": headerRef("Access-Control-Allow-Methods"),
      "Access-Control-Allow-Headers": headerRef("Access-Control-Allow-Headers"),
      "Access-Control-Max-Age": headerRef("Access-Control-Max-Age"),
    },
  }),
  MethodNotAllowed: errorResponse(
    "The path exists, but not with this method. Listed on every operation, since OpenAPI has no place for a path's other methods; `Allow` lists those it answers.",
    ["METHOD_NOT_ALLOWED"],
    { message: "Method DELETE is not allowed here; use GET, HEAD, POST, OPTIONS", headers: { Allow: headerRef("Allow") } },
  ),
  BodyTooLarge: errorResponse(
    "The body is larger than `BODY_LIMIT` bytes (1 MiB by default).",
    ["BODY_TOO_LARGE"],
    { message: "Request body must not be larger than 1048576 bytes" },
  ),
  RecordTooLarge: errorResponse(
    "The body is larger than `BODY_LIMIT` bytes (1 MiB by default), or the record the write would make would be, as JSON; nothing is changed.",
    ["BODY_TOO_LARGE", "RECORD_TOO_LARGE"],
    { message: "Request body must not be larger than 1048576 bytes" },
  ),
  NotModified: withAnswerHeaders({
    description: "`If-None-Match` matches the current ETag: the copy the client holds is current. No body.",
    headers: { ETag: headerRef("ETag") },
  }),
  PreconditionFailed: errorResponse(
    "`If-Match` does not match the current ETag, or `If-None-Match` matches it on a write; nothing is changed. `ETag` is the current one.",
    ["PRECONDITION_FAILED"],
    {
      message: "The user has changed since the ETag in If-Match; nothing was changed. Read it again and retry with its current ETag",
      headers: { ETag: headerRef("ETag") },
    },
  ),
  UnsupportedMediaType: errorResponse(
    "The body is not sent as `application/json` (a PATCH: `application/merge-patch+json` or `application/json`) in UTF-8.",
    ["UNSUPPORTED_MEDIA_TYPE"],
    { message: "Content-Type must be application/json" },
  ),
  ShuttingDown: errorResponse(
    "The server is shutting down; the answer closes the connection. Retry on a new connection.",
    ["SHUTTING_DOWN"],
    { message: "Server is shutting down; retry on a new connection" },
  ),
  Unavailable: errorResponse(
    "The server is shutting down (the answer closes the connection; retry on a new connection), or the data store cannot serve requests now (`DATA_DIR`: a write could not be kept).",
    ["SHUTTING_DOWN", "STORE_UNAVAILABLE"],
    { message: "Server is shutting down; retry on a new connection" },
  ),
  UnavailableForBody: errorResponse(
    "As for any operation of a resource, and also when the request bodies still arriving on every connection together are at their bound (32 times `BODY_LIMIT`): the answer closes the connection and says `Retry-After: 1`.",
    ["SHUTTING_DOWN", "STORE_UNAVAILABLE", "SERVER_BUSY"],
    { message: "Server is shutting down; retry on a new connection" },
  ),
  Unexpected: errorResponse(
    "Answers any request can get, each with its own status (the access checks, the store's budget and the bound on long answers among them):",
    [
      "INTERNAL_ERROR",
      "REQUEST_TIMEOUT",
      "HEADERS_TOO_LARGE",
      "BAD_REQUEST",
      "EXPECTATION_FAILED",
      "HOST_NOT_ALLOWED",
      "UNAUTHORIZED",
      "INSUFFICIENT_SCOPE",
      "READ_ONLY",
      "STORE_FULL",
      "SERVER_BUSY",
    ],
    { message: "Internal server error" },
  ),
};
