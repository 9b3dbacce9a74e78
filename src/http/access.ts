// Who may call the API: bearer tokens with a scope (RFC 6750), read-only mode, and the Host names it answers to.
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { platform } from "node:process";
import { HttpError } from "../api/errors.ts";

/** What a token allows: `read` (GET, HEAD, OPTIONS) or `write` (everything, reads included). */
export type Scope = "read" | "write";

/** The realm named in every `WWW-Authenticate` challenge (RFC 6750, section 3). */
export const REALM = "rest-reference-server";

/** A token as the server holds it: its scope and the SHA-256 digest of its text, never the text itself. */
type HeldToken = { scope: Scope; digest: Buffer };

/** A token setting or file that cannot be used; the message never holds a token. */
export class TokenError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "TokenError";
  }
}

// RFC 6750's b64token: what may follow `Bearer ` in a header, so every configured token can be sent.
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Reads `SCOPE:TOKEN` entries, separated by commas (`AUTH_TOKENS`) or lines (`AUTH_TOKENS_FILE`,
 * where blank lines and lines starting with `#` are skipped). A bad entry is a TokenError that
 * names the entry by its number in `source`, and never quotes it: it may be a secret.
 */
export function parseTokens(text: string, source: string, separator: "," | "\n" = ","): Array<{ scope: Scope; token: string }> {
  const entries: Array<{ scope: Scope; token: string }> = [];
  const parts = text.split(separator === "," ? "," : /\r?\n/);
  parts.forEach((part, index) => {
    const entry = part.trim();
    if (separator === "\n" && (entry === "" || entry.startsWith("#"))) return;
    const colon = entry.indexOf(":");
    const scope = entry.slice(0, colon);
    const token = entry.slice(colon + 1);
    if (colon === -1 || (scope !== "read" && scope !== "write") || !TOKEN.test(token)) {
      const where = separator === "," ? `entry ${index + 1}` : `line ${index + 1}`;
      throw new TokenError(
        `${source} ${where} is not SCOPE:TOKEN: the scope must be read or write, and the token letters, digits and -._~+/ (such as write:my-token)`,
      );
    }
    entries.push({ scope, token });
  });
  if (entries.length === 0) throw new TokenError(`${source} holds no token; give SCOPE:TOKEN entries such as read:abc,write:def`);
  return entries;
}

/** Reads a tokens file (one `SCOPE:TOKEN` a line); an unreadable file is a TokenError naming the path. */
export function readTokensFile(path: string, source: string): Array<{ scope: Scope; token: string }> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
    throw new TokenError(`Cannot read the tokens file ${path} (${code}); check ${source}`);
  }
  return parseTokens(text, `The tokens file ${path}`, "\n");
}

/**
 * The warning for a tokens file that users other than its owner may read or change (any of the
 * mode bits 0o077), or undefined. Said, not refused: a secret mounted into a container is often
 * 0444 or 0644 by default, and the server may be the only user there.
 */
export function looseTokensFile(path: string): string | undefined {
  let mode: number | null;
  try {
    mode = statSync(path).mode;
  } catch {
    // Read a moment ago; a file gone since is told when the server reads it.
    return undefined;
  }
  // Windows has no such bits to tell of (Node reports 0o666 for every file there, Deno null).
  if (mode === null || platform === "win32" || (mode & 0o077) === 0) return undefined;
  const shown = (mode & 0o777).toString(8).padStart(4, "0");
  return `The tokens file ${path} is open to other users of this machine (mode ${shown}); let only the server's user read it: chmod 600 ${path}`;
}

/** The warning for tokens given on the command line, which every user of the machine can read in the process list. */
export const TOKENS_ON_COMMAND_LINE =
  "--auth-tokens shows the tokens to every user of this machine (ps lists a process's arguments); give them in AUTH_TOKENS or AUTH_TOKENS_FILE instead";

/** The options that say who may call the API; see AppOptions. */
export type AccessOptions = {
  /** `SCOPE:TOKEN` entries, as one comma-separated text or a list. */
  authTokens?: string | readonly string[];
  /** A file of `SCOPE:TOKEN` entries, one a line. */
  authTokensFile?: string;
  /** Every write is refused with 403 READ_ONLY. */
  readOnly?: boolean;
  /** The Host names requests may carry; see hostPolicy. */
  allowedHosts?: string | readonly string[];
};

/**
 * The check of a request's credentials: undefined when no token is configured (every request
 * may pass), else a function that returns the HttpError a request gets, or undefined when its
 * token allows the method. Tokens are kept as digests and compared in constant time.
 */
export function tokenCheck(options: AccessOptions): ((authorization: string | undefined, writes: boolean) => HttpError | undefined) | undefined {
  const entries = [
    ...(options.authTokens === undefined ? [] : readTokenOption(options.authTokens)),
    ...(options.authTokensFile === undefined ? [] : readTokensFile(options.authTokensFile, "authTokensFile")),
  ];
  if (entries.length === 0) return undefined;
  const held: HeldToken[] = entries.map(({ scope, token }) => ({ scope, digest: digest(token) }));
  return (authorization, writes) => {
    const scope = authorization === undefined ? undefined : scopeOf(authorization, held);
    if (scope === undefined) {
      return new HttpError("UNAUTHORIZED", "This API needs a token: send Authorization: Bearer <token>", {
        headers: { "www-authenticate": `Bearer realm="${REALM}"` },
      });
    }
    if (writes && scope !== "write") {
      return new HttpError("INSUFFICIENT_SCOPE", "This token may only read; send a write token to change data", {
        headers: { "www-authenticate": 'Bearer error="insufficient_scope"' },
      });
    }
    return undefined;
  };
}

