// Checks that the docs state what the code does: the error codes, the configuration, every default quoted anywhere, the options of startServer and the source tour.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { ERROR_CATALOGUE, PREFERRED_STATUS, PREFERRED_STATUS_WHEN } from "../src/api/errors.ts";
import { readConfig, type Setting, SETTINGS } from "../src/config.ts";
import { startServer } from "../src/http/server.ts";
import { embeddingExample } from "./support/example.ts";

const read = (document: string) => readFileSync(new URL(`../${document}`, import.meta.url), "utf8");

/** README.md and every page of docs/, by their paths in the repository. */
const DOCUMENTS = [
  "README.md",
  ...readdirSync(new URL("../docs/", import.meta.url))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

const readme = read("README.md");

/** The rows of a document's tables whose line matches `startsWith`, as trimmed cells. */
function tableRows(markdown: string, startsWith: RegExp): string[][] {
  return markdown
    .split("\n")
    .filter((line) => startsWith.test(line))
    .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()));
}

test("docs/api.md's error table lists every catalogued code with its status and meaning, in order, then the code a Prefer asks for", () => {
  const rows = tableRows(read("docs/api.md"), /^\| `[A-Z_]+` \| (\d{3}|4xx or 5xx) \|/);
  const expected = Object.entries(ERROR_CATALOGUE).map(([code, { status, when }]) => [`\`${code}\``, String(status), when]);
  expected.push([`\`${PREFERRED_STATUS}\``, "4xx or 5xx", PREFERRED_STATUS_WHEN]);
  assert.deepEqual(rows, expected);
});

test("docs/configuration.md's table is SETTINGS: every variable, its flag, its default and its meaning, in order", () => {
  const rows = tableRows(read("docs/configuration.md"), /^\| `[A-Z_]+` \| `--/);
  const expected = SETTINGS.map((setting) => [
    `\`${setting.variable}\``,
    `\`${setting.flag}\``,
    setting.shown === "" ? "none" : `\`${setting.shown}\``,
    setting.meaning,
  ]);
  assert.deepEqual(rows, expected);
});

test("every setting's shown default is what readConfig gives when nothing is set", () => {
  const defaults = readConfig({});
  for (const setting of SETTINGS) {
    // A switch is shown as on or off.
    const value = defaults[setting.key];
    const shown = value === undefined ? "" : typeof value === "boolean" ? (value ? "on" : "off") : String(value);
    assert.equal(setting.shown, shown, setting.variable);
  }
});

test("docs/source-tour.md names every file in src/", () => {
  const tour = read("docs/source-tour.md");
  const files = readdirSync(new URL("../src/", import.meta.url), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `src/${name}`);
  for (const file of files) assert.ok(tour.includes(`| \`${file}\` |`), `${file} is missing from docs/source-tour.md`);
});

test("the README gives the two commands of its promise", () => {
  assert.ok(readme.includes("npm install && npm start"));
  assert.ok(readme.includes("npm install && npm test"));
});

test("the README is a front page of at most 200 lines that links every page of docs/", () => {
  const lines = readme.endsWith("\n") ? readme.split("\n").length - 1 : readme.split("\n").length;
  assert.ok(lines <= 200, `the README has ${lines} lines`);
  const unlinked = DOCUMENTS.filter((document) => document.startsWith("docs/") && !readme.includes(`](${document}`));
  assert.deepEqual(unlinked, [], "pages of docs/ the README does not link");
});

test("docs/package.md's table of startServer's options names every option startServer takes", async () => {
  // startServer names its options when it refuses one it does not know.
  const refusal = await startServer({ notAnOption: true } as never).then(
    () => assert.fail("startServer took an unknown option"),
    (error: Error) => error.message,
  );
  const options = refusal.split("its options are ")[1]!.split(", ");
  const page = read("docs/package.md");
  const table = page.slice(page.indexOf("The options of `startServer`"), page.indexOf("A misspelt option is a `TypeError`"));
  const rows = table.split("\n").filter((line) => line.startsWith("| `"));
  for (const option of options) assert.ok(rows.some((row) => row.split("|")[1]!.includes(`\`${option}\``)), `${option} is missing from the table`);
});

test("docs/package.md holds the embedding example that scripts/check-package.ts runs, as plain JavaScript", () => {
  const example = embeddingExample(read("docs/package.md"));
  assert.match(example, /^import \{ startServer \} from "rest-reference-server";$/m);
  assert.match(example, /^import .* from "node:test";$/m);
  assert.match(example, /\.close\(\)/);
  // Plain JavaScript: no type annotation, no `import type`, nothing but node:, node:test and the package.
  assert.doesNotMatch(example, /: (RunningServer|ServerOptions|string|number)\b|import type|import \{[^}]*\btype /);
});

