// Collections a file defines, served over a real socket by the same routes as the built-in
// ones: projects and the todos under them, from the resources file's example.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { createApi } from "../src/http/app.ts";
import { createFileDataSet } from "../src/api/dataset.ts";
import { readResourcesFile } from "../src/api/resources-file.ts";
import { singular } from "../src/api/resources/defined.ts";
import type { Seed } from "../src/store/records.ts";
import { Validator } from "@seriousme/openapi-schema-validator";
import { call } from "./support/http.ts";
import { callEveryOperation, type WalkedDocument } from "./support/openapi-walk.ts";
import { EXAMPLE_RESOURCES } from "./support/resources.ts";

// The example file's projects and todos.
const FILE = { resources: { projects: EXAMPLE_RESOURCES.resources.projects, todos: EXAMPLE_RESOURCES.resources.todos } };

const SEED = { projects: [{ id: 1, name: "Home" }], todos: [{ id: 1, projectId: 1, title: "Sweep" }] };

/** A server over a fresh data set of the file's collections; its URL, and how to close it. */
async function serve(file: unknown = FILE, seed: Seed = SEED): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(createApi({}, createFileDataSet(readResourcesFile(file), { seed })).listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

let url: string;
let close: () => Promise<void>;
before(async () => {
  ({ url, close } = await serve());
});
after(() => close());

test("a file's collections are served with the built-in API: create, nested create, read, list, filter, sort", async () => {
  const project = await call(`${url}/projects`, { method: "POST", json: { name: "Work" } });
  assert.equal(project.status, 201);
  assert.deepEqual(project.body, { id: 2, name: "Work" });
  assert.equal(project.headers.get("location"), "/projects/2");
  const todo = await call(`${url}/projects/2/todos`, { method: "POST", json: { title: "Write", tags: ["a"], done: false } });
  assert.equal(todo.status, 201);
  assert.deepEqual(todo.body, { id: 2, projectId: 2, title: "Write", tags: ["a"], done: false });
  assert.deepEqual((await call(`${url}/todos/2`)).body, todo.body);
  const nested = await call(`${url}/projects/2/todos`);
  assert.deepEqual(nested.body, [todo.body]);
  assert.equal(nested.headers.get("x-total-count"), "1");
  await call(`${url}/projects/2/todos`, { method: "POST", json: { title: "Read" } });
  const sorted = await call(`${url}/projects/2/todos?sort=-title&limit=1`);
  assert.deepEqual(sorted.body, [todo.body]);
  assert.equal(sorted.headers.get("x-total-count"), "2");
  assert.equal(
    sorted.headers.get("link"),
    '</projects/2/todos?sort=-title&limit=1&offset=0>; rel="first", </projects/2/todos?sort=-title&limit=1&offset=1>; rel="next", </projects/2/todos?sort=-title&limit=1&offset=1>; rel="last"',
  );
  assert.deepEqual((await call(`${url}/projects/1/todos?title=Sweep`)).body, [{ id: 1, projectId: 1, title: "Sweep" }]);
  assert.deepEqual((await call(`${url}/projects?sort=-id`)).body, [project.body, { id: 1, name: "Home" }]);
});

test("every schema problem at once, with whole paths; server-set members refused; nothing stored", async () => {
  const bad = await call(`${url}/projects/1/todos`, { method: "POST", json: { id: 7, projectId: 3, done: "no", tags: ["a", 2] } });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, {
    message: "The todo is not valid; fix the members listed in errors",
    code: "VALIDATION_FAILED",
    errors: [
      { path: "id", message: "is set by the server and must not be sent" },
      { path: "projectId", message: "is set by the server and must not be sent" },
      { path: "title", message: "is required" },
      { path: "done", message: "must be true or false" },
      { path: "tags.1", message: "must be a string" },
    ],
  });
  assert.equal((await call(`${url}/projects/1/todos`)).headers.get("x-total-count"), "1");
});

test("a missing parent or record is a 404 naming it in the singular", async () => {
  assert.deepEqual((await call(`${url}/projects/9/todos`, { method: "POST", json: { title: "t" } })).body, { message: "Project not found", code: "RECORD_NOT_FOUND" });
  const missing = await call(`${url}/todos/99`);
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { message: "Todo not found", code: "RECORD_NOT_FOUND" });
});

