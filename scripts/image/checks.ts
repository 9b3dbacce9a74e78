// The checks run on a built image: its configuration, and containers of it serving, stopping, keeping data and guarding access.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { execForm, type Stage } from "../../test/support/dockerfile.ts";
import { documentedCommands } from "./commands.ts";
import { type Container, type Podman, send } from "./podman.ts";

/** Counts and prints checks: `ok N - name` or `not ok N - name` with the reason, indented. */
export class Report {
  passed = 0;
  failed = 0;

  /** Runs one check; resolves with what it returned, or undefined when it failed. */
  async check<T>(name: string, fn: () => Promise<T>): Promise<T | undefined> {
    const began = Date.now();
    try {
      const value = await fn();
      this.passed++;
      console.log(`ok ${this.passed + this.failed} - ${name} (${seconds(Date.now() - began)})`);
      return value;
    } catch (error) {
      this.failed++;
      const reason = (error as Error).message.split("\n").map((line) => `    ${line}`).join("\n");
      console.log(`not ok ${this.passed + this.failed} - ${name} (${seconds(Date.now() - began)})\n${reason}`);
      return undefined;
    }
  }

  /** Counts a check that could not run because one it needs failed. */
  cannot(name: string, because: string): void {
    this.failed++;
    console.log(`not ok ${this.passed + this.failed} - ${name}\n    not run: ${because}`);
  }
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** What the image's configuration must say, read from the Dockerfile's runtime stage. */
export type Expected = { healthcheck: { test: string[]; flags: Record<string, string> } };

export function expectedFrom(runtime: Stage): Expected {
  const healthcheck = runtime.instructions.find((instruction) => instruction.keyword === "HEALTHCHECK");
  assert.ok(healthcheck, "the Dockerfile's runtime stage has a HEALTHCHECK");
  const test = execForm({ ...healthcheck, args: healthcheck.args.replace(/^CMD\s+/, "") });
  return { healthcheck: { test: ["CMD", ...test], flags: healthcheck.flags } };
}

type ImageConfig = {
  User?: string;
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  Env?: string[];
  ExposedPorts?: Record<string, unknown>;
  Healthcheck?: { Test?: string[]; Interval?: number; Timeout?: number; StartPeriod?: number; Retries?: number };
};

const NS_PER_SECOND = 1e9;

/** Every check of one image, each printed as it ends. `label` names the image in the lines, `scratch` is a folder for files to mount. */
export async function checkImage(podman: Podman, report: Report, label: string, image: string, expected: Expected, scratch: string): Promise<void> {
  const check = <T>(name: string, fn: () => Promise<T>) => report.check(`${label}: ${name}`, fn);

  await check("its configuration runs `node dist/main.js` as node, with the HEALTHCHECK kept and no CMD", async () => {
    const [inspected] = JSON.parse(await podman.podmanMust(["image", "inspect", image])) as Array<{ Config: ImageConfig; Healthcheck?: ImageConfig["Healthcheck"] }>;
    // Podman shows the docker format's HEALTHCHECK beside the OCI configuration, not in it.
    const config = { ...inspected!.Config, Healthcheck: inspected!.Healthcheck };
    assert.equal(config.User, "node");
    assert.deepEqual(config.Entrypoint, ["node", "dist/main.js"]);
    // A CMD left from the base image would be passed to the server as arguments.
    assert.ok(config.Cmd === undefined || config.Cmd === null || config.Cmd.length === 0, `CMD is ${JSON.stringify(config.Cmd)}`);
    for (const pair of ["HOST=0.0.0.0", "PORT=3000", "LOG_FORMAT=json"]) assert.ok(config.Env?.includes(pair), `ENV has ${pair}`);
    assert.ok(config.ExposedPorts && "3000/tcp" in config.ExposedPorts, "EXPOSE 3000");
    const health = config.Healthcheck;
    assert.ok(health, "the image kept its HEALTHCHECK (the OCI format drops it; build with --format docker)");
    assert.deepEqual(health.Test, expected.healthcheck.test);
    const flags = expected.healthcheck.flags;
    assert.equal(health.Interval, parseDuration(flags.interval) * NS_PER_SECOND);
    assert.equal(health.Timeout, parseDuration(flags.timeout) * NS_PER_SECOND);
    assert.equal(health.StartPeriod, parseDuration(flags["start-period"]) * NS_PER_SECOND);
    assert.equal(health.Retries, Number(flags.retries));
  });

  // Defaults: nothing but the published port.
  const plain = await check("a container starts and answers /healthz on its published port of 127.0.0.1", () => podman.start(image));
  const needsPlain = [
    "it serves the two users on the published port",
    "its HEALTHCHECK, run inside the container, exits 0",
    "node is PID 1 and runs as uid 1000",
    "a request with a foreign Host gets 403 HOST_NOT_ALLOWED",
    "its access lines are JSON on stdout",
    "podman stop (SIGTERM) lets a request in flight finish, and node exits 0 within 10 s",
  ] as const;
  if (plain === undefined) {
    for (const name of needsPlain) report.cannot(`${label}: ${name}`, "the container did not start");
  } else {
    await check(needsPlain[0], async () => {
      const answer = await send(plain, { path: "/users" });
      assert.equal(answer.status, 200, answer.text);
      const users = JSON.parse(answer.text) as Array<{ name: string }>;
      assert.deepEqual(users.map((user) => user.name), ["Ada Lovelace", "Alan Turing"]);
    });
    await check(needsPlain[1], () => healthy(podman, plain));
    await check(needsPlain[2], async () => {
      const pid = (await podman.inspect(plain.name, "{{.State.Pid}}")).trim();
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      assert.deepEqual(field(status, "Uid"), ["1000", "1000", "1000", "1000"], "the real, effective, saved and file-system uid");
      assert.deepEqual(field(status, "Gid"), ["1000", "1000", "1000", "1000"], "the gids");
      assert.equal(field(status, "NSpid").at(-1), "1", "its pid in the container");
      assert.deepEqual(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean), ["node", "dist/main.js"]);
    });
    await check(needsPlain[3], async () => {
      const answer = await send(plain, { path: "/users", headers: { host: "rebound.example" } });
      assert.equal(answer.status, 403, answer.text);
      assert.equal((JSON.parse(answer.text) as { code: string }).code, "HOST_NOT_ALLOWED");
    });
    await check(needsPlain[4], async () => {
      const ran = await podman.podman(["logs", plain.name]);
      assert.equal(ran.code, 0, ran.stderr);
      const lines = ran.stdout.split("\n").filter((line) => line !== "");
      const objects = lines.map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          throw new Error(`A line on stdout is not JSON: ${line}`);
        }
      });
      assert.ok(objects.some((line) => typeof line.message === "string" && line.message.startsWith("Listening on")), "the listening line");
      assert.ok(
        objects.some((line) => line.method === "GET" && line.path === "/users" && line.status === 200),
        `an access line for GET /users; stdout was:\n${ran.stdout}`,
      );
    });
    await check(needsPlain[5], () => stopWithRequestInFlight(podman, plain));
  }

  // DATA_DIR on a named volume, kept across a restart and for a new container.
  const keeping = [
    "with DATA_DIR=/data on a volume, a record created before a restart is there after it",
    "the record is there for a new container on the same volume",
  ] as const;
  const volume = await check("a named volume for /data", () => podman.volume());
  const kept = volume === undefined ? undefined : await check(keeping[0], async () => {
    const options = { env: { DATA_DIR: "/data" }, volumes: [`${volume}:/data`] };
    const first = await podman.start(image, options);
    const created = await send(first, { method: "POST", path: "/users", body: JSON.stringify({ name: "Grace Hopper", email: "grace@example.com" }) });
    assert.equal(created.status, 201, created.text);
    const location = created.headers.location as string;
    const stopped = await podman.podman(["stop", "-t", "10", first.name], 30_000);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal((await podman.inspect(first.name, "{{.State.ExitCode}}")).trim(), "0");
    await podman.restart(first);
    const read = await send(first, { path: location });
    assert.equal(read.status, 200, read.text);
    assert.equal((JSON.parse(read.text) as { name: string }).name, "Grace Hopper");
    await podman.remove(first);
    return { options, location };
  });
  if (kept === undefined) report.cannot(`${label}: ${keeping[1]}`, "the record was not kept across a restart");
  else {
    await check(keeping[1], async () => {
      const second = await podman.start(image, kept.options);
      const read = await send(second, { path: kept.location });
      assert.equal(read.status, 200, read.text);
      assert.equal((JSON.parse(read.text) as { name: string }).name, "Grace Hopper");
      await podman.remove(second);
    });
  }

  // Tokens from a file mounted under /run/secrets.
  await check("with AUTH_TOKENS_FILE=/run/secrets/tokens: 401 UNAUTHORIZED without a token, 403 for a read token's write, 201 with a write token", async () => {
    const secrets = mkdtempSync(join(scratch, "secrets-"));
    chmodSync(secrets, 0o755);
    const read = randomBytes(16).toString("hex");
    const write = randomBytes(16).toString("hex");
    writeFileSync(join(secrets, "tokens"), `# the image test's tokens\nread:${read}\nwrite:${write}\n`, { mode: 0o644 });
    const guarded = await podman.start(image, { env: { AUTH_TOKENS_FILE: "/run/secrets/tokens" }, volumes: [`${secrets}:/run/secrets:ro`] });
    const none = await send(guarded, { path: "/users" });
    assert.equal(none.status, 401, none.text);
    assert.equal((JSON.parse(none.text) as { code: string }).code, "UNAUTHORIZED");
    const user = JSON.stringify({ name: "Katherine Johnson", email: "katherine@example.com" });
    const reading = await send(guarded, { path: "/users", headers: { authorization: `Bearer ${read}` } });
    assert.equal(reading.status, 200, reading.text);
    const refused = await send(guarded, { method: "POST", path: "/users", headers: { authorization: `Bearer ${read}` }, body: user });
    assert.equal(refused.status, 403, refused.text);
    assert.equal((JSON.parse(refused.text) as { code: string }).code, "INSUFFICIENT_SCOPE");
    const created = await send(guarded, { method: "POST", path: "/users", headers: { authorization: `Bearer ${write}` }, body: user });
    assert.equal(created.status, 201, created.text);
    // The probes need no token, so the health check still passes.
    await healthy(podman, guarded);
    await podman.remove(guarded);
  });
}

