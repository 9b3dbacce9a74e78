// The image test (npm run test:image): builds the repository's Dockerfile as docs/containers.md says (npm run image) and its other variant with buildah on a stand-in for its node base image, runs both with podman and runc, checks them, and measures them.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseDockerfile } from "../test/support/dockerfile.ts";
import { type Base, cacheFolder, ensureBase, namedImage } from "./image/base.ts";
import { checkDocumentedRun, checkImage, expectedFrom, Report, seconds } from "./image/checks.ts";
import { budArgs, IMAGE_TAG, missingNeeds, npmCaMounts } from "./image/commands.ts";
import { Podman } from "./image/podman.ts";
import { killAll, must, run } from "./image/run.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** The tag of the variant on the node image's whole image, which the test leaves in local container storage. */
const WHOLE_BASE_TAG = "rest-reference-server:test-slim";
/** The whole test stops, failed, after this long. */
const DEADLINE_MS = 15 * 60_000;

// What the test needs on this machine (scripts/image/commands.ts); it is never skipped.
const needed = missingNeeds();
if (needed.length > 0) {
  console.error(`test-image: cannot run without ${needed.join(", and ")}`);
  process.exit(1);
}

const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const stages = parseDockerfile(dockerfile);
const named = namedImage(dockerfile);
const expected = expectedFrom(stages.at(-1)!);
const scratch = mkdtempSync(join(tmpdir(), "rest-image-test-"));
const podman = new Podman(`rest-image-test-${process.pid}`);
const report = new Report();
const notes: string[] = [];
const times: string[] = [];
const began = Date.now();

let finishing = false;
async function finish(extraFailure?: string): Promise<never> {
  if (finishing) process.exit(1);
  finishing = true;
  if (extraFailure !== undefined) {
    killAll();
    report.failed++;
    console.log(`not ok ${report.passed + report.failed} - ${extraFailure}`);
  }
  const left = await podman.cleanup();
  for (const line of left) console.log(`warning: left behind: ${line}`);
  console.log(`\n${notes.map((line) => `note: ${line}\n`).join("")}${times.join("\n")}`);
  console.log(`The image test took ${seconds(Date.now() - began)}.`);
  if (report.failed === 0) rmSync(scratch, { recursive: true, force: true });
  else console.log(`Its build logs are in ${scratch}.`);
  console.log(`${report.passed} passed, ${report.failed} failed`);
  process.exit(report.failed === 0 ? 0 : 1);
}

const deadline = setTimeout(() => void finish(`the image test ends within ${DEADLINE_MS / 60_000} minutes`), DEADLINE_MS);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void finish(`the image test was interrupted by ${signal}`));

/**
 * The two runtime variants: the Dockerfile's default (on scratch), which `npm run image` builds
 * as docs/containers.md says, and the variant on its base's whole image (RUNTIME_BASE).
 */
type Variant = { label: string; tag: string; args: (base: Base) => string[] };
const VARIANTS: Variant[] = [
  { label: "default (RUNTIME_BASE=scratch), by npm run image", tag: IMAGE_TAG, args: () => [] },
  { label: "RUNTIME_BASE=<the node image>", tag: WHOLE_BASE_TAG, args: (base) => ["--build-arg", `RUNTIME_BASE=${base.image}`] },
];
const note = (line: string) => {
  // npm run image tells some of these too, before the test itself comes to them.
  if (notes.includes(line)) return;
  notes.push(line);
  console.log(`note: ${line}`);
};

console.log(`The image test: ${named.image}, stood in for by a base made from Debian's packages (cache: ${cacheFolder()})`);
const imagesBefore = await imageIds(["-a"]);
const built: Variant[] = [];
// The documented command first: it makes the stand-in base when local storage lacks it, then builds the default.
let phase = Date.now();
const imageBuilt = await report.check(`npm run image, as docs/containers.md says, builds ${IMAGE_TAG}`, async () => {
  const printed = await must("npm", ["run", "image"], { cwd: ROOT, timeoutMs: 900_000, log: join(scratch, "build-image.log") });
  for (const found of printed.matchAll(/^note: (.*)$/gm)) note(found[1]!);
  return true;
});
times.push(`npm run image (the stand-in base, if it was missing, and ${IMAGE_TAG}): ${seconds(Date.now() - phase)}`);
if (imageBuilt !== undefined) built.push(VARIANTS[0]!);
phase = Date.now();
const base = await report.check(`a stand-in for ${named.image}: Debian ${named.suite} slim, node and npm in /usr/local, user node (uid 1000)`, () =>
  ensureBase(named, scratch, note),
);
if (base === undefined) {
  report.cannot(`builds the Dockerfile, ${VARIANTS[1]!.label}`, "there is no base image");
  await finish();
}
times.push(`base ${base!.image} (node ${base!.version}, ${base!.from}): ${seconds(base!.ms)}`);

