// Containers of the image under test: started with runc on a port of 127.0.0.1, spoken to over HTTP, and removed at the end.
import { request } from "node:http";
import { createServer } from "node:net";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { RUN_FLAGS } from "./commands.ts";
import { failure, must, run } from "./run.ts";

const PODMAN_TIMEOUT = 60_000;

/** A container under test: its name, and the base URL of its published port. */
export type Container = { name: string; port: number; base: string };

/** What a container is started with besides the image: environment and volumes (`source:target[:options]`). */
export type StartOptions = { env?: Record<string, string>; volumes?: string[] };

/** Starts, tracks and removes the containers and volumes of one run of the test. */
export class Podman {
  private readonly containers = new Set<string>();
  private readonly volumes = new Set<string>();
  private count = 0;
  private readonly prefix: string;

  /** `prefix` begins the name of every container and volume, so that a run's are told apart. */
  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /** A fresh named volume, removed by `cleanup`. */
  async volume(): Promise<string> {
    const name = `${this.prefix}-volume-${++this.count}`;
    this.volumes.add(name);
    await must("podman", ["volume", "create", name], { timeoutMs: PODMAN_TIMEOUT });
    return name;
  }

  /** Starts `image` detached, its port 3000 published on a free port of 127.0.0.1, and waits until /healthz answers. */
  async start(image: string, options: StartOptions = {}): Promise<Container> {
    const name = `${this.prefix}-${++this.count}`;
    const port = await freePort();
    // The runtime and limits docs/containers.md gives podman run (commands.ts).
    const args = ["run", "-d", "--name", name, ...RUN_FLAGS, "-p", `127.0.0.1:${port}:3000`];
    for (const [key, value] of Object.entries(options.env ?? {})) args.push("-e", `${key}=${value}`);
    for (const volume of options.volumes ?? []) args.push("-v", volume);
    this.containers.add(name);
    await must("podman", [...args, image], { timeoutMs: PODMAN_TIMEOUT });
    const container = { name, port, base: `http://127.0.0.1:${port}` };
    await this.waitUntilServing(container);
    return container;
  }

  /**
   * Starts a `podman run` line as written, but detached, with a name of this run's and its
   * published port moved to a free one of 127.0.0.1, and waits until /healthz answers.
   */
  async startAsWritten(line: string): Promise<Container> {
    const words = line.split(/\s+/);
    if (words[0] !== "podman" || words[1] !== "run") throw new Error(`Not a podman run line: ${line}`);
    const name = `${this.prefix}-${++this.count}`;
    const port = await freePort();
    const args = ["run", "-d"];
    for (let i = 2; i < words.length; i++) {
      const word = words[i]!;
      if (word === "--name") args.push(word, name);
      else if (word === "-p") args.push(word, words[i + 1]!.replace(/^127\.0\.0\.1:\d+:/, `127.0.0.1:${port}:`));
      else {
        args.push(word);
        continue;
      }
      i++;
    }
    if (!args.includes(name)) throw new Error(`The line names no container (--name): ${line}`);
    this.containers.add(name);
    await must("podman", args, { timeoutMs: PODMAN_TIMEOUT });
    const container = { name, port, base: `http://127.0.0.1:${port}` };
    await this.waitUntilServing(container);
    return container;
  }

  /** Waits for /healthz to answer 200 on the published port, for at most 20 s; says why not, with the container's output. */
  async waitUntilServing(container: Container): Promise<void> {
    const until = Date.now() + 20_000;
    for (;;) {
      const answer = await send(container, { path: "/healthz" }).catch(() => undefined);
      if (answer?.status === 200) return;
      const state = (await this.inspect(container.name, "{{.State.Status}}")).trim();
      if (state !== "running" || Date.now() > until) {
        const logs = await run("podman", ["logs", container.name], { timeoutMs: PODMAN_TIMEOUT });
        throw new Error(`${container.name} is ${state} and does not serve /healthz on ${container.base}: ${(logs.stdout + logs.stderr).trim().slice(-2000)}`);
      }
      await delay(100);
    }
  }

  /** `podman inspect` of a container with a Go template. */
  async inspect(name: string, format: string): Promise<string> {
    return must("podman", ["inspect", "--format", format, name], { timeoutMs: PODMAN_TIMEOUT });
  }

  /** Runs `podman <args>` and returns how it ended, bounded in time. */
  podman(args: string[], timeoutMs = PODMAN_TIMEOUT) {
    return run("podman", args, { timeoutMs });
  }

  /** Runs `podman <args>` and returns its stdout; throws unless it exits 0. */
  podmanMust(args: string[], timeoutMs = PODMAN_TIMEOUT): Promise<string> {
    return must("podman", args, { timeoutMs });
  }

  /** Starts a stopped container again and waits until it serves. */
  async restart(container: Container): Promise<void> {
    await must("podman", ["start", container.name], { timeoutMs: PODMAN_TIMEOUT });
    await this.waitUntilServing(container);
  }

  /** Removes a container now. */
  async remove(container: Container): Promise<void> {
    await must("podman", ["rm", "-f", "-t", "0", container.name], { timeoutMs: PODMAN_TIMEOUT });
    this.containers.delete(container.name);
  }

  /** Removes every container and volume this run made; says which could not be removed. */
  async cleanup(): Promise<string[]> {
    const left: string[] = [];
    for (const name of this.containers) {
      const ran = await run("podman", ["rm", "-f", "-t", "0", name], { timeoutMs: PODMAN_TIMEOUT });
      if (ran.code !== 0 && !/no such container/i.test(ran.stderr)) left.push(failure("podman", ["rm", "-f", name], ran, { timeoutMs: PODMAN_TIMEOUT }));
    }
    this.containers.clear();
    for (const name of this.volumes) {
      const ran = await run("podman", ["volume", "rm", "-f", name], { timeoutMs: PODMAN_TIMEOUT });
      if (ran.code !== 0 && !/no such volume/i.test(ran.stderr)) left.push(failure("podman", ["volume", "rm", name], ran, { timeoutMs: PODMAN_TIMEOUT }));
    }
    this.volumes.clear();
    return left;
  }
}

/** An answer read whole: its status, its headers and its body as text. */
export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; text: string };

/** What to send: method, path, headers and a body; a new connection each time, closed after the answer. */
export type Sent = { method?: string; path: string; headers?: Record<string, string>; body?: string };

/** Sends one request to a container's published port and reads the whole answer, within 10 s. */
export function send(container: Container, sent: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = sent.body === undefined ? undefined : Buffer.from(sent.body);
    const headers = { ...(body === undefined ? {} : { "content-type": "application/json", "content-length": String(body.length) }), ...sent.headers };
    const req = request({ host: "127.0.0.1", port: container.port, method: sent.method ?? "GET", path: sent.path, headers, agent: false, timeout: 10_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`${sent.method ?? "GET"} ${sent.path} got no answer within 10 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** A port of 127.0.0.1 that nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}
