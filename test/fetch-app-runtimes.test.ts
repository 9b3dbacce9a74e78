// createFetchApp on Deno and Bun answers as it does on Node: the same statuses, headers and bytes,
// though respond.ts hands Bun's writeHead an object where the others get a flat list.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { before, test } from "node:test";
import { fetchAnswers } from "./support/fetch-answers.ts";
import { ensureTestedRuntimes, testedRuntimes } from "./support/runtimes.ts";
import { processEnv, ROOT, runtimeBinary } from "./support/target.ts";

const RUNTIMES = ["deno", "bun"] as const;

const ARGS: Record<(typeof RUNTIMES)[number], string[]> = {
  deno: ["run", "--allow-env", "--allow-read", "test/support/print-fetch-answers.ts"],
  bun: ["test/support/print-fetch-answers.ts"],
};

before(() => ensureTestedRuntimes(RUNTIMES));

for (const runtime of testedRuntimes(RUNTIMES)) {
  test(`createFetchApp on ${runtime} gives every answer the status, headers and bytes it has on Node`, async () => {
    const expected = await fetchAnswers();
    const output = execFileSync(runtimeBinary(runtime), ARGS[runtime], { cwd: ROOT, env: processEnv(), encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    const printed = JSON.parse(output) as { runtime: string; answers: typeof expected };
    // The answers came from the runtime named, and so, on Bun, through the header object.
    assert.equal(printed.runtime, runtime);
    assert.equal(printed.answers.length, expected.length);
    for (let i = 0; i < expected.length; i++) assert.deepEqual(printed.answers[i], expected[i], expected[i]!.what);
  });
}
