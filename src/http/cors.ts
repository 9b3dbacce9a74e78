// The CORS policy (Fetch standard, section 3.2): which origins may read answers, and the headers that say so.
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE } from "../api/headers.ts";

/**
 * Which origins may read this API's answers: pages served from this machine (`loopback`, the
 * default), any (`*`), none (`off`), or exactly those listed (`null` among them only if listed).
 */
export type CorsOrigins = "*" | "off" | "loopback" | readonly string[];

/** The origins `loopback` allows: http and https on localhost, its subdomains, 127.0.0.1 and [::1], on any port. */
const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|([a-z0-9-]+\.)+localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** Whether an origin, as a browser serialises it, is a page served from this machine. */
export function isLoopbackOrigin(origin: string): boolean {
  return LOOPBACK_ORIGIN.test(origin);
}

/** The CORS headers of one app, worked out once at start-up. */
export type CorsPolicy = {
  /**
   * The headers every answer to a request with this `Origin` (or none) carries, as a
   * flat [name, value, ...] list, or undefined for none.
   */
  headersFor(origin: string | undefined): readonly string[] | undefined;
  /** Whether an answer to this `Origin` may be read by its page. */
  allows(origin: string): boolean;
};

const VARY_ORIGIN: readonly string[] = Object.freeze(["vary", "Origin"]);

/**
 * The policy for `origins`, or undefined for `off`. A list is checked and
 * normalised here, so a bad origin throws a TypeError at start-up.
 */
export function createCorsPolicy(origins: CorsOrigins): CorsPolicy | undefined {
  if (origins === "off") return undefined;
  if (origins === "*") {
    // No credentials are ever allowed, so `*` is a complete answer and no answer varies by origin.
    const any = Object.freeze(allowed("*"));
    return { headersFor: (origin) => (origin === undefined ? undefined : any), allows: () => true };
  }
  if (origins === "loopback") return patternPolicy(isLoopbackOrigin);
  if (!Array.isArray(origins) || origins.length === 0 || !origins.every((origin) => typeof origin === "string")) {
    throw new TypeError(`corsOrigins must be "loopback", "*", "off" or a non-empty list of origins such as ["https://app.example.com"]`);
  }
  // Each listed origin's headers are built once. A request's Origin is compared as sent:
  // browsers send the serialised form (lower case, no default port) the list was normalised to.
  const byOrigin = new Map<string, readonly string[]>();
  for (const text of origins) {
    const origin = normaliseOrigin(text);
    byOrigin.set(origin, Object.freeze([...VARY_ORIGIN, ...allowed(origin)]));
  }
  // The answer depends on the Origin, so every answer says so, even one to a request
  // without it: a cache must not give an answer stored for one origin to another.
  return {
    headersFor: (origin) => (origin === undefined ? VARY_ORIGIN : (byOrigin.get(origin) ?? VARY_ORIGIN)),
    allows: (origin) => byOrigin.has(origin),
  };
}

/** The policy of origins a test picks out, their headers built on first use and kept for a bounded number of origins. */
function patternPolicy(matches: (origin: string) => boolean): CorsPolicy {
  const seen = new Map<string, readonly string[]>();
  const headersFor = (origin: string | undefined): readonly string[] => {
    if (origin === undefined) return VARY_ORIGIN;
    let headers = seen.get(origin);
    if (headers === undefined) {
      headers = matches(origin) ? Object.freeze([...VARY_ORIGIN, ...allowed(origin)]) : VARY_ORIGIN;
      // Origins are the client's to choose: the memo starts again rather than grow without end.
      if (seen.size >= SEEN_ORIGINS) seen.clear();
      seen.set(origin, headers);
    }
    return headers;
  };
  return { headersFor, allows: (origin) => headersFor(origin) !== VARY_ORIGIN };
}

/** How many origins a pattern policy remembers before it starts again. */
const SEEN_ORIGINS = 256;

function allowed(origin: string): string[] {
  return ["access-control-allow-origin", origin, "access-control-expose-headers", CORS_EXPOSE_HEADERS];
}

/** The headers a preflight from an allowed origin adds to `Allow`: the path's methods, the headers, the cache time. */
export function preflightHeaders(allow: string): Record<string, string> {
  return {
    allow,
    // The same list as Allow, from the same route table: a page may send what the path answers.
    "access-control-allow-methods": allow,
    "access-control-allow-headers": CORS_ALLOW_HEADERS,
    "access-control-max-age": String(CORS_MAX_AGE),
  };
}

/**
 * An origin as browsers serialise it: `scheme://host[:port]` in lower case, without a
 * default port, or `null`, the opaque origin of a sandboxed page or a file. Anything else (a
 * path, a trailing slash, a query, user info, another scheme, `*`) throws a TypeError that says
 * what to write instead.
 */
export function normaliseOrigin(text: string): string {
  if (text === "null") return text;
  const separator = text.indexOf("://");
  const hostPart = separator === -1 ? "" : text.slice(separator + 3);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    hostPart === "" ||
    // The origin is all there is: no path (not even "/"), query, fragment, user info or white space.
    /[/?#@\\\s]/.test(hostPart)
  ) {
    const shown = text.length > 60 ? `${text.slice(0, 60)}...` : text;
    throw new TypeError(
      `"${shown}" is not an origin; write http or https, ://, the host and an optional :port, with no path or trailing slash, such as https://app.example.com`,
    );
  }
  return url.origin;
}
