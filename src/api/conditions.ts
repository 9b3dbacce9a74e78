// Conditional requests (RFC 9110, section 13): entity tags, If-Match and If-None-Match.
import type { IncomingHttpHeaders } from "node:http";

/** One entity tag of a header's list: its opaque part with the quotes (`"a-1"`), and whether it was sent weak (`W/`). */
export type EntityTag = { weak: boolean; opaque: string };

/** What an If-Match or If-None-Match header holds: `*`, or a list of entity tags (empty when none could be read). */
export type EntityTagList = "*" | EntityTag[];

/**
 * How a request's preconditions came out (RFC 9110, section 13.2.2): go on,
 * answer 304 (a GET or HEAD whose If-None-Match matched), or answer 412
 * because If-Match did not match or If-None-Match did on a method that is not a read.
 */
export type Outcome = "proceed" | "not-modified" | "if-match-failed" | "if-none-match-failed";

/**
 * Reads an If-Match or If-None-Match value (RFC 9110, sections 8.8.3 and 13.1):
 * `*`, or entity tags separated by commas, each `"opaque"` or `W/"opaque"`. An entry
 * that is not an entity tag is skipped, so it matches nothing; a comma inside quotes
 * belongs to the tag.
 */
export function parseEntityTags(header: string): EntityTagList {
  const tags: EntityTag[] = [];
  let i = 0;
  while (i < header.length) {
    const char = header[i]!;
    if (char === " " || char === "\t" || char === ",") {
      i++;
      continue;
    }
    if (char === "*") {
      // `*` stands alone (RFC 9110, section 13.1.1); a list that also holds tags is read as `*`.
      return "*";
    }
    const weak = header.startsWith("W/", i);
    const open = weak ? i + 2 : i;
    if (header[open] === '"') {
      const close = header.indexOf('"', open + 1);
      if (close === -1) break;
      const opaque = header.slice(open, close + 1);
      if (isOpaque(opaque)) tags.push({ weak, opaque });
      i = close + 1;
      continue;
    }
    // Not an entity tag: skip to the next comma.
    const comma = header.indexOf(",", i);
    if (comma === -1) break;
    i = comma + 1;
  }
  return tags;
}

// etagc (RFC 9110, section 8.8.3): visible characters but DQUOTE, and obs-text.
const OPAQUE = /^"[\x21\x23-\x7e\x80-\xff]*"$/;

function isOpaque(quoted: string): boolean {
  return OPAQUE.test(quoted);
}

/** Strong comparison (RFC 9110, section 8.8.3.2): neither tag is weak and their opaque parts are equal. */
export function strongMatch(a: EntityTag, b: EntityTag): boolean {
  return !a.weak && !b.weak && a.opaque === b.opaque;
}

/** Weak comparison (RFC 9110, section 8.8.3.2): their opaque parts are equal, weak or not. */
export function weakMatch(a: EntityTag, b: EntityTag): boolean {
  return a.opaque === b.opaque;
}

/**
 * Evaluates If-Match, then If-None-Match (RFC 9110, section 13.2.2) against the
 * strong ETag of the target's current representation. The target exists: a missing
 * one was answered 404 before. `read` is true for GET and HEAD, where a matching
 * If-None-Match means 304 instead of 412.
 */
export function evaluatePreconditions(
  headers: IncomingHttpHeaders,
  current: string,
  options: { read: boolean },
): Outcome {
  const ifMatch = headers["if-match"];
  const ifNoneMatch = headers["if-none-match"];
  // The common request sends neither header and pays for two property reads only.
  if (ifMatch === undefined && ifNoneMatch === undefined) return "proceed";
  const tag: EntityTag = { weak: false, opaque: current };
  if (ifMatch !== undefined && !matchesAny(parseEntityTags(ifMatch), tag, strongMatch)) return "if-match-failed";
  if (ifNoneMatch !== undefined && matchesAny(parseEntityTags(ifNoneMatch), tag, weakMatch)) {
    return options.read ? "not-modified" : "if-none-match-failed";
  }
  return "proceed";
}

/** Whether a list matches the current tag: `*` matches any current representation (one exists here). */
function matchesAny(list: EntityTagList, current: EntityTag, compare: (a: EntityTag, b: EntityTag) => boolean): boolean {
  if (list === "*") return true;
  for (const tag of list) if (compare(tag, current)) return true;
  return false;
}
