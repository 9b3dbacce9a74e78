// Makes sure Deno and Bun are installed in runtimes/, apart from the server's own install, before the runtime tests.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const FOLDER = fileURLToPath(new URL("../runtimes/", import.meta.url));
const RUNTIMES = ["deno", "bun"] as const;

/** The path of a runtime's binary in runtimes/node_modules/.bin. */
export function runtimePath(name: (typeof RUNTIMES)[number]): string {
  return `${FOLDER}node_modules/.bin/${name}`;
}

/**
 * Installs runtimes/ from its lock file when Deno or Bun is missing, then returns
 * each one's version. Throws, saying how to install them, when they cannot run.
 */
export function ensureRuntimes(): Record<string, string> {
  if (RUNTIMES.some((name) => !existsSync(runtimePath(name)))) {
    console.log("Deno and Bun are not installed yet; installing them: npm ci --prefix runtimes");
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    try {
      execFileSync(npm, ["ci", "--prefix", FOLDER, "--no-audit", "--no-fund"], { stdio: "inherit" });
    } catch (cause) {
      throw new Error('Could not install Deno and Bun; run "npm ci --prefix runtimes" and try again', { cause });
    }
  }
  const versions: Record<string, string> = {};
  for (const name of RUNTIMES) {
    try {
      versions[name] = execFileSync(runtimePath(name), ["--version"], { encoding: "utf8" }).split("\n")[0]!.trim();
    } catch (cause) {
      throw new Error(`${name} is installed but does not run; reinstall it with "npm ci --prefix runtimes"`, { cause });
    }
  }
  return versions;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(ensureRuntimes());
}
