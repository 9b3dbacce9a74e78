// List controls shared by every list endpoint: limit, offset and X-Total-Count (contract 6).
import { HttpError } from "./errors.ts";
import { clip, parseWholeNumber } from "./input.ts";
import type { Reply } from "./respond.ts";

/** Which slice of a list to answer with; `limit` is Infinity when absent. */
export type Page = { offset: number; limit: number };

/** Reads `limit` and `offset` from a query string; a bad or repeated value is a 400. */
export function readPage(query: URLSearchParams): Page {
  return {
    offset: readCount(query, "offset") ?? 0,
    limit: readCount(query, "limit") ?? Infinity,
  };
}

function readCount(query: URLSearchParams, name: string): number | undefined {
  const values = query.getAll(name);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new HttpError("INVALID_QUERY", `${name} must be given at most once`);
  const text = values[0]!;
  const count = parseWholeNumber(text);
  if (count === undefined) {
    throw new HttpError("INVALID_QUERY", `${name} must be a non-negative whole number, not "${clip(text)}"`);
  }
  return count;
}

/** The reply for one page of a list: the items, and the size of the whole list in X-Total-Count. */
export function listReply(items: unknown[], total: number): Reply {
  return { status: 200, body: items, headers: { "x-total-count": String(total) } };
}