function readTokenOption(value: string | readonly string[]): Array<{ scope: Scope; token: string }> {
  if (typeof value === "string") return parseTokens(value, "authTokens");
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string")) {
    throw new TokenError('authTokens must be "SCOPE:TOKEN,..." or a list of "SCOPE:TOKEN" entries');
  }
  return parseTokens(value.join(","), "authTokens");
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/**
 * The scope of the token a header presents, or undefined. Digests of equal length are compared
 * with timingSafeEqual, and every held token is compared, so the time taken tells nothing of
 * how much of a token was right, nor which token matched.
 */
function scopeOf(authorization: string, held: readonly HeldToken[]): Scope | undefined {
  // The scheme is case-insensitive (RFC 9110, section 11.1); one space follows it.
  if (authorization.length < 8 || authorization.slice(0, 7).toLowerCase() !== "bearer ") return undefined;
  const presented = digest(authorization.slice(7).trim());
  let scope: Scope | undefined;
  for (const token of held) {
    if (timingSafeEqual(presented, token.digest) && scope !== "write") scope = token.scope;
  }
  return scope;
}

/** Whether a method changes data: everything but GET, HEAD and OPTIONS. */
export function isWrite(method: string): boolean {
  return method !== "GET" && method !== "HEAD" && method !== "OPTIONS";
}

/** The Host names allowed when none are configured: loopback names and any IP address, on any port. */
export const DEFAULT_ALLOWED_HOSTS: readonly string[] = Object.freeze(["localhost", "*.localhost", "ip"]);

/**
 * The check of a request's `Host` header against `allowed`: `*` for any, a name
 * (`api.example.com`), `*.example.com` for its subdomains, or `ip` for any IP address literal;
 * ports are ignored. A request without `Host` (HTTP/1.0, a raw probe) passes: no browser sends
 * one, so it cannot be DNS rebinding. Undefined when every host is allowed. Throws a TypeError
 * for a bad entry.
 */
export function hostCheck(allowed: string | readonly string[] = DEFAULT_ALLOWED_HOSTS): ((host: string | undefined) => HttpError | undefined) | undefined {
  const entries = typeof allowed === "string" ? allowed.split(",").map((entry) => entry.trim()) : allowed;
  if (!Array.isArray(entries) || entries.length === 0 || !entries.every((entry) => typeof entry === "string")) {
    throw new TypeError('allowedHosts must be "*" or a non-empty list of host names such as ["api.example.com", "*.example.com"]');
  }
  const names = new Set<string>();
  const suffixes: string[] = [];
  let anyIp = false;
  for (const raw of entries) {
    const entry = raw.toLowerCase();
    if (entry === "*") return undefined;
    if (entry === "ip") anyIp = true;
    else if (entry.startsWith("*.") && isHostName(entry.slice(2))) suffixes.push(entry.slice(1));
    else if (isHostName(entry) || isIP(unbracket(entry)) !== 0) names.add(unbracket(entry));
    else {
      throw new TypeError(
        `"${raw.slice(0, 60)}" is not a host name; write a name such as api.example.com, *.example.com for its subdomains, ip for any IP address, or * for any host`,
      );
    }
  }
  const allows = (host: string): boolean => {
    const name = hostName(host);
    if (names.has(name)) return true;
    if (anyIp && isIP(name) !== 0) return true;
    return suffixes.some((suffix) => name.endsWith(suffix) && name.length > suffix.length);
  };
  // The hosts seen, allowed or not, so that a request costs a look-up; bounded, since clients choose them.
  const seen = new Map<string, boolean>();
  // Nearly every request of a client names the same host as the one before: a comparison settles it.
  let lastAllowed: string | undefined;
  return (host) => {
    if (host === undefined || host === lastAllowed) return undefined;
    let allowed = seen.get(host);
    if (allowed === undefined) {
      allowed = allows(host);
      if (seen.size >= SEEN_HOSTS) seen.clear();
      seen.set(host, allowed);
    }
    if (allowed) {
      lastAllowed = host;
      return undefined;
    }
    return new HttpError(
      "HOST_NOT_ALLOWED",
      `Host ${host.slice(0, 80)} is not allowed; the server's operator can add it to ALLOWED_HOSTS`,
    );
  };
}

/** How many Host values a check remembers before it starts again. */
const SEEN_HOSTS = 256;

/** A Host header's name: lower case, without its port, brackets or a trailing dot. */
function hostName(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith("[")) {
    const end = name.indexOf("]");
    return end === -1 ? name : name.slice(1, end);
  }
  const colon = name.lastIndexOf(":");
  if (colon !== -1) name = name.slice(0, colon);
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

function unbracket(entry: string): string {
  return entry.startsWith("[") && entry.endsWith("]") ? entry.slice(1, -1) : entry;
}

function isHostName(text: string): boolean {
  return /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/.test(text);
}
