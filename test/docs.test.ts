// Checks that the README states what the code does: error codes, configuration and the source tour.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { ERROR_CATALOGUE } from "../src/errors.ts";
import { readConfig } from "../src/config.ts";

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

test("the README's configuration table names every variable readConfig reads, with its default", () => {
  const rows = tableRows(/^\| `[A-Z_]+` \| `/);
  const defaults = readConfig({});
  assert.deepEqual(
    rows.map(([name, value]) => [name, value!.split(" ")[0]]),
    [
      ["`PORT`", `\`${defaults.port}\``],
      ["`HOST`", `\`${defaults.host}\``],
      ["`BODY_LIMIT`", `\`${defaults.bodyLimit}\``],
      ["`HEADERS_TIMEOUT_MS`", `\`${defaults.headersTimeout}\``],
      ["`REQUEST_TIMEOUT_MS`", `\`${defaults.requestTimeout}\``],
      ["`KEEP_ALIVE_TIMEOUT_MS`", `\`${defaults.keepAliveTimeout}\``],
      ["`SHUTDOWN_TIMEOUT_MS`", `\`${defaults.shutdownTimeout}\``],
      ["`CORS_ORIGINS`", `\`${defaults.corsOrigins}\``],
    ],
  );
});

test("the README's source tour names every file in src/", () => {
  const files = [
    ...readdirSync(new URL("../src/", import.meta.url)).filter((name) => name.endsWith(".ts")).map((name) => `src/${name}`),
    ...readdirSync(new URL("../src/resources/", import.meta.url)).map((name) => `src/resources/${name}`),
  ];
  for (const file of files) assert.ok(readme.includes(`\`${file}\``), `${file} is missing from the README`);
});

test("the README gives the two commands of its promise", () => {
  assert.ok(readme.includes("npm install && npm start"));
  assert.ok(readme.includes("npm install && npm test"));
});
