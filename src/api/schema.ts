// JSON Schema (2020-12) for the members a client sends to a resource defined in a file: the
// keywords this server supports, compiled once at start-up into a check that reports every problem.
import type { FieldError } from "./errors.ts";
import { EMAIL_SHAPE, MAX_EMAIL_LENGTH } from "./validate.ts";

/** A schema the server cannot apply: an unsupported keyword, or a keyword with a bad value. */
export class SchemaDefinitionError extends TypeError {
  override name = "SchemaDefinitionError";
}

/**
 * The most problems a check lists: a body of 100,000 wrong values would otherwise make an answer
 * 25 times its size, and many at once would take the process past its memory budget.
 */
export const MAX_PROBLEMS = 100;

/** Checks a value; pushes each problem, with the member's whole path (`address.city`, `tags.2`), onto `errors`. */
export type SchemaCheck = (value: unknown, path: string, errors: FieldError[]) => void;

/** The JSON types a `type` keyword names. */
const TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"] as const;
type JsonType = (typeof TYPES)[number];

/** Keywords that say nothing about validity: accepted, and shown in the OpenAPI document as they are. */
const ANNOTATIONS = new Set(["$schema", "$comment", "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly"]);

/** The keywords that say what is valid, as an error about another one lists them. */
const KEYWORDS = [
  "type", "required", "properties", "additionalProperties", "enum", "const", "minLength", "maxLength", "pattern", "format",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "items", "minItems", "maxItems",
];

/** The only dialect a `$schema` may name: the one OpenAPI 3.1 uses. */
export const DIALECT = "https://json-schema.org/draft/2020-12/schema";

/** Formats checked, with what their message asks for. */
const FORMATS: Record<string, { test: (value: string) => boolean; message: string }> = {
  email: {
    test: (value) => value.length <= MAX_EMAIL_LENGTH && EMAIL_SHAPE.test(value),
    message: "must be an e-mail address such as name@example.com",
  },
  // RFC 3339, section 5.6, with a date and time that exist.
  "date-time": {
    test: (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value.toUpperCase())) && sameDay(value),
    message: "must be a date and time such as 2026-01-31T09:30:00Z",
  },
  // RFC 3986, section 3: a scheme, a colon, and no spaces or controls.
  uri: { test: (value) => URI.test(value), message: "must be an absolute URI such as https://example.com/" },
};
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s\u0000-\u001f\u007f"<>\\^`{|}]*$/;

/** Whether a date-time's day exists as written: Date.parse rolls 2026-02-30 over to March. */
function sameDay(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && Number(value.slice(11, 13)) < 24;
}

/**
 * Compiles a schema into its check. `where` names it in errors (`resource "todos", schema`);
 * an unsupported keyword or a bad value throws a SchemaDefinitionError naming its place.
 */
