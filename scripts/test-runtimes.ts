// The runtime matrix: the black-box suite and json-server's dialect's tests against a server process on node (tsx), the copied build, Deno and Bun.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureRuntimes } from "./install-runtimes.ts";
import { dialectFiles } from "./test-sets.ts";

const MODES = ["node", "dist", "deno", "bun"];
// The same suite again with every server keeping its data in a journal (DATA_DIR), on each runtime: on
// Node the build, which runs the same code as src/ through tsx at a third of the start-up cost per server.
const DURABLE_MODES = ["dist", "deno", "bun"];
const FILES = ["test/http", "test/process"].flatMap((folder) =>
  readdirSync(folder)
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => join(folder, name)),
);

// A missing runtime fails the run here: no runtime is ever skipped.
try {
  console.log("Runtimes:", ensureRuntimes());
} catch (error) {
  console.error(`\nnpm run test:all needs Deno and Bun and cannot run them: ${(error as Error).message}`);
  process.exit(1);
}

// The build, copied alone into an empty folder outside the repository: no node_modules
// and no src/ beside it, as in a minimal container.
run(process.execPath, ["--import", "tsx", "scripts/build.ts"], {});
const distCopy = mkdtempSync(join(tmpdir(), "rest-dist-"));
cpSync("dist", join(distCopy, "dist"), { recursive: true });

const failed: string[] = [];
try {
  for (const mode of MODES) {
    console.log(`\n=== Black-box suite against a ${mode} process ===`);
    // Files run two at a time: a test mostly waits on a server starting in another process.
    const args = ["--import", "tsx", "--test", "--test-concurrency=2", "--test-reporter=spec", ...FILES, ...dialectFiles()];
    if (!run(process.execPath, args, { TEST_TARGET: mode, TEST_DIST_DIR: distCopy })) failed.push(mode);
  }
  for (const mode of DURABLE_MODES) {
    console.log(`\n=== Black-box suite against a ${mode} process keeping its data in DATA_DIR ===`);
    const args = ["--import", "tsx", "--test", "--test-concurrency=2", "--test-reporter=spec", ...FILES];
    if (!run(process.execPath, args, { TEST_TARGET: mode, TEST_DIST_DIR: distCopy, TEST_DATA_DIR: "1" })) failed.push(`${mode} with DATA_DIR`);
  }
  // Once more with tokens configured on every server and a token sent on every request (docs/spec.md#13-access-and-limits).
  console.log("\n=== Black-box suite against a dist process with AUTH_TOKENS, a token on every request ===");
  const args = ["--import", "tsx", "--test", "--test-concurrency=2", "--test-reporter=spec", ...FILES];
  if (!run(process.execPath, args, { TEST_TARGET: "dist", TEST_DIST_DIR: distCopy, TEST_AUTH_TOKEN: "suite-write-token" })) failed.push("dist with AUTH_TOKENS");
} finally {
  rmSync(distCopy, { recursive: true, force: true });
}
if (failed.length > 0) {
  console.error(`\nThe black-box suite failed against: ${failed.join(", ")}`);
  process.exit(1);
}
console.log(`\nThe black-box suite passed against: ${MODES.join(", ")}; with DATA_DIR against: ${DURABLE_MODES.join(", ")}; and with AUTH_TOKENS against dist`);

function run(command: string, args: string[], env: Record<string, string>): boolean {
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (result.error) throw result.error;
  return result.status === 0;
}
