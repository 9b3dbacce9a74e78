// Builds dist/: the source compiled to JavaScript that runs with plain node and no node_modules, with its .d.ts types; then the adapter packages' dist/.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import ts from "typescript";

const require = createRequire(import.meta.url);
rmSync("dist", { recursive: true, force: true });
// tsc rewrites the `.ts` of relative imports to `.js` (rewriteRelativeImportExtensions).
execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
  stdio: "inherit",
});
mkdirSync("dist", { recursive: true });
// Marks the .js files as ES modules, so dist/ runs wherever it is copied.
writeFileSync("dist/package.json", `${JSON.stringify({ type: "module" }, null, 2)}\n`);
rewriteDeclarations("dist");
console.log("Built dist/; start it with: node dist/main.js");

// Each adapter package in packages/ after the server, whose .d.ts files its types come from.
// The container image's build copies the server alone (see Dockerfile), without packages/.
for (const name of existsSync("packages") ? readdirSync("packages") : []) {
  const folder = join("packages", name);
  rmSync(join(folder, "dist"), { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", join(folder, "tsconfig.build.json")], { stdio: "inherit" });
  rewriteDeclarations(join(folder, "dist"), `${name}.d.ts`);
  console.log(`Built ${folder}/dist/`);
}

// tsc rewrites `.ts` to `.js` in the JavaScript but leaves it in the .d.ts files, and a
// consumer's tsc under NodeNext resolves their imports like the JavaScript's: each one
// must name the `.js` file beside its .d.ts. So the build rewrites them, then checks.
function rewriteDeclarations(folder: string, entry = "index.d.ts"): void {
  const files = readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".d.ts"));
  if (!files.includes(entry)) throw new Error(`The build wrote no ${folder}/${entry}; check declaration in tsconfig.build.json`);
  for (const file of files) {
    const path = join(folder, file);
    let text = readFileSync(path, "utf8");
    // From the last import back, so each replacement leaves the earlier positions valid.
    for (const { fileName, pos } of relativeImports(text).reverse()) {
      // preProcessFile's `pos` is the opening quote of the string literal.
      const start = pos + 1;
      if (text.slice(start, start + fileName.length) !== fileName) throw new Error(`${path}: cannot place ${fileName}`);
      if (fileName.endsWith(".ts")) text = `${text.slice(0, start)}${fileName.slice(0, -3)}.js${text.slice(start + fileName.length)}`;
    }
    writeFileSync(path, text);
    const wrong = relativeImports(text).filter(({ fileName }) => !fileName.endsWith(".js"));
    if (wrong.length > 0) {
      throw new Error(`${path}: relative imports must end in .js: ${wrong.map(({ fileName }) => fileName).join(", ")}`);
    }
  }
}

function relativeImports(text: string): ts.FileReference[] {
  return ts.preProcessFile(text, true, true).importedFiles.filter(({ fileName }) => fileName.startsWith("."));
}
