#!/usr/bin/env node
// The entry point: the only code that reads process.env, starts listening and handles signals.
import { ConfigError, readConfig, type Config } from "./config.ts";
import { type RunningServer, startServer } from "./server.ts";

const config = loadConfig();
const running = await listenOrExit(config);
console.log(`Listening on ${running.url}`);

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    running.close().then(() => process.exit(0));
  });
}

function loadConfig(): Config {
  try {
    return readConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    exitWith(error.message);
  }
}

async function listenOrExit(config: Config): Promise<RunningServer> {
  try {
    return await startServer(config);
  } catch (error) {
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
