// White-box tests of reading a resources file into definitions (src/api/resources-file.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FieldError } from "../src/api/errors.ts";
import { readDbJson, readResourcesFile, ResourcesFileError } from "../src/api/resources-file.ts";
import { EXAMPLE_RESOURCES, JSON_SERVER_DB } from "./support/resources.ts";

const EXAMPLE = EXAMPLE_RESOURCES;

test("the example file: three collections, parents first, with their id types, parents and compiled schemas", () => {
  const definitions = readResourcesFile(EXAMPLE);
  assert.deepEqual(
    definitions.map(({ name, id, parent }) => ({ name, id, parent })),
    [
      { name: "projects", id: "integer", parent: undefined },
      { name: "todos", id: "integer", parent: { resource: "projects", member: "projectId" } },
      { name: "notes", id: "string", parent: undefined },
    ],
  );
  const todos = definitions[1]!;
  assert.equal(todos.schema, EXAMPLE.resources.todos.schema);
  const errors: FieldError[] = [];
  todos.check!({ title: "", tags: ["a", 1] }, "", errors);
  assert.deepEqual(errors, [
    { path: "title", message: "must be at least 1 character long" },
    { path: "tags.1", message: "must be a string" },
  ]);
  assert.equal(definitions[2]!.check, undefined, "no schema: any object");
});

test("a child defined before its parent is read after it", () => {
  const definitions = readResourcesFile({
    resources: { c: { parent: { resource: "b", member: "bId" } }, b: { parent: { resource: "a", member: "aId" } }, a: {} },
  });
  assert.deepEqual(
    definitions.map((definition) => definition.name),
    ["a", "b", "c"],
  );
});

test("every bad definition ends with one line naming its place", () => {
  const refused: Array<[unknown, string]> = [
    [[], 'A resources file holds an object with a "resources" object, from each collection\'s name to its definition'],
    [{ resources: {}, extra: 1 }, 'A resources file holds only "resources"; "extra" is not known'],
    [{ resources: {} }, 'A resources file defines at least one collection under "resources"'],
    [{ resources: { "to dos": {} } }, 'resource "to dos": a collection\'s name starts with a letter and holds at most 64 letters, digits, _ and -'],
    [{ resources: { healthz: {} } }, 'resource "healthz": /healthz is the server\'s own path; name the collection otherwise'],
    [{ resources: { todos: [] } }, 'resource "todos" must be an object with "schema", "id" or "parent"'],
    [{ resources: { todos: { fields: {} } } }, 'resource "todos": "fields" is not known; a definition has "schema", "id" and "parent"'],
    [{ resources: { todos: { id: "uuid" } } }, 'resource "todos": "id" must be "integer" or "string"'],
    [{ resources: { todos: { schema: { type: "array" } } } }, 'resource "todos": "schema" must be a JSON Schema of an object (its "type", if given, "object")'],
    [
      { resources: { todos: { schema: { properties: { a: { anyOf: [] } } } } } },
      'resource "todos", schema.properties.a.anyOf is not a keyword this server supports; it supports type, required, properties, additionalProperties, enum, const, minLength, maxLength, pattern, format, minimum, maximum, exclusiveMinimum, exclusiveMaximum, items, minItems, maxItems',
    ],
    [{ resources: { todos: { parent: "projects" } } }, 'resource "todos": "parent" must be { "resource": "<collection>", "member": "<member holding its id>" }'],
    [{ resources: { todos: { parent: { resource: "projects", member: "id" } } } }, 'resource "todos": the parent\'s member "id" must be a name of letters, digits, _ and -, other than "id"'],
    [{ resources: { todos: { parent: { resource: "projects", member: "projectId" } } } }, 'resource "todos": its parent "projects" is not defined in the file'],
    [
      { resources: { projects: {}, todos: { schema: { properties: { projectId: {} } }, parent: { resource: "projects", member: "projectId" } } } },
      'resource "todos": "projectId" holds the parent\'s id, which the server sets; leave it out of the schema',
    ],
    [
      { resources: { a: { parent: { resource: "b", member: "bId" } }, b: { parent: { resource: "a", member: "aId" } } } },
      'resource "a": its parents loop back to it (a -> b -> a)',
    ],
    [{ resources: { todos: { schema: { required: ["id"] } } } }, 'resource "todos": "id" is set by its "id" type, not the schema; leave it out of the schema'],
    [{ resources: { todos: { schema: { properties: { id: {} } } } } }, 'resource "todos": "id" is set by its "id" type, not the schema; leave it out of the schema'],
    [
      { resources: { projects: {}, todos: { schema: { required: ["projectId"] }, parent: { resource: "projects", member: "projectId" } } } },
      'resource "todos": "projectId" holds the parent\'s id, which the server sets; leave it out of the schema',
    ],
  ];
  for (const [json, message] of refused) assert.throws(() => readResourcesFile(json), { name: "ResourcesFileError", message });
  assert.ok(ResourcesFileError.prototype instanceof TypeError);
});