test("PUT merges and checks the whole result; PATCH too; DELETE of a project deletes its todos", async () => {
  const created = await call(`${url}/projects/1/todos`, { method: "POST", json: { title: "Cook" } });
  const path = created.headers.get("location")!;
  const put = await call(`${url}${path}`, { method: "PUT", json: { done: true } });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body, { ...(created.body as object), done: true });
  const removal = await call(`${url}${path}`, { method: "PATCH", json: { title: null } });
  assert.equal(removal.status, 400);
  assert.deepEqual((removal.body as { errors: unknown }).errors, [{ path: "title", message: "is required" }]);
  const tooLong = await call(`${url}${path}`, { method: "PATCH", json: { title: "x".repeat(201) } });
  assert.deepEqual((tooLong.body as { errors: unknown }).errors, [{ path: "title", message: "must be at most 200 characters long" }]);
  assert.equal((await call(`${url}/projects/1`, { method: "DELETE" })).status, 204);
  assert.equal((await call(`${url}${path}`)).status, 404);
  assert.equal((await call(`${url}/projects/1/todos`)).status, 404);
});

test("a seed that breaks a file's schema names each problem", () => {
  assert.throws(() => createFileDataSet(readResourcesFile(FILE), { seed: { projects: [{ id: 1 }], todos: [{ id: 1, projectId: 1, title: 5 }] } }), {
    name: "SeedError",
    message: /projects\[0\]\.name is required.*todos\[0\]\.title must be a string/s,
  });
});

test("a collection's singular: todos is Todo, entries Entry, address Address, people People", () => {
  assert.deepEqual(["todos", "entries", "address", "people", "s"].map(singular), ["Todo", "Entry", "Address", "People", "S"]);
});

test("the OpenAPI document holds the file's schemas, is valid OpenAPI 3.1, and every example works on a fresh server", async () => {
  const fresh = await serve();
  try {
    const document = (await call(`${fresh.url}/openapi.json`)).body as WalkedDocument & { components: { schemas: Record<string, unknown> } };
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as unknown as Parameters<Validator["validate"]>[0]);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    assert.deepEqual(Object.keys(document.paths), ["/healthz", "/readyz", "/metrics", "/openapi.json", "/projects", "/projects/{id}/todos", "/todos/{id}", "/projects/{id}"]);
    const todo = document.components.schemas.NewTodo as { required: string[]; properties: Record<string, unknown> };
    assert.deepEqual(todo.required, ["title"]);
    assert.deepEqual(todo.properties.title, { type: "string", minLength: 1, maxLength: 200 });
    assert.deepEqual(await callEveryOperation(fresh.url, document), []);
  } finally {
    await fresh.close();
  }
});

test("a schema whose made example fails it needs an example of its own", () => {
  const file = { resources: { codes: { schema: { type: "object", required: ["code"], properties: { code: { type: "string", pattern: "^[A-Z]{3}$" } } } } } };
  assert.throws(() => createFileDataSet(readResourcesFile(file)), {
    name: "ResourcesFileError",
    message: 'resource "codes": the example body made from its schema fails it (code must match the pattern ^[A-Z]{3}$); give the schema "examples": [<a valid body>]',
  });
  const given = { resources: { codes: { schema: { ...file.resources.codes.schema, examples: [{ code: "ABC" }] } } } };
  assert.equal(createFileDataSet(readResourcesFile(given)).resources.codes!.schema!.example.code, "ABC");
});

const NOTES = {
  resources: {
    notes: { id: "string", schema: { type: "object", properties: { text: { type: "string" } } } },
    pages: { parent: { resource: "notes", member: "noteId" } },
  },
};

