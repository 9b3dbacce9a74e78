// Console transcripts in the docs: read them, replay their commands on a real server, and render the answers as curl shows them.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, type IncomingMessage, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, type ServerOptions, startServer } from "../../src/http/server.ts";
import { ROOT } from "./target.ts";

/** The documents whose console blocks are transcripts, relative to the repository. */
export const DOCUMENTS = ["README.md", "docs/api.md", "docs/api-family.md", "docs/configuration.md", "docs/operations.md", "docs/resources.md", "docs/json-server.md", "docs/testing-clients.md"] as const;

/** The instant every transcript server's clock shows, so `createdAt` is known in advance. */
export const CLOCK = "2026-01-31T09:30:00.000Z";

/** One `$ ` command of a transcript and the answer recorded under it. */
export type Command = {
  /** The 1-based line of the `$ ` in the document. */
  line: number;
  /** The command as typed, continuation lines joined. */
  text: string;
  /** The answer lines as recorded, without the blank lines that separate it from the next command. */
  answer: string[];
  /** The 0-based document line where the answer begins, for rewriting it. */
  answerAt: number;
};

/** Commands that run in order against one server: from a marker (or the document's start) to the next marker. */
export type Session = {
  document: string;
  /** The setup's name from `<!-- transcript: NAME -->`, or `seeded` at the start of a document. */
  setup: string;
  /** The 1-based line of the marker, or of the first block at the start of a document. */
  line: number;
  commands: Command[];
  /** The text of the last ```json block before the marker, for a setup that writes a seed file. */
  jsonBefore: string | undefined;
  /** What a reader sees just before the session's first block: the text since the block before it, comments left out. */
  prose: string;
};

/** What a session starts with besides the default server: options, records created over HTTP, files in its folder. */
export type Setup = {
  /** Words the text just before the session must hold, so that a reader sees how its server was started. */
  says: string[];
  /** The server's options; a function of the session where they come from the ```json block before it. */
  options?: SetupOptions | ((session: Session) => SetupOptions);
  creates?: Array<[path: string, body: Record<string, unknown>]>;
  files?: (session: Session) => Record<string, string>;
};

/** What a setup may give startServer. */
type SetupOptions = Pick<ServerOptions, "corsOrigins" | "seed" | "resources" | "control" | "db">;

const MARKER = /^<!-- transcript: ([a-z0-9-]+) -->$/;

/** Splits a document into sessions of commands; console blocks without a `$ ` line are not transcripts. */
export function readSessions(document: string, markdown: string): Session[] {
  const lines = markdown.split("\n");
  const sessions: Session[] = [];
  let current: Session | undefined;
  let lastJson: string | undefined;
  let marker: { name: string; line: number } | undefined;
  // Where the text after the last block (of any kind) begins.
  let proseFrom = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const found = MARKER.exec(line);
    if (found !== null) marker = { name: found[1]!, line: i + 1 };
    if (!line.startsWith("```")) continue;
    const start = i;
    const end = lines.indexOf("```", i + 1);
    const prose = lines
      .slice(proseFrom, start)
      .filter((text) => !text.startsWith("<!--"))
      .join("\n");
    i = end;
    proseFrom = end + 1;
    if (line === "```json") {
      lastJson = lines.slice(start + 1, end).join("\n") + "\n";
      continue;
    }
    if (line !== "```console") continue;
    const commands = readCommands(lines, start + 1, end);
    if (commands.length === 0) continue;
    if (current === undefined || marker !== undefined) {
      current = {
        document,
        setup: marker?.name ?? "seeded",
        line: marker?.line ?? commands[0]!.line,
        commands: [],
        jsonBefore: lastJson,
        prose,
      };
      sessions.push(current);
      marker = undefined;
    }
    current.commands.push(...commands);
  }
  return sessions;
}

function readCommands(lines: string[], from: number, to: number): Command[] {
  const commands: Command[] = [];
  let i = from;
  while (i < to) {
    if (!lines[i]!.startsWith("$ ")) {
      i++;
      continue;
    }
    const line = i + 1;
    let text = lines[i]!.slice(2);
    while (text.endsWith("\\") && i + 1 < to) text = text.slice(0, -1).trimEnd() + " " + lines[++i]!.trim();
    const answerAt = ++i;
    while (i < to && !lines[i]!.startsWith("$ ")) i++;
    let last = i;
    while (last > answerAt && lines[last - 1]!.trim() === "") last--;
    commands.push({ line, text, answer: lines.slice(answerAt, last), answerAt });
  }
  return commands;
}

