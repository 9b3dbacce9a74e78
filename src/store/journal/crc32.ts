// CRC-32 (IEEE 802.3, the one zip and PNG use) over bytes, in plain TypeScript with a lookup table.
// zlib.crc32 would do the same work natively, but it arrived in Node 20.15 and 22.2, and the
// server runs on every Node 20 as well as on Deno and Bun; a table costs 1 KiB and is fast enough.

// The reflected polynomial of CRC-32/IEEE.
const POLYNOMIAL = 0xedb88320;

// One entry per byte value: the CRC of that byte alone, so each input byte costs one lookup.
const TABLE = /* @__PURE__ */ makeTable();

function makeTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? POLYNOMIAL ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** The CRC-32 (IEEE) of `bytes`, as an unsigned 32-bit integer; `crc32(utf8("123456789")) === 0xcbf43926`. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