test("string ids: made by the server (128 random bits), or chosen by the client; 409 when taken; 400 for a bad path id", async () => {
  const notes = await serve(NOTES, { notes: [{ id: "seeded", text: "s" }] });
  try {
    const made = await call(`${notes.url}/notes`, { method: "POST", json: { text: "a" } });
    assert.equal(made.status, 201);
    const id = (made.body as { id: string }).id;
    assert.match(id, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(made.headers.get("location"), `/notes/${id}`);
    const chosen = await call(`${notes.url}/notes`, { method: "POST", json: { id: "my-note", text: "b" } });
    assert.equal(chosen.status, 201);
    assert.deepEqual(chosen.body, { id: "my-note", text: "b" });
    const taken = await call(`${notes.url}/notes`, { method: "POST", json: { id: "my-note" } });
    assert.equal(taken.status, 409);
    assert.deepEqual(taken.body, { message: "A note with id my-note already exists; send another id or none", code: "ID_CONFLICT" });
    const bad = await call(`${notes.url}/notes`, { method: "POST", json: { id: "no spaces", text: 1 } });
    assert.deepEqual((bad.body as { errors: unknown }).errors, [
      { path: "id", message: "must be 1 to 64 of A-Z, a-z, 0-9, _ and -" },
      { path: "text", message: "must be a string" },
    ]);
    assert.deepEqual((await call(`${notes.url}/notes/my-note`)).body, { id: "my-note", text: "b" });
    const invalid = await call(`${notes.url}/notes/no!good`);
    assert.equal(invalid.status, 400);
    assert.deepEqual(invalid.body, { message: 'Id must be 1 to 64 of A-Z, a-z, 0-9, _ and -, not "no!good"', code: "INVALID_ID" });
    assert.deepEqual((await call(`${notes.url}/notes/${"x".repeat(64)}`)).body, { message: "Note not found", code: "RECORD_NOT_FOUND" });
    // Sorted by id: ties and the id itself go by the ids' characters.
    const sorted = (await call(`${notes.url}/notes?sort=id`)).body as Array<{ id: string }>;
    assert.deepEqual(
      sorted.map((note) => note.id),
      [id, "my-note", "seeded"].sort(),
    );
    // A child of a note: nested under its string id, deleted with it.
    const page = await call(`${notes.url}/notes/my-note/pages`, { method: "POST", json: { n: 1 } });
    assert.equal(page.status, 201);
    assert.deepEqual(page.body, { id: 1, noteId: "my-note", n: 1 });
    assert.equal((await call(`${notes.url}/notes/my-note`, { method: "PATCH", json: { text: "c" } })).status, 200);
    assert.equal((await call(`${notes.url}/notes/my-note`, { method: "PUT", json: { id: "other" } })).status, 400);
    assert.equal((await call(`${notes.url}/notes/my-note`, { method: "DELETE" })).status, 204);
    assert.equal((await call(`${notes.url}/pages/1`)).status, 404);
  } finally {
    await notes.close();
  }
});

test("string ids in the OpenAPI document: every example works on a fresh server", async () => {
  const fresh = await serve(NOTES, {});
  try {
    const document = (await call(`${fresh.url}/openapi.json`)).body as WalkedDocument;
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as unknown as Parameters<Validator["validate"]>[0]);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    assert.deepEqual(await callEveryOperation(fresh.url, document), []);
  } finally {
    await fresh.close();
  }
});

test("a seed's string ids are checked: the shape, and a parent's string id", () => {
  assert.throws(() => createFileDataSet(readResourcesFile(NOTES), { seed: { notes: [{ id: 5 }, { id: "a" }], pages: [{ id: 1, noteId: "b" }] } }), {
    name: "SeedError",
    message: /notes\[0\]\.id must be 1 to 64 of A-Z, a-z, 0-9, _ and -.*pages\[0\]\.noteId must be the id of a note of the seed; none has id b/s,
  });
});

test("collections named like Object.prototype's members, or with bounded numbers, are served", async () => {
  const data = createFileDataSet(readResourcesFile({ resources: { constructor: {}, levels: { schema: { required: ["n"], properties: { n: { type: "integer", maximum: 0 } } } } } }), {
    seed: { constructor: [{ id: 1 }] },
  });
  assert.deepEqual(await data.store.snapshot(), { constructor: [{ id: 1 }], levels: [] });
  assert.deepEqual(data.resources.levels!.schema!.example, { n: 0 });
});

test("a collection whose OpenAPI names another component takes is refused when the app is made; the document says whose it is", async () => {
  for (const [resources, message] of [
    [{ errors: {} }, 'resource "errors": its OpenAPI schema Error is taken by another; rename the collection'],
    [{ todo: {}, todos: {} }, 'resource "todos": its OpenAPI schema Todo is taken by another; rename the collection'],
    [{ healths: {} }, 'resource "healths": its OpenAPI schema Health is taken by another; rename the collection'],
  ] as const) {
    assert.throws(() => createApi({ resources: { resources } }), { name: "ResourcesFileError", message });
  }
  const fresh = await serve();
  try {
    const { info } = (await call(`${fresh.url}/openapi.json`)).body as { info: { summary: string; description: string } };
    assert.equal(info.summary, "Collections a resources file or db.json defines, over JSON.");
    assert.match(info.description, /^A JSON REST server: the collections a resources file or a db.json defines\./);
    assert.doesNotMatch(info.description, /[Pp]osts|seeded users/);
  } finally {
    await fresh.close();
  }
});