/** Splits a command line into words as a POSIX shell would for what the docs use: quotes, and `|` between commands. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === "'" || char === '"') {
      const close = text.indexOf(char, i + 1);
      if (close === -1) throw new SyntaxError(`Unclosed quote in: ${text}`);
      word = (word ?? "") + text.slice(i + 1, close);
      i = close;
    } else if (char === " ") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "|" && word === undefined) {
      words.push("|");
    } else {
      word = (word ?? "") + char;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** A curl command line, reduced to the options the transcripts use. */
export type CurlCommand = {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body: string | undefined;
  /** `-i` or `-I`: the status line and headers are printed before the body. */
  include: boolean;
  /** `-o FILE`: the body goes to a file, not to the transcript. */
  toFile: boolean;
  /** `-w FORMAT`, with `%{http_code}` and `\n` expanded after the answer. */
  writeOut: string | undefined;
  /** `| head -c N`: only the first N characters are shown. */
  headBytes: number | undefined;
};

/** Reads the curl options the transcripts use; any other option is an error, so the test never guesses. */
export function parseCurl(words: string[]): CurlCommand {
  assert.equal(words[0], "curl");
  const command: CurlCommand = {
    method: "GET",
    url: "",
    headers: [],
    body: undefined,
    include: false,
    toFile: false,
    writeOut: undefined,
    headBytes: undefined,
  };
  let method: string | undefined;
  let head = false;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    const value = () => {
      const next = words[++i];
      if (next === undefined) throw new SyntaxError(`${word} needs a value`);
      return next;
    };
    if (word === "|") {
      const rest = words.slice(i + 1);
      if (rest.length !== 3 || rest[0] !== "head" || rest[1] !== "-c") throw new SyntaxError(`Unsupported pipe: ${rest.join(" ")}`);
      command.headBytes = Number(rest[2]);
      break;
    } else if (word === "-X") method = value();
    else if (word === "-H") {
      const header = value();
      const colon = header.indexOf(":");
      command.headers.push([header.slice(0, colon).trim(), header.slice(colon + 1).trim()]);
    } else if (word === "-d") command.body = value();
    else if (word === "-o") command.toFile = (value(), true);
    else if (word === "-w") command.writeOut = value();
    else if (/^-[siI]+$/.test(word)) {
      if (word.includes("i")) command.include = true;
      if (word.includes("I")) head = command.include = true;
    } else if (word.startsWith("http://")) command.url = word;
    else throw new SyntaxError(`Unsupported curl argument: ${word}`);
  }
  command.method = method ?? (head ? "HEAD" : command.body !== undefined ? "POST" : "GET");
  return command;
}

/** An answer as the server sent it: status, headers in order with their names as sent, body. */
export type Answer = { version: string; status: number; statusText: string; headers: Array<[string, string]>; body: string };

/** Sends a curl command's request to `base` (in place of the host and port it names). */
export async function send(command: CurlCommand, base: string, agent: Agent): Promise<Answer> {
  const url = new URL(command.url.replace(/^http:\/\/localhost:\d+/, base));
  const headers: Record<string, string> = { accept: "*/*" };
  if (command.body !== undefined) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers["content-length"] = String(Buffer.byteLength(command.body));
  }
  for (const [name, value] of command.headers) headers[name.toLowerCase()] = value;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = request(url, { method: command.method, headers, agent }, resolve);
    outgoing.on("error", reject);
    outgoing.end(command.body);
  });
  response.setEncoding("utf8");
  let body = "";
  for await (const chunk of response) body += chunk as string;
  const headersSent: Array<[string, string]> = [];
  for (let i = 0; i < response.rawHeaders.length; i += 2) headersSent.push([response.rawHeaders[i]!, response.rawHeaders[i + 1]!]);
  return { version: response.httpVersion, status: response.statusCode!, statusText: response.statusMessage!, headers: headersSent, body };
}

/**
 * Whether a header is one the transcripts leave out: `Date` changes every second, and
 * `Connection: keep-alive` and `Keep-Alive` are Node's for any persistent connection.
 * A `Connection: close` the server chose is shown.
 */
export function isLeftOut([name, value]: [string, string]): boolean {
  const lower = name.toLowerCase();
  return lower === "date" || lower === "keep-alive" || (lower === "connection" && value.toLowerCase() === "keep-alive");
}

