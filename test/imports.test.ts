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
  assert.ok(ALL.some(({ specifier }) => specifier === "./http/server.ts"));
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

/** The layers of src/, from the top down: a file imports files of its own layer or of layers below it. */
const LAYERS = ["root", "http", "openapi", "ops", "api", "store"] as const;

/** The layer of a file of src/: its folder, or `root` for main.ts, config.ts and index.ts. */
function layerOf(file: string): (typeof LAYERS)[number] {
  const parts = file.split(sep);
  const folder = parts.length > 2 ? parts[1]! : "root";
  if (!(LAYERS as readonly string[]).includes(folder)) throw new Error(`${file} is in no layer; add its folder to LAYERS`);
  return folder as (typeof LAYERS)[number];
}

/** The relative imports of src/, types included, each resolved to the file it names. */
function sourceGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const { file, specifier } of ALL) {
    if (!file.startsWith(`src${sep}`) || !specifier.startsWith(".")) continue;
    const target = join(file, "..", specifier);
    graph.set(file, [...(graph.get(file) ?? []), target]);
  }
  return graph;
}

test("src/ imports point one way: a layer imports only itself and the layers below it (root, http, openapi, ops, api, store)", () => {
  const wrong: string[] = [];
  for (const [file, targets] of sourceGraph()) {
    for (const target of targets) {
      if (LAYERS.indexOf(layerOf(target)) < LAYERS.indexOf(layerOf(file))) wrong.push(`${file} -> ${target}`);
    }
  }
  assert.deepEqual(wrong, []);
  // The check reads real imports: the listener imports the API's rules, and the rules the store.
  assert.ok(sourceGraph().get(join("src", "http", "app.ts"))?.some((target) => layerOf(target) === "api"));
});

test("src/ has no import circle, not even through types", () => {
  const graph = sourceGraph();
  const circles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, path: string[]): void => {
    state.set(file, "open");
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === "open") circles.push([...path.slice(path.indexOf(target)), target].join(" -> "));
      else if (!state.has(target)) visit(target, [...path, target]);
    }
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file, [file]);
  assert.deepEqual(circles, []);
});
