// Builds dist/: the source compiled to JavaScript that runs with plain node and no node_modules, with its .d.ts types; then the adapter packages' dist/.
// Each dist/ is written whole in a folder beside it, then put in its place by renames: a build cut short (Ctrl-C
// during `npx rest-reference-server`'s first run, which builds) leaves the dist/ there was, never half of one.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import ts from "typescript";

const require = createRequire(import.meta.url);
const started = Date.now();
console.log("Building dist/ with tsc (about 10 to 30 s)...");
await buildInto("dist", "tsconfig.build.json", (folder) => {
  // Marks the .js files as ES modules, so dist/ runs wherever it is copied.
  writeFileSync(join(folder, "package.json"), `${JSON.stringify({ type: "module" }, null, 2)}\n`);
  rewriteDeclarations(folder);
});
console.log(`Built dist/ in ${Math.round((Date.now() - started) / 1000)} s; start it with: node dist/main.js`);

// Each adapter package in packages/ after the server, whose .d.ts files its types come from.
// The container image's build copies the server alone (see Dockerfile), without packages/.
for (const name of existsSync("packages") ? readdirSync("packages") : []) {
  const folder = join("packages", name);
  await buildInto(join(folder, "dist"), join(folder, "tsconfig.build.json"), (built) => rewriteDeclarations(built, `${name}.d.ts`));
  console.log(`Built ${folder}/dist/`);
}

/** Compiles `project` into a new folder beside `target`, finishes it with `finish`, then puts it in target's place. */
async function buildInto(target: string, project: string, finish: (folder: string) => void): Promise<void> {
  const parent = dirname(target);
  // What a build cut short left: its unfinished folder, or the dist/ it had moved aside, which goes back if none
  // took its place. A build still running beside this one keeps its folders.
  const left = readdirSync(parent).filter((entry) => /^\.dist-(building|replaced)-\d+$/.test(entry) && !running(Number(entry.split("-").at(-1))));
  for (const name of left) {
    if (name.startsWith(".dist-replaced-") && !existsSync(target)) renameSync(join(parent, name), target);
    else rmSync(join(parent, name), { recursive: true, force: true });
  }
  const building = join(parent, `.dist-building-${process.pid}`);
  const replaced = join(parent, `.dist-replaced-${process.pid}`);
  try {
    // tsc rewrites the `.ts` of relative imports to `.js` (rewriteRelativeImportExtensions).
    execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", project, "--outDir", building], { stdio: "inherit" });
    finish(building);
    // A folder cannot be renamed over one that holds files: the old one goes aside first, for as
    // long as two renames take, during which a Ctrl-C waits.
    const interrupted: NodeJS.Signals[] = [];
    const hold = (signal: NodeJS.Signals) => interrupted.push(signal);
    process.on("SIGINT", hold).on("SIGTERM", hold);
    if (existsSync(target)) renameSync(target, replaced);
    renameSync(building, target);
    // A signal that came during the renames reaches `hold` on the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    process.off("SIGINT", hold).off("SIGTERM", hold);
    if (interrupted.length > 0) process.kill(process.pid, interrupted[0]);
  } finally {
    rmSync(building, { recursive: true, force: true });
    rmSync(replaced, { recursive: true, force: true });
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
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
