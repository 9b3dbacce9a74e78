// The examples of docs/testing-clients.md, as a reader saves them: plain JavaScript, and the Node ones run here against the build.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../src/http/server.ts";
import { CLIENT_EXAMPLES, exampleNamed } from "./support/example.ts";
import { ROOT } from "./support/target.ts";

const page = readFileSync(join(ROOT, "docs", "testing-clients.md"), "utf8");

// Inside the repository, so that `import ... from "rest-reference-server"` names this package
// itself (Node resolves a package's own name through its exports), as installed: dist/.
let folder: string;
before(() => {
  folder = mkdtempSync(join(ROOT, ".examples-"));
  for (const name of CLIENT_EXAMPLES) writeFileSync(join(folder, name), exampleNamed(page, name));
});
after(() => rmSync(folder, { recursive: true, force: true }));

/** Runs node on a file of the folder; resolves with its exit code and output. */
async function node(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  // Without this run's NODE_TEST_CONTEXT, which would make the child's node --test run nothing.
  const { NODE_TEST_CONTEXT: _context, ...inherited } = process.env;
  const child = spawn(process.execPath, args, { cwd: folder, env: { ...inherited, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, output };
}

/** How many tests a `node --test` run passed and failed, from its summary. */
function counts(output: string): { pass: number; fail: number } {
  const count = (name: string) => Number(new RegExp(`^(?:# |\u2139 )${name} (\\d+)$`, "m").exec(output)?.[1] ?? Number.NaN);
  return { pass: count("pass"), fail: count("fail") };
}

test("every example of docs/testing-clients.md is plain JavaScript that imports the package by its name", () => {
  for (const name of CLIENT_EXAMPLES) {
    const example = exampleNamed(page, name);
    assert.match(example, new RegExp(`^// ${name.replace(/\./g, "\\.")}: `), name);
    // Nothing but node:, node:test and the package; no type annotation or `import type`.
    for (const [, from] of example.matchAll(/^import .* from "([^"]+)";$/gm)) assert.match(from!, /^(node:.+|rest-reference-server)$/, name);
    assert.doesNotMatch(example, /import type|: (string|number|Response|Request|RunningServer)\b/, name);
  }
});

for (const name of ["fetch-handler.test.mjs", "start-server.test.mjs"]) {
  test(`node --test ${name}, as written in docs/testing-clients.md, passes every test in it`, async () => {
    const { code, output } = await node(["--test", name]);
    const { pass, fail } = counts(output);
    assert.ok(pass >= 2 && fail === 0 && code === 0, `${name}: exit ${code}, passed ${pass}, failed ${fail}\n${output}`);
  });
}

test("control.mjs, as written in docs/testing-clients.md, drives a server started with control on", async () => {
  const api = await startServer({ control: true });
  try {
    const { code, output } = await node(["control.mjs"], { API_URL: api.url });
    assert.equal(code, 0, output);
    assert.equal(output, "control: ok\n");
    // It left the starting data, as it says.
    assert.deepEqual((await api.snapshot()).users.map((user) => user.name), ["Ada Lovelace", "Alan Turing"]);
  } finally {
    await api.close();
  }
});

test("control.mjs fails against a server without control, so its checks can fail", async () => {
  const api = await startServer();
  try {
    const { code, output } = await node(["control.mjs"], { API_URL: api.url });
    assert.equal(code, 1);
    assert.match(output, /AssertionError/);
  } finally {
    await api.close();
  }
});
