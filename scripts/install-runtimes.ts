// Makes sure Deno and Bun are installed in runtimes/, apart from the server's own install, before the runtime tests.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const FOLDER = fileURLToPath(new URL("../runtimes/", import.meta.url));
const MODULES = join(FOLDER, "node_modules");

/** The command that installs Deno and Bun into runtimes/, as this script runs it and as messages tell people to. */
export const INSTALL_COMMAND = "npm ci --prefix runtimes --ignore-scripts --no-bin-links";

/** The runtimes the matrix needs. */
export type Runtime = "deno" | "bun";

// Each npm package carries its binary in one optional package per platform, and npm
// installs only the one for this machine. The binary is taken from there, so that no
// install script has to run (`npm ci --ignore-scripts`) and the process the tests
// start and signal is the runtime itself, not a wrapper. `--no-bin-links` leaves out
// the packages' node_modules/.bin shims: without their install scripts, bun's does not
// run, and deno's leaves the server running when it is sent SIGTERM.
const PLATFORM_BINARY: Record<Runtime, { scope: string; file: string }> = {
  deno: { scope: "@deno", file: "deno" },
  bun: { scope: "@oven", file: join("bin", "bun") },
};

/** The path of a runtime's binary in runtimes/node_modules, or undefined when it is not installed. */
export function runtimePath(name: Runtime): string | undefined {
  const { scope, file } = PLATFORM_BINARY[name];
  const folder = join(MODULES, scope);
  if (!existsSync(folder)) return undefined;
  for (const entry of readdirSync(folder).sort()) {
    for (const candidate of [join(folder, entry, file), join(folder, entry, `${file}.exe`)]) {
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * Installs runtimes/ from its lock file when Deno or Bun is missing, then returns
 * each one's version. Throws, saying how to install them, when they cannot run.
 */
export function ensureRuntimes(): Record<Runtime, string> {
  const names: Runtime[] = ["deno", "bun"];
  if (names.some((name) => runtimePath(name) === undefined)) {
    console.log(`Deno and Bun are not installed yet; installing them: ${INSTALL_COMMAND}`);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    try {
      execFileSync(npm, ["ci", "--prefix", FOLDER, "--ignore-scripts", "--no-bin-links", "--no-audit", "--no-fund"], { stdio: "inherit" });
    } catch (cause) {
      throw new Error(`Could not install Deno and Bun; run "${INSTALL_COMMAND}"`, { cause });
    }
  }
  const versions = { deno: "", bun: "" };
  for (const name of names) {
    const path = runtimePath(name);
    if (path === undefined) {
      throw new Error(`${name} is missing from runtimes/node_modules; run "${INSTALL_COMMAND}"`);
    }
    try {
      versions[name] = execFileSync(path, ["--version"], { encoding: "utf8" }).split("\n")[0]!.trim();
    } catch (cause) {
      throw new Error(`${name} is installed but does not run; reinstall it: ${INSTALL_COMMAND}`, {
        cause,
      });
    }
  }
  return versions;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(ensureRuntimes());
}
