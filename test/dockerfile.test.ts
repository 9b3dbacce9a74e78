// The Dockerfile: its facts, a .dockerignore true to it, and its stages reproduced outside a container engine (scripts/test-image.ts builds and runs the real image).
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { after, before, test } from "node:test";
import { dockerignore, envPairs, execForm, type Instruction, parseDockerfile, type Stage } from "./support/dockerfile.ts";
import { readListeningUrl, ROOT } from "./support/target.ts";

const DOCKERFILE = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const STAGES = parseDockerfile(DOCKERFILE);
const BUILD = STAGES.find((stage) => stage.name === "build");
// What the runtime stage copies onto its base: /data, and on scratch node and its libraries.
const FILES = STAGES.find((stage) => stage.name === "runtime-files");
const RUNTIME = STAGES.at(-1)!;
// runtime-files' RUN that copies node, its libraries and the users for a scratch base: the
// host's node, on PATH, plays them in the reproduction below.
const SCRATCH_FILES = /^if \[ "\$RUNTIME_BASE" = scratch \]; then /;

// Node.js LTS lines and the last day of their support (github.com/nodejs/Release). When a
// line's end comes, this test fails until the Dockerfile moves to a later line.
const LTS_ENDS: Record<string, string> = { "22": "2027-04-30", "24": "2028-04-30", "26": "2029-04-30" };

function only(stage: Stage, keyword: string): Instruction | undefined {
  const found = stage.instructions.filter((instruction) => instruction.keyword === keyword);
  assert.ok(found.length <= 1, `the ${stage.name ?? "runtime"} stage has more than one ${keyword}`);
  return found[0];
}

/** The health check's command: `HEALTHCHECK [flags] CMD [...]` in exec form. */
function healthCommand(stage: Stage): string[] {
  const healthcheck = only(stage, "HEALTHCHECK");
  assert.ok(healthcheck, "the runtime stage has a HEALTHCHECK");
  assert.match(healthcheck.args, /^CMD\s+\[/, "HEALTHCHECK runs CMD in exec form");
  return execForm({ ...healthcheck, args: healthcheck.args.replace(/^CMD\s+/, "") });
}

/** The server's command: ENTRYPOINT, then CMD, each in exec form. */
function startCommand(stage: Stage): string[] {
  const entrypoint = only(stage, "ENTRYPOINT");
  const cmd = only(stage, "CMD");
  const command = [...(entrypoint ? execForm(entrypoint) : []), ...(cmd ? execForm(cmd) : [])];
  assert.ok(command.length > 0, "the runtime stage names a command");
  return command;
}

test("the Dockerfile pins one Node.js LTS image by its full version, and its runtime starts from scratch by default", () => {
  assert.ok(BUILD, "a stage is named build");
  assert.ok(FILES, "a stage is named runtime-files");
  assert.equal(STAGES.length, 3);
  assert.equal(FILES.image, BUILD.image, "the build and the runtime's files come from the same image");
  assert.equal(RUNTIME.image, "scratch", "RUNTIME_BASE is scratch unless a build argument says otherwise");
  const pinned = /^node:(\d+)\.\d+\.\d+(?:-[a-z0-9.-]+)?(?:@sha256:[0-9a-f]{64})?$/.exec(BUILD.image);
  assert.ok(pinned, `${BUILD.image} names node:<major>.<minor>.<patch>`);
  const end = LTS_ENDS[pinned[1]!];
  assert.ok(end, `Node.js ${pinned[1]} is not a supported LTS line; use one of ${Object.keys(LTS_ENDS).join(", ")}`);
  assert.ok(new Date().toISOString().slice(0, 10) <= end, `Node.js ${pinned[1]} reached its end of life on ${end}; move to a later LTS`);
});

test("the runtime stage runs as a user other than root, listens on every address, and starts node in exec form", () => {
  const user = only(RUNTIME, "USER")?.args;
  assert.ok(user !== undefined && !/^(root|0)(:|$)/.test(user), `USER is ${user ?? "unset"}`);
  const env = Object.assign({}, ...RUNTIME.instructions.filter((i) => i.keyword === "ENV").map(envPairs)) as Record<string, string>;
  assert.equal(env.HOST, "0.0.0.0");
  assert.equal(only(RUNTIME, "EXPOSE")?.args, env.PORT, "EXPOSE names the PORT the server listens on");
  assert.deepEqual(startCommand(RUNTIME).slice(0, 2), ["node", "dist/main.js"]);
  assert.equal(healthCommand(RUNTIME)[0], "node", "the health check needs nothing but node");
});

test(".dockerignore sends exactly what the build stage copies: every input, and nothing else", () => {
  const excluded = dockerignore(readFileSync(join(ROOT, ".dockerignore"), "utf8"));
  const sources = BUILD!.instructions
    .filter((instruction) => instruction.keyword === "COPY" && instruction.flags.from === undefined)
    .flatMap((instruction) => instruction.args.split(/\s+/).slice(0, -1))
    .map((source) => posix.normalize(source).replace(/\/$/, ""));
  assert.ok(sources.includes("src") && sources.includes("package-lock.json"));
  for (const source of sources) {
    assert.ok(existsSync(join(ROOT, source)), `the build copies ${source}, which does not exist`);
    for (const file of filesUnder(source)) assert.ok(!excluded(file), `the build copies ${file}, which .dockerignore leaves out`);
  }
  // Every file in the work tree that git would see (tracked, or new and not ignored).
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => file !== "" && existsSync(join(ROOT, file)));
  const sent = files.filter((file) => !excluded(file));
  const unused = sent.filter((file) => !sources.some((source) => file === source || file.startsWith(`${source}/`)));
  assert.deepEqual(unused, [], "the context holds files the build never copies");
  for (const path of ["node_modules", "dist/main.js", ".git", "coverage", "runtimes/node_modules", "test/docs.test.ts"]) {
    assert.ok(excluded(path), `${path} stays out of the context`);
  }
});

