// Black-box tests of the command line (contract 9): flags win over the environment, --seed, --help, --version, and one line on bad input.
// They need a process, so the in-process pass (TEST_TARGET unset) runs them against a node process.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { helpText } from "../../src/config.ts";
import { TOKENS_ON_COMMAND_LINE } from "../../src/http/access.ts";
import { VERSION } from "../../src/ops/version.ts";
import { call } from "../support/http.ts";
import { processMode, runToExit, startCommand } from "../support/process.ts";
import { serverCommand, spawnTarget } from "../support/target.ts";

const PROCESS = processMode();
const folder = mkdtempSync(join(tmpdir(), "rest-cli-"));
after(() => rmSync(folder, { recursive: true, force: true }));

/** Writes a file into the test's folder and returns its absolute path (the dist process runs elsewhere). */
function file(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

const SEED = {
  users: [{ id: 5, name: "Eve", email: "eve@example.com" }],
  posts: [{ id: 3, title: "Seeded", body: "From a file", createdAt: "2026-01-31T09:30:00.000Z" }],
  comments: [{ id: 7, postId: 3, body: "First", createdAt: "2026-01-31T09:31:00.000Z" }],
};
const seedFile = file("seed.json", JSON.stringify(SEED));

/** Starts the command with extra arguments; the test closes it. */
async function start(t: { after: (fn: () => Promise<void>) => void }, extraArgs: string[], env: Record<string, string> = {}) {
  const { command, args, cwd } = serverCommand(PROCESS);
  const target = await spawnTarget(command, [...args, ...extraArgs], env, cwd);
  t.after(() => target.close());
  return target;
}

test(`on ${PROCESS}, --seed FILE --port 0 serves the file's records, and ids continue after them`, async (t) => {
  const { url, stop } = await start(t, ["--seed", seedFile, "--port", "0"]);
  assert.deepEqual((await call(`${url}/users`)).body, SEED.users);
  assert.deepEqual((await call(`${url}/posts/3/comments`)).body, SEED.comments);
  const user = await call(`${url}/users`, { method: "POST", json: { name: "New", email: "new@example.com" } });
  assert.equal(user.status, 201);
  assert.equal((user.body as { id: number }).id, 2);
  const comment = await call(`${url}/posts/3/comments`, { method: "POST", json: { body: "Second" } });
  assert.equal((comment.body as { id: number }).id, 8);
  assert.equal(await stop("SIGTERM"), 0);
});

test(`on ${PROCESS}, SEED_FILE names the seed file, and --seed wins over it`, async (t) => {
  const other = file("other.json", JSON.stringify({ users: [{ id: 9, name: "Other", email: "other@example.com" }] }));
  const fromEnv = await start(t, [], { SEED_FILE: other });
  assert.deepEqual((await call(`${fromEnv.url}/users`)).body, [{ id: 9, name: "Other", email: "other@example.com" }]);
  const fromFlag = await start(t, ["--seed", seedFile], { SEED_FILE: other });
  assert.deepEqual((await call(`${fromFlag.url}/users`)).body, SEED.users);
});

test(`on ${PROCESS}, a flag wins over its variable: --port=0 starts although PORT is not a number`, async (t) => {
  const { url } = await start(t, ["--port=0", "--body-limit", "20"], { PORT: "not-a-port" });
  const response = await call(`${url}/users`, { method: "POST", json: { name: "Too long", email: "long@example.com" } });
  assert.equal(response.status, 413);
});

const BAD_ARGUMENTS: Array<[args: string[], line: string]> = [
  [["--nope"], "Unknown flag --nope; see --help for the flags"],
  [["--port"], "--port needs a value, as in --port=8080 or --port 8080; see --help"],
  [["--port", "abc"], '--port must be a whole number from 0 to 65535, not "abc"'],
  [["--headers-timeout", "0"], '--headers-timeout must be a whole number from 1 to 3600000, not "0"'],
  [["--headers-timeout", "2000", "--request-timeout", "1000"], "--headers-timeout (2000) must not be larger than --request-timeout (1000)"],
  // The one argument is a db.json to serve, as json-server takes it.
  [["serve"], "Cannot read the db.json serve (ENOENT); check the path given to the command's argument, --db or DB_FILE"],
  // A token is never echoed: the entry is named by its place (contract 13).
  [["--auth-tokens", "read:ok,admin:s3cret"], "--auth-tokens entry 2 is not SCOPE:TOKEN: the scope must be read or write, and the token letters, digits and -._~+/ (such as write:my-token)"],
  [["--auth-tokens", "write:s3cret token"], "--auth-tokens entry 1 is not SCOPE:TOKEN: the scope must be read or write, and the token letters, digits and -._~+/ (such as write:my-token)"],
  [["--read-only", "yes"], '--read-only must be on or off, not "yes"'],
  // Blank tokens would start a server open to all: refused, as a tokens file with no token is.
  [["--auth-tokens", " "], "--auth-tokens is set but holds no token; give SCOPE:TOKEN entries such as read:abc,write:def, or leave it unset to serve without tokens"],
  [["--allowed-hosts", "http://api.example.com"], '--allowed-hosts: "http://api.example.com" is not a host name; write a name such as api.example.com, *.example.com for its subdomains, ip for any IP address, or * for any host'],
  [["--store-limit", "0"], '--store-limit must be a whole number from 1 to 9007199254740991, not "0"'],
];

for (const [args, line] of BAD_ARGUMENTS) {
  test(`on ${PROCESS}, ${args.join(" ")} ends the process with exit code 1 and one line on stderr`, async () => {
    const { code, stdout, stderr } = await runToExit({}, args);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.equal(stderr, `${line}\n`);
  });
}

test(`on ${PROCESS}, a tokens file with a bad line: exit 1 and one line naming the line, not the token`, async () => {
  const tokens = file("tokens", "read:fine\nwrite s3cret\n");
  const { code, stdout, stderr } = await runToExit({ AUTH_TOKENS_FILE: tokens });
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr, `The tokens file ${tokens} line 2 is not SCOPE:TOKEN: the scope must be read or write, and the token letters, digits and -._~+/ (such as write:my-token)\n`);
});