export function compileSchema(schema: unknown, where: string): SchemaCheck {
  if (schema === true) return () => undefined;
  if (schema === false) return (_value, path, errors) => void errors.push({ path, message: "is not allowed" });
  if (!isObject(schema)) throw new SchemaDefinitionError(`${where} must be an object or a boolean`);
  const checks: SchemaCheck[] = [];
  let types: JsonType[] | undefined;
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${where}.${keyword}`;
    if (ANNOTATIONS.has(keyword)) {
      if (keyword === "$schema" && value !== DIALECT) throw new SchemaDefinitionError(`${at} must be "${DIALECT}" (the dialect OpenAPI 3.1 uses)`);
      continue;
    }
    switch (keyword) {
      case "type":
        types = readTypes(value, at);
        break;
      case "properties":
      case "required":
      case "additionalProperties":
        break; // read together below
      case "enum": {
        if (!Array.isArray(value) || value.length === 0) throw new SchemaDefinitionError(`${at} must be a non-empty array`);
        const message = `must be one of ${value.map((item) => JSON.stringify(item)).join(", ")}`;
        checks.push((item, path, errors) => {
          if (!value.some((allowed) => jsonEqual(allowed, item))) errors.push({ path, message });
        });
        break;
      }
      case "const": {
        const message = `must be ${JSON.stringify(value)}`;
        checks.push((item, path, errors) => {
          if (!jsonEqual(value, item)) errors.push({ path, message });
        });
        break;
      }
      case "minLength":
      case "maxLength": {
        const limit = readCount(value, at);
        const min = keyword === "minLength";
        const message = `must be at ${min ? "least" : "most"} ${limit} character${limit === 1 ? "" : "s"} long`;
        checks.push((item, path, errors) => {
          if (typeof item !== "string") return;
          // JSON Schema counts characters (code points), which are at most the UTF-16 units and
          // at least half of them: most strings are settled without counting.
          if (min ? item.length >= 2 * limit : item.length <= limit) return;
          const length = codePoints(item);
          if (min ? length < limit : length > limit) errors.push({ path, message });
        });
        break;
      }
      case "pattern": {
        if (typeof value !== "string") throw new SchemaDefinitionError(`${at} must be a string`);
        let pattern: RegExp;
        try {
          pattern = new RegExp(value, "u");
        } catch {
          throw new SchemaDefinitionError(`${at} is not a valid regular expression`);
        }
        const message = `must match the pattern ${value}`;
        checks.push((item, path, errors) => {
          if (typeof item === "string" && !pattern.test(item)) errors.push({ path, message });
        });
        break;
      }
      case "format": {
        if (typeof value !== "string" || !Object.hasOwn(FORMATS, value)) {
          throw new SchemaDefinitionError(`${at} must be one of ${Object.keys(FORMATS).join(", ")}`);
        }
        const format = FORMATS[value]!;
        checks.push((item, path, errors) => {
          if (typeof item === "string" && !format.test(item)) errors.push({ path, message: format.message });
        });
        break;
      }
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum": {
        if (typeof value !== "number" || !Number.isFinite(value)) throw new SchemaDefinitionError(`${at} must be a number`);
        const [fails, words] = BOUNDS[keyword];
        const message = `must be ${words} ${value}`;
        checks.push((item, path, errors) => {
          if (typeof item === "number" && fails(item, value)) errors.push({ path, message });
        });
        break;
      }
      case "items": {
        const check = compileSchema(value, at);
        checks.push((item, path, errors) => {
          if (!Array.isArray(item)) return;
          for (let index = 0; index < item.length && errors.length < MAX_PROBLEMS; index++) check(item[index], join(path, String(index)), errors);
        });
        break;
      }
      case "minItems":
      case "maxItems": {
        const limit = readCount(value, at);
        const min = keyword === "minItems";
        const message = `must have at ${min ? "least" : "most"} ${limit} item${limit === 1 ? "" : "s"}`;
        checks.push((item, path, errors) => {
          if (Array.isArray(item) && (min ? item.length < limit : item.length > limit)) errors.push({ path, message });
        });
        break;
      }
      default:
        throw new SchemaDefinitionError(`${at} is not a keyword this server supports; it supports ${KEYWORDS.join(", ")}`);
    }
  }
  const members = readMembers(schema, where);
  if (members !== undefined) checks.push(members);
  const typeCheck = types === undefined ? undefined : typeChecker(types);
  return (value, path, errors) => {
    // A value of the wrong type gets that one message: the others would only repeat it.
    if (typeCheck !== undefined && !typeCheck.test(value)) return void errors.push({ path, message: typeCheck.message });
    for (const check of checks) if (errors.length < MAX_PROBLEMS) check(value, path, errors);
  };
}

/** The check of an object's members: `properties`, `required` and `additionalProperties` together. */
function readMembers(schema: Record<string, unknown>, where: string): SchemaCheck | undefined {
  const { properties = {}, required = [], additionalProperties = true } = schema;
  if (!isObject(properties)) throw new SchemaDefinitionError(`${where}.properties must be an object`);
  if (!Array.isArray(required) || required.some((name) => typeof name !== "string") || new Set(required).size !== required.length) {
    throw new SchemaDefinitionError(`${where}.required must be an array of distinct member names`);
  }
  const known = new Map<string, SchemaCheck>();
  for (const [name, member] of Object.entries(properties)) known.set(name, compileSchema(member, `${where}.properties.${name}`));
  const others = additionalProperties === true ? undefined : compileSchema(additionalProperties, `${where}.additionalProperties`);
  if (known.size === 0 && required.length === 0 && others === undefined) return undefined;
  const names = required as string[];
  return (value, path, errors) => {
    if (!isObject(value)) return;
    for (const name of names) if (!Object.hasOwn(value, name)) errors.push({ path: join(path, name), message: "is required" });
    for (const name in value) {
      if (errors.length >= MAX_PROBLEMS) return;
      const check = known.get(name) ?? others;
      check?.(value[name], join(path, name), errors);
    }
  };
}

const BOUNDS = {
  minimum: [(item: number, bound: number) => item < bound, "at least"],
  maximum: [(item: number, bound: number) => item > bound, "at most"],
  exclusiveMinimum: [(item: number, bound: number) => item <= bound, "greater than"],
  exclusiveMaximum: [(item: number, bound: number) => item >= bound, "less than"],
} as const;

const TYPE_NAMES: Record<JsonType, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

function typeChecker(types: JsonType[]): { test: (value: unknown) => boolean; message: string } {
  const names = types.map((type) => TYPE_NAMES[type]);
  const message = `must be ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`}`;
  return { test: (value) => types.some((type) => isType(value, type)), message };
}

