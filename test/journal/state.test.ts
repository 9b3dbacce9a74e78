// White-box tests of src/journal/state.ts: replaying effects restores records, order, versions, revisions and highest ids.
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyEntry, copyState, emptyState } from "../../src/store/journal/state.ts";
import { plain } from "./support.ts";

test("applyEntry puts, replaces in place, deletes and clears as a Collection does", () => {
  const state = emptyState("e", ["users", "posts"]);
  assert.equal(applyEntry(state, { effects: [{ put: "users", record: { id: 1, name: "a" }, version: 1 }] }), undefined);
  assert.equal(applyEntry(state, { effects: [{ put: "users", record: { id: 2, name: "b" }, version: 2 }] }), undefined);
  // A replace keeps the record's place in creation order.
  assert.equal(applyEntry(state, { effects: [{ put: "users", record: { id: 1, name: "A" }, version: 3 }] }), undefined);
  assert.equal(applyEntry(state, { effects: [{ put: "posts", record: { id: 7 }, version: 1 }, { delete: "posts", id: 7, version: 2 }] }), undefined);
  assert.deepEqual(plain(state), {
    epoch: "e",
    collections: [
      { name: "users", revision: 3, highestId: 2, records: [{ record: { id: 1, name: "A" }, version: 3 }, { record: { id: 2, name: "b" }, version: 2 }] },
      // The highest id given stays after a delete, so the sequence policy never gives it again.
      { name: "posts", revision: 2, highestId: 7, records: [] },
    ],
  });
  assert.equal(applyEntry(state, { effects: [{ clear: "users", version: 4 }] }), undefined);
  assert.deepEqual(plain(state), {
    epoch: "e",
    collections: [
      { name: "users", revision: 4, highestId: 0, records: [] },
      { name: "posts", revision: 2, highestId: 7, records: [] },
    ],
  });
});

test("applyEntry creates a collection it has not seen, empty", () => {
  const state = emptyState("e", []);
  assert.equal(applyEntry(state, { effects: [{ put: "replies", record: { id: 3 }, version: 5 }] }), undefined);
  assert.equal(state.collections.get("replies")?.revision, 5);
});

test("applyEntry says why an entry does not follow the state: a version not above the revision, a delete of a record not held", () => {
  const state = emptyState("e", ["users"]);
  applyEntry(state, { effects: [{ put: "users", record: { id: 1 }, version: 2 }] });
  assert.equal(applyEntry(state, { effects: [{ put: "users", record: { id: 2 }, version: 2 }] }), "version 2 of users does not follow its revision 2");
  assert.equal(applyEntry(state, { effects: [{ delete: "users", id: 9, version: 3 }] }), "record 9 of users is deleted but not held");
});

test("copyState gives a copy that later entries on the original do not reach", () => {
  const state = emptyState("e", ["users"]);
  applyEntry(state, { effects: [{ put: "users", record: { id: 1 }, version: 1 }] });
  const copy = copyState(state);
  const before = plain(copy);
  applyEntry(state, { effects: [{ put: "users", record: { id: 2 }, version: 2 }, { delete: "users", id: 1, version: 3 }] });
  assert.deepEqual(plain(copy), before);
  assert.notDeepEqual(plain(state), before);
});
