// White-box tests of src/seed.ts: a seed is checked by the API's rules, every problem reported at once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createDataSet, defineData } from "../src/api/dataset.ts";
import { checkSeed, SeedError } from "../src/api/seed.ts";

const { resources } = createDataSet();
const AT = "2026-01-31T09:30:00.000Z";

/** The problems checkSeed reports for a seed, or [] when it passes. */
function problemsOf(seed: unknown): string[] {
  try {
    checkSeed(seed, resources);
    return [];
  } catch (error) {
    assert.ok(error instanceof SeedError);
    return error.problems;
  }
}

test("checkSeed returns deep copies of a valid seed's records, collections left out as empty", () => {
  const meta = { tags: ["a"] };
  const seed = { users: [{ id: 4, name: "Eve", email: "eve@example.com", meta }] };
  const records = checkSeed(seed, resources);
  assert.deepEqual(records, { users: seed.users, posts: [], comments: [], replies: [] });
  assert.notEqual(records.users[0], seed.users[0]);
  assert.notEqual(records.users[0]!.meta, meta);
});

test("checkSeed accepts a whole family whose children name seeded parents", () => {
  const seed = {
    posts: [{ id: 2, title: "T", body: "B", createdAt: AT }],
    comments: [{ id: 5, postId: 2, body: "C", createdAt: AT }],
    replies: [{ id: 1, commentId: 5, body: "R", createdAt: AT, extra: null }],
  };
  assert.deepEqual(problemsOf(seed), []);
});

const BAD_SEEDS: Array<[name: string, seed: unknown, problems: string[]]> = [
  ["not an object", [], ['it must be an object such as { "users": [...], "posts": [...] }, not an array']],
  ["null", null, ['it must be an object such as { "users": [...], "posts": [...] }, not null']],
  ["an unknown collection", { user: [] }, ['"user" is not a collection; use users, posts, comments, replies']],
  ["a collection that is not an array", { users: {} }, ["users must be an array of records, not an object"]],
  ["a record that is not an object", { users: ["Ada"] }, ["users[0] must be a record (a JSON object), not a string"]],
  [
    "a record missing its id and breaking the user rules",
    { users: [{ name: " ", email: "nope" }] },
    ["users[0].id is required", "users[0].name must be a non-empty string", "users[0].email must be an e-mail address such as name@example.com"],
  ],
  ["an id that is not a positive whole number", { users: [{ id: 0, name: "A", email: "a@example.com" }] }, ["users[0].id must be a positive whole number"]],
  [
    "two records with one id",
    { users: [{ id: 1, name: "A", email: "a@example.com" }, { id: 1, name: "B", email: "b@example.com" }] },
    ["users[1].id 1 is the id of an earlier user"],
  ],
  [
    "a post without its server-set members",
    { posts: [{ id: 1, title: "T", body: "B" }] },
    ["posts[0].createdAt is required"],
  ],
  [
    "a createdAt that is not the API's timestamp form, or no real date",
    { posts: [{ id: 1, title: "T", body: "B", createdAt: "2026-01-31" }, { id: 2, title: "T", body: "B", createdAt: "2026-02-30T00:00:00.000Z" }] },
    [
      "posts[0].createdAt must be a UTC timestamp such as 2026-01-31T09:30:00.000Z",
      "posts[1].createdAt must be a UTC timestamp such as 2026-01-31T09:30:00.000Z",
    ],
  ],
  [
    "a comment whose post is not in the seed, and a reply whose comment id is not a number",
    {
      comments: [{ id: 1, postId: 8, body: "C", createdAt: AT }],
      replies: [{ id: 1, commentId: "1", body: "R", createdAt: AT }],
    },
    [
      "comments[0].postId must be the id of a post of the seed; none has id 8",
      "replies[0].commentId must be a positive whole number",
    ],
  ],
  [
    "a forbidden member name at any depth",
    { users: [{ id: 1, name: "A", email: "a@example.com", deep: JSON.parse('{"__proto__": 1}') }] },
    ['users[0] must not have a member named "__proto__"'],
  ],
  [
    "values that are not JSON",
    { users: [{ id: 1, name: "A", email: "a@example.com", when: new Date(0) }, { id: 2, name: "B", email: "b@example.com", n: Number.NaN }] },
    [
      "users[0] must hold only JSON values (strings, finite numbers, booleans, null, arrays and plain objects)",
      "users[1] must hold only JSON values (strings, finite numbers, booleans, null, arrays and plain objects)",
    ],
  ],
];

