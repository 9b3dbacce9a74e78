// scripts/start-on.ts on the project's own Deno and Bun: it starts the server, passes SIGTERM on, and leaves no process behind.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { testedRuntimes } from "./support/runtimes.ts";
import { processEnv, readListeningUrl, ROOT, runtimeBinary } from "./support/target.ts";

/** The pids of a process's children that run `binary` (Linux: /proc/PID/task/TID/children). */
function childrenRunning(pid: number, binary: string): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
  // Node may have other children (tsx's esbuild service); the runtime is the one running its binary.
  return children.filter((child) => readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0")[0] === binary);
}

for (const runtime of testedRuntimes(["deno", "bun"] as const)) {
  test(`start-on ${runtime} serves GET /healthz, and SIGTERM to the script ends the server and exits 0`, async (t) => {
    const script = spawn(process.execPath, ["--import", "tsx", "scripts/start-on.ts", runtime], {
      cwd: ROOT,
      env: processEnv(),
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = once(script, "exit");
    let server: number | undefined;
    t.after(() => {
      // Only if the test failed part-way: nothing of it may outlive the test.
      if (script.exitCode === null && script.signalCode === null) script.kill("SIGKILL");
      if (server !== undefined) {
        try {
          process.kill(server, "SIGKILL");
        } catch {}
      }
    });
    const url = await readListeningUrl(script);
    // Looked up only now: on a fresh clone the script itself installs the runtimes first.
    const binary = runtimeBinary(runtime);
    const servers = childrenRunning(script.pid!, binary);
    assert.equal(servers.length, 1, `one ${runtime} child of the script, not ${servers.length}`);
    server = servers[0]!;

    const response = await fetch(`${url}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: "ok" });

    script.kill("SIGTERM");
    const [code, signal] = await exited;
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
    assert.throws(() => process.kill(server!, 0), { code: "ESRCH" });
  });
}
