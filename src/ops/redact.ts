// Secrets in a request's query string, hidden before any log holds the request: the access log, the error log and the request log.

/**
 * Query parameter names that hold a secret, compared in lower case with `-` read as `_`: bearer
 * and API tokens, keys, passwords, and the signatures of signed URLs (S3's `X-Amz-Signature`,
 * Azure's `sig`). docs/operations.md lists them.
 */
export const SECRET_QUERY_NAMES: ReadonlySet<string> = new Set([
  "access_token",
  "token",
  "api_key",
  "apikey",
  "key",
  "password",
  "passwd",
  "pwd",
  "secret",
  "signature",
  "sig",
  "auth",
  "authorization",
  "credential",
  "credentials",
  "jwt",
  "session",
  "sessionid",
]);

/** Endings of names that hold a secret, with `-` read as `_`: `refresh_token`, `client_secret`, `X-Amz-Security-Token`. */
export const SECRET_QUERY_ENDINGS: readonly string[] = ["_token", "_key", "_secret", "_password", "_signature"];

/** What a secret's value is replaced with. */
export const HIDDEN = "***";

/** Whether a query parameter's name, as written (percent-encoded or not), names a secret. */
export function isSecretName(written: string): boolean {
  let name = written;
  try {
    name = decodeURIComponent(written.replaceAll("+", " "));
  } catch {
    // A name that is not valid percent-encoding is compared as written.
  }
  name = name.toLowerCase().replaceAll("-", "_");
  return SECRET_QUERY_NAMES.has(name) || SECRET_QUERY_ENDINGS.some((ending) => name.endsWith(ending));
}

// A parameter of a query: after `?` or `&`, a name, `=` and a value, up to the next `&`, `#` or white space.
const PARAMETER = /([?&])([^?&=#\s]+)=([^&#\s]*)/g;

/**
 * A request target (or a line that holds one) with the value of every secret query parameter
 * replaced by `***`; the names and every other parameter are kept as written. Text without `?`
 * is returned as it is, which is every path without a query: the access log's common case.
 */
export function redactQuery(text: string): string {
  const start = text.indexOf("?");
  if (start === -1) return text;
  return text.slice(0, start) + text.slice(start).replace(PARAMETER, hideSecret);
}

/** A parameter as the log shows it: a secret's value hidden whole; another's kept, but for a URL it holds (`next=/a?token=...`). */
function hideSecret(whole: string, separator: string, name: string, value: string): string {
  if (value === "") return whole;
  if (isSecretName(name)) return `${separator}${name}=${HIDDEN}`;
  return value.includes("?") ? `${separator}${name}=${redactQuery(value)}` : whole;
}
