// `npm test`: the fast loop, with nothing but Node and npm, in about two minutes on two cores. Three jobs at
// once: the type check, the in-process tests, and the black-box suite through the fetch handler. Only the
// in-process tests print as they go; the others print after them. `npm test -- FILE…` runs just those
// files (any test file, slow ones included), in each pass that runs them. `npm run test:all` runs the rest:
// the slow files, the black-box suite against server processes on every runtime, and the coverage
// thresholds (scripts/test-sets.ts says which files are which).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { normalize, relative, resolve } from "node:path";
import { fast, fastInProcessFiles, fetchFiles, inProcessFiles } from "./test-sets.ts";

const require = createRequire(import.meta.url);
// The reporter prints the files that passed a folder to a line, and each failure whole (scripts/test-reporter.mjs).
const TEST = ["--import", "tsx", "--test", "--test-reporter=./scripts/test-reporter.mjs"];
const started = Date.now();
const chosen = process.argv.slice(2).map((file) => normalize(relative(process.cwd(), resolve(file))));

const unknown = chosen.filter((file) => !inProcessFiles().includes(file));
if (unknown.length > 0) {
  console.error(`Not a test file of npm test: ${unknown.join(", ")} (the files are test/*.test.ts and test/*/*.test.ts)`);
  process.exit(2);
}

type Job = { title: string; args: string[]; env: Record<string, string>; what: string };
// The in-process pass runs two files at a time, the fetch handler's pass one: much of a test's time is
// spent waiting on a server, a child process or a timer, but more at once on two cores made the tests
// that measure time fail. The fetch handler's pass prints only its failures and a summary.
const jobs: Job[] = [
  {
    title: "In-process tests",
    // Node only: Deno and Bun would be downloaded; test:all runs them.
    args: [...TEST, "--test-concurrency=2", ...(chosen.length === 0 ? fastInProcessFiles() : chosen)],
    env: { TEST_RUNTIMES: "node" },
    what: "the in-process tests",
  },
  { title: "Type check (tsc --noEmit)", args: [require.resolve("typescript/bin/tsc"), "--noEmit"], env: {}, what: "the type check" },
];
const throughFetch = chosen.length === 0 ? fast(fetchFiles()) : fetchFiles().filter((file) => chosen.includes(file));
if (throughFetch.length > 0) {
  jobs.push({
    title: "Black-box suite through the fetch handler (createFetchApp behind a thin server)",
    args: [...TEST, "--test-concurrency=1", ...throughFetch],
    env: { TEST_TARGET: "fetch", TEST_REPORT: "failures" },
    what: "the black-box suite through the fetch handler",
  });
}

console.log(`=== ${jobs[0]!.title} ===`);
const results = await Promise.all(jobs.map((job, index) => run(job.args, job.env, index === 0)));
const failed: string[] = [];
for (const [index, job] of jobs.entries()) {
  const { ok, output } = results[index]!;
  if (index > 0 && (output !== "" || !ok)) process.stdout.write(`\n=== ${job.title} ===\n${output}`);
  if (!ok) failed.push(job.what);
}

const seconds = Math.round((Date.now() - started) / 1000);
if (failed.length > 0) {
  console.error(`\nnpm test failed (${seconds} s): ${failed.join("; ")}`);
  process.exit(1);
}
console.log(
  `\nnpm test passed in ${seconds} s. \`npm run test:all\` runs the rest: the slow files, server processes on Node, Deno and Bun,\nChromium, PostgreSQL, strace, promtool, the package, the contract, the image and the coverage thresholds.`,
);

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
