// Ported from json-server v0.17.4, __tests__/cli/index.js (MIT, typicode): the tests whose
// flags this server has a setting for, against the built command (`dist/main.js`, or the runtime
// TEST_TARGET names) on the test's db.json, with their assertions; only how the command is started (its own settings in
// place of json-server's flags: READ_ONLY for --read-only, DELAY for -d, CORS_ORIGINS=off for
// --no-cors) and reached is adapted. Not ported, having no counterpart here: JS and remote
// seeds (seed.js, seed.cjs, a URL), routes files, middlewares, -i, --foreignKeySuffix, a static
// folder (-s), snapshots (-S) and --watch.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { serverCommand, targetMode } from "../support/target.ts";
import { differs, send } from "./support.ts";

const MAIN = join(import.meta.dirname, "../../dist/main.js");

/** The command under test: the built one, or the runtime TEST_TARGET names (test/support/target.ts). */
function command(args: string[]): { command: string; args: string[]; cwd?: string } {
  const mode = targetMode();
  if (mode === "inprocess" || mode === "fetch" || (mode === "dist" && process.env.TEST_DIST_DIR === undefined)) return { command: process.execPath, args: [MAIN, ...args] };
  const started = serverCommand(mode, false);
  return { ...started, args: [...started.args, ...args] };
}

/** The environment the command gets: `env` alone, with what a runtime needs to start (its PATH and home). */
function commandEnv(env: Record<string, string> = {}): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: process.env.HOME, DENO_NO_UPDATE_CHECK: "1", ...env };
}
let dir: string;
let dbFile: string;
let child: ReturnType<typeof spawn> | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cli-"));
  dbFile = join(dir, "db.json");
  writeFileSync(dbFile, JSON.stringify({ posts: [{ id: 1 }, { _id: 2 }], comments: [{ id: 1, post_id: 1 }] }));
});
afterEach(async () => {
  if (child !== undefined && child.exitCode === null) {
    child.kill("SIGKILL");
    await once(child, "exit");
  }
  child = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the command on `args` with `env`; its URL once it says it listens. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<string> {
  const started = command(["--port", "0", ...args]);
  child = spawn(started.command, started.args, { cwd: started.cwd, env: commandEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  for await (const chunk of child.stdout!.setEncoding("utf8")) {
    out += chunk as string;
    const found = /Listening on (\S+)/.exec(out);
    if (found !== null) return found[1]!;
  }
  // What upstream's wait for the server's port would time out on.
  throw new assert.AssertionError({ message: `the command did not start: ${out}` });
}

describe("db.json", () => {
  test("should support JSON file", async () => {
    const url = await cli([dbFile]);
    assert.equal((await send(url, "GET", "/posts")).status, 200);
  });
  test("should send CORS headers", async () => {
    const url = await cli([dbFile]);
    await differs("an origin not allowed gets no CORS headers (CORS_ORIGINS allows an app's origin)", async () => {
      const origin = "http://example.com";
      const res = await send(url, "GET", "/posts", { headers: { origin } });
      assert.equal(res.headers["access-control-allow-origin"], origin);
      assert.equal(res.status, 200);
    });
  });
  test("should update JSON file", async () => {
    const url = await cli([dbFile]);
    await send(url, "POST", "/posts", { json: { title: "hello" } });
    await differs("the db.json file is never written", async () => {
      const str = readFileSync(dbFile, "utf8");
      assert(str.indexOf("hello") !== -1);
    });
  });
});

describe("db.json --read-only (READ_ONLY=on)", () => {
  test("should allow only GET requests", async () => {
    const url = await cli([dbFile], { READ_ONLY: "on" });
    assert.equal((await send(url, "POST", "/blog/posts")).status, 403);
  });
});

describe("db.json -d 1000 (DELAY=1000)", () => {
  test("should delay response", async () => {
    const url = await cli([dbFile], { DELAY: "1000" });
    const start = Date.now();
    assert.equal((await send(url, "GET", "/posts")).status, 200);
    assert.ok(Date.now() - start > 1000, "Request wasn't delayed");
  });
});

describe("db.json --no-cors=true (CORS_ORIGINS=off)", () => {
  test("should not send Access-Control-Allow-Origin headers", async () => {
    const url = await cli([dbFile], { CORS_ORIGINS: "off" });
    const res = await send(url, "GET", "/posts", { headers: { origin: "http://localhost:5173" } });
    assert.equal(res.status, 200);
    assert.ok(!("access-control-allow-origin" in res.headers), "CORS headers were not excluded from response");
  });
});

describe("db.json --no-gzip=true", () => {
  test("should not set Content-Encoding to gzip", async () => {
    const url = await cli([dbFile]);
    const res = await send(url, "GET", "/posts");
    assert.equal(res.status, 200);
    assert.ok(!("content-encoding" in res.headers), "Content-Encoding is set to gzip");
  });
});

describe("non existent db.json", () => {
  test("should create JSON file if it doesn't exist", async () => {
    unlinkSync(dbFile);
    await differs("a db.json that cannot be read ends start-up with one line; the server writes no file", async () => {
      const url = await cli([dbFile]);
      assert.equal((await send(url, "GET", "/posts")).status, 200);
    });
  });
});

describe("db.json with error", () => {
  test("should exit with an error", async () => {
    writeFileSync(join(dir, "db-error.json"), JSON.stringify({ "a/b": [] }));
    const started = command(["--port", "0", join(dir, "db-error.json")]);
    child = spawn(started.command, started.args, { cwd: started.cwd, env: commandEnv(), stdio: "ignore" });
    const [code] = await once(child, "exit");
    assert.equal(code, 1);
  });
});
