// npm run image: builds the repository's Dockerfile as rest-reference-server:latest where no image registry is reachable, on the project's own stand-in for its node base image.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheFolder, ensureBase, namedImage } from "./image/base.ts";
import { budArgs, IMAGE_TAG, missingNeeds, noRegistryCommands, npmCaMounts } from "./image/commands.ts";
import { must, run } from "./image/run.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

const needed = missingNeeds();
if (needed.length > 0) {
  console.error(`npm run image: cannot run without ${needed.join(", and ")}`);
  process.exit(1);
}

const began = Date.now();
const logs = mkdtempSync(join(tmpdir(), "rest-image-"));
const note = (line: string) => console.log(`note: ${line}`);
const named = namedImage(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
try {
  console.log(`Building ${IMAGE_TAG} on a stand-in for ${named.image}, made from Debian's packages (cache: ${cacheFolder()}); logs in ${logs}`);
  const base = await ensureBase(named, logs, note);
  console.log(`base: ${base.image} (node ${base.version}, ${base.from === "storage" ? "from local storage" : base.from}) in ${seconds(base.ms)}`);
  const before = await run("podman", ["image", "inspect", "--format", "{{.Id}}", IMAGE_TAG], { timeoutMs: 30_000 });
  const mounts = await npmCaMounts(logs, note);
  const building = Date.now();
  // The build's own lines are shown as it goes, as docker build shows them.
  await shown("buildah", budArgs(base.image, IMAGE_TAG, mounts), 420_000);
  const after = (await must("podman", ["image", "inspect", "--format", "{{.Id}}", IMAGE_TAG], { timeoutMs: 30_000 })).trim();
  // The image the tag named before is let go of, unless something still uses it.
  if (before.code === 0 && before.stdout.trim() !== after) await run("podman", ["rmi", before.stdout.trim()], { timeoutMs: 60_000 });
  console.log(`build: ${IMAGE_TAG} in ${seconds(Date.now() - building)}; ${seconds(Date.now() - began)} in all`);
  console.log(`Run it (docs/containers.md):\n  ${noRegistryCommands()[2]}`);
  rmSync(logs, { recursive: true, force: true });
} catch (error) {
  console.error(`npm run image: ${(error as Error).message}`);
  console.error(`The logs are in ${logs}.`);
  process.exit(1);
}

/** Runs a command with its output on this process's own, and throws unless it exits 0 within `timeoutMs`. */
async function shown(file: string, args: string[], timeoutMs: number): Promise<void> {
  const child = spawn(file, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${file} ${args.join(" ")} ${code === null ? `was stopped after ${timeoutMs / 1000} s` : `exited ${code}`}`);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
