// Shared pieces of the resources' black-box tests: creates over HTTP, expected errors, timestamps.
import assert from "node:assert/strict";
import { call, type JsonResponse } from "./http.ts";

/** A JSON object as the tests send and read it. */
export type Json = Record<string, unknown>;

/** One wrong member, as a VALIDATION_FAILED body lists it. */
export type FieldError = { path: string; message: string };

/** The 404 bodies of the family, word for word (contract 5). */
export const NOT_FOUND = {
  post: { message: "Post not found", code: "POST_NOT_FOUND" },
  comment: { message: "Comment not found", code: "COMMENT_NOT_FOUND" },
  reply: { message: "Reply not found", code: "REPLY_NOT_FOUND" },
} as const;

/** The message of an error entry for a member the server sets. */
export const SERVER_SET = "is set by the server and must not be sent";

/** The 400 body listing every wrong member of a `user`, `post`, `comment` or `reply`. */
export function invalid(label: string, errors: FieldError[]): Json {
  return { message: `The ${label} is not valid; fix the members listed in errors`, code: "VALIDATION_FAILED", errors };
}

/** Sends a create and returns the stored record; anything but 201 fails the test. */
export async function create(url: string, path: string, json: Json): Promise<Json> {
  const response = await call(url + path, { method: "POST", json });
  assert.equal(response.status, 201, `POST ${path} -> ${response.status} ${response.text}`);
  return response.body as Json;
}

/** The ids of a list answer, in the order sent. */
export function idsOf(response: JsonResponse): unknown[] {
  assert.ok(Array.isArray(response.body), `expected a list, got ${response.text}`);
  return (response.body as Json[]).map((record) => record.id);
}

// What Date#toISOString writes: always UTC ("Z"), always milliseconds.
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Asserts an ISO 8601 UTC timestamp no earlier than `before` and no later than `after` (ms). */
export function assertCreatedBetween(value: unknown, before: number, after: number): void {
  assert.equal(typeof value, "string", `createdAt must be a string, got ${JSON.stringify(value)}`);
  assert.match(value as string, ISO_UTC);
  const at = Date.parse(value as string);
  assert.ok(at >= before && at <= after, `createdAt ${value as string} is not between the request's start and end`);
}

/** Members of every JSON type, to check that other members are stored as sent. */
export const EXTRA_MEMBERS: Json = {
  tags: ["news", 1, null],
  meta: { lang: "en", draft: { level: 2 } },
  score: 4.5,
  pinned: false,
  note: null,
  label: "",
};

/** Bad list controls and the exact 400 message each gets; shared with the child lists. */
export const BAD_PAGES: Array<[string, string]> = [
  ["?limit=-1", 'limit must be a non-negative whole number, not "-1"'],
  ["?limit=abc", 'limit must be a non-negative whole number, not "abc"'],
  ["?limit=1.5", 'limit must be a non-negative whole number, not "1.5"'],
  ["?limit=1e3", 'limit must be a non-negative whole number, not "1e3"'],
  ["?limit=", 'limit must be a non-negative whole number, not ""'],
  ["?offset=x", 'offset must be a non-negative whole number, not "x"'],
  ["?offset=+1", 'offset must be a non-negative whole number, not " 1"'],
  ["?offset=99999999999999999999", 'offset must be a non-negative whole number, not "99999999999999999999"'],
  ["?limit=1&limit=2", "limit must be given at most once"],
];
