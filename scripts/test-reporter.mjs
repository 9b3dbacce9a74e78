// The reporter of `npm test`: when all pass, a screenful (the files that passed, packed a folder to a
// line, each with its seconds, then the summary); every failure whole (its name, its error with the
// assertion's diff and stack, and what its file printed). node:test's own reporters print a line per
// test (spec) or a dot (dot), and the failures of dot without the file's output.
import { basename, dirname, relative } from "node:path";
import { inspect } from "node:util";

// Plain JavaScript: node loads a reporter before the --import hooks that would read TypeScript.

/** The widest line of files that passed, in characters: a terminal's 100 columns. */
const WIDTH = 100;

/**
 * The part of a node:test event this reporter reads.
 * @typedef {{ type: string, data: { name?: string, nesting?: number, file?: string, message?: string, details?: { duration_ms?: number, type?: string, error?: unknown } } }} TestEvent
 * @typedef {{ names: string[], tests: number, failures: string[], output: string[], ended: { duration_ms?: number, error?: unknown } | undefined }} FileState
 */

/**
 * @param {AsyncIterable<TestEvent>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* report(source) {
  // TEST_REPORT=failures: a line only for a file that failed, and the summary.
  const onlyFailures = process.env.TEST_REPORT === "failures";
  /** @type {Map<string, FileState>} */
  const files = new Map();
  // The runner relays what each file's process reports one file after another, in the order it
  // reports them, while the event that ends a file comes as soon as its process exits: a file's line
  // waits until both its end has come and the runner has gone on to relay the next file.
  /** @type {string[]} */
  const relayed = [];
  /** @type {string[]} */
  const summary = [];
  /** The files passed since the last line was written, all of one folder: `✔ test/journal/  crash 2.1 · lock 1.3`. */
  let packed = { folder: "", text: "" };
  /** @param {string} file @returns {FileState} */
  const state = (file) => {
    let found = files.get(file);
    if (found === undefined) files.set(file, (found = { names: [], tests: 0, failures: [], output: [], ended: undefined }));
    return found;
  };
  for await (const { type, data } of source) {
    const file = data.file;
    if (type === "test:diagnostic" && file === undefined && data.nesting === 0) {
      const [name, value] = (data.message ?? "").split(" ");
      summary.push(name === "duration_ms" ? `${(Number(value) / 1000).toFixed(1)} s` : `${value} ${name}`);
      continue;
    }
    if (file === undefined) continue;
    const current = state(file);
    if (isFile(data)) {
      if (type === "test:complete") current.ended = data.details ?? {};
    } else {
      if (relayed.at(-1) !== file) relayed.push(file);
      if (type === "test:stdout" || type === "test:stderr") current.output.push(data.message ?? "");
      else if (type === "test:start") current.names.splice(data.nesting ?? 0, Infinity, data.name ?? "");
      else if (type === "test:pass" || type === "test:fail") {
        if (data.details?.type !== "suite") current.tests += 1;
        const error = data.details?.error;
        if (type === "test:fail" && !onlyChildrenFailed(error)) {
          const path = [...current.names.slice(0, data.nesting ?? 0), data.name].join(" > ");
          current.failures.push(`  ✖ ${path}\n${indent(describe(error), "    ")}`);
        }
      }
    }
    for (const [done, finished] of files) {
      if (finished.ended !== undefined && relayed.includes(done) && relayed.at(-1) !== done) yield* line(done, finished);
    }
  }
  for (const [done, finished] of files) yield* line(done, finished);
  yield* flush();
  if (summary.length > 0) yield `${summary.join(", ")}\n`;

  /** Writes the files packed so far, if any. */
  function* flush() {
    if (packed.text !== "") yield `${packed.text}\n`;
    packed = { folder: "", text: "" };
  }

  /** A file that passed joins the line of its folder; one that failed is written whole. @param {string} file @param {FileState} finished */
  function* line(file, finished) {
    files.delete(file);
    const error = finished.ended?.error;
    const seconds = ((finished.ended?.duration_ms ?? 0) / 1000).toFixed(1);
    const failed = error !== undefined || finished.failures.length > 0;
    if (!failed && onlyFailures) return;
    const path = relative(process.cwd(), file);
    if (!failed) {
      const folder = `${dirname(path)}/`;
      // A file that ran no test says so: it passes, but proves nothing.
      const entry = `${basename(path).replace(/\.test\.[cm]?[jt]s$/, "")} ${seconds}${finished.tests === 0 ? " (no tests)" : ""}`;
      if (packed.folder !== folder || packed.text.length + entry.length + 3 > WIDTH) yield* flush();
      packed = packed.text === "" ? { folder, text: `✔ ${folder.padEnd(17)} ${entry}` } : { folder, text: `${packed.text} · ${entry}` };
      return;
    }
    yield* flush();
    yield `✖ ${path}  ${finished.tests} tests  ${seconds} s\n`;
    if (error !== undefined && !onlyChildrenFailed(error)) finished.failures.push(`  ✖ the file itself\n${indent(describe(error), "    ")}`);
    yield `${finished.failures.join("\n")}\n`;
    if (finished.output.length > 0) yield `  What the file printed:\n${indent(finished.output.join("").trimEnd(), "  | ")}\n`;
  }
}

/**
 * The runner's event for a whole file is named by the file's path.
 * @param {TestEvent["data"]} data
 */
function isFile(data) {
  return data.name !== undefined && data.name === data.file;
}

/**
 * A suite or file that failed only because a test inside it did: that test is printed, not its parent.
 * @param {unknown} error
 */
function onlyChildrenFailed(error) {
  return /** @type {{ failureType?: string } | undefined} */ (error)?.failureType === "subtestsFailed";
}

/**
 * The error a test failed with: the runner wraps the test's own error as its cause.
 * @param {unknown} error
 */
function describe(error) {
  const wrapped = /** @type {{ code?: string, cause?: unknown } | undefined} */ (error);
  const cause = wrapped?.code === "ERR_TEST_FAILURE" && wrapped.cause !== undefined ? wrapped.cause : error;
  return typeof cause === "string" ? cause : inspect(cause, { depth: 6, colors: false });
}

/** @param {string} text @param {string} prefix */
function indent(text, prefix) {
  return text
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}
