// The source cites the rules it keeps where a reader of the repository can open them: every `docs/FILE.md#anchor` names a heading that exists.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { anchorOf, anchorsIn } from "./support/anchors.ts";
import { ROOT } from "./support/target.ts";

/** Every source file of the server and of the packages beside it. */
function sourceFiles(): string[] {
  const folders = [join(ROOT, "src"), ...readdirSync(join(ROOT, "packages")).map((name) => join(ROOT, "packages", name, "src"))];
  return folders.flatMap((folder) =>
    readdirSync(folder, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".ts"))
      .map((name) => join(folder, name)),
  );
}

/** Each `docs/FILE.md#anchor` a file cites, with where. */
function citations(file: string): Array<{ where: string; doc: string; anchor: string }> {
  const found = [];
  const lines = readFileSync(file, "utf8").split("\n");
  for (const [index, line] of lines.entries()) {
    for (const match of line.matchAll(/\bdocs\/([a-z0-9-]+\.md)#([a-z0-9_-]+)/g)) {
      found.push({ where: `${relative(ROOT, file)}:${index + 1}`, doc: match[1]!, anchor: match[2]! });
    }
  }
  return found;
}

const FILES = sourceFiles();

test("anchorOf makes a heading's anchor as GitHub does", () => {
  assert.equal(anchorOf("7. Configuration and process"), "7-configuration-and-process");
  assert.equal(anchorOf("Users: create"), "users-create");
  assert.equal(anchorOf("10. Browsers, caches and concurrent editors"), "10-browsers-caches-and-concurrent-editors");
  assert.equal(anchorOf("`GET /users/1`"), "get-users1");
});

test("no source file cites a rule by a document the repository does not hold (\"contract N\", \"seed spec\")", () => {
  const outside: string[] = [];
  for (const file of FILES) {
    for (const [index, line] of readFileSync(file, "utf8").split("\n").entries()) {
      if (/\bcontract\s+\d|\bcontract's\b|\bthe contract\b|seed[ -]spec/i.test(line)) outside.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
    }
  }
  assert.deepEqual(outside, []);
});

test("every docs/FILE.md#anchor the source cites names a heading of that file", () => {
  const all = FILES.flatMap(citations);
  // The rules of docs/spec.md are cited from every layer.
  assert.ok(all.filter(({ doc }) => doc === "spec.md").length >= 30, `${all.length} citations`);
  const broken = all.filter(({ doc, anchor }) => !existsSync(join(ROOT, "docs", doc)) || !anchorsIn(join(ROOT, "docs", doc)).has(anchor));
  assert.deepEqual(broken, []);
});

test("every link of docs/spec.md to a heading, on the page or in another doc, names one that exists", () => {
  const spec = readFileSync(join(ROOT, "docs/spec.md"), "utf8");
  const links = [...spec.matchAll(/\]\(([a-z0-9-]*\.md)?#([a-z0-9_-]+)\)/g)].map((match) => ({ doc: match[1] ?? "spec.md", anchor: match[2]! }));
  assert.ok(links.length >= 3, `${links.length} links`);
  const broken = links.filter(({ doc, anchor }) => !anchorsIn(join(ROOT, "docs", doc)).has(anchor));
  assert.deepEqual(broken, []);
});

test("docs/spec.md has a numbered section for each part of the service, 1 to 16, in order", () => {
  const numbers = [...readFileSync(join(ROOT, "docs/spec.md"), "utf8").matchAll(/^## (\d+)\. /gm)].map((match) => Number(match[1]));
  assert.deepEqual(numbers, Array.from({ length: 16 }, (_, index) => index + 1));
});
