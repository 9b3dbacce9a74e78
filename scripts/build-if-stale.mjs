// Builds dist/ (scripts/build.ts) when it is missing or older than the source. `npm test` runs it first,
// and npm runs it as `prepare`: after `npm install` in a clone, before `npm pack` and `npm publish` (which
// always build), and when this folder or a git URL is installed, or run with `npx rest-reference-server`
// inside a clone. Plain JavaScript, so that it runs without tsx: `npm install --omit=dev` has neither tsx
// nor TypeScript, and then keeps the dist/ there is, or says how to get one.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";

const command = process.env.npm_command ?? "";
const packing = command === "pack" || command === "publish";
// `npx rest-reference-server` in a clone links the clone into npm's npx cache and runs this script, and npm
// hides its output there. So npx builds only when there is no dist/ at all, and says so on the terminal.
const underNpx = command === "exec";
// package.json's `prepare` runs this script again with `--failed-with=STATUS` when the first run failed,
// Ctrl-C included (under npx the shell there ignores SIGINT, so it lives on to do that).
const failedWith = process.argv.find((arg) => arg.startsWith("--failed-with="));
if (failedWith) {
  if (underNpx) settleNpxEntries();
  process.exit(Number(failedWith.slice("--failed-with=".length)) || 1);
}
if (underNpx) for (const entry of npxEntries()) completeNpxEntry(entry);
const built = "dist/package.json";

if (!resolves("tsx") || !resolves("typescript")) {
  if (packing) fail("npm pack needs the dev dependencies to build dist/: run `npm install` first");
  if (existsSync("dist/main.js")) say("dist/ stays as it is: TypeScript and tsx, the dev dependencies that build it, are not installed");
  else if (underNpx) fail("dist/ is not built: run `npm install` in the clone first (it builds dist/)");
  else say("dist/ is not built: TypeScript and tsx, the dev dependencies that build it, are not installed (npm install --omit=dev). Run `npm install` to build it, or install `npm pack`'s tarball, which holds it");
  process.exit(0);
}
if (!packing && upToDate()) process.exit(0);
if (underNpx && existsSync("dist/main.js")) {
  say("dist/ is older than the source; npx runs it as it is, and `npm run build` rebuilds it");
  process.exit(0);
}
// The build says what it does itself; under npx, where npm hides it, this line says it on the terminal.
if (underNpx) say("building dist/ from the source with tsc (about 20 s, once)");
const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/build.ts"], { stdio: underNpx ? "ignore" : "inherit" });
if (result.status !== 0) fail("the build failed; `npm run build` shows why");
process.exit(0);

/** @param {string} name */
function resolves(name) {
  try {
    createRequire(join(process.cwd(), "package.json")).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

/** Whether dist/ (and each adapter's) was built after the last change to anything the build reads. */
function upToDate() {
  const adapters = existsSync("packages") ? readdirSync("packages").map((name) => join("packages", name)) : [];
  if (![".", ...adapters].every((folder) => existsSync(join(folder, "dist")))) return false;
  if (!existsSync(built)) return false;
  const inputs = ["src", "package.json", "tsconfig.json", "tsconfig.build.json", "scripts/build.ts"];
  for (const adapter of adapters) inputs.push(join(adapter, "src"), join(adapter, "tsconfig.build.json"));
  return newest(inputs) < statSync(built).mtimeMs;
}

/** @param {string[]} paths @returns {number} the latest modification time among the paths and what the folders hold */
function newest(paths) {
  let latest = 0;
  for (const path of paths.filter((path) => existsSync(path))) {
    const stat = statSync(path);
    latest = Math.max(latest, stat.mtimeMs);
    if (stat.isDirectory()) latest = Math.max(latest, newest(readdirSync(path).map((name) => join(path, name))));
  }
  return latest;
}

/**
 * Writes a line on stderr, and under npx on the terminal, since npm hides what an install script prints.
 * @param {string} line
 */
function say(line) {
  const text = `rest-reference-server: ${line}\n`;
  if (underNpx) {
    try {
      writeFileSync("/dev/tty", text);
      return;
    } catch {
      // No terminal (a test, CI): stderr, which npm shows if the script fails.
    }
  }
  process.stderr.write(text);
}

/** @param {string} line @returns {never} */
function fail(line) {
  say(line);
  process.exit(1);
}

/*
 * npm's npx cache entry for the clone. npm links the clone into a new entry, runs this script, links the
 * command, and only then writes the entry's package.json. A Ctrl-C meanwhile makes npm exit at once and
 * leave the link without that file, and every later `npx rest-reference-server` in the clone failed with
 * npm's `ENOENT ... package.json` until the entry was deleted by hand. So this script makes the entry whole
 * first, as npm would (the file, and the command's link when there is a dist/ to run), and after a failed run
 * with no dist/ it takes the clone's link out again, so that the next npx links and builds afresh.
 */

/** @returns {string[]} the entries of npm's npx cache that link this clone */
function npxEntries() {
  const cache = process.env.npm_config_cache;
  const entries = cache ? join(cache, "_npx") : "";
  if (!entries || !existsSync(entries)) return [];
  const here = realpathSync(".");
  return readdirSync(entries)
    .map((name) => join(entries, name))
    .filter((entry) => {
      try {
        const link = join(entry, "node_modules", "rest-reference-server");
        return lstatSync(link).isSymbolicLink() && realpathSync(link) === here;
      } catch {
        return false;
      }
    });
}

/**
 * Writes what npm writes last into an entry that lacks it: its package.json, and, with a dist/ to run, the
 * command's link, its target made executable as npm makes it (tsc writes files without the x bit).
 * @param {string} entry
 */
function completeNpxEntry(entry) {
  const here = realpathSync(".");
  if (!existsSync(join(entry, "package.json"))) {
    const manifest = { dependencies: { "rest-reference-server": `file:${relative(realpathSync(entry), here)}` }, _npx: { packages: [here] } };
    writeFileSync(join(entry, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  if (!existsSync("dist/main.js")) return;
  chmodSync("dist/main.js", 0o777 & ~process.umask());
  const bin = join(entry, "node_modules", ".bin");
  mkdirSync(bin, { recursive: true });
  try {
    symlinkSync("../rest-reference-server/dist/main.js", join(bin, "rest-reference-server"));
  } catch {
    // npm linked it already.
  }
}

/** After a failed run: entries made whole, or, with no dist/ to run, the clone's link taken out of them. */
function settleNpxEntries() {
  for (const entry of npxEntries()) {
    if (existsSync("dist/main.js")) completeNpxEntry(entry);
    else if (!existsSync(join(entry, "node_modules", ".bin", "rest-reference-server"))) {
      rmSync(join(entry, "node_modules", "rest-reference-server"), { force: true });
      rmSync(join(entry, "package.json"), { force: true });
    }
  }
}
