// Lints the packed tarball with publint and attw, the two checks of a package's shape that npm itself does not make.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const require = createRequire(import.meta.url);

/** Runs publint (strict: warnings count) and attw on a tarball; throws listing every problem either reports. */
export async function lintPackage(tarball: string): Promise<void> {
  const bytes = readFileSync(tarball);
  const packed = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const { messages, pkg } = await publint({ pack: { tarball: packed }, strict: true });
  // Suggestions too: "no problems" means an empty list, not merely no errors.
  if (messages.length > 0) {
    const lines = messages.map((message) => `publint ${message.type}: ${formatMessage(message, pkg) ?? message.code}`);
    throw new Error(lines.join("\n"));
  }
  // The package is ESM-only on purpose (its source is ES modules with top-level await).
  // attw's default profile also judges `require()` from CommonJS and the node10
  // resolution, which an ESM-only package fails by design; the esm-only profile skips
  // exactly those two and still checks every ESM and bundler resolution.
  const manifest = require.resolve("@arethetypeswrong/cli/package.json");
  const attw = join(dirname(manifest), (JSON.parse(readFileSync(manifest, "utf8")) as { bin: { attw: string } }).bin.attw);
  try {
    execFileSync(process.execPath, [attw, tarball, "--profile", "esm-only", "--format", "ascii", "--no-color"], {
      encoding: "utf8",
      stdio: "pipe",
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`attw found problems:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}
