// Paths into a record's members, as json-server's queries write them: `author.name`, `tags[0]`.

const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

/** A path's steps: `author.name` -> ["author", "name"], `tags[0]` -> ["tags", "0"]. */
export function readPath(text: string): string[] {
  return text
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".")
    .filter((step) => step !== "");
}

/** The value at a path, through own members only (a path such as `constructor` finds nothing); undefined when absent. */
export function valueAt(record: unknown, path: readonly string[]): unknown {
  let at: unknown = record;
  for (const step of path) {
    if (typeof at !== "object" || at === null || FORBIDDEN.has(step) || !Object.hasOwn(at, step)) return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

/** Whether a record has a member at the path, as lodash's `has` says. */
export function hasPath(record: unknown, path: readonly string[]): boolean {
  let at: unknown = record;
  for (const step of path) {
    if (typeof at !== "object" || at === null || FORBIDDEN.has(step) || !Object.hasOwn(at, step)) return false;
    at = (at as Record<string, unknown>)[step];
  }
  return true;
}
