// The model-based tests against a server process keeping its data in DATA_DIR, with restarts as random steps.
import { Agent } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { type ProcessMode, serverCommand, spawnTarget, type Target } from "../support/target.ts";
import { newEtagLedger } from "./etags.ts";
import { ApiModel, type ModelRequest } from "./model.ts";
import {
  checkSequences,
  checkStep,
  describeRequest,
  type ModelRunOptions,
  type ModelStats,
  operation,
  type Session,
  stateReads,
} from "./operations.ts";

/**
 * A restart between two requests: `clean` is SIGTERM and a wait for exit 0; `kill` is
 * SIGKILL. Either way no request is in flight, so every answered write must be kept.
 */
export type Restart = { restart: "clean" | "kill" };

/** One step of a sequence: a request, or a restart of the server on the same data directory. */
export type Step = ModelRequest | Restart;

/** The journal's settings for one sequence, drawn with it. */
export type DataSettings = {
  fsync: "always" | "interval";
  /** Small values compact every few writes, so restarts replay a snapshot and then a journal; undefined is the default. */
  compactBytes: number | undefined;
};

/** A sequence with restarts, and the settings its server runs with. */
export type RestartSequence = { settings: DataSettings; steps: Step[] };

/** Counts of a run with restarts. */
export type RestartStats = ModelStats & {
  clean: number;
  killed: number;
  /** Answers after a restart whose ETag was checked equal to the one the previous process gave. */
  etagsKept: number;
};

const restart: fc.Arbitrary<Restart> = fc.constantFrom<Restart>({ restart: "clean" }, { restart: "kill" });

const settings: fc.Arbitrary<DataSettings> = fc.record({
  // `interval` answers before the sync: a killed process must lose nothing even so, as the kernel holds the bytes.
  fsync: fc.constantFrom<DataSettings["fsync"]>("always", "interval"),
  compactBytes: fc.constantFrom<number | undefined>(undefined, 1, 700, 4_000),
});

/**
 * Random sequences in which about one step in eleven is a restart, half of them by SIGKILL.
 * With `eachKind`, every sequence also has one restart of each kind at a drawn place, so a
 * short run is sure to restart both ways.
 */
export function restartSequences(maxSteps: number, eachKind = false): fc.Arbitrary<RestartSequence> {
  // The requests weigh 61 in all (see `operation`).
  const step = fc.oneof({ weight: 61, arbitrary: operation as fc.Arbitrary<Step> }, { weight: 6, arbitrary: restart });
  const steps = fc.array(step, { minLength: 1, maxLength: maxSteps, size: "max" });
  if (!eachKind) return fc.record({ settings, steps });
  const places = fc.tuple(fc.nat(), fc.nat());
  return fc.record({ settings, steps, places }).map(({ settings: drawn, steps: drawnSteps, places: [clean, kill] }) => {
    const placed = [...drawnSteps];
    placed.splice(clean % (placed.length + 1), 0, { restart: "clean" });
    placed.splice(kill % (placed.length + 1), 0, { restart: "kill" });
    return { settings: drawn, steps: placed };
  });
}

function isRestart(step: Step): step is Restart {
  return "restart" in step;
}

/** A step as one line, as a failure lists it. */
export function describeStep(step: Step): string {
  if (!isRestart(step)) return describeRequest(step);
  return step.restart === "clean"
    ? "restart: SIGTERM, exit 0, start again on the same DATA_DIR"
    : "restart: SIGKILL, start again on the same DATA_DIR";
}

/**
 * Runs one sequence against a server process on `mode` with a fresh data directory,
 * and a fresh model. A clean restart first reads the whole state, so every ETag is
 * known; after any restart the whole state is read again, and every answer must agree
 * with the model and every ETag with the one before. Throws at the first difference.
 */
export async function runRestartSequence(sequence: RestartSequence, mode: ProcessMode, stats: RestartStats): Promise<void> {
  const { fsync, compactBytes } = sequence.settings;
  const dir = mkdtempSync(join(tmpdir(), "rest-restart-"));
  const env: Record<string, string> = { DATA_DIR: dir, FSYNC: fsync };
  if (compactBytes !== undefined) env.COMPACT_BYTES = String(compactBytes);
  const { command, args, cwd } = serverCommand(mode, true);
  const start = () => spawnTarget(command, args, env, cwd);
  let target: Target | undefined;
  const session: Session = { model: new ApiModel(), etags: newEtagLedger(), url: "", agent: new Agent() };
  const connect = (running: Target) => {
    session.agent.destroy();
    session.url = running.url;
    session.agent = new Agent({ keepAlive: true, maxSockets: 1 });
  };
  stats.sequences++;
  try {
    target = await start();
    connect(target);
    for (const [index, step] of sequence.steps.entries()) {
      stats.steps++;
      if (!isRestart(step)) {
        await checkStep(session, step, index + 1);
        continue;
      }
      const at = `${index + 1} (after a ${step.restart === "clean" ? "clean restart" : "SIGKILL"})`;
      if (step.restart === "clean") {
        for (const read of stateReads(session.model)) await checkStep(session, read, `${index + 1} (before a clean restart)`);
      }
      session.agent.destroy();
      const stopping = target;
      target = undefined;
      const code = await stopping.stop(step.restart === "clean" ? "SIGTERM" : "SIGKILL");
      if (step.restart === "clean" && code !== 0) throw new Error(`step ${index + 1}: the server exited with ${code} after SIGTERM, not 0`);
      // A server that had already ended by itself would show here with its own exit code.
      if (step.restart === "kill" && code !== null) throw new Error(`step ${index + 1}: the server had exited with ${code} before SIGKILL`);
      if (step.restart === "clean") stats.clean++;
      else stats.killed++;
      target = await start();
      connect(target);
      const kept = session.etags.kept;
      for (const read of stateReads(session.model)) await checkStep(session, read, at);
      stats.etagsKept += session.etags.kept - kept;
    }
    for (const read of stateReads(session.model)) await checkStep(session, read, "final");
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${mode}, FSYNC=${fsync}, COMPACT_BYTES=${compactBytes ?? "default"}: ${message}`, { cause: error });
  } finally {
    session.agent.destroy();
    // A failed sequence may leave its server running: nothing more is asked of it.
    if (target !== undefined) await target.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Options of runRestartModel. */
export type RestartRunOptions = ModelRunOptions & {
  mode: ProcessMode;
  /** Whether every sequence restarts at least once each way. */
  eachKind?: boolean;
};

/**
 * Runs `runs` random sequences with restarts from `seed` against server processes on
 * one runtime. On a difference, fast-check shrinks the sequence, and the error lists
 * the shortest one found, restarts included.
 */
export async function runRestartModel(options: RestartRunOptions): Promise<RestartStats> {
  const stats: RestartStats = { sequences: 0, steps: 0, clean: 0, killed: 0, etagsKept: 0 };
  await checkSequences(
    restartSequences(options.maxSteps, options.eachKind),
    (sequence) => runRestartSequence(sequence, options.mode, stats),
    (sequence) => sequence.steps.map(describeStep),
    options,
  );
  return stats;
}
