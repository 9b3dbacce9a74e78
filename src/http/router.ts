// The route table: patterns compiled once, then method + path -> handler, allowed methods, or nothing.
import type { Route } from "../api/handler.ts";

/** The outcome of matching one request line against the table. */
export type Match<H> =
  | { kind: "found"; handler: H; params: Record<string, string>; pattern: string }
  | { kind: "options"; allow: string; pattern: string }
  | { kind: "method-not-allowed"; allow: string; pattern: string }
  | { kind: "not-found" };

/** Finds what answers a method and a path (the query string, if any, is ignored). */
export type Matcher<H> = (method: string, url: string) => Match<H>;

type Segment = { literal: string } | { param: string };

/** The paths with one segment count, in table order, and those of them found by their text. */
type Group<H> = { paths: CompiledPath<H>[]; exact: Map<string, CompiledPath<H>> | undefined };

type CompiledPath<H> = {
  pattern: string;
  segments: Segment[];
  handlers: Map<string, H>;
  allow: string;
};

const PARAM_NAME = /^:[A-Za-z_][A-Za-z0-9_]*$/;
const METHOD = /^[A-Z]+$/;
const RESERVED_NAMES = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Compiles a route table into a matcher. Bad patterns are programmer errors and
 * throw at start-up, never per request.
 */
export function createRouter<H>(routes: readonly Route<H>[]): Matcher<H> {
  const byPattern = new Map<string, CompiledPath<H>>();
  for (const route of routes) {
    if (!METHOD.test(route.method)) throw new TypeError(`Bad method "${route.method}"`);
    let path = byPattern.get(route.pattern);
    if (path === undefined) {
      path = { pattern: route.pattern, segments: compilePattern(route.pattern), handlers: new Map(), allow: "" };
      byPattern.set(route.pattern, path);
    }
    if (path.handlers.has(route.method)) {
      throw new TypeError(`Route ${route.method} ${route.pattern} is defined twice`);
    }
    path.handlers.set(route.method, route.handler);
  }

  // Paths are grouped by segment count so a request is compared only with paths
  // that could match it; within a group, the first match in table order wins.
  const bySegmentCount = new Map<number, Group<H>>();
  for (const path of byPattern.values()) {
    path.allow = allowHeader(path.handlers);
    const group = bySegmentCount.get(path.segments.length) ?? { paths: [], exact: undefined };
    // Fast path: a pattern without parameters that no earlier pattern of its group could hide
    // is found by its text at once, where `POST /users` was compared with five patterns before it
    // (docs/benchmarks.md, "Measurements behind fast paths in the code").
    // A group whose first pattern has parameters hashes no text.
    if (isLiteral(path) && group.paths.every(isLiteral)) (group.exact ??= new Map()).set(path.pattern, path);
    group.paths.push(path);
    bySegmentCount.set(path.segments.length, group);
  }

  return function match(method, url) {
    const requested = pathOf(url);
    const group = bySegmentCount.get(countSegments(requested));
    if (group === undefined) return NOT_FOUND;
    const known = group.exact?.get(requested);
    if (known !== undefined) {
      const handler = known.handlers.get(method) ?? (method === "HEAD" ? known.handlers.get("GET") : undefined);
      if (handler !== undefined) return { kind: "found", handler, params: NO_PARAMS, pattern: known.pattern };
      // Without the method here, a later pattern may still have it: the walk below decides.
    }
    const candidates = group.paths;
    // A path that fits without the method only answers 405 if no later pattern
    // fits with it: `GET /users/me` must not be hidden by `POST /users/:id`.
    let fitting: CompiledPath<H>[] | undefined;
    for (const path of candidates) {
      const params = matchSegments(path.segments, requested);
      if (params === undefined) continue;
      const handler = path.handlers.get(method) ?? (method === "HEAD" ? path.handlers.get("GET") : undefined);
      if (handler !== undefined) return { kind: "found", handler, params, pattern: path.pattern };
      (fitting ??= []).push(path);
    }
    if (fitting === undefined) return NOT_FOUND;
    // Usually one pattern fits; where several do, Allow names every method of each.
    const allow = fitting.length === 1 ? fitting[0]!.allow : allowHeader(new Map(fitting.flatMap((path) => [...path.handlers])));
    // The metrics name the first pattern that fits.
    return { kind: method === "OPTIONS" ? "options" : "method-not-allowed", allow, pattern: fitting[0]!.pattern };
  };
}