// Every default the docs quote, wherever they quote it, is the one in SETTINGS.

/** A setting's default as one page states it. */
type Quote = { where: string; setting: Setting; value: string };

/** The setting a backticked span names, by its variable or its flag (`LOG_FORMAT`, `LOG_FORMAT=json`, `--log-format text`). */
function settingNamed(span: string): Setting | undefined {
  const name = /^[^= ]+/.exec(span)?.[0];
  return SETTINGS.find((setting) => setting.variable === name || setting.flag === name);
}

/** The settings a text names in backticks, with where each is named. */
function settingsIn(text: string): Array<{ setting: Setting; at: number }> {
  return [...text.matchAll(/`([^`]+)`/g)].flatMap((match) => {
    const setting = settingNamed(match[1]!);
    return setting === undefined ? [] : [{ setting, at: match.index }];
  });
}

// A value as the docs write one: in backticks, a list of them ("`localhost`, `*.localhost` and IP
// addresses"), or a number with an optional unit.
const CODE = String.raw`\x60[^\x60]+\x60`;
const VALUE = String.raw`${CODE}(?:, ${CODE})*(?:,? (?:and|or) (?:${CODE}|IP addresses))?|\d+(?:[,.]\d+)*(?: ?(?:KiB|MiB|GiB|ms|s)\b)?`;
// A default named with its setting: "By default (`LOG_FORMAT=auto`)", "defaults to `LOG_FORMAT=auto`",
// "`FSYNC=always` (the default)", "`LOG_FORMAT=auto`, the default".
const NAMED = [/\bdefaults?(?: to|:|,)? \(?`([^`=]+=[^`]+)`/g, /`([^`=]+=[^`]+)`(?: \(the default\)| by default\b|, the default\b)/g];
// A value beside the word: "(default `loopback`)", "the default `127.0.0.1`", "the command's default, `text`",
// "64 MiB by default", "`always` (the default)", "`always` (default)".
const BESIDE = [new RegExp(String.raw`\bdefault(?:,|:| is)? (${VALUE})`, "g"), new RegExp(String.raw`(${VALUE}),? (?:by default\b|\((?:the )?default\))`, "g")];

/** A quoted value in the form SETTINGS shows it: backticks and quotes off, sizes and seconds in bytes and milliseconds, `none` as empty. */
function normalise(value: string, setting: Setting): string {
  if (/^`[^`]*`(,| and| or)/.test(value)) {
    return [...value.matchAll(/`([^`]+)`|IP addresses/g)].map((match) => match[1] ?? "ip").join(",");
  }
  const text = value.replace(/^`(.*)`$/, "$1").replace(/^"(.*)"$/, "$1");
  if (text === "none") return "";
  const size = /^([\d.]+) ?(KiB|MiB|GiB)$/.exec(text);
  if (size !== null) return String(Number(size[1]) * 1024 ** (["KiB", "MiB", "GiB"].indexOf(size[2]!) + 1));
  const time = /^([\d.]+) ?(ms|s)$/.exec(text);
  if (time !== null && setting.variable.endsWith("_MS")) return String(Number(time[1]) * (time[2] === "s" ? 1000 : 1));
  return /^\d{1,3}(,\d{3})+$/.test(text) ? text.replaceAll(",", "") : text;
}

/** Every default the page quotes: rows of tables with a `default` column, and sentences that say `default` beside a value. */
function quotedDefaults(document: string, markdown: string): Quote[] {
  const quotes: Quote[] = [];
  let heading = "";
  let table: { defaultColumn: number } | undefined;
  const lines = markdown.split("\n");
  // Units: a table row, or a paragraph or list item joined into one line; code blocks and comments are no prose.
  // `starts` holds where each line of the unit begins in its text, so that a quote names its own line.
  const units: Array<{ line: number; text: string; starts: number[]; row: boolean; heading: string; setting?: Setting | undefined }> = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trimStart().startsWith("```")) {
      i = lines.indexOf(line.trimStart().slice(0, 3), i + 1);
      continue;
    }
    if (line.startsWith("#")) heading = line;
    if (line.startsWith("|")) {
      const cells = line.split("|").slice(1, -1).map((cell) => cell.trim());
      if (table === undefined) table = { defaultColumn: cells.findIndex((cell) => cell.toLowerCase() === "default") };
      else if (!/^[-:| ]+$/.test(line)) {
        const setting = /^`[^`]+`$/.test(cells[0]!) ? settingNamed(cells[0]!.slice(1, -1)) : undefined;
        if (setting !== undefined && table.defaultColumn > 0) {
          quotes.push({ where: `${document}:${i + 1}`, setting, value: cells[table.defaultColumn]! });
        }
        units.push({ line: i + 1, text: line, starts: [0], row: true, heading, setting });
      }
      continue;
    }
    table = undefined;
    if (line.trim() === "" || line.startsWith("#") || line.startsWith("<!--")) continue;
    const previous = units.at(-1);
    const continues = previous !== undefined && !previous.row && lines[i - 1]!.trim() !== "" && !/^\s*([-*]|\d+\.) /.test(line);
    if (continues) {
      previous.starts.push(previous.text.length + 1);
      previous.text += ` ${line.trim()}`;
    } else units.push({ line: i + 1, text: line.trim(), starts: [0], row: false, heading });
  }
  for (const unit of units) {
    let from = 0;
    for (const sentence of unit.text.split(/(?<=[.!?])\s+(?=[A-Z*`(\[])/)) {
      const offset = unit.text.indexOf(sentence, from);
      from = offset + sentence.length;
      const where = (at: number) => `${document}:${unit.line + unit.starts.filter((start) => start <= offset + at).length - 1}`;
      let rest = sentence;
      for (const pattern of NAMED) {
        for (const match of sentence.matchAll(pattern)) {
          const setting = settingNamed(match[1]!);
          if (setting !== undefined) quotes.push({ where: where(match.index), setting, value: match[1]!.slice(match[1]!.indexOf("=") + 1) });
          rest = rest.replace(match[0], " ".repeat(match[0].length));
        }
      }
      const named = settingsIn(rest);
      for (const pattern of BESIDE) {
        for (const match of rest.matchAll(pattern)) {
          // The setting named last before the value in its sentence; in a table row, the one the
          // row is about (its first cell), or else the one its heading names.
          const before = named.filter(({ at }) => at < match.index).at(-1)?.setting;
          const heading = settingsIn(unit.heading);
          const setting = unit.row ? (unit.setting ?? (heading.length === 1 ? heading[0]!.setting : before)) : before;
          if (setting !== undefined) quotes.push({ where: where(match.index), setting, value: match[1]! });
        }
      }
    }
  }
  return quotes;
}

