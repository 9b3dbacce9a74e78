// `npm test`: the fast loop, with nothing but Node and npm. Four jobs at once: the type check, the in-process
// tests, the black-box suite against the build (copied alone into an empty folder), and the black-box
// suite through the fetch handler; the in-process tests and the fetch handler's pass under coverage. Only
// the in-process tests print as they go; the others print after them. `npm test -- FILE…` runs just those
// files, in each pass that runs them, without the coverage thresholds. `npm run test:all` runs the rest.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, normalize, relative, resolve } from "node:path";
import { blackBoxFiles, coveredFiles, fast, fetchFiles, inProcessFiles } from "./test-sets.ts";

const require = createRequire(import.meta.url);
const c8 = require.resolve("c8/bin/c8.js");
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
// Coverage as c8 collects it: every node process these passes start writes V8's coverage into the
// folder NODE_V8_COVERAGE names, and `c8 report` reads them all at the end.
const covered = chosen.length === 0;
const coverage = resolve("coverage", "tmp");
rmSync(resolve("coverage"), { recursive: true, force: true });
mkdirSync(coverage, { recursive: true });
const withCoverage: Record<string, string> = covered ? { NODE_V8_COVERAGE: coverage } : {};

type Job = { title: string; args: string[]; env: Record<string, string>; what: string };
// The in-process pass runs two files at a time, each black-box pass one: much of a test's time is spent
// waiting on a server, a child process or a timer, but more at once on two cores made the tests that
// measure time fail. The black-box passes print only their failures and a summary.
const quiet = { TEST_REPORT: "failures" };
const jobs: Job[] = [
  {
    title: "In-process tests",
    // Node only: Deno and Bun would be downloaded; test:all runs them.
    args: [...TEST, "--test-concurrency=2", ...(covered ? coveredFiles() : chosen)],
    env: { TEST_RUNTIMES: "node", ...withCoverage },
    what: "the in-process tests",
  },
  { title: "Type check (tsc --noEmit)", args: [require.resolve("typescript/bin/tsc"), "--noEmit"], env: {}, what: "the type check" },
];
const againstDist = only(fast(blackBoxFiles()));
if (againstDist.length > 0) {
  jobs.push({
    title: "Black-box suite against the build (dist/), test/process/ included",
    args: [...TEST, "--test-concurrency=1", ...againstDist],
    env: { TEST_TARGET: "dist", TEST_DIST_DIR: distCopy, ...quiet },
    what: "the black-box suite against dist",
  });
}
const throughFetch = only(fast(fetchFiles()));
if (throughFetch.length > 0) {
  jobs.push({
    title: "Black-box suite through the fetch handler (createFetchApp behind a thin server)",
    args: [...TEST, "--test-concurrency=1", ...throughFetch],
    env: { TEST_TARGET: "fetch", ...quiet, ...withCoverage },
    what: "the black-box suite through the fetch handler",
  });
}

console.log(`=== ${jobs[0]!.title} ===`);
const results = await Promise.all(jobs.map((job, index) => run(job.args, job.env, index === 0)));
rmSync(distCopy, { recursive: true, force: true });
const failed: string[] = [];
for (const [index, job] of jobs.entries()) {
  const { ok, output } = results[index]!;
  if (index > 0 && (output !== "" || !ok)) process.stdout.write(`\n=== ${job.title} ===\n${output}`);
  if (!ok) failed.push(job.what);
}
if (covered) {
  // The thresholds of .c8rc.json over both coverage passes; the table of files only if one fails.
  console.log("\n=== Coverage of src/, in-process and through the fetch handler ===");
  if (!(await run([c8, "report", "--reporter=text-summary"], {}, true)).ok) {
    failed.push("the coverage thresholds");
    await run([c8, "report", "--reporter=text", "--check-coverage=false"], {}, true);
  }
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
