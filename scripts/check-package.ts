// Proves the package from outside the repository: packs it, lints the tarball, installs it into fresh projects and uses it there.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLIENT_EXAMPLES, embeddingExample, exampleNamed } from "../test/support/example.ts";
import { startCluster } from "../test/support/postgres.ts";
import { readListeningUrl } from "../test/support/target.ts";
import { ensureRuntimes, type Runtime, runtimePath } from "./install-runtimes.ts";
import { lintPackage } from "./lint-package.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CONSUMER = join(ROOT, "scripts", "package-consumer");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const INSTALL = ["install", "--prefer-offline", "--no-audit", "--no-fund"];
const require = createRequire(import.meta.url);

const work = mkdtempSync(join(tmpdir(), "rest-package-"));
let failed = false;
try {
  const tarball = await step("npm pack (runs prepare, the build)", () => pack(join(work, "pack")));
  await step("publint --strict and attw --profile esm-only on the tarball report nothing", () => lintPackage(tarball));

  // The two projects are independent; the strict tsc (which checks all of @types/node)
  // is the slowest step, so it runs while the plain project is exercised.
  // allSettled: both finish before the temporary folders are removed, even when one fails.
  const results = await Promise.allSettled([
    checkPlain(tarball),
    checkTyped(tarball),
    checkFolder(),
    checkDatabase(tarball),
    checkExample(tarball),
    checkClientExamples(tarball),
  ]);
  const reasons = results.flatMap((result) => (result.status === "rejected" ? [(result.reason as Error).message] : []));
  if (reasons.length > 0) throw new Error(reasons.join("\n\n"));
} catch (error) {
  failed = true;
  console.error(`\nThe package check failed: ${(error as Error).message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** (a) the API under plain node, (c) the command, and the package on Bun and Deno. */
async function checkPlain(tarball: string): Promise<void> {
  const plain = await step("npm install <tarball> into a fresh project with no TypeScript tooling", () =>
    project(join(work, "plain"), [tarball], ["package.test.js", "seed.json", "on-runtime.js"]),
  );
  // Each of these checks runs even when one before it failed, so one run reports them all.
  const failures: string[] = [];
  const attempt = async (name: string, check: () => Promise<unknown>) => {
    await step(name, check).catch((error: Error) => failures.push(error.message));
  };
  await attempt("node --test: startServer and createApp by name, seed, GET, create, snapshot, reset", () =>
    run(process.execPath, ["--test", "--test-reporter=spec", "package.test.js"], plain),
  );
  await attempt("node_modules/.bin/rest-reference-server --seed seed.json --port 0: GET, then SIGTERM exits 0", () =>
    checkBin(plain),
  );
  ensureRuntimes();
  // Bun takes the package's "bun" condition and runs src/ as it is. Deno refuses to
  // strip types from files under node_modules, so it takes "import", the build.
  await attempt("bun runs the package by name from its source (src/index.ts)", () => checkRuntime("bun", plain, "/src/index.ts"));
  await attempt("deno runs the package by name from its build (dist/index.js)", () => checkRuntime("deno", plain, "/dist/index.js"));
  if (failures.length > 0) throw new Error(failures.join("\n\n"));
}

/** (b) the types by name under a strict NodeNext tsc, with the repository's TypeScript and @types/node. */
async function checkTyped(tarball: string): Promise<void> {
  const packages = [tarball, `typescript@${version("typescript")}`, `@types/node@${version("@types/node")}`];
  const typed = await step("npm install <tarball> typescript @types/node (the repository's versions) into a fresh project", () =>
    project(join(work, "typed"), packages, ["consumer.ts", "tsconfig.json"]),
  );
  await step("tsc --noEmit -p . (strict, NodeNext, exactOptionalPropertyTypes, skipLibCheck false): no errors", () =>
    run(process.execPath, [join(typed, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "."], typed),
  );
}

/** The package installed from the repository's folder (npm links it; pack has built dist/), used by name under plain node. */
async function checkFolder(): Promise<void> {
  const linked = await step("npm install <the repository's folder> into a fresh project", () =>
    project(join(work, "folder"), [ROOT], ["package.test.js", "seed.json"]),
  );
  await step("node --test in the folder-installed project: the same checks as from the tarball", () =>
    run(process.execPath, ["--test", "--test-reporter=spec", "package.test.js"], linked),
  );
}

/**
 * (e) the embedding example of docs/package.md as a reader uses it: copied verbatim into a
 * fresh project whose package.json has no "type", beside the installed tarball, and run with
 * `node --test example.test.mjs`. Every test in it must pass, and there must be some.
 */
async function checkExample(tarball: string): Promise<void> {
  const example = embeddingExample(readFileSync(join(ROOT, "docs", "package.md"), "utf8"));
  const folder = await step('npm install <tarball> into a fresh project with no "type" in its package.json', async () => {
    const folder = join(work, "example");
    mkdirSync(folder);
    writeFileSync(join(folder, "package.json"), `${JSON.stringify({ name: "example", private: true }, null, 2)}\n`);
    writeFileSync(join(folder, "example.test.mjs"), example);
    await run(NPM, [...INSTALL, tarball], folder);
    return folder;
  });
  await step("node --test example.test.mjs: the example of docs/package.md, as written there, passes", async () => {
    const output = await run(process.execPath, ["--test", "example.test.mjs"], folder);
    // The tap reporter's summary (Node 20 on a pipe), or the spec reporter's.
    const count = (name: string) => Number(new RegExp(`^(?:# |\u2139 )${name} (\\d+)$`, "m").exec(output)?.[1] ?? Number.NaN);
    if (!(count("pass") > 0) || count("fail") !== 0) {
      throw new Error(`node --test example.test.mjs passed ${count("pass")} and failed ${count("fail")} tests\n${output}`);
    }
  });
}

