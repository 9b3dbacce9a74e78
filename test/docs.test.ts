// Checks that the README states what the code does: error codes, configuration and the source tour.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { ERROR_CATALOGUE } from "../src/api/errors.ts";
import { readConfig, SETTINGS } from "../src/config.ts";
import { startServer } from "../src/http/server.ts";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

function tableRows(startsWith: RegExp): string[][] {
  return readme
    .split("\n")
    .filter((line) => startsWith.test(line))
    .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()));
}

test("the README's error table lists every catalogued code with its status and meaning, in order", () => {
  const rows = tableRows(/^\| `[A-Z_]+` \| \d{3} \|/);
  const expected = Object.entries(ERROR_CATALOGUE).map(([code, { status, when }]) => [`\`${code}\``, String(status), when]);
  assert.deepEqual(rows, expected);
});

test("the README's configuration table is SETTINGS: every variable, its flag, its default and its meaning, in order", () => {
  const rows = tableRows(/^\| `[A-Z_]+` \| `--/);
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

test("the README's source tour names every file in src/", () => {
  const files = readdirSync(new URL("../src/", import.meta.url), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `src/${name}`);
  for (const file of files) assert.ok(readme.includes(`\`${file}\``), `${file} is missing from the README`);
});

test("the README gives the two commands of its promise", () => {
  assert.ok(readme.includes("npm install && npm start"));
  assert.ok(readme.includes("npm install && npm test"));
});

test("the README's table of startServer's options names every option startServer takes", async () => {
  // startServer names its options when it refuses one it does not know.
  const refusal = await startServer({ notAnOption: true } as never).then(
    () => assert.fail("startServer took an unknown option"),
    (error: Error) => error.message,
  );
  const options = refusal.split("its options are ")[1]!.split(", ");
  const table = readme.slice(readme.indexOf("The options of `startServer`"), readme.indexOf("A misspelt option is a `TypeError`"));
  const rows = table.split("\n").filter((line) => line.startsWith("| `"));
  for (const option of options) assert.ok(rows.some((row) => row.split("|")[1]!.includes(`\`${option}\``)), `${option} is missing from the table`);
});
