// White-box tests of src/journal/crc32.ts: the standard check values, and agreement with zlib's CRC-32.
import assert from "node:assert/strict";
import { test } from "node:test";
import { crc32 } from "../../src/store/journal/crc32.ts";

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

test("crc32 gives the published CRC-32/IEEE check values", () => {
  const vectors: [string, number][] = [
    ["", 0x00000000],
    ["a", 0xe8b7be43],
    ["abc", 0x352441c2],
    ["123456789", 0xcbf43926],
    ["The quick brown fox jumps over the lazy dog", 0x414fa339],
  ];
  for (const [text, expected] of vectors) assert.equal(crc32(utf8(text)), expected, JSON.stringify(text));
});

test("crc32 covers every byte value and agrees with zlib's CRC-32", () => {
  const bytes = new Uint8Array(4096).map((_, i) => (i * 7919) & 0xff);
  assert.equal(crc32(new Uint8Array(256).map((_, i) => i)), 0x29058c73);
  // zlib.crc32 of the same bytes (Node 20.15 and later), written down so that the check
  // holds on every Node 20 as well.
  assert.equal(crc32(bytes), 0xe24cc056);
});