function filesUnder(path: string): string[] {
  if (!statSync(join(ROOT, path)).isDirectory()) return [path];
  return readdirSync(join(ROOT, path), { recursive: true, encoding: "utf8" })
    .map((name) => `${path}/${name}`)
    .filter((name) => statSync(join(ROOT, name)).isFile());
}

test("docs/containers.md quotes the Dockerfile whole", () => {
  const docs = readFileSync(join(ROOT, "docs/containers.md"), "utf8");
  assert.ok(docs.includes(`\`\`\`dockerfile\n${DOCKERFILE}\`\`\`\n`), "copy the Dockerfile into docs/containers.md unchanged");
});

// The reproduction: each stage's image paths live under a folder of its own (`/app` is
// <stage folder>/app). The build stage copies from the repository and runs its RUN lines,
// except `npm ci`, which a link to the repository's node_modules (installed from the same
// lock file) stands in for. runtime-files makes its folders and gives them to the image's
// user; the host's node plays the node, libraries and users it copies for a scratch base.
// The runtime stage copies from those two folders only, keeping owners as COPY --from does.
// The image's `node` user is played by `nobody` when the tests run as root, or by the
// user running them; PATH is the host's, since node lives elsewhere here than in the image.
let folder = "";
let runtime: { workdir: string; env: Record<string, string>; data: string } = { workdir: "", env: {}, data: "" };
const user = unprivilegedUser();

before(() => {
  folder = mkdtempSync(join(tmpdir(), "rest-dockerfile-"));
  // mkdtemp makes the folder readable by its owner only; the unprivileged user reads it too.
  chmodSync(folder, 0o755);
  const roots = { build: join(folder, "build"), "runtime-files": join(folder, "runtime-files") };
  reproduce(BUILD!, roots.build, roots);
  reproduce(FILES!, roots["runtime-files"], roots);
  runtime = reproduce(RUNTIME, join(folder, "runtime"), roots);
});

after(() => {
  if (folder !== "") rmSync(folder, { recursive: true, force: true });
});

function reproduce(stage: Stage, root: string, roots: Record<string, string>) {
  let workdir = "/";
  const env: Record<string, string> = {};
  const inRoot = (path: string) => join(root, posix.resolve(workdir, path));
  mkdirSync(root, { mode: 0o755 });
  for (const instruction of stage.instructions) {
    const { keyword, flags, args } = instruction;
    switch (keyword) {
      case "WORKDIR":
        workdir = posix.resolve(workdir, args);
        mkdirSync(inRoot("."), { recursive: true });
        break;
      case "COPY": {
        const [destination, ...sources] = args.split(/\s+/).reverse();
        for (const source of sources.reverse()) {
          const from = flags.from === undefined ? join(ROOT, source) : join(fromStage(flags.from, stage, roots), source);
          const isDir = statSync(from).isDirectory();
          // Docker copies a folder's contents, and a file into a destination ending in /.
          const target = !isDir && destination!.endsWith("/") ? join(inRoot(destination!), posix.basename(source)) : inRoot(destination!);
          if (flags.from === undefined) {
            cpSync(from, target, { recursive: true });
          } else {
            // From another stage, files keep their owners (from the context they would be root's).
            mkdirSync(isDir ? target : posix.dirname(target), { recursive: true });
            execFileSync("cp", ["-a", isDir ? `${from}/.` : from, target]);
          }
        }
        break;
      }
      case "RUN":
        if (stage === BUILD) runInBuild(args, inRoot("."));
        else if (!SCRATCH_FILES.test(args)) runInRuntime(args, inRoot);
        break;
      case "ARG":
        break; // RUNTIME_BASE: what the RUN for a scratch base reads
      case "ENV":
        Object.assign(env, envPairs(instruction));
        break;
      case "USER":
      case "EXPOSE":
      case "HEALTHCHECK":
      case "ENTRYPOINT":
      case "CMD":
        break; // read where they are used
      default:
        throw new Error(`This test cannot reproduce ${keyword}; teach it, or keep the Dockerfile to what it knows`);
    }
  }
  return { workdir: inRoot("."), env, data: join(root, "data") };
}

