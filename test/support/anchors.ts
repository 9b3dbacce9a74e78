// The anchors of a Markdown file's headings, made as GitHub makes them, so that a citation `docs/FILE.md#anchor` can be checked.
import { readFileSync } from "node:fs";

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, each space a hyphen. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of every heading of a Markdown file, code blocks left out. */
export function anchorsIn(path: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading !== null) anchors.add(anchorOf(heading[1]!));
  }
  return anchors;
}