test("json-server's example db.json (v1, string ids): posts and comments linked by postId; profile left out", () => {
  const db = JSON_SERVER_DB;

  const { definitions, records, leftOut } = readDbJson(db);
  assert.deepEqual(
    definitions.map(({ name, id, parent, schema, check }) => ({ name, id, parent, schema, check })),
    [
      { name: "posts", id: "string", parent: undefined, schema: undefined, check: undefined },
      { name: "comments", id: "string", parent: { resource: "posts", member: "postId" }, schema: undefined, check: undefined },
    ],
  );
  assert.deepEqual(records, { posts: db.posts, comments: db.comments });
  assert.deepEqual(leftOut, ["profile"]);
});

test("json-server's older example (integer ids) links too; a member naming a missing record, or a loop, links nothing", () => {
  const { definitions } = readDbJson({
    posts: [{ id: 1, title: "json-server", author: "typicode" }],
    comments: [{ id: 1, body: "some comment", postId: 1 }],
    users: [{ id: 1, postId: 2 }],
    profile: { name: "typicode" },
  });
  assert.deepEqual(
    definitions.map(({ name, id, parent }) => ({ name, id, parent })),
    [
      { name: "posts", id: "integer", parent: undefined },
      { name: "comments", id: "integer", parent: { resource: "posts", member: "postId" } },
      { name: "users", id: "integer", parent: undefined },
    ],
  );
  const loop = readDbJson({ as: [{ id: 1, bId: 1 }], bs: [{ id: 1, aId: 1 }] }).definitions;
  assert.deepEqual(
    loop.map(({ name, parent }) => ({ name, parent })),
    [
      { name: "bs", parent: undefined },
      { name: "as", parent: { resource: "bs", member: "bId" } },
    ],
  );
  assert.deepEqual(readDbJson({ todos: [] }).definitions[0]!.id, "integer");
  // `categoryId` names `categories`.
  const categories = readDbJson({ categories: [{ id: 1 }], products: [{ id: 1, categoryId: 1 }] }).definitions;
  assert.deepEqual(categories[1]!.parent, { resource: "categories", member: "categoryId" });
});

test("a db.json it cannot serve ends with one line naming the collection", () => {
  const refused: Array<[unknown, string]> = [
    [[], "A db.json holds an object, from each collection's name to an array of its records"],
    [{ profile: {} }, "A db.json defines at least one collection: a top-level array of records"],
    [{ posts: [{ title: "t" }] }, 'db.json "posts"[0] has no id; give every record one'],
    [{ posts: [{ id: 0 }] }, 'db.json "posts"[0] has an id that is neither a whole number from 1 nor 1 to 64 of A-Z, a-z, 0-9, _ and -; give every record one'],
    [{ posts: [{ id: 1 }, { id: "2" }] }, 'db.json "posts" mixes integer and string ids; a collection\'s ids are all numbers or all strings'],
    [{ posts: [{ id: 1 }, { id: 1 }] }, 'db.json "posts" holds id 1 twice'],
    [{ posts: [1] }, 'db.json "posts"[0] is not an object'],
    [{ "my posts": [] }, 'db.json "my posts": a collection\'s name starts with a letter and holds at most 64 letters, digits, _ and -'],
  ];
  for (const [json, message] of refused) assert.throws(() => readDbJson(json), { name: "ResourcesFileError", message });
});
