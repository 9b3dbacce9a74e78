// Makes sure the Debian packages the tests use are installed, so `npm install && npm test` works on a fresh machine.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

/** A program a test runs, and the Debian package that installs it. */
export type SystemPackage = { program: string; name: string; usedBy: string };

/** Every program the tests need beyond node and npm. Nothing is ever skipped for want of one. */
export const SYSTEM_PACKAGES: readonly SystemPackage[] = [
  { program: "/usr/bin/chromium", name: "chromium", usedBy: "the browser test of CORS (test/browser/)" },
  { program: "/usr/bin/strace", name: "strace", usedBy: "the journal's system-call test (test/journal/strace.test.ts)" },
  { program: "/usr/bin/promtool", name: "prometheus", usedBy: "the check of /metrics with promtool (test/process/promtool.test.ts)" },
  // Debian 12 packages PostgreSQL 15, later releases a newer one: the tests take the newest installed (test/support/postgres.ts).
  { program: postgresProgram(), name: "postgresql", usedBy: "the PostgreSQL store's tests (test/postgres/, scripts/test-postgres.ts)" },
];

/** The server program of the newest PostgreSQL installed, or where Debian 12's would be. */
function postgresProgram(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((version) => existsSync(`${root}/${version}/bin/postgres`)) : [];
  const newest = versions.sort((a, b) => Number(a) - Number(b)).at(-1) ?? "15";
  return `${root}/${newest}/bin/postgres`;
}

/**
 * Installs with apt-get (as root) whatever package is missing, and throws, with one
 * line saying how to install them, when that cannot be done.
 */
export function ensureSystemPackages(): void {
  const missing = SYSTEM_PACKAGES.filter(({ program }) => !existsSync(program));
  if (missing.length === 0) return;
  const names = missing.map(({ name }) => name);
  const command = `apt-get install -y --no-install-recommends ${names.join(" ")}`;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !existsSync("/usr/bin/apt-get")) {
    throw new Error(`npm run test:all needs ${names.join(", ")} (${missing.map(({ usedBy }) => usedBy).join("; ")}); install it: ${command}`);
  }
  console.log(`Installing what the tests need: ${command}`);
  execFileSync("apt-get", ["update"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "--no-install-recommends", ...names], { stdio: "inherit" });
  const still = missing.filter(({ program }) => !existsSync(program));
  if (still.length > 0) throw new Error(`${still.map(({ program }) => program).join(", ")} is still missing after: ${command}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    ensureSystemPackages();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
