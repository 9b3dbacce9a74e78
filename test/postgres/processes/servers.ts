// Server processes that share one PostgreSQL database, as replicas do: started together on a runtime of the matrix.
import { processMode } from "../../support/process.ts";
import { serverCommand, spawnTarget, type Target } from "../../support/target.ts";

/** Starts `count` server processes at once on the database at `databaseUrl`; they are stopped when the test ends. */
export async function startProcesses(t: { after: (fn: () => Promise<void>) => void }, databaseUrl: string, count = 2): Promise<Target[]> {
  const { command, args, cwd } = serverCommand(processMode());
  const started = await Promise.allSettled(Array.from({ length: count }, () => spawnTarget(command, args, { DATABASE_URL: databaseUrl }, cwd)));
  const targets = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  for (const target of targets) t.after(() => target.close());
  const failed = started.find((result) => result.status === "rejected");
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  return targets;
}
