// `npm test`: the fast loop, with nothing but Node and npm. The in-process tests with coverage, then the
// black-box suite against the build, copied alone into an empty folder. `npm run test:all` runs the rest.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blackBoxFiles, fast, fetchFiles, inProcessFiles } from "./test-sets.ts";

const c8 = createRequire(import.meta.url).resolve("c8/bin/c8.js");
// Files run four at a time: most of a test's time is spent waiting on a server or a child process.
const TEST = ["--import", "tsx", "--test", "--test-concurrency=4"];
const started = Date.now();
const failed: string[] = [];

console.log("=== In-process tests, with coverage ===");
// Node only: Deno and Bun would be downloaded; test:all runs them.
if (!run([c8, process.execPath, ...TEST, ...fast(inProcessFiles())], { TEST_RUNTIMES: "node" })) failed.push("the in-process tests or their coverage");

// The build, copied alone into an empty folder outside the repository: no node_modules and no src/ beside it.
const distCopy = mkdtempSync(join(tmpdir(), "rest-dist-"));
try {
  cpSync("dist", join(distCopy, "dist"), { recursive: true });
  console.log("\n=== Black-box suite against the build (dist/) ===");
  if (!run([...TEST, "--test-reporter=dot", ...fast(blackBoxFiles())], { TEST_TARGET: "dist", TEST_DIST_DIR: distCopy })) failed.push("the black-box suite against dist");
} finally {
  rmSync(distCopy, { recursive: true, force: true });
}

console.log("\n=== Black-box suite through the fetch handler (createFetchApp behind a thin server) ===");
if (!run([...TEST, "--test-reporter=dot", ...fast(fetchFiles())], { TEST_TARGET: "fetch" })) failed.push("the black-box suite through the fetch handler");

const seconds = Math.round((Date.now() - started) / 1000);
if (failed.length > 0) {
  console.error(`\nnpm test failed (${seconds} s): ${failed.join("; ")}`);
  process.exit(1);
}
console.log(`\nnpm test passed in ${seconds} s. \`npm run test:all\` runs the rest: Chromium, PostgreSQL, strace, promtool, Deno, Bun, the package and the contract.`);

function run(args: string[], env: Record<string, string>): boolean {
  const result = spawnSync(process.execPath, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (result.error) throw result.error;
  return result.status === 0;
}