/** The lines curl prints for an answer, given the recorded lines (whose `# status, Header: ...` comments are kept). */
export function renderCurl(command: CurlCommand, answer: Answer, recorded: string[]): string[] {
  let out = "";
  if (command.include) {
    const head = [`HTTP/${answer.version} ${answer.status} ${answer.statusText}`];
    for (const header of answer.headers) if (!isLeftOut(header)) head.push(`${header[0]}: ${header[1]}`);
    out = head.join("\n") + "\n";
    if (answer.body !== "" && !command.toFile) out += "\n" + answer.body;
  } else if (!command.toFile) {
    out = answer.body;
  }
  if (command.writeOut !== undefined) {
    out += command.writeOut.replaceAll("%{http_code}", String(answer.status)).replaceAll("\\n", "\n");
  }
  if (command.headBytes !== undefined) out = out.slice(0, command.headBytes);
  const lines = out === "" ? [] : out.replace(/\n+$/, "").split("\n");
  // A `curl -s` line may carry a comment naming the status and some headers: write the real ones.
  const comment = recorded.length === 1 ? COMMENT.exec(recorded[0]!) : null;
  if (comment !== null && lines.length === 1 && !command.include) {
    const names = comment[2]!.split(", ").slice(1).map((part) => part.slice(0, part.indexOf(":")));
    const values = names.map((name) => `${name}: ${headerValue(answer, name) ?? "(none)"}`);
    // Keep the recorded column of the `#`, so that a block's comments stay aligned.
    const column = Math.max(recorded[0]!.length - comment[2]!.length - 2, lines[0]!.length + 2);
    lines[0] = `${lines[0]!.padEnd(column)}# ${[String(answer.status), ...values].join(", ")}`;
  }
  return lines;
}

// An answer line of a `curl -s` transcript with a comment: the body, two or more spaces, `# 201, Location: /posts/1`.
const COMMENT = /^(.*?)\s{2,}# (\d{3}(?:, [A-Za-z-]+: [^,]*)*)$/;

function headerValue(answer: Answer, name: string): string | undefined {
  return answer.headers.find(([sent]) => sent.toLowerCase() === name.toLowerCase())?.[1];
}

/**
 * The form in which a recorded and a rendered answer are compared: header names in lower
 * case, and a comment's padding reduced to two spaces.
 */
export function comparable(lines: string[], include: boolean): string[] {
  let inHeaders = include;
  return lines.map((line, index) => {
    if (index > 0 && line === "") inHeaders = false;
    if (inHeaders && index > 0) {
      const colon = line.indexOf(":");
      return colon === -1 ? line : line.slice(0, colon).toLowerCase() + line.slice(colon);
    }
    const comment = COMMENT.exec(line);
    return comment === null ? line : `${comment[1]}  # ${comment[2]!.replace(/(, )([A-Za-z-]+)(?=:)/g, (_, sep: string, name: string) => sep + name.toLowerCase())}`;
  });
}

const ETAG = /(etag: )((?:W\/)?"[^"]*")/gi;

/**
 * ETags recorded in a transcript and the ones this server sent in their place. The
 * epoch in an ETag is random per server, so a transcript's tags cannot be replayed
 * as they are: the same recorded tag must stand for the same real one throughout a
 * session, and two different recorded tags for two different real ones.
 */
export class TagMap {
  #toActual = new Map<string, string>();
  #toRecorded = new Map<string, string>();
  /** Where the transcript's tags do not stand consistently for the server's. */
  readonly problems: string[] = [];

  /** Replaces the recorded tags in `recorded` by the real ones at the same places in `actual`, noting any inconsistency in `problems`. */
  translate(recorded: string[], actual: string[], where: string): string[] {
    return recorded.map((line, index) => {
      const real = [...(actual[index] ?? "").matchAll(ETAG)].map((match) => match[2]!);
      let nth = 0;
      return line.replace(ETAG, (whole, prefix: string, tag: string) => {
        const actualTag = real[nth++];
        if (actualTag === undefined) return whole;
        const known = this.#toActual.get(tag);
        if (known !== undefined && known !== actualTag) {
          this.problems.push(`${where}: the transcript shows ${tag} again, but the server changed it (${known} -> ${actualTag})`);
          return whole;
        }
        const earlier = this.#toRecorded.get(actualTag);
        if (earlier !== undefined && earlier !== tag) {
          this.problems.push(`${where}: the transcript shows a new ETag ${tag}, but the server sent the same one as for ${earlier}`);
          return whole;
        }
        this.#toActual.set(tag, actualTag);
        this.#toRecorded.set(actualTag, tag);
        return prefix + actualTag;
      });
    });
  }

