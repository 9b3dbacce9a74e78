// The server a black-box test talks to: a fresh instance per call, in this process or spawned.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { startServer } from "../../src/server.ts";

/** A running server under test: its base URL, and how to stop it. */
export type Target = { url: string; close: () => Promise<void> };

/**
 * Starts a fresh server for one test file. `TEST_TARGET` picks how:
 * `inprocess` (default) uses startServer; `node` spawns `src/main.ts` through tsx.
 */
export async function startTarget(env: Record<string, string> = {}): Promise<Target> {
  const mode = process.env.TEST_TARGET ?? "inprocess";
  if (mode === "inprocess") {
    const bodyLimit = env.BODY_LIMIT === undefined ? undefined : Number(env.BODY_LIMIT);
    return startServer({ bodyLimit });
  }
  if (mode === "node") return spawnTarget(process.execPath, ["--import", "tsx", "src/main.ts"], env);
  throw new Error(`Unknown TEST_TARGET "${mode}"`);
}

/** Starts `command args` with PORT=0 and resolves with the URL it prints once it listens. */
export async function spawnTarget(command: string, args: string[], env: Record<string, string> = {}): Promise<Target> {
  const child = spawn(command, args, {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await readListeningUrl(child);
  return {
    url,
    close: async () => {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

/** Reads the child's stdout until the start-up line, `Listening on <url>`. */
export async function readListeningUrl(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`Server exited with code ${code} before listening`);
  });
  const listening = (async () => {
    for await (const line of lines) {
      const found = /^Listening on (http:\/\/\S+)$/.exec(line);
      if (found) return found[1]!;
    }
    throw new Error("Server closed its output before listening");
  })();
  return Promise.race([listening, exited]);
}

/** Starts a fresh target for one test and closes it when that test ends. */
export async function fresh(t: { after: (fn: () => Promise<void>) => void }, env?: Record<string, string>): Promise<string> {
  const target = await startTarget(env);
  t.after(() => target.close());
  return target.url;
}
