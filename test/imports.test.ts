// Every import in the repository runs unchanged on Node, Deno and Bun: relative ones end in `.ts`, built-ins are `node:`.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative, sep } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { ROOT } from "./support/target.ts";

const FOLDERS = ["src", "test", "scripts", "bench"];

/** Every `.ts` file under the folders, with each module specifier it imports or re-exports. */
function imports(): Array<{ file: string; specifier: string }> {
  const found: Array<{ file: string; specifier: string }> = [];
  for (const folder of FOLDERS) {
    const entries = readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const path = join(entry.parentPath, entry.name);
      // Installed packages (bench/node_modules after `npm run bench`) are not this project's source.
      if (path.split(sep).includes("node_modules")) continue;
      // preProcessFile finds static imports, re-exports, `import type` and dynamic import() alike.
      const { importedFiles } = ts.preProcessFile(readFileSync(path, "utf8"), true, true);
      for (const { fileName } of importedFiles) found.push({ file: relative(ROOT, path), specifier: fileName });
    }
  }
  return found;
}

const ALL = imports();

test("the import check finds the imports of src, test, scripts and bench", () => {
  assert.ok(ALL.some(({ file }) => file === join("src", "main.ts")));
  assert.ok(ALL.some(({ specifier }) => specifier === "./server.ts"));
});

test("every relative import names its file with the .ts extension, as Deno and Node's type stripping need", () => {
  const wrong = ALL.filter(({ specifier }) => specifier.startsWith(".") && !specifier.endsWith(".ts"));
  assert.deepEqual(wrong, []);
});

test("every built-in module is imported with the node: prefix, the one spelling all three runtimes resolve alike", () => {
  const bare = new Set(builtinModules.filter((name) => !name.startsWith("node:")));
  const wrong = ALL.filter(({ specifier }) => bare.has(specifier) || bare.has(specifier.split("/")[0]!));
  assert.deepEqual(wrong, []);
});
