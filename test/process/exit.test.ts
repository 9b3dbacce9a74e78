// Black-box tests of contract 7's exit rules on a process: bad configuration or a taken port -> exit 1, one line on stderr.
// They need a process, so the in-process pass (TEST_TARGET unset) runs them against a node process.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { processMode, runToExit } from "../support/process.ts";

const PROCESS = processMode();

const BAD_ENVIRONMENTS: Array<[Record<string, string>, string]> = [
  [{ PORT: "abc" }, 'PORT must be a whole number from 0 to 65535, not "abc"'],
  [{ BODY_LIMIT: "1MB" }, 'BODY_LIMIT must be a whole number from 1 to 9007199254740991, not "1MB"'],
  [{ HOST: "http://localhost" }, 'HOST must be an address or host name such as 127.0.0.1 or 0.0.0.0, not "http://localhost"'],
  [{ HEADERS_TIMEOUT_MS: "0" }, 'HEADERS_TIMEOUT_MS must be a whole number from 1 to 3600000, not "0"'],
];

for (const [env, line] of BAD_ENVIRONMENTS) {
  const [name, value] = Object.entries(env)[0]!;
  test(`on ${PROCESS}, ${name}=${value} ends the process with exit code 1 and one line on stderr`, async () => {
    const { code, stderr } = await runToExit(env);
    assert.equal(code, 1);
    assert.equal(stderr, `${line}\n`);
  });
}

test(`on ${PROCESS}, a port already in use ends the process with exit code 1 and one line on stderr`, async (t) => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const { port } = holder.address() as { port: number };
  const { code, stderr } = await runToExit({ PORT: String(port) });
  assert.equal(code, 1);
  assert.equal(stderr, `Port ${port} on 127.0.0.1 is already in use; set PORT to a free port\n`);
});

test(`on ${PROCESS}, a port already in use given as --port: the line names --port, the setting that was used`, async (t) => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const { port } = holder.address() as { port: number };
  // The variable is set too, to another port: the flag wins, and is the one named.
  const { code, stderr } = await runToExit({ PORT: "0" }, ["--port", String(port)]);
  assert.equal(code, 1);
  assert.equal(stderr, `Port ${port} on 127.0.0.1 is already in use; set --port to a free port\n`);
});
