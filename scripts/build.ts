// Builds dist/: the source compiled to JavaScript that runs with plain node and no node_modules.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
rmSync("dist", { recursive: true, force: true });
// tsc rewrites the `.ts` of relative imports to `.js` (rewriteRelativeImportExtensions).
execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
  stdio: "inherit",
});
mkdirSync("dist", { recursive: true });
// Marks the .js files as ES modules, so dist/ runs wherever it is copied.
writeFileSync("dist/package.json", `${JSON.stringify({ type: "module" }, null, 2)}\n`);
console.log("Built dist/; start it with: node dist/main.js");