/**
 * (f) the examples of docs/testing-clients.md, copied verbatim beside the installed tarball: the
 * two test files under node --test, the control script against the command with CONTROL=on, and
 * the fetch handler served by Deno.serve and Bun.serve.
 */
async function checkClientExamples(tarball: string): Promise<void> {
  const page = readFileSync(join(ROOT, "docs", "testing-clients.md"), "utf8");
  const folder = await step("npm install <tarball> into a fresh project holding the examples of docs/testing-clients.md", async () => {
    const folder = join(work, "clients");
    mkdirSync(folder);
    writeFileSync(join(folder, "package.json"), `${JSON.stringify({ name: "client-tests", private: true }, null, 2)}\n`);
    for (const name of CLIENT_EXAMPLES) writeFileSync(join(folder, name), exampleNamed(page, name));
    await run(NPM, [...INSTALL, tarball], folder);
    return folder;
  });
  const failures: string[] = [];
  const attempt = async (name: string, check: () => Promise<unknown>) => {
    await step(name, check).catch((error: Error) => failures.push(error.message));
  };
  for (const file of ["fetch-handler.test.mjs", "start-server.test.mjs"]) {
    await attempt(`node --test ${file}: every test passes, reading, creating and resetting with the package from its tarball`, async () => {
      const output = await run(process.execPath, ["--test", file], folder);
      const count = (name: string) => Number(new RegExp(`^(?:# |\u2139 )${name} (\\d+)$`, "m").exec(output)?.[1] ?? Number.NaN);
      if (!(count("pass") >= 2) || count("fail") !== 0) throw new Error(`node --test ${file} passed ${count("pass")} and failed ${count("fail")} tests\n${output}`);
    });
  }
  await attempt("node control.mjs against node_modules/.bin/rest-reference-server with CONTROL=on prints control: ok", async () => {
    const bin = join(folder, "node_modules", ".bin", "rest-reference-server");
    const child = spawn(bin, ["--port", "0"], { cwd: folder, env: { ...process.env, CONTROL: "on" }, stdio: ["ignore", "pipe", "inherit"] });
    try {
      const url = await readListeningUrl(child);
      const output = await run(process.execPath, ["control.mjs"], folder, { API_URL: url });
      if (output !== "control: ok\n") throw new Error(`control.mjs printed ${JSON.stringify(output)}`);
    } finally {
      stopIfRunning(child);
    }
  });
  ensureRuntimes();
  const greeting = '200 {"id":1,"name":"Ada Lovelace","email":"ada@example.com"}\n';
  for (const [runtime, file, args] of [
    ["deno", "deno-serve.mjs", ["run", "--allow-net", "--allow-env", "--allow-read", "deno-serve.mjs"]],
    ["bun", "bun-serve.mjs", ["bun-serve.mjs"]],
  ] as const) {
    await attempt(`${runtime} ${file}: ${runtime === "deno" ? "Deno.serve" : "Bun.serve"} serves the fetch handler, which answers user 1`, async () => {
      const binary = runtimePath(runtime);
      if (binary === undefined) throw new Error(`${runtime} is not installed in runtimes/`);
      const output = await run(binary, [...args], folder, { DENO_NO_UPDATE_CHECK: "1" });
      if (output !== greeting) throw new Error(`${file} printed ${JSON.stringify(output)}`);
    });
  }
  if (failures.length > 0) throw new Error(failures.join("\n\n"));
}