test("every default the README and docs/ quote for a setting is the one in SETTINGS", () => {
  const quotes = DOCUMENTS.flatMap((document) => quotedDefaults(document, read(document)));
  // The finder must find the quotes this test exists for, or it has stopped finding any.
  for (const variable of ["LOG_FORMAT", "CORS_ORIGINS", "STORE_LIMIT", "FSYNC", "ALLOWED_HOSTS", "SHUTDOWN_TIMEOUT_MS"]) {
    assert.ok(quotes.filter(({ setting }) => setting.variable === variable).length >= 2, `no default of ${variable} found outside its table`);
  }
  const wrong = quotes
    .filter(({ setting, value }) => normalise(value, setting) !== setting.shown)
    .map(({ where, setting, value }) => `${where}: ${setting.variable} defaults to ${setting.shown === "" ? "nothing" : setting.shown}, not ${value}`);
  assert.deepEqual(wrong, []);
});

// The options of startServer that start otherwise than the command, and why; every other option
// with a setting of the same name must show the setting's default.
const EMBEDDED_DEFAULTS: Record<string, string> = {
  port: "0", // a free port: tests run side by side
  logFormat: "off", // an embedded server stays quiet in a test run
};

test("docs/package.md's options start where the settings do, but for the port and the log", () => {
  const page = read("docs/package.md");
  const table = page.slice(page.indexOf("The options of `startServer`"), page.indexOf("A misspelt option is a `TypeError`"));
  const wrong: string[] = [];
  let checked = 0;
  for (const [names, shown] of tableRows(table, /^\| `/)) {
    if (shown!.startsWith("as in the")) continue;
    // `a`, `b` | `x`, `y`: one default for each option, in order (a list's commas are inside brackets).
    const options = [...names!.matchAll(/`(\w+)`/g)].map((match) => match[1]!);
    const values = shown!.split(/, (?![^[]*\])/);
    options.forEach((option, index) => {
      const setting = SETTINGS.find(({ key }) => key === option);
      // One default may stand for every option of its row.
      const quoted = values.length === options.length ? values[index] : values.length === 1 ? values[0] : undefined;
      if (setting === undefined || quoted === undefined) return;
      const value = quoted.replace(/^`(.*)`$/, "$1");
      const text = value.startsWith("[") ? (JSON.parse(value) as string[]).join(",") : value === "true" ? "on" : value === "false" ? "off" : value;
      const expected = EMBEDDED_DEFAULTS[option] ?? setting.shown;
      checked++;
      if (normalise(text.replace(/ \(.*\)$/, ""), setting) !== expected) wrong.push(`${option}: ${quoted}, not ${expected}`);
    });
  }
  assert.ok(checked >= 8, `only ${checked} options compared`);
  assert.deepEqual(wrong, []);
});
