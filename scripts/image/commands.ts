// The commands that build and run the image where no image registry is reachable: docs/containers.md begins with them, and npm run image and the image test run them.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "./run.ts";

/** The tag `npm run image` gives the image: `podman run … rest-reference-server` finds it as `:latest`. */
export const IMAGE_TAG = "rest-reference-server:latest";

/** The programs the route needs on this machine, and the Debian package of each. */
export const NEEDS = [
  { program: "/usr/sbin/debootstrap", name: "debootstrap" },
  { program: "/usr/bin/buildah", name: "buildah" },
  { program: "/usr/bin/podman", name: "podman" },
  { program: "/usr/sbin/runc", name: "runc" },
] as const;

/** The Debian packages to install: the programs, and libatomic1, the one library node needs beyond a minbase root. */
export const APT_PACKAGES = [...NEEDS.map(({ name }) => name), "libatomic1"];

/**
 * What `podman run` gets beyond the image. Debian's runc, since crun fails on hosts with hybrid
 * cgroups. Limits on open files and processes: podman's defaults ask for more than a process
 * without CAP_SYS_RESOURCE (root in a container, often) may set, and runc then fails in
 * setrlimit; so does `--ulimit host`. 4096 of each is within the hard limits of any usual host.
 */
export const RUN_FLAGS = ["--runtime", "runc", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"] as const;

/** The commands docs/containers.md begins with, in order, one a line, as a root shell in a clone runs them. */
export function noRegistryCommands(): string[] {
  return [
    `apt-get install -y --no-install-recommends ${APT_PACKAGES.join(" ")}`,
    "npm run image",
    `podman run --rm --name api ${RUN_FLAGS.join(" ")} -p 127.0.0.1:3000:3000 rest-reference-server`,
    "curl -s http://localhost:3000/healthz",
  ];
}

/** The commands of the first `sh` block of a Markdown text (docs/containers.md), one a line, without comments or blank lines. */
export function documentedCommands(markdown: string): string[] {
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(markdown)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/(^|\s+)#.*$/, "").trim())
    .filter((line) => line !== "");
}

/** What this machine lacks for building the image, each as a sentence's part; none when it has it all. */
export function missingNeeds(): string[] {
  const missing = NEEDS.filter(({ program }) => !existsSync(program)).map(({ name }) => name);
  return [
    ...(missing.length === 0 ? [] : [`${missing.join(", ")} (apt-get install -y --no-install-recommends ${APT_PACKAGES.join(" ")})`]),
    ...(process.getuid?.() === 0 ? [] : ["root, for debootstrap and buildah's chroot isolation"]),
  ];
}

/**
 * The arguments of `buildah bud` that build the repository's Dockerfile, unchanged, on `base`
 * as its node image, tagged `tag`; `extra` goes before the tag (more build arguments, mounts).
 */
export function budArgs(base: string, tag: string, extra: readonly string[] = []): string[] {
  return [
    "bud",
    "--isolation", "chroot",
    // The OCI format has no HEALTHCHECK.
    "--format", "docker",
    "--network", "host",
    "--pull=never",
    // A layer for each instruction, as docker build makes, each reused while its inputs are unchanged.
    "--layers",
    "--build-arg", `NODE_IMAGE=${base}`,
    ...extra,
    "-t", tag,
    ".",
  ];
}

/**
 * Where npm on this machine trusts a certificate authority of its own (a proxy that opens
 * TLS), `npm ci` in the build stage must trust it too: the file, and an npmrc naming it, are
 * mounted for the RUN steps only, and stay out of the image. `folder` holds the npmrc.
 */
export async function npmCaMounts(folder: string, note: (line: string) => void): Promise<string[]> {
  const ran = await run("npm", ["config", "get", "cafile"], { timeoutMs: 30_000, cwd: folder });
  const npmCafile = ran.code === 0 ? ran.stdout.trim() : "";
  const configured = [npmCafile, process.env.NODE_EXTRA_CA_CERTS ?? ""].find((file) => file.startsWith("/") && existsSync(file));
  if (configured === undefined) return [];
  const npmrc = join(folder, "npmrc");
  writeFileSync(npmrc, "cafile=/run/build-ca/ca.pem\n");
  note(`npm here trusts the authorities in ${configured}; npm ci in the build stage was given that file too (mounted for the build only)`);
  return ["-v", `${configured}:/run/build-ca/ca.pem:ro`, "-v", `${npmrc}:/root/.npmrc:ro`];
}