for (const [name, seed, problems] of BAD_SEEDS) {
  test(`checkSeed reports ${name}`, () => {
    assert.deepEqual(problemsOf(seed), problems);
  });
}

test("checkSeed reports nesting deeper than the body limit allows", () => {
  let deep: unknown = 1;
  for (let level = 0; level < 64; level++) deep = [deep];
  assert.deepEqual(problemsOf({ users: [{ id: 1, name: "A", email: "a@example.com", deep }] }), [
    "users[0] must not be nested deeper than 64 levels",
  ]);
});

test("checkSeed reports nesting too deep to walk, and a record that holds itself, the same way, without overflowing the stack", () => {
  let deep: unknown = 1;
  for (let level = 0; level < 100_000; level++) deep = [deep];
  const looped: Record<string, unknown> = { id: 2, name: "B", email: "b@example.com" };
  looped.self = looped;
  assert.deepEqual(problemsOf({ users: [{ id: 1, name: "A", email: "a@example.com", deep }, looped] }), [
    "users[0] must not be nested deeper than 64 levels",
    "users[1] must not be nested deeper than 64 levels",
  ]);
});

test("checkSeed reports a problem once: a child of a parent that has problems of its own is not also an orphan", () => {
  const seed = {
    posts: [{ id: 1, title: "", body: "B", createdAt: AT }],
    comments: [{ id: 1, postId: 1, body: "C", createdAt: AT }],
  };
  assert.deepEqual(problemsOf(seed), ["posts[0].title must be a non-empty string"]);
});

test("SeedError's message is one line with the first ten problems and the count of the rest; problems has all", () => {
  const users = Array.from({ length: 12 }, (_, index) => ({ id: index + 1, name: "", email: "a@example.com" }));
  assert.throws(
    () => checkSeed({ users }, resources),
    (error: SeedError) => {
      assert.equal(error.problems.length, 12);
      const shown = error.problems.slice(0, 10).join("; ");
      assert.equal(error.message, `The seed is not valid: ${shown}; and 2 more`);
      assert.ok(!error.message.includes("\n"));
      return true;
    },
  );
});

test("a seed holding a value JSON text would change is refused: -0, a sparse array, an array with members, a null prototype, a symbol key, a boxed string", () => {
  const users = (extra: Record<string, unknown>) => ({ users: [{ id: 1, name: "Ada Lovelace", email: "ada@example.com", ...extra }] });
  const sparse = [1, , 3];
  const withMember = Object.assign([1], { more: 2 });
  const cases: unknown[] = [
    users({ score: -0 }),
    users({ list: sparse }),
    users({ list: withMember }),
    users({ nested: Object.create(null) }),
    users({ nested: { [Symbol("s")]: 1 } }),
    users({ boxed: new String("a") }),
  ];
  for (const seed of cases) {
    assert.throws(() => checkSeed(seed, defineData().resources), (error: unknown) => {
      assert.ok(error instanceof SeedError);
      assert.deepEqual(error.problems, ["users[0] must hold only JSON values (strings, finite numbers, booleans, null, arrays and plain objects)"]);
      return true;
    });
  }
  // A member named __proto__, as JSON.parse makes one, is kept as a member, and then refused by name.
  const parsed = JSON.parse('{"users":[{"id":1,"name":"Ada","email":"ada@example.com","x":{"__proto__":1}}]}') as unknown;
  assert.throws(() => checkSeed(parsed, defineData().resources), /__proto__/);
});
