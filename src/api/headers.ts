// The headers the API reads and sends beyond the safelisted ones: what a CORS policy grants and exposes, and the OpenAPI document lists.

/** What the API reads from a request beyond the safelisted headers; a preflight grants exactly these. */
export const CORS_ALLOW_HEADERS = "Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id";

/** The answer headers a page may read beyond the safelisted ones (docs/spec.md#10-browsers-caches-and-concurrent-editors). */
export const CORS_EXPOSE_HEADERS = "X-Total-Count, Location, ETag, Link, X-Request-Id";

/**
 * How long a browser may reuse a preflight, in seconds. Ten minutes, not Chromium's
 * cap of two hours: a cached preflight lets a page send writes without asking again,
 * so an origin removed from CORS_ORIGINS can go on sending them until it expires.
 */
export const CORS_MAX_AGE = 600;
