// Black-box tests of src/main.ts as a process: configuration, the start-up line, exit codes and signals.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { startServer } from "../src/http/server.ts";
import { call } from "./support/http.ts";
import { openSocket, readResponse } from "./support/raw.ts";
import { readListeningUrl } from "./support/target.ts";

const ENTRY = ["--import", "tsx", "src/main.ts"];

/** Runs the entry point to its end and collects what it printed and its exit code. */
async function runToExit(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...ENTRY, ...args], { env: { ...process.env, PORT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

/** Starts the entry point and resolves once it listens. */
async function startProcess(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ENTRY, {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await readListeningUrl(child);
  const exited = once(child, "exit") as Promise<[number | null, string | null]>;
  return { child, url, exited };
}

const INVALID_ENV: Array<[Record<string, string>, string]> = [
  [{ PORT: "abc" }, 'PORT must be a whole number from 0 to 65535, not "abc"'],
  [{ PORT: "70000" }, 'PORT must be a whole number from 0 to 65535, not "70000"'],
  [{ PORT: "-1" }, 'PORT must be a whole number from 0 to 65535, not "-1"'],
  [{ BODY_LIMIT: "0" }, 'BODY_LIMIT must be a whole number from 1 to 9007199254740991, not "0"'],
  [{ BODY_LIMIT: "1mb" }, 'BODY_LIMIT must be a whole number from 1 to 9007199254740991, not "1mb"'],
  [{ HOST: "local host" }, 'HOST must be an address or host name such as 127.0.0.1 or 0.0.0.0, not "local host"'],
  [{ HOST: "192.0.2.1" }, "HOST 192.0.2.1 is not an address of this machine; set HOST to 127.0.0.1 or 0.0.0.0"],
  [{ HOST: "no-such-host.invalid" }, "HOST no-such-host.invalid cannot be resolved to an address; set HOST to 127.0.0.1 or 0.0.0.0"],
];

for (const [env, line] of INVALID_ENV) {
  test(`main with ${JSON.stringify(env)} exits 1 with one line on stderr that says what to fix`, async () => {
    const { code, stdout, stderr } = await runToExit(env);
    assert.equal(code, 1);
    assert.equal(stderr, `${line}\n`);
    assert.equal(stdout, "");
  });
}

test("main with --host 192.0.2.1, not an address of this machine, exits 1 with one line naming --host, the setting used", async () => {
  const { code, stderr } = await runToExit({ HOST: "127.0.0.1" }, ["--host", "192.0.2.1"]);
  assert.equal(code, 1);
  assert.equal(stderr, "--host 192.0.2.1 is not an address of this machine; set --host to 127.0.0.1 or 0.0.0.0\n");
});

test("main on a port already in use exits 1 with one line naming the port", async (t) => {
  const taken = await startServer();
  t.after(() => taken.close());
  const { code, stderr } = await runToExit({ PORT: String(taken.port) });
  assert.equal(code, 1);
  assert.equal(stderr, `Port ${taken.port} on 127.0.0.1 is already in use; set PORT to a free port\n`);
});

test("main prints exactly one start-up line with its address and serves the seeded users; to a pipe, LOG_FORMAT=auto logs nothing more", async () => {
  const child = spawn(process.execPath, ENTRY, {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  const exited = once(child, "exit");
  const url = await readListeningUrl(child);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const response = await call(`${url}/users`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-total-count"), "2");
  child.kill("SIGINT");
  assert.deepEqual(await exited, [0, null]);
  assert.equal(stdout, `Listening on ${url}\n`);
});

test("on a terminal, LOG_FORMAT=auto writes a text access line per request", async () => {
  // script(1) runs the server with a pseudo-terminal as its stdout, as a person's shell would.
  const command = [process.execPath, ...ENTRY].join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  const seen = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve) => {
      const look = () => {
        const found = pattern.exec(output);
        if (found) {
          child.stdout.off("data", onData);
          resolve(found);
        }
      };
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        look();
      };
      child.stdout.on("data", onData);
      look();
    });
  const exited = once(child, "exit");
  const [, url] = await seen(/Listening on (http:\/\/[\d.:]+)\r?\n/);
  const response = await call(`${url}/users/1`);
  const id = response.headers.get("x-request-id")!;
  const [line] = await seen(new RegExp(`\\S+ GET /users/1 200 56B \\S+ms 127\\.0\\.0\\.1 ${id}\\r?\\n`));
  assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /);
  child.kill("SIGTERM");
  await exited;
});

test("main reads BODY_LIMIT from the environment", async () => {
  const { child, url, exited } = await startProcess({ BODY_LIMIT: "20" });
  const response = await call(`${url}/users`, { method: "POST", json: { name: "Grace Hopper", email: "g@example.com" } });
  assert.equal(response.status, 413);
  assert.equal((response.body as { message: string }).message, "Request body must not be larger than 20 bytes");
  child.kill("SIGTERM");
  assert.deepEqual(await exited, [0, null]);
});

test("SIGTERM during an in-flight request lets it finish, then main exits 0", async () => {
  const { child, url, exited } = await startProcess();
  const body = '{"name":"Grace Hopper","email":"grace@example.com"}';
  const socket = await openSocket(url);
  // `Expect: 100-continue` makes the server say when it holds the request: then it is in flight.
  const interim = once(socket, "data");
  socket.write(
    `POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  assert.equal(String((await interim)[0]), "HTTP/1.1 100 Continue\r\n\r\n");
  const response = readResponse(socket);
  child.kill("SIGTERM");
  await waitForShutdown(url);
  socket.write(body);
  const answer = await response;
  assert.equal(answer.status, 201);
  assert.equal(answer.headers.connection, "close");
  assert.deepEqual(JSON.parse(answer.body), { id: 3, ...JSON.parse(body) });
  assert.deepEqual(await exited, [0, null]);
});

/** Resolves once the process has stopped accepting connections: shutdown has begun. */
async function waitForShutdown(url: string): Promise<void> {
  for (;;) {
    try {
      await call(`${url}/readyz`);
    } catch {
      return;
    }
  }
}
