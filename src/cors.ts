// The CORS policy (Fetch standard, section 3.2): which origins may read answers, and the headers that say so.

/** Which origins may read this API's answers: any (`*`), none (`off`), or exactly those listed. */
export type CorsOrigins = "*" | "off" | readonly string[];

/** What the API reads from a request beyond the safelisted headers; a preflight grants exactly these. */
export const CORS_ALLOW_HEADERS = "Content-Type, If-Match, If-None-Match, X-Request-Id";

/** The answer headers a page may read beyond the safelisted ones (contract 10). */
export const CORS_EXPOSE_HEADERS = "X-Total-Count, Location, ETag, Link, X-Request-Id";

/**
 * How long a browser may reuse a preflight, in seconds. Ten minutes, not Chromium's
 * cap of two hours: a cached preflight lets a page send writes without asking again,
 * so an origin removed from CORS_ORIGINS can go on sending them until it expires.
 */
export const CORS_MAX_AGE = 600;

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
  if (!Array.isArray(origins) || origins.length === 0 || !origins.every((origin) => typeof origin === "string")) {
    throw new TypeError(`corsOrigins must be "*", "off" or a non-empty list of origins such as ["https://app.example.com"]`);
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
 * default port. Anything else (a path, a trailing slash, a query, user info, another
 * scheme, `null`, `*`) throws a TypeError that says what to write instead.
 */
export function normaliseOrigin(text: string): string {
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
