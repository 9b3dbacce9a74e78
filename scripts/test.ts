// `npm test`: the fast loop, with nothing but Node and npm. The in-process tests with coverage, then the
// black-box suite against the build, copied alone into an empty folder, and through the fetch handler.
// `npm test -- FILE…` runs just those files, in each pass that runs them, without the coverage thresholds.
// `npm run test:all` runs the rest.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, normalize, relative, resolve } from "node:path";
import { blackBoxFiles, fast, fetchFiles, inProcessFiles } from "./test-sets.ts";

const c8 = createRequire(import.meta.url).resolve("c8/bin/c8.js");
// Files run four at a time: most of a test's time is spent waiting on a server or a child process.
// The reporter prints a line per file and each failure whole (scripts/test-reporter.mjs).
const TEST = ["--import", "tsx", "--test", "--test-concurrency=4", "--test-reporter=./scripts/test-reporter.mjs"];
const started = Date.now();
const failed: string[] = [];
const chosen = process.argv.slice(2).map((file) => normalize(relative(process.cwd(), resolve(file))));
const only = (files: string[]) => (chosen.length === 0 ? files : files.filter((file) => chosen.includes(file)));

const unknown = chosen.filter((file) => !inProcessFiles().includes(file));
if (unknown.length > 0) {
  console.error(`Not a test file of npm test: ${unknown.join(", ")} (the files are test/*.test.ts and test/*/*.test.ts)`);
  process.exit(2);
}

const inProcess = chosen.length === 0 ? fast(inProcessFiles()) : chosen;
console.log(`=== In-process tests${chosen.length === 0 ? ", with coverage" : ""} ===`);
// Node only: Deno and Bun would be downloaded; test:all runs them. The coverage table only if a threshold fails.
const covered = chosen.length === 0 ? [c8, "--reporter=text-summary", process.execPath] : [];
if (!run([...covered, ...TEST, ...inProcess], { TEST_RUNTIMES: "node" })) {
  failed.push("the in-process tests or their coverage");
  // Which files lack coverage, from the data that run left in coverage/tmp.
  if (chosen.length === 0) run([c8, "report", "--reporter=text"], {});
}

// The build, copied alone into an empty folder outside the repository: no node_modules and no src/ beside it.
const againstDist = only(fast(blackBoxFiles()));
if (againstDist.length > 0) {
  const distCopy = mkdtempSync(join(tmpdir(), "rest-dist-"));
  try {
    cpSync("dist", join(distCopy, "dist"), { recursive: true });
    console.log("\n=== Black-box suite against the build (dist/) ===");
    if (!run([...TEST, ...againstDist], { TEST_TARGET: "dist", TEST_DIST_DIR: distCopy })) failed.push("the black-box suite against dist");
  } finally {
    rmSync(distCopy, { recursive: true, force: true });
  }
}

const throughFetch = only(fast(fetchFiles()));
if (throughFetch.length > 0) {
  console.log("\n=== Black-box suite through the fetch handler (createFetchApp behind a thin server) ===");
  if (!run([...TEST, ...throughFetch], { TEST_TARGET: "fetch" })) failed.push("the black-box suite through the fetch handler");
}

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
