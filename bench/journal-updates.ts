// What updates write to the journal with DATA_DIR: PATCH bodies that grow one record, then one-member PATCHes of it.
//
//   npx tsx bench/journal-updates.ts [patches] [KiB per patch]      (12 and 1000 by default)
//
// Default settings otherwise (FSYNC=always, BODY_LIMIT 1 MiB, STORE_LIMIT 64 MiB), but no
// compaction, which would remove the journals measured; in a data directory in the system's temp folder. Prints the bytes received in PATCH bodies, the bytes
// the journal grew by, their ratio, and what one 10-byte PATCH of the grown record wrote.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../src/http/server.ts";

const patches = Number(process.argv[2] ?? 12);
const kib = Number(process.argv[3] ?? 1000);
const dir = mkdtempSync(join(tmpdir(), "journal-updates-"));
const journalBytes = () => readdirSync(dir).filter((n) => n.startsWith("journal-")).reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);

const api = await startServer({ dataDir: dir, compactBytes: Number.MAX_SAFE_INTEGER });
try {
  const send = async (method: string, path: string, body: string, type = "application/merge-patch+json") => {
    const response = await fetch(`${api.url}${path}`, { method, headers: { "content-type": type }, body });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
  };
  await send("POST", "/posts", JSON.stringify({ title: "T", body: "B" }), "application/json");
  const start = journalBytes();
  let received = 0;
  for (let i = 0; i < patches; i++) {
    const body = JSON.stringify({ [`part${i}`]: String(i % 10).repeat(kib * 1024) });
    received += Buffer.byteLength(body);
    await send("PATCH", "/posts/1", body);
  }
  const grown = journalBytes();
  const small = JSON.stringify({ title: "U" });
  await send("PATCH", "/posts/1", small);
  const record = Buffer.byteLength(await (await fetch(`${api.url}/posts/1`)).text());
  console.log(`${patches} PATCHes of ${kib} KiB: ${received} bytes received, ${grown - start} bytes journaled, ${((grown - start) / received).toFixed(2)} per byte received`);
  console.log(`one ${Buffer.byteLength(small)}-byte PATCH of the ${record}-byte record: ${journalBytes() - grown} bytes journaled`);
} finally {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
}
