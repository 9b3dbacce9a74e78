// Reads a Dockerfile into its stages and instructions, and decides what a .dockerignore leaves in the build context.

/** One instruction: its keyword in upper case, its flags (`--from=build`), and the rest of its text. */
export type Instruction = { keyword: string; flags: Record<string, string>; args: string };

/** One stage: the image it starts from, its name (`AS name`), and its instructions after FROM. */
export type Stage = { image: string; name: string | undefined; instructions: Instruction[] };

/**
 * Splits a Dockerfile into stages. Lines ending in a backslash continue on the next line;
 * comment lines are dropped. An `ARG` before the first `FROM` gives its default to
 * `${NAME}` in the FROM lines, as Docker does.
 */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const globalArgs: Record<string, string> = {};
  for (const line of logicalLines(text)) {
    const { keyword, flags, args } = parseInstruction(line);
    if (keyword === "FROM") {
      const [image, as, name, ...rest] = args.split(/\s+/);
      if (image === undefined || rest.length > 0 || (as !== undefined && (as.toUpperCase() !== "AS" || name === undefined))) {
        throw new SyntaxError(`Cannot read FROM ${args}`);
      }
      stages.push({ image: substitute(image, globalArgs), name, instructions: [] });
    } else if (stages.length === 0) {
      if (keyword !== "ARG") throw new SyntaxError(`Only ARG may come before the first FROM, not ${keyword}`);
      const [name, value = ""] = splitOnce(args, "=");
      globalArgs[name] = value;
    } else {
      stages.at(-1)!.instructions.push({ keyword, flags, args });
    }
  }
  return stages;
}

function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    // A comment line inside a continued instruction is dropped too, as Docker does.
    if (line.startsWith("#")) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = (pending + line).trim();
    pending = "";
    if (whole !== "") lines.push(whole);
  }
  if (pending.trim() !== "") throw new SyntaxError("The Dockerfile ends inside a continued line");
  return lines;
}

function parseInstruction(line: string): Instruction {
  const [word = "", rest = ""] = splitOnce(line, " ");
  const flags: Record<string, string> = {};
  let args = rest.trim();
  for (let found = /^--([a-z-]+)=(\S+)\s+/.exec(args); found !== null; found = /^--([a-z-]+)=(\S+)\s+/.exec(args)) {
    flags[found[1]!] = found[2]!;
    args = args.slice(found[0].length);
  }
  return { keyword: word.toUpperCase(), flags, args };
}

function substitute(text: string, args: Record<string, string>): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    if (args[name] === undefined) throw new SyntaxError(`${text} names ARG ${name}, which has no default`);
    return args[name];
  });
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + separator.length)];
}

/** The command of an instruction in exec form (a JSON array of strings); throws for the shell form. */
export function execForm(instruction: Instruction): string[] {
  let value: unknown;
  try {
    value = JSON.parse(instruction.args);
  } catch {
    throw new SyntaxError(`${instruction.keyword} must be in exec form (a JSON array), not: ${instruction.args}`);
  }
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    throw new SyntaxError(`${instruction.keyword} must be a JSON array of strings`);
  }
  return value;
}

/** The variables an `ENV` sets, from its `NAME=value` pairs (quoted values are not read). */
export function envPairs(instruction: Instruction): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of instruction.args.split(/\s+/)) {
    const [name, value] = splitOnce(pair, "=");
    if (value === undefined || /["']/.test(value)) throw new SyntaxError(`Cannot read ENV ${instruction.args}; write NAME=value pairs`);
    env[name] = value;
  }
  return env;
}

/**
 * A .dockerignore read as Docker reads it: each line a pattern (`*` and `?` within one path
 * segment, `**` across segments), `!` re-includes, and the last pattern that matches a path
 * or one of its parent folders decides.
 */
export function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const include = line.startsWith("!");
      const pattern = (include ? line.slice(1) : line).replace(/^\/+|\/+$/g, "");
      if (/[[\]\\]/.test(pattern)) throw new SyntaxError(`This reader does not support the pattern ${line}`);
      return { include, regex: globRegex(pattern) };
    });
  return (path) => {
    const parts = path.split("/");
    const candidates = parts.map((_, index) => parts.slice(0, index + 1).join("/"));
    let excluded = false;
    for (const { include, regex } of rules) {
      if (candidates.some((candidate) => regex.test(candidate))) excluded = !include;
    }
    return excluded;
  };
}

function globRegex(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (pattern.startsWith("**/", i)) {
      source += "(?:.*/)?";
      i += 2;
    } else if (char === "*" && pattern[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
