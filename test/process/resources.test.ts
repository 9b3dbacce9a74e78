// Black-box tests of the command with a resources file or a json-server db.json: what it serves,
// what it refuses with exit 1 and one line, and a data directory kept across a restart.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { call } from "../support/http.ts";
import { tempDir } from "../support/temp.ts";
import { runToExit, startCommand } from "../support/process.ts";
import { EXAMPLE_RESOURCES, JSON_SERVER_DB } from "../support/resources.ts";
import { createTestDatabase } from "../support/postgres.ts";
import { databaseTargets } from "../support/target.ts";

const RESOURCES = EXAMPLE_RESOURCES;

const DB = JSON_SERVER_DB;

/** Writes `json` to a file of a fresh folder; its path. */
function file(t: { after: (fn: () => void) => void }, name: string, json: unknown): string {
  const path = join(tempDir(t), name);
  writeFileSync(path, JSON.stringify(json));
  return path;
}

/** Starts the command with `args` and `env`, on a fresh database in the PostgreSQL passes unless given DATA_DIR; resolves once it listens. */
async function start(args: string[], env: Record<string, string> = {}) {
  const database: Record<string, string> = databaseTargets() !== 0 && env.DATA_DIR === undefined ? { DATABASE_URL: await createTestDatabase() } : {};
  return startCommand(args, { ...env, ...database }, env.DATA_DIR !== undefined);
}

test("--resources serves the file's collections instead of the built-in ones", async (t) => {
  const server = await start(["--resources", file(t, "resources.json", RESOURCES)]);
  try {
    assert.deepEqual((await call(`${server.url}/projects`, { method: "POST", json: { name: "Home" } })).body, { id: 1, name: "Home" });
    const todo = await call(`${server.url}/projects/1/todos`, { method: "POST", json: { title: "Sweep", tags: ["a"] } });
    assert.deepEqual(todo.body, { id: 1, projectId: 1, title: "Sweep", tags: ["a"] });
    const note = await call(`${server.url}/notes`, { method: "POST", json: { text: "n" } });
    assert.match((note.body as { id: string }).id, /^[A-Za-z0-9_-]{22}$/);
    assert.deepEqual((await call(`${server.url}/users`)).body, { message: "No route for GET /users", code: "ROUTE_NOT_FOUND" });
  } finally {
    await server.stop();
  }
});

test("a db.json as the one argument with --dialect native: its arrays served with their records and links, a singular resource left out with one line, the file never written", async (t) => {
  const path = file(t, "db.json", DB);
  const server = await start([path, "--dialect", "native"]);
  try {
    assert.deepEqual((await call(`${server.url}/posts/1/comments`)).body, DB.comments);
    assert.deepEqual((await call(`${server.url}/posts?sort=-views`)).body, [DB.posts[1], DB.posts[0]]);
    const created = await call(`${server.url}/posts/2/comments`, { method: "POST", json: { text: "new" } });
    assert.equal(created.status, 201);
    assert.equal((created.body as { postId: string }).postId, "2");
    assert.equal((await call(`${server.url}/profile`)).status, 404);
    assert.equal(server.stderr(), `${path}: "profile" is not an array of records, so it is not served\n`);
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), DB);
  } finally {
    await server.stop();
  }
});

test("a file it cannot serve, or two things to serve, ends start-up with exit 1 and one line", async (t) => {
  const badSchema = file(t, "bad.json", { resources: { todos: { schema: { properties: { title: { oneOf: [] } } } } } });
  const mixed = file(t, "mixed.json", { posts: [{ id: 1 }, { id: "2" }] });
  const noParent = file(t, "orphans.json", { resources: { todos: { parent: { resource: "projects", member: "projectId" } } } });
  const badId = file(t, "uuid.json", { resources: { notes: { id: "uuid" } } });
  // Nested far deeper than a walk of a record may recurse.
  const deepRecord = join(tempDir(t), "deep.json");
  writeFileSync(deepRecord, `{"d":[{"id":1,"x":${"[".repeat(6_000)}${"]".repeat(6_000)}}]}`);
  const refused: Array<[Record<string, string>, string[], string]> = [
    [
      { RESOURCES_FILE: badSchema },
      [],
      `${badSchema}: resource "todos", schema.properties.title.oneOf is not a keyword this server supports; it supports type, required, properties, additionalProperties, enum, const, minLength, maxLength, pattern, format, minimum, maximum, exclusiveMinimum, exclusiveMaximum, items, minItems, maxItems`,
    ],
    [{}, [mixed, "--dialect", "native"], `${mixed}: db.json "posts" mixes integer and string ids; a collection's ids are all numbers or all strings`],
    [{ RESOURCES_FILE: noParent }, [], `${noParent}: resource "todos": its parent "projects" is not defined in the file`],
    [{}, ["--resources", badId], `${badId}: resource "notes": "id" must be "integer" or "string"`],
    [{ DB_FILE: mixed }, ["--resources", badSchema], "DB_FILE and --resources both say what to serve; set one of them"],
    [{}, [deepRecord, "--dialect", "native"], `The db.json ${deepRecord} is not valid: d[0] must not be nested deeper than 64 levels; fix the file`],
    [{}, [mixed, mixed], `Unexpected argument ${mixed}; the command takes one db.json at most, and every setting is a flag such as --port 8080, see --help`],
  ];
  for (const [env, args, line] of refused) {
    const { code, stdout, stderr } = await runToExit(env, args);
    assert.equal(code, 1, line);
    assert.equal(stderr, `${line}\n`);
    assert.equal(stdout, "");
  }
});

test("with DATA_DIR a file's collections outlive a restart; the directory then refuses resources that do not define them", async (t) => {
  const dir = tempDir(t);
  const resources = file(t, "resources.json", RESOURCES);
  const first = await start(["--resources", resources], { DATA_DIR: dir });
  await call(`${first.url}/notes`, { method: "POST", json: { id: "kept", text: "t" } });
  await call(`${first.url}/projects`, { method: "POST", json: { name: "P" } });
  assert.equal(await first.stop(), 0);
  const second = await start(["--resources", resources], { DATA_DIR: dir });
  try {
    assert.deepEqual((await call(`${second.url}/notes/kept`)).body, { id: "kept", text: "t" });
    assert.deepEqual((await call(`${second.url}/projects`, { method: "POST", json: { name: "Q" } })).body, { id: 2, name: "Q" });
  } finally {
    await second.stop();
  }
  const { code, stderr } = await runToExit({ DATA_DIR: dir });
  assert.equal(code, 1);
  assert.match(stderr, /^The data directory .+ holds the collection projects, which the resources served here do not define; serve the resources it was made with, or use another directory\n$/);
});