function isLiteral(path: CompiledPath<unknown>): boolean {
  return path.segments.every((segment) => "literal" in segment);
}

const NOT_FOUND = { kind: "not-found" } as const;
// Shared by every match of a pattern without parameters; nothing writes to it.
const NO_PARAMS: Record<string, string> = Object.freeze({});

/**
 * The path of a request target without its query string and, unless `keepSlash`,
 * without one trailing slash. An absolute-form target (`http://host/users`), which
 * servers must accept (RFC 9112, section 3.2.2), gives its path.
 */
export function pathOf(url: string, options?: { keepSlash?: boolean }): string {
  const query = url.indexOf("?");
  let path = query === -1 ? url : url.slice(0, query);
  if (!path.startsWith("/")) path = absolutePath(path);
  // One trailing slash is ignored (docs/spec.md#2-routing), so `/users/` is `/users`; `/` stays `/`.
  return !options?.keepSlash && path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

function absolutePath(target: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/.exec(target);
  if (scheme === null) return target;
  return target.slice(scheme[0].length) || "/";
}

/**
 * How many segments a path has: one after each "/" (`/users/1` has two, `/` has one
 * empty one). Fast path: the path is not split into an array; its segments are read in
 * place (see matchSegments)
 * (docs/benchmarks.md, "Measurements behind fast paths in the code").
 */
function countSegments(path: string): number {
  let count = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === SLASH) count++;
  return count;
}

const SLASH = 0x2f;

function compilePattern(pattern: string): Segment[] {
  if (!pattern.startsWith("/") || (pattern.length > 1 && pattern.endsWith("/")) || pattern.includes("//")) {
    throw new TypeError(`Route pattern "${pattern}" must start with "/" and have no empty segment`);
  }
  const names = new Set<string>();
  return pattern
    .split("/")
    .slice(1)
    .map((part) => {
      if (!part.startsWith(":")) return { literal: part };
      const name = part.slice(1);
      // Parameter values are stored under their names, so a name must be a plain, unique key.
      if (!PARAM_NAME.test(part) || RESERVED_NAMES.has(name) || names.has(name)) {
        throw new TypeError(`Bad or repeated parameter "${part}" in "${pattern}"`);
      }
      names.add(name);
      return { param: name };
    });
}

/**
 * Matches a pattern against a path with as many segments, reading each segment in
 * place between its "/" and the next; only parameter values are cut out as strings.
 */
function matchSegments(segments: Segment[], path: string): Record<string, string> | undefined {
  let params: Record<string, string> | undefined;
  let start = path.indexOf("/") + 1;
  for (const segment of segments) {
    let end = path.indexOf("/", start);
    if (end === -1) end = path.length;
    if ("literal" in segment) {
      if (end - start !== segment.literal.length || !path.startsWith(segment.literal, start)) return undefined;
    } else {
      // An empty segment (`/users//`) is not a value for a parameter.
      if (end === start) return undefined;
      params ??= {};
      params[segment.param] = path.slice(start, end);
    }
    start = end + 1;
  }
  return params ?? {};
}

function allowHeader(handlers: Map<string, unknown>): string {
  const methods = new Set(handlers.keys());
  if (methods.has("GET")) methods.add("HEAD");
  methods.add("OPTIONS");
  const order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
  return [...methods].sort((a, b) => rank(order, a) - rank(order, b)).join(", ");
}

function rank(order: string[], method: string): number {
  const index = order.indexOf(method);
  return index === -1 ? order.length : index;
}
