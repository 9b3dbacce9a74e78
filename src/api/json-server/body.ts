// Request bodies as json-server takes them: JSON, a form (`application/x-www-form-urlencoded`,
// every value a string), or none at all (an empty object). The server's own bounds still hold:
// the size limit, UTF-8, nesting depth and forbidden member names.
import type { IncomingHttpHeaders } from "node:http";
import { HttpError } from "../errors.ts";
import { type JsonObject, parseJsonObject, treeProblem } from "../json.ts";

/** What a body that is JSON but not an object reads as: the route answers 1.0's 400 `{ error }` for it. */
export const NOT_AN_OBJECT: JsonObject = Object.freeze({});

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a write's body: none is `{}`, a form its fields, anything else JSON. */
export function readDialectBody(bytes: Uint8Array, headers: IncomingHttpHeaders): JsonObject {
  const type = (headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch (cause) {
      throw new HttpError("INVALID_ENCODING", "Request body must be valid UTF-8", { cause });
    }
    const body: JsonObject = {};
    for (const [name, value] of new URLSearchParams(text)) body[name] = value;
    const problem = treeProblem(body, "Request body");
    if (problem !== undefined) throw problem;
    return body;
  }
  if (type !== "" && type !== "application/json" && !type.endsWith("+json")) {
    throw new HttpError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json or application/x-www-form-urlencoded");
  }
  if (bytes.length === 0) return {};
  try {
    return parseJsonObject(bytes);
  } catch (error) {
    // A body of white space alone is no body, as json-server takes it.
    if (error instanceof HttpError && error.code === "EMPTY_BODY") return {};
    if (error instanceof HttpError && error.code === "BODY_NOT_OBJECT") return NOT_AN_OBJECT;
    throw error;
  }
}