test(`on ${PROCESS}, AUTH_TOKENS or AUTH_TOKENS_FILE set but blank: exit 1 and one line, as for a tokens file that holds no token`, async () => {
  const noToken = "AUTH_TOKENS is set but holds no token; give SCOPE:TOKEN entries such as read:abc,write:def, or leave it unset to serve without tokens";
  const noFile = "AUTH_TOKENS_FILE is set but names no file; give the path of a file of SCOPE:TOKEN lines, or leave it unset to serve without tokens";
  const empty = file("no-tokens", "# none yet\n\n");
  const cases: Array<[env: Record<string, string>, line: string]> = [
    [{ AUTH_TOKENS: "" }, noToken],
    [{ AUTH_TOKENS: " " }, noToken],
    [{ AUTH_TOKENS: "\t \n" }, noToken],
    [{ AUTH_TOKENS_FILE: "" }, noFile],
    [{ AUTH_TOKENS_FILE: "  " }, noFile],
    [{ AUTH_TOKENS_FILE: empty }, `The tokens file ${empty} holds no token; give SCOPE:TOKEN entries such as read:abc,write:def`],
  ];
  for (const [env, line] of cases) {
    const { code, stdout, stderr } = await runToExit(env);
    assert.equal(code, 1, JSON.stringify(env));
    assert.equal(stdout, "", JSON.stringify(env));
    assert.equal(stderr, `${line}\n`, JSON.stringify(env));
  }
});

test(`on ${PROCESS}, tokens on the command line, or in a file other users may read, are warned of in one line each at start-up`, async () => {
  const started = async (args: string[], env: Record<string, string>) => {
    const server = await startCommand(args, env, false);
    const users = await call(`${server.url}/users`, { headers: { authorization: "Bearer w1" } });
    assert.equal(users.status, 200);
    await server.stop();
    return server.stderr();
  };
  assert.equal(await started(["--auth-tokens", "write:w1"], {}), `${TOKENS_ON_COMMAND_LINE}\n`);
  assert.equal(await started([], { AUTH_TOKENS: "write:w1" }), "");
  const tokens = file("loose-tokens", "write:w1\n");
  for (const mode of [0o644, 0o640, 0o604, 0o660]) {
    chmodSync(tokens, mode);
    const shown = mode.toString(8).padStart(4, "0");
    assert.equal(
      await started([], { AUTH_TOKENS_FILE: tokens }),
      `The tokens file ${tokens} is open to other users of this machine (mode ${shown}); let only the server's user read it: chmod 600 ${tokens}\n`,
    );
  }
  for (const mode of [0o600, 0o400]) {
    chmodSync(tokens, mode);
    assert.equal(await started([], { AUTH_TOKENS_FILE: tokens }), "", mode.toString(8));
  }
});

