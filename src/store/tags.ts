// Entity tags as the stores make them: an epoch per data set and a version per record or list (RFC 9110, section 8.8.3).
import { randomUUID } from "node:crypto";

/** The strong ETag of a version of a representation: `"<epoch>-<version in base 36>"`. */
export function formatEntityTag(epoch: string, version: number): string {
  return `"${epoch}-${version.toString(36)}"`;
}

/**
 * A new epoch for a data set: a few random characters that every ETag of its records
 * and lists begins with. A store that starts again from version 0 gets a new one, so
 * no ETag given before a restart is ever given again for other content.
 */
export function newEpoch(): string {
  return randomUUID().slice(0, 8);
}
