// Footprint: time from spawn to the first answered request, and resident memory at idle, on each runtime side by side.
// Run: npx tsx bench/footprint.ts [runs]   (needs Deno and Bun: npm ci --prefix runtimes)
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, platform, release, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ensureRuntimes } from "../scripts/install-runtimes.ts";
import { readListeningUrl, ROOT, runtimeBinary } from "../test/support/target.ts";

const RUNS = Number(process.argv[2] ?? 7);
// How long the server sits idle after its first answer before its memory is read.
const IDLE_MS = 1_000;

type Variant = { name: string; shown: string; command: string; args: string[]; cwd: string };
type Sample = { firstAnswerMs: number; rssMiB: number };

const versions = ensureRuntimes();
execFileSync(process.execPath, ["--import", "tsx", "scripts/build.ts"], { cwd: ROOT, stdio: "ignore" });
// The build alone in an empty folder, as it would sit in a container.
const distCopy = mkdtempSync(join(tmpdir(), "rest-footprint-"));
cpSync(join(ROOT, "dist"), join(distCopy, "dist"), { recursive: true });

const VARIANTS: Variant[] = [
  {
    name: "tsx src",
    shown: "node --import tsx src/main.ts",
    command: process.execPath,
    args: ["--import", "tsx", "src/main.ts"],
    cwd: ROOT,
  },
  { name: "node dist", shown: "node dist/main.js", command: process.execPath, args: ["dist/main.js"], cwd: distCopy },
  {
    name: "deno",
    shown: "deno run --allow-net --allow-env src/main.ts",
    command: runtimeBinary("deno"),
    args: ["run", "--allow-net", "--allow-env", "src/main.ts"],
    cwd: ROOT,
  },
  { name: "bun", shown: "bun src/main.ts", command: runtimeBinary("bun"), args: ["src/main.ts"], cwd: ROOT },
];

/** One cold start: spawn, wait for the start-up line, answer GET /healthz, sit idle, read the resident memory. */
async function measure(variant: Variant): Promise<Sample> {
  const started = performance.now();
  const child = spawn(variant.command, variant.args, {
    cwd: variant.cwd,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DENO_NO_UPDATE_CHECK: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const url = await readListeningUrl(child);
    const response = await fetch(`${url}/healthz`);
    await response.arrayBuffer();
    const firstAnswerMs = performance.now() - started;
    if (response.status !== 200) throw new Error(`${variant.name}: GET /healthz -> ${response.status}`);
    await delay(IDLE_MS);
    return { firstAnswerMs, rssMiB: residentKiB(child) / 1024 };
  } finally {
    child.kill("SIGTERM");
    if (child.exitCode === null) await once(child, "exit");
  }
}

/** The resident set size of a process in KiB, from /proc on Linux or ps elsewhere. */
function residentKiB(child: ChildProcess): number {
  const status = `/proc/${child.pid}/status`;
  if (existsSync(status)) {
    const line = readFileSync(status, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
    if (line) return Number(line[1]);
  }
  return Number(execFileSync("ps", ["-o", "rss=", "-p", String(child.pid)], { encoding: "utf8" }).trim());
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function spread(values: number[], digits: number): string {
  return `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
}

const samples = new Map<string, Sample[]>(VARIANTS.map((variant) => [variant.name, []]));
try {
  // Warm-up: the first start of each fills disk caches and Deno's transpile cache.
  for (const variant of VARIANTS) await measure(variant);
  // Round-robin, so a slow moment of the machine falls on every runtime alike.
  for (let run = 0; run < RUNS; run += 1) {
    for (const variant of VARIANTS) samples.get(variant.name)!.push(await measure(variant));
  }
} finally {
  rmSync(distCopy, { recursive: true, force: true });
}

console.log(`Footprint, median (min–max) of ${RUNS} cold starts each, after one warm-up start`);
console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${platform()} ${release()}`);
console.log(`Node ${process.version}, ${versions.deno}, Bun ${versions.bun}\n`);
console.log("| runtime | command | spawn to first answer (ms) | resident memory at idle (MiB) |");
console.log("|---|---|---|---|");
for (const variant of VARIANTS) {
  const runs = samples.get(variant.name)!;
  const time = spread(runs.map((sample) => sample.firstAnswerMs), 0);
  const memory = spread(runs.map((sample) => sample.rssMiB), 1);
  console.log(`| ${variant.name} | \`${variant.shown}\` | ${time} | ${memory} |`);
}