  /** The command's text with every recorded tag it sends replaced by its real one. */
  apply(text: string): string {
    return text.replace(/(?:W\/)?"[^"]*"/g, (tag) => this.#toActual.get(tag) ?? tag);
  }
}

/** One command replayed: the lines to compare (recorded, with tags translated) and the real answer's lines. */
export type Replay = {
  command: Command;
  expected: string[];
  actual: string[];
  /** The real answer as curl prints it, to write in place of the recorded one. */
  rendered: string[];
  /** Inconsistent ETags in the transcript so far. */
  problems: readonly string[];
  /** A line of the command with each recorded tag it sends replaced by the real one. */
  retag: (line: string) => string;
};

/** A session's server and folder, started with its setup. */
export type SessionRun = { run: (command: Command) => Promise<Replay>; close: () => Promise<void> };

/** Starts a session: a server with the fixed clock and the setup's options and records, and a folder with its files. */
export async function startSession(session: Session, setups: Record<string, Setup>): Promise<SessionRun> {
  const setup = setups[session.setup];
  assert.ok(setup !== undefined, `${session.document}:${session.line}: no setup named "${session.setup}" in test/transcripts.test.ts`);
  const options = typeof setup.options === "function" ? setup.options(session) : setup.options;
  const server: RunningServer = await startServer({ ...options, clock: () => new Date(CLOCK) });
  const agent = new Agent({ keepAlive: true });
  const folder = mkdtempSync(join(tmpdir(), "transcript-"));
  for (const [name, text] of Object.entries(setup.files?.(session) ?? {})) writeFileSync(join(folder, name), text);
  for (const [path, body] of setup.creates ?? []) {
    const response = await fetch(server.url + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 201, `setup "${session.setup}": POST ${path} -> ${response.status} ${await response.text()}`);
  }
  const tags = new TagMap();
  return {
    async run(command) {
      const where = `${session.document}:${command.line}`;
      const words = shellWords(tags.apply(command.text));
      let rendered: string[];
      let include = false;
      if (words[0] === "curl") {
        const curl = parseCurl(words);
        include = curl.include;
        rendered = renderCurl(curl, await send(curl, server.url, agent), command.answer);
      } else if (words[0] === "npx" && words[1] === "rest-reference-server") {
        rendered = await runCommand(words.slice(2), folder);
      } else {
        throw new SyntaxError(`${where}: a transcript runs curl or npx rest-reference-server, not: ${command.text}`);
      }
      const actual = portless(comparable(rendered, include));
      const expected = tags.translate(portless(comparable(command.answer, include)), actual, where);
      return { command, expected, actual, rendered, problems: [...tags.problems], retag: (line) => tags.apply(line) };
    },
    async close() {
      agent.destroy();
      rmSync(folder, { recursive: true, force: true });
      await server.close();
    },
  };
}

// A server started on port 0 listens on whatever port is free, so that number is not compared;
// nor is a request id the server made (its prefix is random per process), while one a request sent and got back is.
function portless(lines: string[]): string[] {
  return lines.map((line) =>
    line.replace(/^(Listening on http:\/\/[^/]+:)\d+$/, "$1<port>").replace(/^(x-request-id: )[0-9a-f]{12}-[0-9a-z]+$/, "$1<made by the server>"),
  );
}

/**
 * Runs the command as `npx rest-reference-server` would, from the source, in `folder`.
 * It either ends (its output is the answer) or says it is listening: then its first line
 * is the answer, with the port it chose, and it is stopped.
 */
/** The coverage collector's variable, passed on when set (c8 sets it). */
function coverage(): Record<string, string> {
  return process.env.NODE_V8_COVERAGE === undefined ? {} : { NODE_V8_COVERAGE: process.env.NODE_V8_COVERAGE };
}

async function runCommand(args: string[], folder: string): Promise<string[]> {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), join(ROOT, "src/main.ts"), ...args], {
    cwd: folder,
    // The repository's tsconfig, not the folder's (it has none): the source compiles as in every other
    // process, so that coverage gathered from all of them lines up.
    env: { PATH: process.env.PATH ?? "", TSX_TSCONFIG_PATH: join(ROOT, "tsconfig.json"), ...coverage() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const listening = new Promise<void>((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("\n")) resolve();
    });
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = once(child, "exit");
  await Promise.race([listening, exited]);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    await exited;
    output = output.slice(0, output.indexOf("\n") + 1);
  }
  return output.replace(/\n+$/, "").split("\n");
}

/** Reads a document of the repository. */
export function readDocument(document: string): string {
  return readFileSync(join(ROOT, document), "utf8");
}