function isType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case "string":
    case "boolean":
      return typeof value === type;
    case "number":
      return typeof value === "number";
    case "integer":
      return Number.isInteger(value);
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "null":
      return value === null;
  }
}

function readTypes(value: unknown, at: string): JsonType[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || list.some((type) => !(TYPES as readonly unknown[]).includes(type)) || new Set(list).size !== list.length) {
    throw new SchemaDefinitionError(`${at} must be one of ${TYPES.join(", ")}, or an array of distinct ones`);
  }
  return list as JsonType[];
}

function readCount(value: unknown, at: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) throw new SchemaDefinitionError(`${at} must be a whole number from 0`);
  return value as number;
}

/** A member's path: `address.city`, `tags.2`; a top-level member is its name alone. */
function join(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

function codePoints(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether two JSON values are equal, objects whatever their members' order; 1 and 1.0 are one number. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * A value the schema accepts, for the OpenAPI document's examples: the schema's own (`examples`,
 * `default`, `const`, the first of `enum`) where it gives one, else one made from its keywords.
 * The caller checks it; a `pattern` or `format` the made value misses needs an example in the file.
 */
export function exampleOf(schema: unknown): unknown {
  if (!isObject(schema)) return {};
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (Object.hasOwn(schema, "default")) return schema.default;
  if (Object.hasOwn(schema, "const")) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type ?? (isObject(schema.properties) ? "object" : isObject(schema.items) ? "array" : undefined)) {
    case "string": {
      if (schema.format === "email") return "name@example.com";
      if (schema.format === "date-time") return "2026-01-31T09:30:00Z";
      if (schema.format === "uri") return "https://example.com/";
      const length = Math.max(typeof schema.minLength === "number" ? schema.minLength : 0, 7);
      return "example".padEnd(length, "e").slice(0, typeof schema.maxLength === "number" ? Math.max(schema.maxLength, 0) : length);
    }
    case "integer":
    case "number": {
      const number = (value: unknown) => (typeof value === "number" ? value : undefined);
      const lower = number(schema.minimum) ?? (number(schema.exclusiveMinimum) === undefined ? undefined : number(schema.exclusiveMinimum)! + 1);
      const upper = number(schema.maximum) ?? (number(schema.exclusiveMaximum) === undefined ? undefined : number(schema.exclusiveMaximum)! - 1);
      const value = lower ?? Math.min(upper ?? 1, 1);
      return type === "integer" ? Math.ceil(value) : value;
    }
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const count = typeof schema.minItems === "number" ? Math.max(schema.minItems, 1) : 1;
      return Array.from({ length: count }, () => exampleOf(schema.items));
    }
    case "object": {
      const properties = isObject(schema.properties) ? schema.properties : {};
      return Object.fromEntries(Object.entries(properties).map(([name, member]) => [name, exampleOf(member)]));
    }
    default:
      return "example";
  }
}
