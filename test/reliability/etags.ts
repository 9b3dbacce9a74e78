// What the model-based tests check of ETags without modelling versions: one tag, one body; no change, no new tag.
import type { Expected, ModelRequest } from "./model.ts";

/**
 * The ETags a sequence has seen. The model does not know versions, so it cannot say
 * what an ETag must be; it can say when two must be equal, and when two bodies under
 * one tag would break it. A key is a record's path or a list's path and query.
 */
export type EtagLedger = {
  /** Every tag seen under a key, with the body it came with: a strong tag names one exact body. */
  bodies: Map<string, Map<string, string>>;
  /** The last tag seen under a key, dropped when a write may have changed what it names. */
  latest: Map<string, string>;
  /** How many answers carried the same tag as the last one seen under their key. */
  kept: number;
};

export function newEtagLedger(): EtagLedger {
  return { bodies: new Map(), latest: new Map(), kept: 0 };
}

// etagc of RFC 9110, section 8.8.3, quoted, without W/: every ETag the server gives is strong.
const STRONG = /^"[\x21\x23-\x7e\x80-\xff]*"$/;

/**
 * Checks the ETag of an answer the model has already found right, and records it.
 * Says what is wrong, or nothing: a success that names a representation lacks a strong
 * ETag; a key's tag changed though no write since could have changed it (within one
 * process or across a restart); or one tag came with two different bodies.
 */
export function checkEtag(
  ledger: EtagLedger,
  request: ModelRequest,
  expected: Expected,
  status: number,
  etag: string | string[] | undefined,
  text: string,
): string | undefined {
  if (expected.kind !== "success") return undefined;
  const { path, query } = splitTarget(request.target);
  const write = request.method === "POST" || request.method === "PUT" || request.method === "PATCH" || request.method === "DELETE";
  if (write) forget(ledger, request.method, path);
  let key: string | undefined;
  if ((request.method === "GET" || request.method === "HEAD") && status === 200) key = query === "" ? path : `${path}?${query}`;
  else if ((request.method === "PUT" || request.method === "PATCH") && status === 200) key = path;
  else if (request.method === "POST" && status === 201) key = expected.location;
  if (key === undefined) return undefined;
  if (typeof etag !== "string" || !STRONG.test(etag)) return `ETag ${JSON.stringify(etag)} of ${key} is not one strong entity tag`;
  const latest = ledger.latest.get(key);
  if (latest !== undefined && latest !== etag)
    return `ETag ${etag} of ${key}, but no write since could have changed its ${latest}`;
  if (latest !== undefined) ledger.kept++;
  ledger.latest.set(key, etag);
  // A HEAD answer has no body to hold the tag to.
  if (request.method === "HEAD") return undefined;
  let bodies = ledger.bodies.get(key);
  if (bodies === undefined) ledger.bodies.set(key, (bodies = new Map()));
  const earlier = bodies.get(etag);
  if (earlier !== undefined && earlier !== text)
    return `ETag ${etag} of ${key} came before with another body: ${earlier.slice(0, 200)}`;
  bodies.set(etag, text);
  return undefined;
}

/** The path with one trailing slash taken off and its id written plainly (`/users/002` is `/users/2`, contract 2), and the query. */
function splitTarget(target: string): { path: string; query: string } {
  const mark = target.indexOf("?");
  let path = mark === -1 ? target : target.slice(0, mark);
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  const parts = path.split("/");
  if (parts.length > 2 && /^\d+$/.test(parts[2]!)) parts[2] = String(Number(parts[2]));
  return { path: parts.join("/"), query: mark === -1 ? "" : target.slice(mark + 1) };
}

/** The collection a key's records belong to: a list of children belongs to the children's. */
function collectionOf(path: string): string {
  const parts = path.split("/");
  return parts.length === 4 ? parts[3]! : parts[1]!;
}

/**
 * Drops the last tags a successful write may have changed: its record's, every list of
 * its collection (a list's tag follows the whole collection), and, for a delete that
 * cascades, every tag of the collections below. Records it did not write keep theirs.
 */
function forget(ledger: EtagLedger, method: string, path: string): void {
  const collection = collectionOf(path);
  const below = method !== "DELETE" ? [] : collection === "posts" ? ["comments", "replies"] : collection === "comments" ? ["replies"] : [];
  const record = path.split("/").length === 3;
  for (const key of [...ledger.latest.keys()]) {
    const keyPath = splitTarget(key).path;
    const keyCollection = collectionOf(keyPath);
    const keyIsList = keyPath.split("/").length !== 3;
    if (below.includes(keyCollection) || (keyCollection === collection && (keyIsList || (record && keyPath === path)))) {
      ledger.latest.delete(key);
    }
  }
}
