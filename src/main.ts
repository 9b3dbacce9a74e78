#!/usr/bin/env node
// The entry point and the `rest-reference-server` command: the only code that reads process.env
// and the arguments, starts listening and handles signals.
import { type Config, ConfigError, helpText, readConfig, readFlags, readSeedFile } from "./config.ts";
import { type Seed, SeedError } from "./seed.ts";
import { type RunningServer, startServer } from "./server.ts";
import { VERSION } from "./version.ts";

const flags = readOrExit(() => readFlags(process.argv.slice(2)));
if (flags.help) {
  console.log(helpText("rest-reference-server"));
  process.exit(0);
}
if (flags.version) {
  console.log(VERSION);
  process.exit(0);
}
const config = readOrExit(() => readConfig(process.env, flags));
const seed = config.seedFile === undefined ? undefined : readOrExit(() => readSeedFile(config.seedFile!));
const running = await listenOrExit(config, seed);
console.log(`Listening on ${running.url}`);

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    running.close().then(() => process.exit(0));
  });
}

function readOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    exitWith(error.message);
  }
}

async function listenOrExit(config: Config, seed: unknown): Promise<RunningServer> {
  const { seedFile, ...options } = config;
  try {
    // startServer checks what the records hold, and says what is wrong with each.
    return await startServer({ ...options, seed: seed as Seed | undefined });
  } catch (error) {
    if (error instanceof SeedError) exitWith(`The seed file ${seedFile} is not valid: ${error.summary}; fix the file`);
    exitWith(describeListenError(error as NodeJS.ErrnoException, config));
  }
}

function describeListenError(error: NodeJS.ErrnoException, { host, port }: Config): string {
  switch (error.code) {
    case "EADDRINUSE":
      return `Port ${port} on ${host} is already in use; set PORT to a free port`;
    case "EACCES":
      return `Port ${port} needs more privileges than this process has; set PORT to 1024 or above`;
    case "EADDRNOTAVAIL":
      return `HOST ${host} is not an address of this machine; set HOST to 127.0.0.1 or 0.0.0.0`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `HOST ${host} cannot be resolved to an address; set HOST to 127.0.0.1 or 0.0.0.0`;
    default:
      return `Cannot listen on ${host}:${port} (${error.code ?? error.message}); check HOST and PORT`;
  }
}

function exitWith(line: string): never {
  console.error(line);
  process.exit(1);
}
