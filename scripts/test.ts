// `npm test`: the fast loop, with nothing but Node and npm. The in-process tests with coverage; beside them,
// the black-box suite against the build, copied alone into an empty folder, and through the fetch handler,
// whose output waits until the in-process tests have printed theirs. `npm test -- FILE…` runs just those
// files, in each pass that runs them, without the coverage thresholds. `npm run test:all` runs the rest.
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, normalize, relative, resolve } from "node:path";
import { blackBoxFiles, coveredFiles, fast, fetchFiles, inProcessFiles } from "./test-sets.ts";

const c8 = createRequire(import.meta.url).resolve("c8/bin/c8.js");
// The reporter prints a line per file and each failure whole (scripts/test-reporter.mjs).
const TEST = ["--import", "tsx", "--test", "--test-reporter=./scripts/test-reporter.mjs"];
const started = Date.now();
const chosen = process.argv.slice(2).map((file) => normalize(relative(process.cwd(), resolve(file))));
const only = (files: string[]) => (chosen.length === 0 ? files : files.filter((file) => chosen.includes(file)));

const unknown = chosen.filter((file) => !inProcessFiles().includes(file));
if (unknown.length > 0) {
  console.error(`Not a test file of npm test: ${unknown.join(", ")} (the files are test/*.test.ts and test/*/*.test.ts)`);
  process.exit(2);
}

// The build, copied alone into an empty folder outside the repository: no node_modules and no src/ beside it.
const distCopy = mkdtempSync(join(tmpdir(), "rest-dist-"));
cpSync("dist", join(distCopy, "dist"), { recursive: true });

// Three passes at once on two cores: much of a test's time is spent waiting on a server, a
// child process or a timer. Each pass's files run a few at a time; the two black-box passes
// print only their failures and a summary, since the in-process pass has a line for each file.
const quiet = { TEST_REPORT: "failures" };
const passes: Array<{ title: string; args: string[]; env: Record<string, string>; what: string }> = [];
const covered = chosen.length === 0;
passes.push({
  title: `In-process tests${covered ? ", with coverage (the table only if a threshold fails)" : ""}`,
  // Node only: Deno and Bun would be downloaded; test:all runs them.
  args: [...(covered ? [c8, "--reporter=text-summary", process.execPath] : []), ...TEST, "--test-concurrency=3", ...(covered ? coveredFiles() : chosen)],
  env: { TEST_RUNTIMES: "node" },
  what: `the in-process tests${covered ? " or their coverage" : ""}`,
});
const againstDist = only(fast(blackBoxFiles()));
if (againstDist.length > 0) {
  passes.push({
    title: "Black-box suite against the build (dist/), test/process/ included",
    args: [...TEST, "--test-concurrency=2", ...againstDist],
    env: { TEST_TARGET: "dist", TEST_DIST_DIR: distCopy, ...quiet },
    what: "the black-box suite against dist",
  });
}
const throughFetch = only(fast(fetchFiles()));
if (throughFetch.length > 0) {
  passes.push({
    title: "Black-box suite through the fetch handler (createFetchApp behind a thin server)",
    args: [...TEST, "--test-concurrency=1", ...throughFetch],
    env: { TEST_TARGET: "fetch", ...quiet },
    what: "the black-box suite through the fetch handler",
  });
}

console.log(`=== ${passes[0]!.title} ===`);
const results = await Promise.all(passes.map((pass, index) => run(pass.args, pass.env, index === 0)));
rmSync(distCopy, { recursive: true, force: true });
const failed: string[] = [];
for (const [index, pass] of passes.entries()) {
  const { ok, output } = results[index]!;
  if (index > 0) process.stdout.write(`\n=== ${pass.title} ===\n${output}`);
  if (!ok) failed.push(pass.what);
}
if (covered && !results[0]!.ok) {
  // Which files lack coverage, from the data the run left in coverage/tmp.
  await run([c8, "report", "--reporter=text"], {}, true);
}

const seconds = Math.round((Date.now() - started) / 1000);
if (failed.length > 0) {
  console.error(`\nnpm test failed (${seconds} s): ${failed.join("; ")}`);
  process.exit(1);
}
console.log(`\nnpm test passed in ${seconds} s. \`npm run test:all\` runs the rest: Chromium, PostgreSQL, strace, promtool, Deno, Bun, the package and the contract.`);

/** Runs node with `args`; its output goes straight to this process's, or is kept to be printed later. */
function run(args: string[], env: Record<string, string>, straight: boolean): Promise<{ ok: boolean; output: string }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", straight ? "inherit" : "pipe", straight ? "inherit" : "pipe"], env: { ...process.env, ...env } });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ ok: code === 0, output }));
  });
}
