// docs/containers.md begins with the commands that build and run the image without a registry, which are the ones npm run image and the image test run; its other examples agree with the server.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { budArgs, documentedCommands, IMAGE_TAG, noRegistryCommands, RUN_FLAGS } from "../scripts/image/commands.ts";
import { startServer } from "../src/http/server.ts";
import { call } from "./support/http.ts";
import { ROOT } from "./support/target.ts";

const DOC = readFileSync(join(ROOT, "docs/containers.md"), "utf8");

test("docs/containers.md begins with the no-registry commands, before the Dockerfile and the Docker route", () => {
  assert.deepEqual(documentedCommands(DOC), noRegistryCommands());
  const first = DOC.indexOf("```sh");
  assert.ok(first < DOC.indexOf("```dockerfile") && first < DOC.indexOf("docker build -t"), "the no-registry block comes first");
  assert.ok(DOC.indexOf("## Without an image registry") < first);
});

test("npm run image is scripts/image.ts, which builds the tag the documented podman run line names", () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts.image, "tsx scripts/image.ts");
  const run = noRegistryCommands().find((line) => line.startsWith("podman run "))!;
  // podman finds `rest-reference-server` as `:latest` in local storage.
  assert.equal(`${run.split(" ").at(-1)}:latest`, IMAGE_TAG);
  assert.ok(readFileSync(join(ROOT, "scripts/image.ts"), "utf8").includes("budArgs(base.image, IMAGE_TAG"));
});

test("the image test runs npm run image and the documented podman run line, and gives every container the line's runtime and limits", () => {
  const imageTest = readFileSync(join(ROOT, "scripts/test-image.ts"), "utf8");
  assert.ok(imageTest.includes('must("npm", ["run", "image"]'));
  assert.ok(imageTest.includes("checkDocumentedRun(podman, report, readFileSync(join(ROOT, \"docs/containers.md\")"));
  const podman = readFileSync(join(ROOT, "scripts/image/podman.ts"), "utf8");
  assert.ok(podman.includes("...RUN_FLAGS"));
  assert.ok(noRegistryCommands()[2]!.includes(RUN_FLAGS.join(" ")));
});

test("budArgs builds the Dockerfile unchanged on the base given, in the Docker format that keeps the HEALTHCHECK, without pulling", () => {
  const args = budArgs("localhost/base:1", "name:tag", ["--build-arg", "RUNTIME_BASE=x"]);
  assert.deepEqual(args.slice(0, 1), ["bud"]);
  for (const pair of [["--format", "docker"], ["--isolation", "chroot"], ["--build-arg", "NODE_IMAGE=localhost/base:1"], ["-t", "name:tag"]]) {
    const at = args.indexOf(pair[0]!, pair[0] === "--build-arg" ? args.indexOf("NODE_IMAGE=localhost/base:1") - 1 : 0);
    assert.equal(args[at + 1], pair[1], pair.join(" "));
  }
  assert.ok(args.includes("--pull=never") && args.includes("RUNTIME_BASE=x"));
  assert.equal(args.at(-1), ".");
});

test("every docs line that runs the server's image publishes its port on 127.0.0.1 only, as docs/containers.md advises", () => {
  const wide: string[] = [];
  for (const name of ["README.md", ...readdirSync(join(ROOT, "docs")).map((file) => `docs/${file}`)]) {
    for (const [index, line] of readFileSync(join(ROOT, name), "utf8").split("\n").entries()) {
      if (!/\b(docker|podman) run\b.*\brest-reference-server\b/.test(line)) continue;
      for (const found of line.matchAll(/(?:^|\s)-p\s+(\S+)/g)) if (!found[1]!.replace(/^`/, "").startsWith("127.0.0.1:")) wide.push(`${name}:${index + 1}: ${line.trim()}`);
    }
  }
  assert.deepEqual(wide, []);
});

test("the Prometheus scrape job of docs/containers.md sends a token, which /metrics needs once tokens are set, and a read token is enough", async (t) => {
  const job = /```yaml\nscrape_configs:\n([\s\S]*?)```/.exec(DOC)?.[1] ?? "";
  const file = /^\s+authorization: \{ credentials_file: (\S+) \}$/m.exec(job)?.[1];
  assert.ok(file !== undefined, `the scrape job has an authorization with a credentials_file:\n${job}`);
  const server = await startServer({ authTokens: "read:r3ad-token,write:wr1te-token" });
  t.after(() => server.close());
  assert.equal((await call(`${server.url}/metrics`)).status, 401);
  const scraped = await call(`${server.url}/metrics`, { headers: { authorization: "Bearer r3ad-token" } });
  assert.equal(scraped.status, 200);
  assert.match(scraped.text, /^# HELP /m);
});
