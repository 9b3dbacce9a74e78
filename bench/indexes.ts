// Benchmark: a post's comment list and a cascading delete cost the same with 1,000 or 200,000 other comments held.
import { Agent, request } from "node:http";
import { availableParallelism, cpus } from "node:os";
import { performance } from "node:perf_hooks";
import { startServer } from "../src/http/server.ts";

const LIST_SIZE = 50;
const SIZES = [1_000, 200_000];
const COMMENTS_PER_OTHER_POST = 100;
const LIST_ROUNDS = 15;
const READS_PER_ROUND = 300;
const DELETE_ROUNDS = 41;
const FILL_CONCURRENCY = 16;

const agent = new Agent({ keepAlive: true, maxSockets: FILL_CONCURRENCY });

/** Sends one request over a kept-alive connection and resolves with the status and body text. */
function send(base: string, method: string, path: string, json?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = json === undefined ? undefined : JSON.stringify(json);
    const headers: Record<string, string | number> = {};
    if (payload !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = Buffer.byteLength(payload);
    }
    const req = request(`${base}${path}`, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

async function expect(base: string, method: string, path: string, status: number, json?: unknown): Promise<string> {
  const response = await send(base, method, path, json);
  if (response.status !== status) throw new Error(`${method} ${path} -> ${response.status} ${response.text}`);
  return response.text;
}

/** Creates a post with `comments` comments, each with one reply; resolves with the post's id. */
async function postWithComments(base: string, comments: number, replies: boolean): Promise<number> {
  const post = JSON.parse(await expect(base, "POST", "/posts", 201, { title: "t", body: "b" })) as { id: number };
  for (let i = 0; i < comments; i++) {
    const text = await expect(base, "POST", `/posts/${post.id}/comments`, 201, { body: `comment ${i}` });
    if (replies) {
      const { id } = JSON.parse(text) as { id: number };
      await expect(base, "POST", `/comments/${id}/replies`, 201, { body: "reply" });
    }
  }
  return post.id;
}

/** Adds comments on other posts until `target` other comments are held, several requests at a time. */
async function fillOthers(base: string, held: number, target: number): Promise<void> {
  const jobs: Array<() => Promise<unknown>> = [];
  for (let start = held; start < target; start += COMMENTS_PER_OTHER_POST) {
    const count = Math.min(COMMENTS_PER_OTHER_POST, target - start);
    jobs.push(() => postWithComments(base, count, false));
  }
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]!();
  };
  await Promise.all(Array.from({ length: FILL_CONCURRENCY }, worker));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Median over rounds of the mean time of one `GET /posts/1/comments`, in microseconds. */
async function timeList(base: string): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round <= LIST_ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < READS_PER_ROUND; i++) {
      const text = await expect(base, "GET", `/posts/1/comments`, 200);
      if (round === 0 && i === 0 && (JSON.parse(text) as unknown[]).length !== LIST_SIZE) throw new Error("wrong list");
    }
    // Round 0 warms up the connection and the JIT; it is not counted.
    if (round > 0) rounds.push(((performance.now() - started) / READS_PER_ROUND) * 1000);
  }
  return median(rounds);
}

/** Median over rounds of one `DELETE /posts/{id}` that takes 50 comments and 50 replies with it, in microseconds. */
async function timeDelete(base: string): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round <= DELETE_ROUNDS; round++) {
    const id = await postWithComments(base, LIST_SIZE, true);
    const started = performance.now();
    await expect(base, "DELETE", `/posts/${id}`, 204);
    if (round > 0) rounds.push((performance.now() - started) * 1000);
  }
  return median(rounds);
}

const api = await startServer();
const began = performance.now();
try {
  await postWithComments(api.url, LIST_SIZE, false);
  // A first pass at the smaller size warms the JIT, so the first figures are not the slowest for that reason alone.
  await fillOthers(api.url, 0, SIZES[0]!);
  await timeList(api.url);
  await timeDelete(api.url);
  let held = SIZES[0]!;
  const results: Array<{ others: number; list: number; remove: number }> = [];
  for (const size of SIZES) {
    await fillOthers(api.url, held, size);
    held = size;
    results.push({ others: size, list: await timeList(api.url), remove: await timeDelete(api.url) });
  }
  const [small, large] = results as [(typeof results)[0], (typeof results)[0]];
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(`Node ${process.version}, ${availableParallelism()} cores (${cpu})`);
  const cascade = `${LIST_SIZE} comments + ${LIST_SIZE} replies`;
  console.log(`| other comments held | GET /posts/1/comments (${LIST_SIZE} items) | DELETE /posts/{id} (${cascade}) |`);
  console.log("|---:|---:|---:|");
  for (const row of results) {
    console.log(`| ${row.others.toLocaleString("en-US")} | ${row.list.toFixed(0)} µs | ${row.remove.toFixed(0)} µs |`);
  }
  const sizes = `${SIZES[1]!.toLocaleString("en-US")} / ${SIZES[0]!.toLocaleString("en-US")}`;
  const ratios = `${(large.list / small.list).toFixed(2)} | ${(large.remove / small.remove).toFixed(2)}`;
  console.log(`| ratio ${sizes} | ${ratios} |`);
  console.log(`Whole run: ${((performance.now() - began) / 1000).toFixed(1)} s`);
} finally {
  agent.destroy();
  await api.close();
}
