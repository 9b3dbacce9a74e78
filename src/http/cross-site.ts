// Which requests the control routes refuse as coming from a page on another site: by the browser's Sec-Fetch-Site, then by Origin.
import type { IncomingHttpHeaders } from "node:http";
import { HttpError } from "../api/errors.ts";
import { clip } from "../api/input.ts";
import { type CorsOrigins, createCorsPolicy } from "./cors.ts";

/** The refusal of a control request from a page on another site, or undefined for a request that may be served. */
export type CrossSiteCheck = (headers: IncomingHttpHeaders) => HttpError | undefined;

/**
 * The check of a control request, for an API whose CORS policy is `origins`. A request without
 * `Origin` or `Sec-Fetch-Site` (curl, a test runner, a server-side client) passes: no browser
 * sends a cross-site request without them, and only a browser carries a visitor's page.
 * `Sec-Fetch-Site`, which a page cannot set, is trusted first: `same-origin` and `none` (typed
 * in the address bar) pass, `cross-site` is refused. Otherwise (`same-site`, or a browser that
 * does not send it, as none does to a plain-http address other than loopback) a request with an
 * `Origin` passes only if CORS allows it; with `*`, which lets any page read the API, only a
 * loopback origin may reach control.
 */
export function crossSiteCheck(origins: CorsOrigins = "loopback"): CrossSiteCheck {
  const policy = createCorsPolicy(origins === "*" ? "loopback" : origins);
  return (headers) => {
    const site = headers["sec-fetch-site"];
    if (site === "same-origin" || site === "none") return undefined;
    if (site === "cross-site") return refusal("Sec-Fetch-Site: cross-site", "a page on the API's own site");
    const origin = headers.origin;
    if (origin === undefined || policy?.allows(origin) === true) return undefined;
    return refusal(`Origin ${clip(origin)}`, "a page on an origin CORS_ORIGINS allows");
  };
}

function refusal(told: string, instead: string): HttpError {
  return new HttpError("CROSS_SITE_REQUEST", `The control routes refuse a page on another site (${told}); call them from a test runner or curl, or from ${instead}`);
}
