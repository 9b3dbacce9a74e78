// White-box tests of conditions.ts: entity-tag lists, weak and strong comparison, and RFC 9110's precedence.
import assert from "node:assert/strict";
import { test } from "node:test";
import { evaluatePreconditions, parseEntityTags, strongMatch, weakMatch } from "../src/api/conditions.ts";
import { formatEntityTag, newEpoch } from "../src/store/tags.ts";

test("formatEntityTag writes a strong tag of the epoch and the version in base 36", () => {
  assert.equal(formatEntityTag("a1b2c3d4", 1), '"a1b2c3d4-1"');
  assert.equal(formatEntityTag("a1b2c3d4", 36), '"a1b2c3d4-10"');
  assert.equal(formatEntityTag("e", 1295), '"e-zz"');
});

test("newEpoch gives eight characters that differ from one call to the next", () => {
  const epochs = new Set(Array.from({ length: 50 }, () => newEpoch()));
  assert.equal(epochs.size, 50);
  for (const epoch of epochs) assert.match(epoch, /^[0-9a-f]{8}$/);
});

const LISTS: Array<[string, ReturnType<typeof parseEntityTags>]> = [
  ['"a"', [{ weak: false, opaque: '"a"' }]],
  ['W/"a"', [{ weak: true, opaque: '"a"' }]],
  ['"a", W/"b"', [{ weak: false, opaque: '"a"' }, { weak: true, opaque: '"b"' }]],
  ['"a",W/"b" ,\t"c"', [{ weak: false, opaque: '"a"' }, { weak: true, opaque: '"b"' }, { weak: false, opaque: '"c"' }]],
  ['""', [{ weak: false, opaque: '""' }]],
  ['"a,b"', [{ weak: false, opaque: '"a,b"' }]],
  ["*", "*"],
  [" * ", "*"],
  ["", []],
  [" , ,", []],
  ["abc", []],
  ['abc, "d"', [{ weak: false, opaque: '"d"' }]],
  ['"unclosed', []],
  ['"a b"', []],
  ['w/"a"', []],
];

for (const [header, expected] of LISTS) {
  test(`parseEntityTags reads ${JSON.stringify(header)}`, () => {
    assert.deepEqual(parseEntityTags(header), expected);
  });
}

// RFC 9110, section 8.8.3.2's table of comparisons.
const COMPARISONS: Array<[string, string, boolean, boolean]> = [
  ['W/"1"', 'W/"1"', false, true],
  ['W/"1"', 'W/"2"', false, false],
  ['W/"1"', '"1"', false, true],
  ['"1"', '"1"', true, true],
];

for (const [a, b, strong, weak] of COMPARISONS) {
  test(`strongMatch(${a}, ${b}) is ${strong} and weakMatch is ${weak}, as RFC 9110's table says`, () => {
    const [x] = parseEntityTags(a) as [{ weak: boolean; opaque: string }];
    const [y] = parseEntityTags(b) as [{ weak: boolean; opaque: string }];
    assert.equal(strongMatch(x, y), strong);
    assert.equal(weakMatch(x, y), weak);
  });
}

const CURRENT = '"e-5"';

const OUTCOMES: Array<[string, Record<string, string>, boolean, string]> = [
  ["no precondition", {}, true, "proceed"],
  ["If-Match with the current tag", { "if-match": CURRENT }, false, "proceed"],
  ["If-Match with the current tag among others", { "if-match": '"x", "e-5"' }, false, "proceed"],
  ["If-Match *", { "if-match": "*" }, false, "proceed"],
  ["If-Match with an old tag", { "if-match": '"e-4"' }, false, "if-match-failed"],
  ["If-Match with the current tag sent weak (strong comparison)", { "if-match": 'W/"e-5"' }, false, "if-match-failed"],
  ["If-Match that is not a tag", { "if-match": "e-5" }, false, "if-match-failed"],
  ["If-None-Match with the current tag", { "if-none-match": CURRENT }, true, "not-modified"],
  ["If-None-Match with the current tag sent weak (weak comparison)", { "if-none-match": 'W/"e-5"' }, true, "not-modified"],
  ["If-None-Match *", { "if-none-match": "*" }, true, "not-modified"],
  ["If-None-Match with an old tag", { "if-none-match": '"e-4"' }, true, "proceed"],
  ["If-None-Match with the current tag", { "if-none-match": CURRENT }, false, "if-none-match-failed"],
  ["If-None-Match *", { "if-none-match": "*" }, false, "if-none-match-failed"],
  // RFC 9110, section 13.2.2: If-Match is evaluated first, and a failure answers at once.
  ["a failing If-Match before a matching If-None-Match", { "if-match": '"old"', "if-none-match": CURRENT }, true, "if-match-failed"],
  ["a passing If-Match, then a matching If-None-Match", { "if-match": CURRENT, "if-none-match": CURRENT }, true, "not-modified"],
  ["a passing If-Match and a different If-None-Match", { "if-match": "*", "if-none-match": '"old"' }, false, "proceed"],
];

for (const [label, headers, read, expected] of OUTCOMES) {
  test(`evaluatePreconditions with ${label} on a ${read ? "read" : "write"} -> ${expected}`, () => {
    assert.equal(evaluatePreconditions(headers, CURRENT, { read }), expected);
  });
}
