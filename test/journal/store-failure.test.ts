// A journal write that fails (a file-size limit set with `ulimit -f`: write(2) gets EFBIG) stops the process with exit 1 and one line, and loses no answered write.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";

import { test } from "node:test";
import { call } from "../support/http.ts";
import { closeFirst, tempDir } from "../support/temp.ts";
import { createInterface } from "node:readline";
import { processEnv, readListeningUrl, ROOT, spawnTarget } from "../support/target.ts";

test("on node, a journal write refused by the system ends the server with exit code 1 and one line; a restart serves every write answered 201", async (t) => {
  const dir = tempDir(t, "store-failure-");
  // 2 KiB: the first snapshot (about 600 bytes) fits, and the journal fills after a dozen posts.
  // Node ignores SIGXFSZ, so the write past the limit fails with EFBIG instead of killing the process.
  const child = spawn("bash", ["-c", 'ulimit -f 2 && exec "$0" --import tsx src/main.ts', process.execPath], {
    cwd: ROOT,
    env: processEnv({ DATA_DIR: dir }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = once(child, "exit");
  const url = await readListeningUrl(child);
  const answered: number[] = [];
  let failed = false;
  for (let i = 0; i < 100 && !failed; i++) {
    try {
      const response = await call(`${url}/posts`, { method: "POST", json: { title: `post ${i}`, body: "x".repeat(40) } });
      if (response.status === 201) answered.push((response.body as { id: number }).id);
      else failed = true;
    } catch {
      failed = true;
    }
  }
  const [code] = await exited;
  assert.equal(code, 1);
  assert.match(stderr, new RegExp(`^A write could not be kept in ${dir} \\(EFBIG[^\\n]*\\); stopping\\n$`));
  assert.ok(answered.length >= 5, `only ${answered.length} posts were answered before the limit`);

  const again = await spawnTarget(process.execPath, ["--import", "tsx", "src/main.ts"], { DATA_DIR: dir });
  closeFirst(t, () => again.close());
  const held = ((await call(`${again.url}/posts`)).body as Array<{ id: number }>).map((post) => post.id);
  for (const id of answered) assert.ok(held.includes(id), `post ${id} was answered 201 but is lost`);
});

test("on node, embedded with startServer, a write that cannot be kept is answered 503 STORE_UNAVAILABLE, then every request for data and /readyz too, and close() still resolves", async (t) => {
  const dir = tempDir(t, "store-failure-");
  const child = spawn("bash", ["-c", 'ulimit -f 2 && exec "$0" --import tsx test/journal/embedded-child.ts', process.execPath], {
    cwd: ROOT,
    env: processEnv({ DATA_DIR: dir }),
    stdio: ["pipe", "pipe", "inherit"],
  });
  closeFirst(t, () => child.kill("SIGKILL"));
  const url = await readListeningUrl(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  let refused: Awaited<ReturnType<typeof call>> | undefined;
  for (let i = 0; i < 100 && refused === undefined; i++) {
    const response = await call(`${url}/posts`, { method: "POST", json: { title: `post ${i}`, body: "x".repeat(40) } });
    if (response.status !== 201) refused = response;
  }
  assert.equal(refused?.status, 503);
  assert.equal((refused?.body as { code: string }).code, "STORE_UNAVAILABLE");
  assert.match((await lines.next()).value as string, /^store failed: EFBIG/);
  const read = await call(`${url}/posts/1`);
  assert.equal(read.status, 503);
  assert.deepEqual(read.body, {
    code: "STORE_UNAVAILABLE",
    message:
      "The data could not be saved to disk, so this instance answers no more requests for data, and a write answered so may or may not have been kept; restart it and read before retrying",
  });
  assert.equal((await call(`${url}/readyz`)).status, 503);
  assert.equal((await call(`${url}/healthz`)).status, 200);
  child.stdin!.end();
  assert.equal((await lines.next()).value, "closed");
});
