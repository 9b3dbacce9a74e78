// The contract test: Portman, with its default settings, turns /openapi.json into tests that newman runs against a fresh server.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../src/http/server.ts";

const FOLDER = fileURLToPath(new URL("../contract/", import.meta.url));
const PORTMAN = join(FOLDER, "node_modules", "@apideck", "portman", "bin", "portman");

/** The command that installs Portman into contract/, apart from the server's own install. */
const INSTALL_COMMAND = "npm ci --prefix contract --no-audit --no-fund";

if (!existsSync(PORTMAN)) {
  console.log(`Portman is not installed yet; installing it: ${INSTALL_COMMAND}`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  execFileSync(npm, ["ci", "--prefix", FOLDER, "--no-audit", "--no-fund"], { stdio: "inherit" });
}

// A fresh server: two seeded users and nothing else, the state the document's examples are written for.
const api = await startServer();
// Portman writes its working files under the folder it runs in; a temporary one keeps them out of the repository.
const work = mkdtempSync(join(tmpdir(), "rest-contract-"));
let code: number | null = 1;
try {
  const args = [PORTMAN, "--url", `${api.url}/openapi.json`, "--baseUrl", api.url, "--output", join(work, "collection.json"), "--runNewman"];
  console.log(`portman ${args.slice(1).join(" ")}`);
  const child = spawn(process.execPath, args, { cwd: work, stdio: "inherit" });
  code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
} finally {
  await api.close();
  rmSync(work, { recursive: true, force: true });
}
if (code !== 0) {
  console.error(`\nThe contract test failed: Portman and newman exited with ${code}.`);
  process.exit(1);
}