const caMounts = await npmCaMounts(scratch, note);
for (const variant of VARIANTS.slice(1)) {
  phase = Date.now();
  const ok = await report.check(`builds the Dockerfile, ${variant.label}, as ${variant.tag}`, async () => {
    await build(variant, base!);
    return true;
  });
  times.push(`build ${variant.tag}: ${seconds(Date.now() - phase)}`);
  if (ok !== undefined) built.push(variant);
}

await report.check("removes the stages' images that earlier runs left as build cache", () => removeStaleCache(base!, imagesBefore, usedCache()));

for (const variant of built) {
  phase = Date.now();
  await checkImage(podman, report, variant.tag, variant.tag, expected, scratch);
  times.push(`checks of ${variant.tag}: ${seconds(Date.now() - phase)}`);
}
if (imageBuilt !== undefined) await checkDocumentedRun(podman, report, readFileSync(join(ROOT, "docs/containers.md"), "utf8"));
else report.cannot("the podman run line of docs/containers.md serves", "npm run image did not build the image");

if (built.length === VARIANTS.length) {
  const sizes = await report.check("measures both images and each of their layers", async () => {
    const measured = [];
    for (const variant of VARIANTS) measured.push({ variant, ...(await measure(variant.tag, base!)) });
    for (const { variant, total, layers } of measured) {
      console.log(`\n${variant.tag}, ${variant.label}: ${megabytes(total)} (${total} bytes)`);
      console.log("| Layer | Size | Made by |\n|---|---|---|");
      layers.forEach((layer, index) => console.log(`| ${index + 1} | ${megabytes(layer.size)} | ${layer.base ? layer.createdBy : `\`${layer.createdBy}\``} |`));
      console.log("The other instructions add no bytes.");
    }
    console.log("");
    return measured.map(({ total }) => total);
  });
  if (sizes !== undefined) {
    await report.check("the sizes docs/containers.md gives, of both images and of their dist/ layer, are within 5% of those measured", async () => {
      const documented = documentedSizes(readFileSync(join(ROOT, "docs/containers.md"), "utf8"));
      const measuredDist = [];
      for (const variant of VARIANTS) measuredDist.push((await measure(variant.tag, base!)).layers.find((layer) => layer.createdBy.includes("/app/dist/"))?.size ?? 0);
      const wrong = [
        ...sizes.map((size, index) => [VARIANTS[index]!.tag, documented.totals[index], size] as const),
        ...measuredDist.map((size, index) => [`the dist/ layer of ${VARIANTS[index]!.tag}`, documented.dist[index], size] as const),
      ].filter(([, told, size]) => told === undefined || Math.abs(told - size) > size * 0.05);
      assert.deepEqual(
        wrong.map(([what, told, size]) => `${what}: documented ${told === undefined ? "nowhere" : megabytes(told)}, measured ${megabytes(size)}`),
        [],
      );
    });
  }
  if (sizes === undefined) report.cannot("the default image is the smaller", "the images were not measured");
  else {
    await report.check(`the default image is the smaller: ${megabytes(sizes[0]!)} against ${megabytes(sizes[1]!)}`, async () => {
      assert.ok(sizes[0]! < sizes[1]!, "the default variant is not the smaller; make the smaller one the default");
    });
  }
} else {
  report.cannot("measures both images and each of their layers", "an image did not build");
}
clearTimeout(deadline);
await finish();

/** Builds the repository's Dockerfile, unchanged, with buildah, and tags it; removes the image the tag named before if nothing else uses it. */
async function build(variant: Variant, base: Base): Promise<void> {
  const before = await run("podman", ["image", "inspect", "--format", "{{.Id}}", variant.tag], { timeoutMs: 30_000 });
  const args = budArgs(base.image, variant.tag, [...caMounts, ...variant.args(base)]);
  await must("buildah", args, { cwd: ROOT, timeoutMs: 420_000, log: join(scratch, `build-${variant.tag.replace(/\W/g, "-")}.log`) });
  const after = (await must("podman", ["image", "inspect", "--format", "{{.Id}}", variant.tag], { timeoutMs: 30_000 })).trim();
  const old = before.stdout.trim();
  if (before.code === 0 && old !== after) await run("podman", ["rmi", old], { timeoutMs: 60_000 });
}

/** The full ids of the images in local storage that `podman images` lists with `flags`. */
async function imageIds(flags: string[]): Promise<Set<string>> {
  const ids = await must("podman", ["images", ...flags, "--no-trunc", "--format", "{{.ID}}"], { timeoutMs: 30_000 });
  return new Set(ids.split("\n").map((id) => id.trim().replace(/^sha256:/, "")).filter(Boolean));
}

/** The images this run's builds reused: buildah logs `Using cache <id>` for each. */
function usedCache(): Set<string> {
  const used = new Set<string>();
  for (const name of readdirSync(scratch).filter((file) => file.startsWith("build-"))) {
    for (const found of readFileSync(join(scratch, name), "utf8").matchAll(/Using cache ([0-9a-f]{64})/g)) used.add(found[1]!);
  }
  return used;
}

/**
 * `--layers` keeps an image for each step of each stage, and reuses it while the step's
 * inputs are unchanged; once src/ changes, the build stage's last images from before are
 * left untagged and unused. This removes those that descend from the stand-in base and were
 * there before this run's builds; the ones this run made stay as the next run's cache.
 */
async function removeStaleCache(base: Base, before: Set<string>, used: Set<string>): Promise<number> {
  const baseId = (await must("podman", ["image", "inspect", "--format", "{{.Id}}", base.image], { timeoutMs: 30_000 })).trim();
  const parents = new Map<string, string>();
  const parentOf = async (id: string) => {
    if (!parents.has(id)) parents.set(id, (await must("podman", ["image", "inspect", "--format", "{{.Parent}}", id], { timeoutMs: 30_000 })).trim().replace(/^sha256:/, ""));
    return parents.get(id)!;
  };
  const descendsFromBase = async (id: string) => {
    for (let at = id, steps = 0; at !== "" && steps < 100; at = await parentOf(at), steps++) if (at === baseId) return true;
    return false;
  };
  let removed = 0;
  // Removing a leaf leaves its parent untagged and childless, for the next pass.
  for (let pass = 0; pass < 20; pass++) {
    const stale = [];
    for (const id of await imageIds(["-a", "--filter", "dangling=true"])) {
      if (before.has(id) && !used.has(id) && (await descendsFromBase(id))) stale.push(id);
    }
    if (stale.length === 0) break;
    for (const id of stale) if ((await run("podman", ["rmi", id], { timeoutMs: 60_000 })).code === 0) removed++;
  }
  return removed;
}

/**
 * The image's size and each layer's, oldest first, as `podman history` counts them
 * (uncompressed): the base image's layers as one, then each instruction of the Dockerfile's
 * runtime stage that added bytes.
 */
async function measure(tag: string, base: Base): Promise<{ total: number; layers: Array<{ size: number; createdBy: string; base: boolean }> }> {
  const inspect = async (image: string) => {
    const [data] = JSON.parse(await must("podman", ["image", "inspect", image], { timeoutMs: 30_000 })) as Array<{ Size: number; RootFS: { Layers: string[] } }>;
    return data!;
  };
  const history = async (image: string) =>
    (JSON.parse(await must("podman", ["history", "--format", "json", image], { timeoutMs: 30_000 })) as Array<{ size: number; CreatedBy: string }>).reverse();
  const [image, baseImage] = [await inspect(tag), await inspect(base.image)];
  const onBase = baseImage.RootFS.Layers.every((layer, index) => image.RootFS.Layers[index] === layer);
  const entries = await history(tag);
  const fromBase = onBase ? (await history(base.image)).length : 0;
  const own = entries.slice(fromBase);
  // Each instruction of the runtime stage has its entry, in order; if not, podman's own words are shown.
  const instructions = stages.at(-1)!.instructions;
  const said = (index: number) =>
    own.length === instructions.length
      ? `${instructions[index]!.keyword} ${Object.entries(instructions[index]!.flags).map(([flag, value]) => `--${flag}=${value} `).join("")}${instructions[index]!.args}`
      : own[index]!.CreatedBy.replace(/^\/bin\/sh -c #\(nop\) /, "").replace(/\b([0-9a-f]{12})[0-9a-f]{52}\b/g, "$1");
  const layers = [
    ...(onBase ? [{ size: entries.slice(0, fromBase).reduce((sum, entry) => sum + entry.size, 0), createdBy: `the base image, ${base.image}`, base: true }] : []),
    ...own.map((entry, index) => ({ size: entry.size, createdBy: said(index).replace(/\s+/g, " ").trim(), base: false })).filter((layer) => layer.size > 0),
  ];
  return { total: image.Size, layers };
}

/**
 * The sizes the Size section of docs/containers.md gives, in bytes: the two images, in the
 * order of its first table, and the dist/ layer of each, in the order of the layer tables.
 */
function documentedSizes(markdown: string): { totals: number[]; dist: number[] } {
  const section = markdown.slice(markdown.indexOf("## Size"), markdown.indexOf("\n## ", markdown.indexOf("## Size") + 1));
  const bytes = (text: string) => Number(text.split(" ")[0]) * (text.endsWith("MB") ? 1e6 : 1e3);
  const rows = section.split("\n").filter((line) => line.startsWith("| "));
  const size = (line: string) => /\| (\d+(?:\.\d+)? [MkG]?B) \|/.exec(line)?.[1];
  const totals = rows.filter((line) => /^\| (default|`--build-arg)/.test(line)).map((line) => bytes(size(line) ?? "0"));
  const dist = rows.filter((line) => line.includes("`COPY --from=build /app/dist/ dist/`")).map((line) => bytes(size(line) ?? "0"));
  return { totals, dist };
}

/** A size as `podman images` shows it: in MB or kB of 1000. */
function megabytes(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;
}