test(`on ${PROCESS}, a seed past STORE_LIMIT: exit 1 and one line that says what to do`, async () => {
  const seed = file("big-seed.json", JSON.stringify({ users: Array.from({ length: 40 }, (_, i) => ({ id: i + 1, name: "n", email: "a@b.io" })) }));
  const { code, stdout, stderr } = await runToExit({ STORE_LIMIT: "5000" }, ["--seed", seed]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.match(stderr, new RegExp(`^The seed file ${seed} is too large: The starting records take [\\d.]+ KiB, more than STORE_LIMIT \\(4.9 KiB\\); raise STORE_LIMIT or start with fewer records\n$`));
});

test(`on ${PROCESS}, a seed file that does not exist: exit 1 and one line naming it`, async () => {
  const missing = join(folder, "missing.json");
  const { code, stderr } = await runToExit({}, ["--seed", missing]);
  assert.equal(code, 1);
  assert.equal(stderr, `Cannot read the seed file ${missing} (ENOENT); check the path given to --seed or SEED_FILE\n`);
});

test(`on ${PROCESS}, a seed file that is not JSON: exit 1 and one line naming it`, async () => {
  const broken = file("broken.json", '{"users": [');
  const { code, stderr } = await runToExit({}, ["--seed", broken]);
  assert.equal(code, 1);
  // The parser's own words differ between runtimes; the line around them does not.
  assert.match(stderr, new RegExp(`^The seed file ${broken} is not valid JSON at line 1, column 12 \\([^\\n]+\\); fix the file\\n$`));
});

test(`on ${PROCESS}, a db.json with a syntax error: exit 1 and one line giving its line and column`, async () => {
  // A missing comma on the third line, between a member's value and the next member's name.
  const broken = file("db.json", '{\n  "posts": [\n    { "id": 1, "title": "a" "views": 3 }\n  ]\n}\n');
  const { code, stderr } = await runToExit({}, [broken]);
  assert.equal(code, 1);
  assert.match(stderr, new RegExp(`^The db.json ${broken} is not valid JSON at line 3, column 29 \\([^\\n]+\\); fix the file\\n$`));
});

test(`on ${PROCESS}, a seed file that breaks the API's rules: exit 1 and one line naming every problem`, async () => {
  const invalid = file(
    "invalid.json",
    JSON.stringify({
      users: [{ id: 1, name: "", email: "ada@example.com" }],
      comments: [{ id: 1, postId: 4, body: "Orphan", createdAt: "2026-01-31T09:30:00.000Z" }],
    }),
  );
  const { code, stderr } = await runToExit({}, ["--seed", invalid]);
  assert.equal(code, 1);
  assert.equal(
    stderr,
    `The seed file ${invalid} is not valid: users[0].name must be a non-empty string; ` +
      "comments[0].postId must be the id of a post of the seed; none has id 4; fix the file\n",
  );
});

test(`on ${PROCESS}, --help prints every flag and exits 0`, async () => {
  const { code, stdout, stderr } = await runToExit({}, ["--help"]);
  assert.equal(code, 0);
  assert.equal(stderr, "");
  assert.equal(stdout, `${helpText("rest-reference-server")}\n`);
});

test(`on ${PROCESS}, --version prints the package's version and exits 0`, async () => {
  const { code, stdout } = await runToExit({}, ["--version"]);
  assert.equal(code, 0);
  assert.equal(stdout, `${VERSION}\n`);
});

for (const [label, env, args, setting] of [
  ["CONTROL=on", { CONTROL: "on" }, [], "CONTROL=on"],
  ["--control on", {}, ["--control", "on"], "--control on"],
] as const) {
  test(`on ${PROCESS}, ${label} starts with one warning on stderr that anyone who reaches the server can erase the data`, async () => {
    const server = await startCommand([...args], { ...env }, false);
    try {
      assert.equal((await call(`${server.url}/healthz`)).status, 200);
      assert.equal(
        server.stderr(),
        `Warning: test control is on (${setting}): anyone who can reach ${server.url} can erase or replace every record; turn it off wherever others can reach the server\n`,
      );
    } finally {
      await server.stop();
    }
  });
}

test(`on ${PROCESS}, without test control the server starts with nothing on stderr`, async () => {
  const server = await startCommand([], {}, false);
  try {
    assert.equal((await call(`${server.url}/healthz`)).status, 200);
    assert.equal(server.stderr(), "");
  } finally {
    await server.stop();
  }
});