/** `podman healthcheck run`: the image's HEALTHCHECK command, run inside the container, must exit 0. */
async function healthy(podman: Podman, container: Container): Promise<void> {
  const ran = await podman.podman(["healthcheck", "run", container.name], 30_000);
  assert.equal(ran.code, 0, `podman healthcheck run exited ${ran.code}: ${ran.stdout}${ran.stderr}`);
}

/**
 * Sends the headers and half the body of a POST, then `podman stop`; once the server has
 * stopped listening (SIGTERM has reached it), sends the rest. The answer must come whole,
 * and node must exit 0 before podman's 10 s are up.
 */
async function stopWithRequestInFlight(podman: Podman, container: Container): Promise<void> {
  const body = Buffer.from(JSON.stringify({ name: "Barbara Liskov", email: "barbara@example.com" }));
  const half = Math.floor(body.length / 2);
  let answered!: (answer: { status: number; length: string | undefined; text: string }) => void;
  let failed!: (error: Error) => void;
  const answer = new Promise<{ status: number; length: string | undefined; text: string }>((resolve, reject) => ((answered = resolve), (failed = reject)));
  const req = request(
    { host: "127.0.0.1", port: container.port, method: "POST", path: "/users", agent: false, headers: { "content-type": "application/json", "content-length": String(body.length) } },
    (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => answered({ status: res.statusCode!, length: res.headers["content-length"], text }));
      res.on("error", failed);
    },
  );
  req.on("error", failed);
  req.write(body.subarray(0, half));
  // The headers are in: the request is in flight, not an idle connection that shutdown closes.
  await delay(500);
  const began = Date.now();
  const stop = podman.podman(["stop", "-t", "10", container.name], 30_000);
  try {
    await shutdownBegun(container);
  } finally {
    req.end(body.subarray(half));
  }
  const got = await Promise.race([answer, delay(10_000).then(() => Promise.reject(new Error("the request in flight got no answer within 10 s")))]);
  assert.equal(got.status, 201, got.text);
  assert.equal(String(Buffer.byteLength(got.text)), got.length, "the whole body, as long as its Content-Length");
  assert.equal((JSON.parse(got.text) as { name: string }).name, "Barbara Liskov");
  const stopped = await stop;
  const took = Date.now() - began;
  assert.equal(stopped.code, 0, `podman stop: ${stopped.stderr}`);
  assert.ok(took < 10_000, `podman stop took ${took} ms`);
  assert.equal((await podman.inspect(container.name, "{{.State.ExitCode}}")).trim(), "0", "node's exit code");
}

