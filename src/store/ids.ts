// Ids the server makes for a collection with string ids.
import { randomBytes } from "node:crypto";

/** What a string id is: 1 to 64 URL-safe characters, as a client may choose, a path may name and a file may give. */
export const STRING_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A new string id: 128 random bits in base64url, 22 characters of A-Z, a-z, 0-9, `-` and `_`. */
export function randomId(): string {
  return randomBytes(16).toString("base64url");
}
