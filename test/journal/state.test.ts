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

test("applyEntry applies an update to the version it was made from, in a new record object, keeping its place", () => {
  const state = emptyState("e", ["users"]);
  applyEntry(state, { effects: [{ put: "users", record: { id: 1, name: "a", o: { x: 1 } }, version: 1 }] });
  applyEntry(state, { effects: [{ put: "users", record: { id: 2, name: "b" }, version: 2 }] });
  const before = state.collections.get("users")!.records.get(1)!.record;
  const change = { set: [["name", "A"]] as [string, unknown][], in: [["o", { set: [["y", 2]] as [string, unknown][] }]] as [string, { set: [string, unknown][] }][] };
  assert.equal(applyEntry(state, { effects: [{ update: "users", id: 1, from: 1, change, version: 3 }] }), undefined);
  assert.deepEqual(plain(state), {
    epoch: "e",
    collections: [{ name: "users", revision: 3, highestId: 2, records: [{ record: { id: 1, name: "A", o: { x: 1, y: 2 } }, version: 3 }, { record: { id: 2, name: "b" }, version: 2 }] }],
  });
  // A compaction may be writing the record replaced: it is never changed.
  assert.deepEqual(before, { id: 1, name: "a", o: { x: 1 } });
});

test("applyEntry says why an update does not follow the state: a record not held, another version, a change that does not fit, a new id", () => {
  const state = emptyState("e", ["users"]);
  applyEntry(state, { effects: [{ put: "users", record: { id: 1, name: "a" }, version: 2 }] });
  assert.equal(applyEntry(state, { effects: [{ update: "users", id: 9, from: 1, change: {}, version: 3 }] }), "record 9 of users is updated but not held");
  assert.equal(
    applyEntry(state, { effects: [{ update: "users", id: 1, from: 1, change: {}, version: 4 }] }),
    "record 1 of users is updated from version 1 but is at version 2",
  );
  assert.equal(
    applyEntry(state, { effects: [{ update: "users", id: 1, from: 2, change: { unset: ["email"] }, version: 5 }] }),
    'record 1 of users does not take its update: the member "email" is removed but not held',
  );
  assert.equal(
    applyEntry(state, { effects: [{ update: "users", id: 1, from: 2, change: { set: [["id", 5]] }, version: 6 }] }),
    "record 1 of users is given the id 5 by its update",
  );
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
