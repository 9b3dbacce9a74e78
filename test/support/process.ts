// A server process run to its end: the command under test with extra arguments, its exit code and its output.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { processEnv, type ProcessMode, readListeningUrl, serverCommand, targetMode } from "./target.ts";

/** The runtime a process test runs on: TEST_TARGET's, or node for the in-process passes. */
export function processMode(): ProcessMode {
  const mode = targetMode();
  return mode === "inprocess" || mode === "fetch" ? "node" : mode;
}

/** Starts the server with `args` and `env`, and collects its exit code, stdout and stderr. */
export async function runToExit(
  env: Record<string, string>,
  extraArgs: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const durable = env.DATA_DIR !== undefined || extraArgs.some((arg) => arg.startsWith("--data-dir"));
  const { command, args, cwd } = serverCommand(processMode(), durable || undefined);
  const child = spawn(command, [...args, ...extraArgs], { cwd, env: processEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

/** Starts the server with `extraArgs` and `env`, collecting stderr; resolves once it listens. `durable` lets Deno write a data directory. */
export async function startCommand(extraArgs: string[], env: Record<string, string>, durable: boolean) {
  const { command, args, cwd } = serverCommand(processMode(), durable);
  const child = spawn(command, [...args, ...extraArgs], { cwd, env: processEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const url = await readListeningUrl(child);
  const stop = async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    return exited;
  };
  return { url, stop, stderr: () => stderr };
}
