// Each way of starting the server, stopped with SIGTERM to the process that was started, leaves nothing
// listening within 2 s: `node dist/main.js`, `npm start`, the installed bin, and `npx rest-reference-server`
// in a clone and in a project that installed the package. npx runs the bin under `sh -c`, which does not hand
// the signal on: the server stops when npm goes (src/ops/parent-watch.ts). A server started in the
// background on purpose (`nohup … &`) keeps serving after the shell that started it has gone.
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { readListeningUrl, ROOT } from "./support/target.ts";

/** How long a stopped server may take to let go of its port. */
const STOPPED_WITHIN_MS = 2000;

// The environment of a person's shell: none of the npm_* variables this file runs under with `npm test`.
const shellEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith("npm_") && name !== "NODE_TEST_CONTEXT"),
);
const serverEnv = { ...shellEnv, PORT: "0", HOST: "127.0.0.1", LOG_FORMAT: "off" };

// A project that installed this clone as npm installs a folder (docs/package.md), and an npx cache of its own.
let project: string;
let npxCache: string;
before(() => {
  project = mkdtempSync(join(tmpdir(), "rest-stop-project-"));
  npxCache = mkdtempSync(join(tmpdir(), "rest-stop-npx-"));
  writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "stop-commands", private: true }, null, 2)}\n`);
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", ROOT], { cwd: project, env: shellEnv, stdio: "pipe" });
});
after(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(npxCache, { recursive: true, force: true });
});

// `direct`: the signal reaches the server itself (npm start's script execs node), which drains and exits 0.
const WAYS: Array<{ name: string; command: string; args: string[]; cwd: () => string; direct?: true; env?: () => Record<string, string> }> = [
  { name: "node dist/main.js", command: process.execPath, args: ["dist/main.js"], cwd: () => ROOT, direct: true },
  { name: "npm start", command: "npm", args: ["start", "--silent"], cwd: () => ROOT, direct: true },
  { name: "the installed bin", command: "node_modules/.bin/rest-reference-server", args: [], cwd: () => project, direct: true },
  { name: "npx rest-reference-server in a project that installed it", command: "npx", args: ["rest-reference-server"], cwd: () => project },
  {
    name: "npx rest-reference-server in the clone",
    command: "npx",
    args: ["--yes", "rest-reference-server"],
    cwd: () => ROOT,
    env: () => ({ npm_config_cache: npxCache, npm_config_offline: "true" }),
  },
];

for (const way of WAYS) {
  test(`${way.name}: SIGTERM to it leaves nothing listening within 2 s`, { timeout: 120_000 }, async (t) => {
    // In a process group of its own, so that whatever it started goes too when the test ends, even if it failed.
    const child = spawn(way.command, way.args, { cwd: way.cwd(), env: { ...serverEnv, ...way.env?.() }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    t.after(() => killGroup(child.pid!));
    const url = await readListeningUrl(child).catch((error: Error) => assert.fail(`${error.message}: ${stderr}`));
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const elapsed = await closedWithin(url, STOPPED_WITHIN_MS);
    assert.ok(elapsed <= STOPPED_WITHIN_MS, `${way.name} still listened ${STOPPED_WITHIN_MS} ms after SIGTERM`);
    const [code, signal] = await exited;
    if (way.direct) assert.deepEqual([code, signal], [0, null], `${way.name} exits 0 after a clean shutdown: ${stderr}`);
  });
}

test("npx rest-reference-server started in the background with nohup keeps serving after its shell ends, and goes on SIGTERM to npx", { timeout: 120_000 }, async (t) => {
  const output = join(project, "nohup-npx.log");
  const { pid: npx, group } = await background(`nohup npx rest-reference-server > ${output} 2>&1 & echo $!`, project);
  t.after(() => killGroup(group));
  const url = await listeningIn(output);
  // Longer than the parent watch's polls take to notice a parent gone.
  await sleep(1000);
  assert.equal((await fetch(`${url}/healthz`)).status, 200, "the server still serves after the shell that started it ended");
  process.kill(npx, "SIGTERM");
  assert.ok((await closedWithin(url, STOPPED_WITHIN_MS)) <= STOPPED_WITHIN_MS, "nothing listens 2 s after SIGTERM to npx");
});

test("node dist/main.js started in the background keeps serving after its shell ends, and goes on SIGTERM", { timeout: 60_000 }, async (t) => {
  const output = join(project, "background-node.log");
  const { pid: server, group } = await background(`${process.execPath} dist/main.js > ${output} 2>&1 & echo $!`, ROOT);
  t.after(() => killGroup(group));
  const url = await listeningIn(output);
  await sleep(1000);
  assert.equal((await fetch(`${url}/healthz`)).status, 200, "the server still serves after the shell that started it ended");
  process.kill(server, "SIGTERM");
  assert.ok((await closedWithin(url, STOPPED_WITHIN_MS)) <= STOPPED_WITHIN_MS, "nothing listens 2 s after SIGTERM");
});

/** Runs `line` in a shell that starts a command in the background and ends; resolves with the command's pid and its process group. */
async function background(line: string, cwd: string): Promise<{ pid: number; group: number }> {
  // A process group of its own, which the command in the background stays in after the shell has gone.
  const shell: ChildProcess = spawn("sh", ["-c", line], { cwd, env: serverEnv, stdio: ["ignore", "pipe", "inherit"], detached: true });
  let printed = "";
  shell.stdout!.setEncoding("utf8").on("data", (chunk: string) => (printed += chunk));
  await once(shell, "exit");
  const pid = Number(printed.trim());
  assert.ok(Number.isInteger(pid) && pid > 0, `the shell printed the background pid: ${printed}`);
  return { pid, group: shell.pid! };
}

/** The URL a server's start-up line in `file` names, once it is written. */
async function listeningIn(file: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const found = existsSync(file) ? /Listening on (http:\/\/\S+)/.exec(readFileSync(file, "utf8")) : null;
    if (found) return found[1]!;
    await sleep(100);
  }
  assert.fail(`no start-up line in ${file}: ${existsSync(file) ? readFileSync(file, "utf8") : "(not written)"}`);
}

/** Milliseconds until nothing accepts a connection at `url`'s port, or more than `limit` if something still does. */
async function closedWithin(url: string, limit: number): Promise<number> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  while (Date.now() - started <= limit) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), hostname);
      socket.once("connect", () => (socket.destroy(), resolve(false)));
      socket.once("error", () => resolve(true));
    });
    if (refused) return Date.now() - started;
    await sleep(50);
  }
  return Date.now() - started;
}

/** Kills every process left in the group `pid` leads. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone, as it should be.
  }
}
