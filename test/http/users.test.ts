// Black-box tests of the users API (seed spec parts 2, 4 and 7; contract 4).
import assert from "node:assert/strict";
import { test } from "node:test";
import { invalid } from "../support/family.ts";
import { assertJsonHeaders, call } from "../support/http.ts";
import { fresh } from "../support/target.ts";

const ADA = { id: 1, name: "Ada Lovelace", email: "ada@example.com" };
const ALAN = { id: 2, name: "Alan Turing", email: "alan@example.com" };
const USER_NOT_FOUND = { message: "User not found", code: "USER_NOT_FOUND" };
const GRACE = { name: "Grace Hopper", email: "grace@example.com" };

test("GET /users -> 200 with the two seeded users in creation order", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/users`);
  assert.equal(response.status, 200);
  assertJsonHeaders(response);
  assert.equal(response.headers.get("x-total-count"), "2");
  assert.deepEqual(response.body, [ADA, ALAN]);
});

test("GET /users/{id} -> 200 with the user, reading the id in base 10", async (t) => {
  const url = await fresh(t);
  for (const [path, user] of [["/users/1", ADA], ["/users/2", ALAN], ["/users/01", ADA], ["/users/002", ALAN]] as const) {
    const response = await call(url + path);
    assert.equal(response.status, 200, path);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, user, path);
  }
});

test("GET, PUT and DELETE /users/{id} of a missing user -> 404 User not found", async (t) => {
  const url = await fresh(t);
  for (const method of ["GET", "PUT", "DELETE"]) {
    const response = await call(`${url}/users/3`, { method, json: method === "PUT" ? { name: "x" } : undefined });
    assert.equal(response.status, 404, method);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, USER_NOT_FOUND, method);
  }
});

test("POST /users -> 201 with id = count + 1, the record, and Location", async (t) => {
  const url = await fresh(t);
  const created = await call(`${url}/users`, { method: "POST", json: GRACE });
  assert.equal(created.status, 201);
  assertJsonHeaders(created);
  assert.equal(created.headers.get("location"), "/users/3");
  assert.deepEqual(created.body, { id: 3, ...GRACE });
  assert.deepEqual((await call(`${url}/users/3`)).body, { id: 3, ...GRACE });
  const list = await call(`${url}/users`);
  assert.deepEqual(list.body, [ADA, ALAN, { id: 3, ...GRACE }]);
  assert.equal(list.headers.get("x-total-count"), "3");
});

test("POST /users stores every other member as sent, whatever its JSON type", async (t) => {
  const url = await fresh(t);
  const extra = { role: "admin", age: 85, tags: ["navy", 1], address: { city: "Arlington" }, retired: true, fax: null };
  const created = await call(`${url}/users`, { method: "POST", json: { ...GRACE, ...extra } });
  assert.equal(created.status, 201);
  assert.deepEqual(created.body, { id: 3, ...GRACE, ...extra });
  assert.deepEqual((await call(`${url}/users/3`)).body, { id: 3, ...GRACE, ...extra });
});

test("POST /users with an id -> 201 with the body's id replacing the assigned one", async (t) => {
  const url = await fresh(t);
  const created = await call(`${url}/users`, { method: "POST", json: { id: 10, ...GRACE } });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get("location"), "/users/10");
  assert.deepEqual(created.body, { id: 10, ...GRACE });
  // The next assigned id is still the count + 1: 4, since three users are held.
  const next = await call(`${url}/users`, { method: "POST", json: { name: "Next", email: "next@example.com" } });
  assert.deepEqual(next.body, { id: 4, name: "Next", email: "next@example.com" });
});

test("POST /users with the id of a held user -> 409 naming it, and nothing overwritten", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/users`, { method: "POST", json: { id: 1, ...GRACE } });
  assert.equal(response.status, 409);
  assertJsonHeaders(response);
  assert.deepEqual(response.body, {
    message: "A user with id 1 already exists; send another id or none",
    code: "ID_CONFLICT",
  });
  assert.deepEqual((await call(`${url}/users`)).body, [ADA, ALAN]);
});

