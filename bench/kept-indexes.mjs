// Resident memory of a full store before and after lists ask for every filter and sort the store keeps an index of.
//
//   node bench/kept-indexes.mjs [dir holding dist/]      (this checkout by default; run `npx tsx scripts/build.ts` first)
//
// Writes a seed file of small posts that fills the default STORE_LIMIT (64 MiB as the store
// counts, to within one post), starts the built command on it with default settings, and reads
// the server's resident set (VmRSS) and its peak (VmHWM) from /proc, and its heap in use from
// /metrics, each after two full collections (the server runs with --expose-gc and a preload that
// collects on SIGUSR2, so that what the lists left behind does not count): once started, after
// `GET /posts?<filter or sort>&limit=1` for a filter on each member and four sorts, each asked
// three times, and after one create. Linux only.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const dir = resolve(process.argv[2] ?? ".");
const { DEFAULT_STORE_LIMIT, recordCost } = await import(pathToFileURL(join(dir, "dist/store/memory/budget.js")).href);

// Posts as small as a client makes them, so that the most records fit and an index per record weighs the most.
const posts = [];
let cost = recordCost({ id: 1, name: "Ada Lovelace", email: "ada@example.com" });
for (let id = 1; ; id++) {
  const post = { id, title: `post ${id}`, body: `body ${id % 1000}`, createdAt: new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString() };
  const next = recordCost(post);
  if (cost + next > DEFAULT_STORE_LIMIT) break;
  cost += next;
  posts.push(post);
}
const folder = mkdtempSync(join(tmpdir(), "kept-indexes-"));
const seedFile = join(folder, "seed.json");
writeFileSync(seedFile, JSON.stringify({ users: [{ id: 1, name: "Ada Lovelace", email: "ada@example.com" }], posts }));
const preload = join(folder, "collect.mjs");
writeFileSync(preload, 'process.on("SIGUSR2", () => { globalThis.gc(); globalThis.gc(); process.stdout.write("collected\\n"); });\n');

const server = spawn(process.execPath, ["--expose-gc", "--import", pathToFileURL(preload).href, join(dir, "dist/main.js"), "--seed", seedFile, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const base = await new Promise((done, fail) => {
  let out = "";
  const listening = (chunk) => {
    out += chunk;
    const found = /Listening on (http:\/\/\S+)/.exec(out);
    if (found === null) return;
    server.stdout.off("data", listening);
    done(found[1]);
  };
  server.stdout.on("data", listening);
  server.once("exit", (code) => fail(new Error(`the server exited with ${code}`)));
});

/** The server's resident set, its peak and its heap in use, in MiB, once it has collected. */
async function memory() {
  const collected = new Promise((done) => server.stdout.once("data", done));
  server.kill("SIGUSR2");
  await collected;
  const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
  const read = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)[1]) / 1024;
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const heap = Number(/^process_heap_used_bytes (\d+)/m.exec(metrics)[1]) / 1024 / 1024;
  return { rss: read("VmRSS").toFixed(1), peak: read("VmHWM").toFixed(1), heap: heap.toFixed(1) };
}

const rows = [["started", posts.length, await memory()]];
const queries = ["id=7", "title=post%207", "body=body%207", "createdAt=2026-01-01T00:00:07.000Z", "sort=title", "sort=-createdAt", "sort=body", "sort=-title,id"];
for (let round = 0; round < 3; round++) {
  for (const query of queries) {
    const response = await fetch(`${base}/posts?${query}&limit=1`);
    if (response.status !== 200) throw new Error(`${query}: ${response.status}`);
    await response.arrayBuffer();
  }
}
rows.push([`after ${queries.length} kinds of list, 3 times each`, posts.length, await memory()]);
const created = await fetch(`${base}/posts`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"title":"t","body":"b"}' });
rows.push([`after a create (${created.status})`, posts.length, await memory()]);
server.kill("SIGTERM");
await new Promise((done) => server.once("exit", done));
rmSync(folder, { recursive: true, force: true });
for (const [what, count, { rss, peak, heap }] of rows) console.log(`${what}: ${count} posts, RSS ${rss} MiB, peak ${peak} MiB, heap in use ${heap} MiB`);