/** Waits, for at most 5 s, until a new connection is refused or /readyz answers 503: the server has its SIGTERM. */
async function shutdownBegun(container: Container): Promise<void> {
  const until = Date.now() + 5_000;
  while (Date.now() < until) {
    const ready = await send(container, { path: "/readyz" }).catch(() => undefined);
    if (ready === undefined || ready.status === 503) return;
    await delay(50);
  }
  throw new Error("the server was still ready 5 s after podman stop");
}

function field(status: string, name: string): string[] {
  return (new RegExp(`^${name}:\\s*(.*)$`, "m").exec(status)?.[1] ?? "").trim().split(/\s+/);
}

function parseDuration(text: string | undefined): number {
  const found = /^(\d+)s$/.exec(text ?? "");
  assert.ok(found, `a HEALTHCHECK duration in seconds, not ${text}`);
  return Number(found[1]);
}

/**
 * The `podman run` line docs/containers.md begins with, run as written but detached, under a
 * name of this run's and on a free port: the image `npm run image` built starts under the name
 * the line gives it, with the line's runtime and limits, and serves the two users.
 */
export async function checkDocumentedRun(podman: Podman, report: Report, markdown: string): Promise<void> {
  const line = documentedCommands(markdown).find((command) => command.startsWith("podman run "));
  await report.check(`the podman run line of docs/containers.md serves: ${line ?? "(none found)"}`, async () => {
    assert.ok(line !== undefined, "docs/containers.md begins with no podman run line");
    const container = await podman.startAsWritten(line);
    const answer = await send(container, { path: "/users" });
    assert.equal(answer.status, 200, answer.text);
    assert.equal((JSON.parse(answer.text) as unknown[]).length, 2);
    await podman.remove(container);
  });
}