/** (d) the PostgreSQL adapter packed and installed beside the server: the command keeps its data in a real database. */
async function checkDatabase(tarball: string): Promise<void> {
  // pack ran the build (prepare), which builds the adapter's dist/ too.
  const adapter = await step("npm pack packages/postgres", async () => {
    const folder = join(work, "pack-postgres");
    mkdirSync(folder);
    await run(NPM, ["pack", "--pack-destination", folder], join(ROOT, "packages", "postgres"));
    return join(folder, readdirSync(folder).find((name) => name.endsWith(".tgz"))!);
  });
  await step("publint --strict and attw --profile esm-only on the adapter's tarball report nothing", () => lintPackage(adapter));
  const folder = await step("npm install <tarball> <adapter tarball> into a fresh project", () => project(join(work, "database"), [tarball, adapter], []));
  const cluster = await startCluster();
  try {
    await step("node_modules/.bin/rest-reference-server with DATABASE_URL: a user created is read back by a second process, then SIGTERM exits 0", async () => {
      const databaseUrl = await cluster.createDatabase();
      const bin = join(folder, "node_modules", ".bin", "rest-reference-server");
      for (const round of [1, 2]) {
        const child = spawn(bin, ["--port", "0"], { cwd: folder, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ["ignore", "pipe", "inherit"] });
        const exited = once(child, "exit");
        try {
          const url = await readListeningUrl(child);
          if (round === 1) {
            const created = await fetch(`${url}/users`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: '{"name":"Grace Hopper","email":"grace@example.com"}',
            });
            if (created.status !== 201) throw new Error(`POST /users answered ${created.status} ${await created.text()}`);
          }
          const body = await (await fetch(`${url}/users/3`)).text();
          if (body !== '{"id":3,"name":"Grace Hopper","email":"grace@example.com"}') throw new Error(`GET /users/3 answered ${body}`);
          child.kill("SIGTERM");
          const [code, signal] = await exited;
          if (code !== 0) throw new Error(`after SIGTERM the command ended with code ${code}, signal ${signal}`);
        } finally {
          stopIfRunning(child);
        }
      }
    });
  } finally {
    cluster.close();
  }
}

/** Runs one check, printing its name, the seconds it took and whether it passed. */
async function step<T>(name: string, check: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await check();
    console.log(`ok   ${name} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    return result;
  } catch (error) {
    console.log(`FAIL ${name}`);
    throw error;
  }
}

async function pack(folder: string): Promise<string> {
  mkdirSync(folder);
  await run(NPM, ["pack", "--pack-destination", folder], ROOT);
  const [tarball, ...others] = readdirSync(folder).filter((name) => name.endsWith(".tgz"));
  if (tarball === undefined || others.length > 0) throw new Error(`npm pack wrote ${readdirSync(folder).join(", ")}`);
  return join(folder, tarball);
}

/** A fresh ES-module project holding copies of the consumer files, with `packages` installed into it. */
async function project(folder: string, packages: string[], files: string[]): Promise<string> {
  mkdirSync(folder);
  writeFileSync(join(folder, "package.json"), `${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`);
  for (const file of files) copyFileSync(join(CONSUMER, file), join(folder, file));
  await run(NPM, [...INSTALL, ...packages], folder);
  return folder;
}

async function checkBin(folder: string): Promise<void> {
  // The command itself, not `npx`: npx runs it through sh, which does not pass SIGTERM on.
  const bin = join(folder, "node_modules", ".bin", "rest-reference-server");
  const child = spawn(bin, ["--seed", "seed.json", "--port", "0"], { cwd: folder, stdio: ["ignore", "pipe", "inherit"] });
  const exited = once(child, "exit");
  try {
    const url = await readListeningUrl(child);
    const response = await fetch(`${url}/users/5`);
    const body = await response.text();
    const expected = '{"id":5,"name":"Grace Hopper","email":"grace@example.com","role":"admiral"}';
    if (response.status !== 200 || body !== expected) throw new Error(`GET /users/5 answered ${response.status} ${body}`);
    child.kill("SIGTERM");
    const [code, signal] = await exited;
    if (code !== 0) throw new Error(`after SIGTERM the command ended with code ${code}, signal ${signal}`);
  } finally {
    stopIfRunning(child);
  }
}

async function checkRuntime(name: Runtime, folder: string, resolvesTo: string): Promise<void> {
  const binary = runtimePath(name);
  if (binary === undefined) throw new Error(`${name} is not installed in runtimes/`);
  const args = name === "deno" ? ["run", "--allow-net", "--allow-env", "--allow-read", "on-runtime.js"] : ["on-runtime.js"];
  const output = await run(binary, args, folder, { DENO_NO_UPDATE_CHECK: "1" });
  const { resolved, status, body } = JSON.parse(output.trim().split("\n").at(-1)!) as {
    resolved: string;
    status: number;
    body: unknown;
  };
  if (!resolved.endsWith(resolvesTo)) throw new Error(`${name} resolved the package to ${resolved}, not ...${resolvesTo}`);
  if (status !== 200 || JSON.stringify(body) !== '{"status":"ok"}') {
    throw new Error(`${name}: GET /healthz answered ${status} ${JSON.stringify(body)}`);
  }
}

/** Runs a command to its end; rejects with its output unless it exits 0. Resolves with its stdout. */
async function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  // Output is collected, not inherited, so that the two projects' checks do not interleave.
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => ((stdout += chunk), (output += chunk)));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const [code] = (await once(child, "close")) as [number | null];
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} ended with code ${code}\n${output}`);
  return stdout;
}

function version(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

function stopIfRunning(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
