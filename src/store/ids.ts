// Ids the server makes for a collection with string ids.
import { randomBytes } from "node:crypto";

/** A new string id: 128 random bits in base64url, 22 characters of A-Z, a-z, 0-9, `-` and `_`. */
export function randomId(): string {
  return randomBytes(16).toString("base64url");
}
