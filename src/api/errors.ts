// HttpError and the one catalogue of error codes the API can answer with.
import type { Reply } from "./reply.ts";

/**
 * Every error code the service can send, with its status and when it is sent.
 * Tests assert codes, not wording; docs/api.md's error table is this object.
 */
export const ERROR_CATALOGUE = {
  BAD_REQUEST: { status: 400, when: "The request is not valid HTTP/1.1." },
  INVALID_ID: {
    status: 400,
    when: "A path id is not a positive whole number in base 10, or, in a collection with string ids, not 1 to 64 of A-Z, a-z, 0-9, `_` and `-`.",
  },
  INVALID_QUERY: {
    status: 400,
    when: "`limit` or `offset` is not a non-negative whole number or is repeated, or a filter has an empty name or names more than 20 members.",
  },
  INVALID_SORT: {
    status: 400,
    when: "`sort` is empty or repeated, has an empty key or one with white space at an end, names a member twice, or has more than 5 keys.",
  },
  EMPTY_BODY: { status: 400, when: "A POST, PUT or PATCH has an empty body." },
  INVALID_ENCODING: { status: 400, when: "The body is not valid UTF-8." },
  INVALID_JSON: { status: 400, when: "The body is not well-formed JSON." },
  BODY_NOT_OBJECT: { status: 400, when: "The JSON body is an array, string, number, boolean or null." },
  FORBIDDEN_KEY: { status: 400, when: "The body has a member named `__proto__`, `constructor` or `prototype`." },
  BODY_TOO_DEEP: { status: 400, when: "The JSON body is nested deeper than 64 levels." },
  NUMBER_OUT_OF_RANGE: { status: 400, when: "A number in the body is too large to be held (it would become Infinity)." },
  VALIDATION_FAILED: { status: 400, when: "Members of the body break the resource's rules; `errors` lists each one." },
  UNAUTHORIZED: {
    status: 401,
    when: "Tokens are configured (`AUTH_TOKENS`) and the request sends no `Authorization: Bearer` token, or one that is not configured.",
  },
  INSUFFICIENT_SCOPE: { status: 403, when: "The request's token has the `read` scope and the request writes; writes need a `write` token." },
  READ_ONLY: { status: 403, when: "The server runs with `READ_ONLY=on`: every write is refused and nothing is stored." },
  HOST_NOT_ALLOWED: {
    status: 403,
    when: "The request's `Host` is not one of `ALLOWED_HOSTS` (by default `localhost`, `*.localhost` and IP addresses); this blocks DNS rebinding.",
  },
  CROSS_SITE_REQUEST: {
    status: 403,
    when: "With `CONTROL=on`, a control route is called from a page on another site: its `Sec-Fetch-Site` is `cross-site`, or its `Origin` is not one `CORS_ORIGINS` allows (with `*`, a loopback one); nothing is changed.",
  },
  ROUTE_NOT_FOUND: { status: 404, when: "No route has this path." },
  USER_NOT_FOUND: { status: 404, when: "No user has this id." },
  POST_NOT_FOUND: { status: 404, when: "No post has this id." },
  COMMENT_NOT_FOUND: { status: 404, when: "No comment has this id." },
  REPLY_NOT_FOUND: { status: 404, when: "No reply has this id." },
  RECORD_NOT_FOUND: { status: 404, when: "No record of a collection a resources file or `db.json` defines has this id; the message names it (`Todo not found`)." },
  METHOD_NOT_ALLOWED: { status: 405, when: "The path exists but not for this method; `Allow` lists the methods." },
  EXPECTATION_FAILED: { status: 417, when: "The request's `Expect` header asks for something other than `100-continue`." },
  REQUEST_TIMEOUT: { status: 408, when: "The headers or the whole request took too long to arrive." },
  ID_CONFLICT: { status: 409, when: "A create would give a record an id that is already taken." },
  PRECONDITION_FAILED: {
    status: 412,
    when: "`If-Match` does not match the current `ETag`, or `If-None-Match` matches it on a write; nothing is changed.",
  },
  BODY_TOO_LARGE: { status: 413, when: "The body is larger than `BODY_LIMIT` bytes, or holds more than 100000 values." },
  RECORD_TOO_LARGE: { status: 413, when: "A PUT or PATCH would make a record longer than `BODY_LIMIT` bytes as JSON; nothing is changed." },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    when: "A POST or PUT is not sent as `application/json`, or a PATCH as `application/merge-patch+json` or `application/json`, in UTF-8, uncompressed.",
  },
  HEADERS_TOO_LARGE: { status: 431, when: "The request headers are larger than the server accepts." },
  STORE_FULL: {
    status: 507,
    when: "The write would take the records held past `STORE_LIMIT`; nothing is stored. Deleting records frees room.",
  },
  INTERNAL_ERROR: { status: 500, when: "The server failed unexpectedly; the error is logged." },
  SHUTTING_DOWN: { status: 503, when: "The server is shutting down; retry on a new connection." },
  SERVER_BUSY: {
    status: 503,
    when: "Request bodies still arriving on every connection together would pass 32 times `BODY_LIMIT`, and the answer closes the connection; or 512 answers too long to write at once (lists over 65536 characters or texts over 1048576) are being written already, or their texts would hold more than 64 Mi characters. It says `Retry-After: 1`.",
  },
  STORE_UNAVAILABLE: {
    status: 503,
    when: "The data store cannot be used: a journal write or sync failed (`DATA_DIR`), so nothing is answered from data that might not be kept; or the database cannot be reached (`DATABASE_URL`), until it is back.",
  },
} as const satisfies Record<string, { status: number; when: string }>;

/**
 * The code of an error a request asked for with `Prefer: status=NNN` (test control): its status
 * is the one asked for, any from 400 to 599, so it stands beside the catalogue rather than in it.
 */
export const PREFERRED_STATUS = "PREFERRED_STATUS";

/** When PREFERRED_STATUS is sent, as docs/api.md's error table gives it. */
export const PREFERRED_STATUS_WHEN =
  "With `CONTROL=on`, the request asked for this error with `Prefer: status=NNN` (any 4xx or 5xx, which it gets); nothing was read or changed.";

/** One of the catalogued error codes. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One wrong member of a request body. */
export type FieldError = { path: string; message: string };

/** Options of an HttpError beyond its code and message. */
export type HttpErrorOptions = {
  errors?: FieldError[];
  headers?: Record<string, string>;
  cause?: unknown;
};

/**
 * A client error as a value: the status comes from the catalogue, so a code can
 * never be sent with a status that disagrees with the docs.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: HttpErrorOptions = {}) {
    // A client error is answered, never logged, so no one reads its stack trace. Fast path:
    // none is captured (docs/benchmarks.md, "Measurements behind fast paths in the code").
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message, { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "HttpError";
    this.status = ERROR_CATALOGUE[code].status;
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers;
  }

  /** The reply for this error: its status, its JSON body and its headers. */
  toReply(): Reply {
    return { status: this.status, body: this.toBody(), headers: this.headers };
  }

  /** The JSON body sent for this error. */
  toBody(): { message: string; code: ErrorCode; errors?: FieldError[] } {
    return this.errors === undefined
      ? { message: this.message, code: this.code }
      : { message: this.message, code: this.code, errors: this.errors };
  }
}
