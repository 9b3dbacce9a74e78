// The embedding example of docs/package.md: the ```js block after its marker, which test/docs.test.ts checks and scripts/check-package.ts runs.

/** The comment that comes just before the example's block; the file name is the one a reader saves it as. */
export const EXAMPLE_MARKER = "<!-- example: example.test.mjs -->";

/** The example's code, as a reader would copy it; throws if the marker or its ```js block is missing. */
export function embeddingExample(markdown: string): string {
  const lines = markdown.split("\n");
  const marker = lines.indexOf(EXAMPLE_MARKER);
  if (marker === -1) throw new Error(`no ${EXAMPLE_MARKER} marker`);
  if (lines[marker + 1] !== "```js") throw new Error(`${EXAMPLE_MARKER} is not followed by a \`\`\`js block`);
  const end = lines.indexOf("```", marker + 2);
  if (end === -1) throw new Error("the example's block never ends");
  return lines.slice(marker + 2, end).join("\n") + "\n";
}
