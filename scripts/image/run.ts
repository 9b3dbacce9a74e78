// Runs the image test's commands (debootstrap, buildah, podman, npm), each bounded in time, with its output kept or logged.
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

/** What a finished command gave: its exit code (null when it was killed), its output, and how long it took. */
export type Ran = { code: number | null; stdout: string; stderr: string; ms: number; timedOut: boolean };

/** Where a command runs, how long it may take, and the file its output is appended to instead of being kept whole. */
export type RunOptions = { timeoutMs: number; cwd?: string; env?: NodeJS.ProcessEnv; log?: string };

// What is kept of a logged command's output in memory: its end, for the error message.
const KEPT_OF_LOGGED = 16_384;
// Each command gets its own process group, killed whole on a timeout or when the test is interrupted.
const running = new Set<ChildProcess>();

/** Runs `file` to its end, or kills its whole process group once `timeoutMs` has passed. Never throws for an exit code. */
export function run(file: string, args: readonly string[], options: RunOptions): Promise<Ran> {
  const began = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    running.add(child);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const keep = (text: string, chunk: string) => {
      if (options.log === undefined) return text + chunk;
      appendFileSync(options.log, chunk);
      return (text + chunk).slice(-KEPT_OF_LOGGED);
    };
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout = keep(stdout, chunk)));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr = keep(stderr, chunk)));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      running.delete(child);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, stdout, stderr, ms: Date.now() - began, timedOut });
    });
  });
}

/** Runs `file` and returns its stdout; throws with the command, its exit and the end of its output unless it exits 0. */
export async function must(file: string, args: readonly string[], options: RunOptions): Promise<string> {
  const ran = await run(file, args, options);
  if (ran.code !== 0) throw new Error(failure(file, args, ran, options));
  return ran.stdout;
}

/** One paragraph on a failed command: what it was, how it ended, and the last lines it printed. */
export function failure(file: string, args: readonly string[], ran: Ran, options: RunOptions): string {
  const how = ran.timedOut ? `was stopped after ${options.timeoutMs / 1000} s` : `exited ${ran.code}`;
  const tail = `${ran.stdout}\n${ran.stderr}`
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(-12)
    .map((line) => `    ${line}`)
    .join("\n");
  const log = options.log === undefined ? "" : ` (whole output: ${options.log})`;
  return `${[file, ...args].join(" ")} ${how}${log}${tail === "" ? "" : `:\n${tail}`}`;
}

/** Kills every command still running, with its children: for an interrupted or overdue test. */
export function killAll(): void {
  for (const child of running) killGroup(child);
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // It has already ended.
  }
}
