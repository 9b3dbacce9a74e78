// The examples of the docs: the ```js block after each `<!-- example: name -->` marker, which tests check and scripts/check-package.ts runs.

/** Every example docs/testing-clients.md holds, by the name a reader saves it as. */
export const CLIENT_EXAMPLES = ["fetch-handler.test.mjs", "start-server.test.mjs", "control.mjs", "deno-serve.mjs", "bun-serve.mjs"] as const;

/** The example's code, as a reader would copy it; throws if the marker or its ```js block is missing. */
export function embeddingExample(markdown: string): string {
  return exampleNamed(markdown, "example.test.mjs");
}

/** The example a page saves as `name` (after its `<!-- example: name -->` marker), as a reader would copy it. */
export function exampleNamed(markdown: string, name: string): string {
  const lines = markdown.split("\n");
  const marker = lines.indexOf(`<!-- example: ${name} -->`);
  if (marker === -1) throw new Error(`no <!-- example: ${name} --> marker`);
  if (lines[marker + 1] !== "```js") throw new Error(`<!-- example: ${name} --> is not followed by a \`\`\`js block`);
  const end = lines.indexOf("```", marker + 2);
  if (end === -1) throw new Error("the example's block never ends");
  return lines.slice(marker + 2, end).join("\n") + "\n";
}