test("POST /users after a delete whose count + 1 is a held id -> 409, nothing overwritten", async (t) => {
  const url = await fresh(t);
  assert.equal((await call(`${url}/users/1`, { method: "DELETE" })).status, 204);
  // One user is held, so the assigned id is 2: user 2's id (seed spec part 4, rule 5).
  const response = await call(`${url}/users`, { method: "POST", json: GRACE });
  assert.equal(response.status, 409);
  // No id was sent, so the message names the rule that chose one and what to send instead.
  assert.deepEqual(response.body, {
    message:
      "A new user gets id 2, the number of users held plus one, but a user with id 2 already exists; send an id that is not taken",
    code: "ID_CONFLICT",
  });
  assert.deepEqual((await call(`${url}/users`)).body, [ALAN]);
  // With a free id chosen by the client, the create succeeds.
  const chosen = await call(`${url}/users`, { method: "POST", json: { id: 7, ...GRACE } });
  assert.equal(chosen.status, 201);
  assert.deepEqual((await call(`${url}/users`)).body, [ALAN, { id: 7, ...GRACE }]);
});

test("POST /users after deleting the last user -> 201 with the freed id", async (t) => {
  const url = await fresh(t);
  assert.equal((await call(`${url}/users/2`, { method: "DELETE" })).status, 204);
  const created = await call(`${url}/users`, { method: "POST", json: GRACE });
  assert.equal(created.status, 201);
  assert.deepEqual(created.body, { id: 2, ...GRACE });
});

const INVALID_CREATES: Array<[string, unknown, Array<{ path: string; message: string }>]> = [
  ["no members", {}, [
    { path: "name", message: "is required" },
    { path: "email", message: "is required" },
  ]],
  ["an empty name and a bad email", { name: "", email: "ada" }, [
    { path: "name", message: "must be a non-empty string" },
    { path: "email", message: "must be an e-mail address such as name@example.com" },
  ]],
  ["a blank name", { name: "   ", email: "a@b.io" }, [{ path: "name", message: "must be a non-empty string" }]],
  ["a number as name", { name: 5, email: "a@b.io" }, [{ path: "name", message: "must be a non-empty string" }]],
  ["null as email", { name: "A", email: null }, [
    { path: "email", message: "must be an e-mail address such as name@example.com" },
  ]],
  ["an email with a space", { name: "A", email: "a b@c.io" }, [
    { path: "email", message: "must be an e-mail address such as name@example.com" },
  ]],
  ["an email with no dot in the domain", { name: "A", email: "a@localhost" }, [
    { path: "email", message: "must be an e-mail address such as name@example.com" },
  ]],
  ["id as a string", { id: "3", ...GRACE }, [{ path: "id", message: "must be a positive whole number" }]],
  ["id 0", { id: 0, ...GRACE }, [{ path: "id", message: "must be a positive whole number" }]],
  ["a negative id", { id: -1, ...GRACE }, [{ path: "id", message: "must be a positive whole number" }]],
  ["a fractional id", { id: 1.5, ...GRACE }, [{ path: "id", message: "must be a positive whole number" }]],
  ["an id past 2^53 - 1", { id: 2 ** 53, ...GRACE }, [{ path: "id", message: "must be a positive whole number" }]],
  ["a bad id, name and email at once", { id: null, name: [], email: {} }, [
    { path: "id", message: "must be a positive whole number" },
    { path: "name", message: "must be a non-empty string" },
    { path: "email", message: "must be an e-mail address such as name@example.com" },
  ]],
];

for (const [label, json, errors] of INVALID_CREATES) {
  test(`POST /users with ${label} -> 400 VALIDATION_FAILED listing every wrong member`, async (t) => {
    const url = await fresh(t);
    const response = await call(`${url}/users`, { method: "POST", json });
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, invalid("user", errors));
    assert.deepEqual((await call(`${url}/users`)).body, [ADA, ALAN]);
  });
}

test("POST /users accepts an e-mail address of 254 characters and refuses one of 255", async (t) => {
  const url = await fresh(t);
  const domain = "@example.com";
  const longest = `${"a".repeat(254 - domain.length)}${domain}`;
  assert.equal((await call(`${url}/users`, { method: "POST", json: { name: "L", email: longest } })).status, 201);
  const tooLong = await call(`${url}/users`, { method: "POST", json: { name: "L", email: `a${longest}` } });
  assert.equal(tooLong.status, 400);
});

