// The install lines of docs/package.md#install, replayed offline (npm's cache holds what `npm install` fetched):
// from a clone's folder, from `npm pack`'s tarball, from a git+file:// URL of a clone, `npm install --omit=dev`
// in a fresh clone, and npx in a clone cut short and run again. Slow (the git URL installs the dev
// dependencies and builds) and needs git: `npm run test:all` runs it (scripts/test-sets.ts).
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { VERSION } from "../src/ops/version.ts";
import { readListeningUrl, ROOT } from "./support/target.ts";

const OFFLINE = ["--offline", "--no-audit", "--no-fund"];
// A person's shell: none of the npm_* variables this file runs under with npm.
const shellEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith("npm_") && name !== "NODE_TEST_CONTEXT"),
);

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), "rest-install-"));
});
after(() => rmSync(work, { recursive: true, force: true }));

/** Runs a command to its end; throws with its output if it fails. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = shellEnv): string {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8" });
  if (result.status !== 0) assert.fail(`${command} ${args.join(" ")} exited with ${result.status ?? result.signal}:\n${result.stdout}\n${result.stderr}`);
  return `${result.stdout}${result.stderr}`;
}

/** A fresh project, as `npm init -y` leaves one. */
function project(name: string): string {
  const folder = join(work, name);
  mkdirSync(folder);
  writeFileSync(join(folder, "package.json"), `${JSON.stringify({ name, version: "1.0.0", private: true }, null, 2)}\n`);
  return folder;
}

/** The installed command prints the version, and serves /healthz until SIGTERM. */
async function commandWorks(folder: string): Promise<void> {
  const bin = join(folder, "node_modules", ".bin", "rest-reference-server");
  assert.equal(run(bin, ["--version"], folder).trim(), VERSION);
  assert.equal(run("npx", ["rest-reference-server", "--version"], folder).trim(), VERSION);
  const child = spawn(bin, ["--port", "0"], { cwd: folder, env: { ...shellEnv, LOG_FORMAT: "off" }, stdio: ["ignore", "pipe", "inherit"] });
  const exited = once(child, "exit");
  const url = await readListeningUrl(child);
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
  child.kill("SIGTERM");
  assert.deepEqual(await exited, [0, null]);
}

test("npm install <a clone's folder> gives the command (npm links the folder)", { timeout: 300_000 }, async () => {
  const folder = project("from-folder");
  run("npm", ["install", ...OFFLINE, ROOT], folder);
  await commandWorks(folder);
});

test("npm install <npm pack's tarball> gives the command, with dist/ inside the tarball", { timeout: 300_000 }, async () => {
  const packed = join(work, "packed");
  mkdirSync(packed);
  run("npm", ["pack", "--pack-destination", packed], ROOT);
  const tarball = readdirSync(packed).find((name) => name.endsWith(".tgz"));
  assert.equal(tarball, `rest-reference-server-${VERSION}.tgz`);
  const folder = project("from-tarball");
  run("npm", ["install", ...OFFLINE, join(packed, tarball)], folder);
  assert.ok(existsSync(join(folder, "node_modules", "rest-reference-server", "dist", "main.js")));
  await commandWorks(folder);
});

test("npm install git+file://<a clone> builds the package from its commit and gives the command", { timeout: 600_000 }, async () => {
  const repository = join(work, "repository");
  execFileSync("git", ["clone", "--quiet", ROOT, repository]);
  const folder = project("from-git");
  run("npm", ["install", ...OFFLINE, `git+file://${repository}`], folder);
  assert.ok(existsSync(join(folder, "node_modules", "rest-reference-server", "dist", "main.js")), "npm built dist/ while installing");
  await commandWorks(folder);
});

test("npm install --omit=dev in a fresh clone succeeds without TypeScript, and says dist/ is not built", { timeout: 300_000 }, () => {
  const clone = join(work, "omit-dev");
  execFileSync("git", ["clone", "--quiet", ROOT, clone]);
  const output = run("npm", ["install", "--omit=dev", ...OFFLINE], clone);
  assert.match(output, /dist\/ is not built: TypeScript and tsx, the dev dependencies that build it, are not installed/);
  assert.equal(existsSync(join(clone, "node_modules", "tsx")), false);
});

/** The entry npx makes in the npx cache of the npm cache `cache`, once it exists. */
function npxEntry(cache: string): string | undefined {
  const entries = join(cache, "_npx");
  return existsSync(entries) ? readdirSync(entries).map((name) => join(entries, name))[0] : undefined;
}

/**
 * Starts `npx rest-reference-server --version` in `root` with its own npx cache, sends Ctrl-C (SIGINT to its
 * process group, as a terminal does) once `ready` holds for that cache's entry, and checks that the next npx
 * runs the command.
 */
async function cutShortThenRun(root: string, name: string, ready: (entry: string) => boolean, pause = 0): Promise<void> {
  const cache = join(work, `npx-cache-${name}`);
  const env = { ...shellEnv, npm_config_cache: cache, npm_config_offline: "true" };
  const npx = spawn("npx", ["--yes", "rest-reference-server", "--version"], { cwd: root, env, stdio: "ignore", detached: true });
  let ended = false;
  const exited = once(npx, "exit").then(() => (ended = true));
  for (let entry = npxEntry(cache); !ended && !(entry && ready(entry)); entry = npxEntry(cache)) await sleep(1);
  await sleep(pause);
  assert.equal(ended, false, `npx ended before the moment to cut it short (${name})`);
  process.kill(-npx.pid!, "SIGINT");
  await exited;
  // npm exits at once; what its shell runs after a Ctrl-C (prepare's second run) may still be at work.
  while (groupAlive(npx.pid!)) await sleep(10);
  assert.equal(run("npx", ["--yes", "rest-reference-server", "--version"], root, env).trim(), VERSION, `cut short ${name}`);
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

const linkedCommand = (entry: string): boolean => existsSync(join(entry, "node_modules", ".bin", "rest-reference-server"));
// prepare (scripts/build-if-stale.mjs) writes the entry's package.json as it starts.
const preparing = (entry: string): boolean => existsSync(join(entry, "package.json"));

test("npx rest-reference-server in a clone, cut short by Ctrl-C while npm runs prepare or links the command, runs when started again", { timeout: 300_000 }, async () => {
  // The build npm test made is there, so npx links the clone into its cache (a new one each time) and runs it.
  await cutShortThenRun(ROOT, "in-prepare", preparing);
  await cutShortThenRun(ROOT, "at-command-link", linkedCommand);
});

test("npx rest-reference-server in a clone with no dist/, cut short by Ctrl-C while it builds, builds again and runs when started again", { timeout: 300_000 }, async () => {
  const clone = join(work, "npx-no-dist");
  execFileSync("git", ["clone", "--quiet", ROOT, clone]);
  symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
  await cutShortThenRun(clone, "in-build", preparing, 2000);
  assert.ok(existsSync(join(clone, "dist", "main.js")), "the second npx built dist/");
  // tsc writes the command without the x bit, which npm sets as it links the command; an entry this
  // clone's prepare made whole after a Ctrl-C must run too.
  chmodSync(join(clone, "dist", "main.js"), 0o644);
  await cutShortThenRun(clone, "in-prepare-of-a-fresh-build", preparing);
});
