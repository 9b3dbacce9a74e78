// The server the dialect's tests talk to, started on a test's db.json: startServer in this
// process by default, or, as TEST_TARGET names (test/support/target.ts), createFetchApp behind a
// thin server, or the command on a runtime (node, dist, deno, bun) started on the db.json
// written to a file, with the options as the settings that carry them.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SETTINGS } from "../../src/config.ts";
import { createFetchApp, type ServerOptions, startServer } from "../../src/index.ts";
import { serveFetch } from "../support/fetch-bridge.ts";
import { serverCommand, spawnTarget, targetMode } from "../support/target.ts";

/** A server on a db.json: its base URL, and how to stop it. */
export type DialectServer = { url: string; close: () => Promise<void> };

/** Starts a server in json-server's dialect on `db` (a parsed db.json), on the target TEST_TARGET names. */
export async function startDialect(db: unknown, options: ServerOptions = {}): Promise<DialectServer> {
  const mode = targetMode();
  if (mode === "inprocess") return startServer({ db, ...options });
  if (mode === "fetch") {
    return serveFetch(createFetchApp({ db, ...(options as Parameters<typeof createFetchApp>[0]) }));
  }
  const dir = mkdtempSync(join(tmpdir(), "json-server-db-"));
  const file = join(dir, "db.json");
  writeFileSync(file, JSON.stringify(db));
  const { command, args, cwd } = serverCommand(mode, false);
  try {
    const target = await spawnTarget(command, args, { ...settingsOf(options), DB_FILE: file }, cwd);
    return { url: target.url, close: () => target.close().finally(() => rmSync(dir, { recursive: true, force: true })) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Options as the environment a process reads them from: each one's variable in the settings table, lists joined by commas, switches `on` or `off`. */
function settingsOf(options: ServerOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options)) {
    const setting = SETTINGS.find((each) => each.key === key);
    if (setting === undefined) throw new TypeError(`The option ${key} has no setting a process reads`);
    env[setting.variable] = Array.isArray(value) ? value.join(",") : typeof value === "boolean" ? (value ? "on" : "off") : String(value);
  }
  return env;
}
