// `npm start` hands SIGTERM to the server itself: it drains, exits 0, and lets go of its port.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { ROOT } from "./support/target.ts";

test("SIGTERM to the npm start process stops the server: npm exits, and the port is free again", { timeout: 60_000 }, async () => {
  const npm = spawn("npm", ["start", "--silent"], { cwd: ROOT, env: { ...process.env, PORT: "0", LOG_FORMAT: "off" }, stdio: ["ignore", "pipe", "inherit"] });
  const exited = once(npm, "exit");
  let url: string | undefined;
  for await (const line of createInterface({ input: npm.stdout! })) {
    url = /Listening on (http:\/\/\S+)/.exec(line)?.[1];
    if (url !== undefined) break;
  }
  assert.ok(url !== undefined, "the server said where it listens");
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
  npm.kill("SIGTERM");
  const [code, signal] = await exited;
  // npm hands the signal on and reports the server's own exit: 0 after a clean shutdown.
  assert.ok(code === 0 || signal === "SIGTERM", `npm ended with ${code ?? signal}`);
  await assert.rejects(fetch(`${url}/healthz`), "nothing listens on the port any more");
});
