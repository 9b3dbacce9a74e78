// White-box tests of src/ops/parent-watch.ts: who is watched, and a parent's end noticed in a real process tree.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { startedByPackageManager } from "../src/ops/parent-watch.ts";
import { ROOT } from "./support/target.ts";

test("startedByPackageManager is true under npm's script or exec variables only", () => {
  assert.equal(startedByPackageManager({ npm_lifecycle_event: "npx" }), true);
  assert.equal(startedByPackageManager({ npm_lifecycle_event: "start" }), true);
  assert.equal(startedByPackageManager({}), false);
  assert.equal(startedByPackageManager({ npm_config_cache: "/tmp" }), false);
});

test("watchParent calls back once with the parent's pid when the parent ends, and not before", { timeout: 60_000 }, async () => {
  // A process started in the background by a shell that then ends: its parent changes to whoever adopts it.
  const script = [
    'import { watchParent } from "./src/ops/parent-watch.ts";',
    "console.log(`watching ${process.ppid}`);",
    "const started = Date.now();",
    "watchParent((parent) => { console.log(`gone ${parent} after ${Date.now() - started} ms`); process.exit(0); });",
    // Keeps the process alive: the watch's timer does not.
    "setInterval(() => {}, 1000);",
  ].join("\n");
  const shell = spawn("sh", ["-c", `"${process.execPath}" --import tsx --input-type=module -e '${script}' & read line`], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: shell.stdout! })[Symbol.asyncIterator]();
  const watching = (await lines.next()).value as string;
  assert.equal(watching, `watching ${shell.pid}`);
  // The shell waits on a line of stdin: the child is watching a parent that is still there.
  await new Promise((resolve) => setTimeout(resolve, 600));
  shell.stdin!.end("\n");
  await once(shell, "exit");
  const gone = (await lines.next()).value as string;
  const found = /^gone (\d+) after (\d+) ms$/.exec(gone);
  assert.ok(found, `the watch called back: ${gone}`);
  assert.equal(Number(found[1]), shell.pid);
  assert.ok(Number(found[2]) >= 600, "not before the parent ended");
});