test("PUT /users/{id} -> 200 merging members over the record, keeping the rest", async (t) => {
  const url = await fresh(t);
  await call(`${url}/users`, { method: "POST", json: { ...GRACE, role: "admin", tags: ["a"] } });
  const updated = await call(`${url}/users/3`, {
    method: "PUT",
    json: { email: "hopper@example.com", tags: ["b", "c"], rank: "rear admiral" },
  });
  const expected = { id: 3, name: "Grace Hopper", email: "hopper@example.com", role: "admin", tags: ["b", "c"], rank: "rear admiral" };
  assert.equal(updated.status, 200);
  assertJsonHeaders(updated);
  assert.deepEqual(updated.body, expected);
  assert.deepEqual((await call(`${url}/users/3`)).body, expected);
});

test("PUT /users/{id} merges shallowly: a nested object sent replaces the stored one whole", async (t) => {
  const url = await fresh(t);
  await call(`${url}/users/1`, { method: "PUT", json: { address: { city: "London", street: "St James's Square" } } });
  const updated = await call(`${url}/users/1`, { method: "PUT", json: { address: { city: "Marylebone" } } });
  assert.deepEqual(updated.body, { ...ADA, address: { city: "Marylebone" } });
});

test("PUT /users/{id} with {} -> 200 and nothing changes", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/users/2`, { method: "PUT", json: {} });
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, ALAN);
  assert.deepEqual((await call(`${url}/users`)).body, [ADA, ALAN]);
});

test("PUT /users/{id} keeps the user's place in the list", async (t) => {
  const url = await fresh(t);
  await call(`${url}/users/1`, { method: "PUT", json: { name: "Augusta Ada King" } });
  const list = await call(`${url}/users`);
  assert.deepEqual(list.body, [{ ...ADA, name: "Augusta Ada King" }, ALAN]);
});

test("PUT /users/{id} with the same id in the body -> 200", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/users/01`, { method: "PUT", json: { id: 1, name: "Ada" } });
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, { ...ADA, name: "Ada" });
});

const INVALID_UPDATES: Array<[string, unknown, Array<{ path: string; message: string }>]> = [
  ["another id", { id: 2 }, [{ path: "id", message: "must equal the id in the path (1)" }]],
  ["an id as a string", { id: "1" }, [{ path: "id", message: "must equal the id in the path (1)" }]],
  ["an empty name", { name: "" }, [{ path: "name", message: "must be a non-empty string" }]],
  ["a bad email", { email: "not-an-address" }, [
    { path: "email", message: "must be an e-mail address such as name@example.com" },
  ]],
  ["null for name and email", { name: null, email: null }, [
    { path: "name", message: "must be a non-empty string" },
    { path: "email", message: "must be an e-mail address such as name@example.com" },
  ]],
];

for (const [label, json, errors] of INVALID_UPDATES) {
  test(`PUT /users/1 with ${label} -> 400 VALIDATION_FAILED and the user unchanged`, async (t) => {
    const url = await fresh(t);
    const response = await call(`${url}/users/1`, { method: "PUT", json });
    assert.equal(response.status, 400);
    assertJsonHeaders(response);
    assert.deepEqual(response.body, invalid("user", errors));
    assert.deepEqual((await call(`${url}/users/1`)).body, ADA);
  });
}

test("DELETE /users/{id} -> 204 with no body, and the user is gone", async (t) => {
  const url = await fresh(t);
  const response = await call(`${url}/users/1`, { method: "DELETE" });
  assert.equal(response.status, 204);
  assert.equal(response.text, "");
  assert.equal(response.headers.get("content-type"), null);
  const list = await call(`${url}/users`);
  assert.deepEqual(list.body, [ALAN]);
  assert.equal(list.headers.get("x-total-count"), "1");
  assert.deepEqual((await call(`${url}/users/1`)).body, USER_NOT_FOUND);
  assert.equal((await call(`${url}/users/1`, { method: "DELETE" })).status, 404);
});

test("two instances never share users", async (t) => {
  const first = await fresh(t);
  const second = await fresh(t);
  assert.equal((await call(`${first}/users`, { method: "POST", json: GRACE })).status, 201);
  assert.equal((await call(`${first}/users/1`, { method: "DELETE" })).status, 204);
  assert.deepEqual((await call(`${second}/users`)).body, [ADA, ALAN]);
});
