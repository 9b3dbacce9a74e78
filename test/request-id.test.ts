// White-box tests of src/request-id.ts: which incoming ids are kept, and the ids made.
import assert from "node:assert/strict";
import { test } from "node:test";
import { newRequestId, requestIdOf } from "../src/http/request-id.ts";

test("requestIdOf keeps a sane X-Request-Id: 1 to 128 letters, digits or -_.:+=/", () => {
  for (const id of ["a", "checkout-42", "0f8fad5b-d9cb-469f-a165-70867728950e", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "dGVzdA==", "a/b+c:d.e_f", "x".repeat(128)]) {
    assert.equal(requestIdOf(id), id);
  }
});

test("requestIdOf replaces an id that is absent, empty, too long, repeated or holds other characters", () => {
  for (const header of [undefined, "", "x".repeat(129), "two words", "a,b", "a, b", "ü", "a\tb", '"quoted"', "<script>", ["a", "b"]]) {
    assert.match(requestIdOf(header), /^[0-9a-f]{12}-[0-9a-z]+$/, String(header));
  }
});

test("newRequestId gives a different id each time: this process's prefix and a count", () => {
  const first = newRequestId();
  const second = newRequestId();
  const [prefix, count] = first.split("-");
  assert.equal(second, `${prefix}-${Number(count) + 1}`);
});

test("newRequestId counts in decimal without a gap or a repeat across thousands", () => {
  const [prefix, start] = newRequestId().split("-");
  // Past every thousands boundary up to 10,000, where each thousand's ids are made anew, and
  // past 10,000 itself, where an id grows a digit.
  for (let expected = Number(start) + 1; expected <= Number(start) + 10_500; expected++) {
    assert.equal(newRequestId(), `${prefix}-${expected}`);
  }
});