function fromStage(name: string, stage: Stage, roots: Record<string, string>): string {
  const index = STAGES.findIndex((earlier) => earlier.name === name);
  if (index === -1 || index >= STAGES.indexOf(stage) || roots[name] === undefined) throw new Error(`COPY --from=${name}: no earlier stage of that name is reproduced`);
  return roots[name];
}


function runInBuild(command: string, cwd: string): void {
  if (/^npm ci\b/.test(command)) {
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(cwd, "node_modules"), "dir");
    return;
  }
  execFileSync("sh", ["-c", command], { cwd, stdio: "pipe" });
}

// The runtime stage may only make folders and give them to the image's user.
function runInRuntime(command: string, inRoot: (path: string) => string): void {
  for (const step of command.split("&&").map((part) => part.trim().split(/\s+/))) {
    const [name, ...args] = step;
    if (name === "mkdir" && args.every((arg) => arg === "-p" || !arg.startsWith("-"))) {
      const parents = args.includes("-p");
      for (const path of args.filter((arg) => arg !== "-p")) mkdirSync(inRoot(path), { recursive: parents });
    } else if (name === "chown" && args[0] === "node:node") {
      for (const path of args.slice(1)) chownSync(inRoot(path), user.uid, user.gid);
    } else {
      throw new Error(`The runtime stage runs "${step.join(" ")}", which this test cannot reproduce`);
    }
  }
}

function unprivilegedUser(): { uid: number; gid: number } {
  if (process.getuid?.() !== 0) return { uid: process.getuid!(), gid: process.getgid!() };
  const entry = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((line) => line.startsWith("nobody:"));
  assert.ok(entry, "running as root, the test needs the user nobody to stand in for the image's node user");
  const [, , uid, gid] = entry.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** Starts a command of the runtime stage as the unprivileged user, in its WORKDIR, with its ENV and `env` over it. */
function runAsImageUser(command: string[], env: Record<string, string>): ChildProcess {
  const [file, ...args] = command;
  return spawn(file!, args, {
    cwd: runtime.workdir,
    env: { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", ...runtime.env, ...env },
    uid: user.uid,
    gid: user.gid,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

async function exitCode(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const [code] = (await once(child, "exit", { signal: AbortSignal.timeout(ms) })) as [number | null];
  return code;
}

async function freePort(): Promise<string> {
  const server = createServer().listen(0, "0.0.0.0");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return String(port);
}

/** Starts the image's command with PORT overridden (3000 may be taken here), and waits for its listening line. */
async function startImage(env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string; port: string }> {
  const port = await freePort();
  const child = runAsImageUser(startCommand(RUNTIME), { PORT: port, ...env });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  try {
    await readListeningUrl(child);
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${stderr}`);
  }
  return { child, base: `http://127.0.0.1:${port}`, port };
}

test("the runtime stage, reproduced outside Docker, serves as an unprivileged user, passes its health check and stops on SIGTERM", async (t) => {
  const { child, base, port } = await startImage();
  t.after(() => child.kill("SIGKILL"));
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
  assert.equal(uid, String(user.uid));
  assert.notEqual(uid, "0");

  const health = runAsImageUser(healthCommand(RUNTIME), { PORT: port });
  assert.equal(await exitCode(health, 10_000), 0, "the health check passes");
  const ready = await fetch(`${base}/readyz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { status: "ready" });
  assert.equal((await fetch(`${base}/users/1`)).status, 200);

  child.kill("SIGTERM");
  assert.equal(await exitCode(child, 5_000), 0, "node, started in exec form, stops on SIGTERM with exit code 0");
});

test("the health check fails when nothing listens on PORT", async () => {
  const health = runAsImageUser(healthCommand(RUNTIME), { PORT: await freePort() });
  assert.equal(await exitCode(health, 10_000), 1);
});

test("the runtime stage keeps its data in /data, owned by the image's user, across a restart", async (t) => {
  const env = { DATA_DIR: runtime.data };
  const first = await startImage(env);
  t.after(() => first.child.kill("SIGKILL"));
  const created = await fetch(`${first.base}/users`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Grace Hopper", email: "grace@example.com" }),
  });
  assert.equal(created.status, 201);
  const location = created.headers.get("location")!;
  first.child.kill("SIGTERM");
  assert.equal(await exitCode(first.child, 5_000), 0);

  const second = await startImage(env);
  t.after(() => second.child.kill("SIGKILL"));
  const read = await fetch(`${second.base}${location}`);
  assert.equal(read.status, 200);
  assert.equal(((await read.json()) as { name: string }).name, "Grace Hopper");
  second.child.kill("SIGTERM");
  assert.equal(await exitCode(second.child, 5_000), 0);
});
