// Where a request's CPU time goes: a CPU profile of bench/in-memory.mjs (50 connections, one
// request at a time on each, as wrk sends them), self time grouped by what the code does, for
// this server as built and for the minimal bare node:http server.
//
//   node bench/breakdown.mjs [get|list|post] [requests]
//
// Self time is where the CPU was when sampled, so a built-in such as JSON.parse counts with the
// function that called it. Run it a few times: a shared machine moves each figure by ±0.1 µs.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [kind = "get", count = "300000"] = process.argv.slice(2);

/** What each part of a profile is counted as: the first rule whose test matches a sample's function and file. */
const GROUPS = [
  ["routing", (f, u) => u.endsWith("/router.js")],
  ["path ids", (f, u) => u.endsWith("/ids.js") || u.endsWith("/input.js")],
  ["query", (f, u) => u.endsWith("/lists.js") || u.includes("internal/url")],
  ["pipelining order", (f, u) => u.endsWith("/app.js") && ["listener", "proceed"].includes(f)],
  ["connection bookkeeping", (f, u) => u.endsWith("/server.js")],
  ["request id", (f, u) => u.endsWith("/request-id.js")],
  ["metrics and clock", (f, u) => u.endsWith("/metrics.js") || f === "now"],
  ["body reading and UTF-8", (f, u) => (u.endsWith("/body.js") && !["parseJsonObject", "treeProblem", "isFlatAndSound"].includes(f)) || f === "decodeUTF8" || (f === "decode" && u.includes("encoding"))],
  ["JSON parsing and the forbidden-name walk", (f, u) => u.endsWith("/body.js")],
  ["validation and the store", (f, u) => /\/(resource|validate|conditions|store|collection|versions|dataset)\.js$/.test(u)],
  ["answer: headers and serialisation", (f, u) => u.endsWith("/respond.js") || (u.endsWith("/app.js") && f === "answer") || u.endsWith("/cors.js")],
  ["routing the request to its handler", (f, u) => u.endsWith("/app.js")],
  ["the peer's own code", (f, u) => u.includes("/bench/peers/")],
  ["node:http's header checks", (f) => f === "checkInvalidHeaderChar" || f === "checkIsHttpToken" || f.startsWith("RegExp: ")],
  ["garbage collection", (f) => f === "(garbage collector)"],
  ["node:http, streams and the event loop", (f, u) => u.startsWith("node:") || f === "(program)" || u === ""],
  ["the benchmark's own socket", (f, u) => u.includes("/bench/in-memory.mjs")],
];

/** µs of self time per request, by group, from one profiled run. */
function profile(target) {
  const dir = mkdtempSync(join(tmpdir(), "breakdown-"));
  try {
    execFileSync(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, "bench/in-memory.mjs", kind, count, target], {
      env: { ...process.env, CONNECTIONS: "50" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
    const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(join(dir, file), "utf8"));
    const byId = new Map(nodes.map((node) => [node.id, node.callFrame]));
    const totals = new Map();
    // Samples before the measured requests (start-up, the warm-up) are counted too; they are
    // a small share of 300,000 requests, and the same for both servers.
    for (let i = 0; i < samples.length; i++) {
      const { functionName, url } = byId.get(samples[i]);
      if (functionName === "(idle)") continue;
      const group = GROUPS.find(([, test]) => test(functionName, url))?.[0] ?? "other";
      totals.set(group, (totals.get(group) ?? 0) + (timeDeltas[i] ?? 0));
    }
    const perRequest = new Map();
    for (const [group, micros] of totals) perRequest.set(group, micros / (Number(count) + 20_000));
    return perRequest;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ours = profile(".");
const bare = profile("bench/peers/minimal-bare.mjs");
const names = [...GROUPS.map(([name]) => name), "other"].filter((name) => ours.has(name) || bare.has(name));
const sum = (figures) => [...figures.values()].reduce((a, b) => a + b, 0);
const cell = (n) => (n === undefined ? "–" : n.toFixed(2));
console.log(`| ${kind}: µs of CPU per request | this server | minimal bare | difference |`);
console.log("|---|---:|---:|---:|");
for (const name of names) {
  const difference = (ours.get(name) ?? 0) - (bare.get(name) ?? 0);
  console.log(`| ${name} | ${cell(ours.get(name))} | ${cell(bare.get(name))} | ${difference >= 0 ? "+" : ""}${difference.toFixed(2)} |`);
}
console.log(`| **all** | **${sum(ours).toFixed(2)}** | **${sum(bare).toFixed(2)}** | **+${(sum(ours) - sum(bare)).toFixed(2)}** |`);
