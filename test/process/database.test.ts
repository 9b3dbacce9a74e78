// Black-box tests of DATABASE_URL at start-up on a process: what it refuses with exit 1 and one line.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { processMode, runToExit } from "../support/process.ts";
import { serverCommand } from "../support/target.ts";

const PROCESS = processMode();
// The build copied alone (the runtime matrix's dist) has no node_modules beside it, so no adapter.
const INSTALLED = existsSync(join(serverCommand(PROCESS).cwd, "node_modules", "rest-reference-server-postgres"));

test(`on ${PROCESS}, DATABASE_URL with DATA_DIR ends the process with exit code 1 and one line: one store at a time`, async () => {
  const { code, stderr } = await runToExit({ DATABASE_URL: "postgres://localhost/rest", DATA_DIR: "/nonexistent/rest" });
  assert.equal(code, 1);
  assert.equal(stderr, "DATABASE_URL and DATA_DIR name two stores; set one of them: the database, or the data directory\n");
});

test(`on ${PROCESS}, --database-url that is not a PostgreSQL URL ends the process with exit code 1 and one line that does not echo it`, async () => {
  const { code, stderr } = await runToExit({}, ["--database-url", "mysql://rest:secret@db/rest"]);
  assert.equal(code, 1);
  assert.equal(
    stderr,
    "--database-url must be a PostgreSQL URL that begins with postgres:// or postgresql://, such as postgres://user:password@localhost:5432/name\n",
  );
});

test(`on ${PROCESS}, ${INSTALLED ? "a database that cannot be reached" : "DATABASE_URL without the adapter installed"} ends the process with exit code 1 and one line`, async () => {
  const port = await closedPort();
  const { code, stderr, stdout } = await runToExit({ DATABASE_URL: `postgres://rest:secret@127.0.0.1:${port}/rest` });
  assert.equal(code, 1);
  assert.equal(stdout, "");
  if (INSTALLED) {
    assert.equal(stderr, `Cannot use the database at postgres://rest:***@127.0.0.1:${port}/rest (ECONNREFUSED); check DATABASE_URL and that the database server runs\n`);
  } else {
    assert.match(
      stderr,
      /^DATABASE_URL needs the package rest-reference-server-postgres, which cannot be loaded \([^)\n]+\); install it beside the server: npm install rest-reference-server-postgres\n$/,
    );
  }
});

test(`on ${PROCESS}, a password given as a query parameter of DATABASE_URL is not printed when the start fails`, async () => {
  const port = await closedPort();
  const { code, stderr, stdout } = await runToExit({ DATABASE_URL: `postgres://app@127.0.0.1:${port}/rest?password=s3cret&sslmode=disable` });
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.match(stderr, /^[^\n]+\n$/, "one line");
  assert.doesNotMatch(stdout + stderr, /s3cret/);
  if (INSTALLED) {
    assert.equal(
      stderr,
      `Cannot use the database at postgres://app@127.0.0.1:${port}/rest?password=***&sslmode=disable (ECONNREFUSED); check DATABASE_URL and that the database server runs\n`,
    );
  }
});

/** A port on the loopback where nothing listens. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
