// Which test files each command runs: `npm test` needs only Node and npm, `npm run test:all` runs them all.
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Tests that need a program beyond Node and npm (scripts/system-packages.ts installs them): test:all runs them. */
export const SYSTEM_TESTS: readonly string[] = [
  "test/browser/cors.test.ts",
  "test/browser/json-server-home.test.ts",
  "test/journal/strace.test.ts",
  "test/journal/strace-server.test.ts",
  "test/postgres/creates.test.ts",
  "test/postgres/lists.test.ts",
  "test/postgres/server.test.ts",
  "test/process/promtool.test.ts",
];

/**
 * Tests that take ten seconds or more of their own, measured beside the rest of `npm test`: the attacks
 * on memory and time, the install lines, and the files that start, crash and restart the command as a
 * process, over and over. test:all runs them; `npm test -- FILE` runs any of them on its own.
 */
export const SLOW_TESTS: readonly string[] = [
  "test/reliability/answers.test.ts",
  "test/reliability/exhaustion.test.ts",
  // The install lines replayed: a git URL installs the dev dependencies and builds, and git is a program beyond Node.
  "test/install.test.ts",
  "test/client-examples.test.ts",
  "test/dockerfile.test.ts",
  "test/journal/crash.test.ts",
  "test/journal/lock.test.ts",
  "test/journal/permissions.test.ts",
  "test/journal/server-crash.test.ts",
  "test/journal/store-failure.test.ts",
  "test/json-server/safety.test.ts",
  "test/json-server/v0-17-cli.test.ts",
  "test/main.test.ts",
  "test/reliability/faults.test.ts",
  "test/reliability/hostile.test.ts",
  "test/reliability/model.test.ts",
  "test/reliability/restart.test.ts",
  "test/request-log.test.ts",
  "test/stop-commands.test.ts",
];

/** Tests of Deno and Bun alone, which `npm test` does not run (TEST_RUNTIMES=node): there they would have no test. test:all runs them. */
export const DENO_AND_BUN_TESTS: readonly string[] = ["test/fetch-app-runtimes.test.ts", "test/native-server.test.ts", "test/start-on.test.ts"];

/** Every test file the in-process pass runs: test/*.test.ts and test/<folder>/*.test.ts. */
export function inProcessFiles(): string[] {
  const top = testsIn("test");
  const nested = readdirSync("test", { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => testsIn(join("test", entry.name)));
  return [...top, ...nested];
}

/**
 * The files `npm test` runs in-process. Not test/process/, whose every test starts a server process
 * (test:all runs them on every runtime). Nor the black-box files the fetch handler answers, which npm
 * test runs through it: a second pass of them, in-process through startServer, proves little more, and
 * test:all runs it. Those of the socket's rules (SOCKET_TESTS) stay.
 */
export function fastInProcessFiles(): string[] {
  const elsewhere = new Set([...testsIn("test/process"), ...fetchFiles(), ...DENO_AND_BUN_TESTS]);
  return fast(inProcessFiles()).filter((file) => !elsewhere.has(file));
}

/**
 * json-server's dialect, tested from outside on each test's db.json (test/json-server/target.ts
 * starts the server TEST_TARGET names): the runtime matrix runs them on every runtime, beside
 * the black-box suite, whose DATA_DIR and token passes they have no part in.
 */
export function dialectFiles(): string[] {
  return testsIn("test/json-server");
}

/**
 * The black-box files of a connection's own rules (pipelining, bad bytes, time-outs, shutdown),
 * which are startServer's socket: the fetch target, createFetchApp behind a thin server, leaves them out.
 */
export const SOCKET_TESTS: readonly string[] = ["test/http/protocol.test.ts", "test/http/shutdown.test.ts", "test/http/timeouts.test.ts"];

/** The black-box suite the fetch handler answers: the API's rules, without the socket's. */
export function fetchFiles(): string[] {
  return testsIn("test/http").filter((file) => !SOCKET_TESTS.includes(file));
}

/** The files of a list that need nothing but Node and npm, and take less than ten seconds of their own. */
export function fast(files: readonly string[]): string[] {
  return files.filter((file) => !SYSTEM_TESTS.includes(file) && !SLOW_TESTS.includes(file));
}

function testsIn(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith(".test.ts"))
    .sort()
    .map((name) => join(folder, name));
}
