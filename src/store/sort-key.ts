// A record's place in a sorted list as bytes: compared bytewise (memcmp, PostgreSQL's bytea), they order as sortRecords does.
import { codePointOrder, jsonbKeyOrder, type ListRecord, type SortKey, utf8Length } from "./query.ts";

// Type tags, in compareJson's order of types; a missing member after every value (query.ts, compareSortValues).
const NULL = 0x01;
const STRING = 0x02;
const NUMBER = 0x03;
const FALSE = 0x04;
const TRUE = 0x05;
const ARRAY = 0x06;
const OBJECT = 0x07;
const MISSING = 0x08;

/**
 * The bytes of a record under sort keys: each key's value (its bits inverted for a descending
 * key), then the record's id. Each value's bytes are prefix-free (no value's are the start of
 * another's), so comparing two keys byte by byte compares their first values, then the next,
 * then the ids: exactly compareSortRows, ties broken by id ascending under descending keys too.
 */
export function sortKey(record: ListRecord, keys: readonly SortKey[]): Uint8Array {
  const bytes = new Bytes();
  for (const { member, descending } of keys) {
    const start = bytes.length;
    // Own members only, as sortRow reads them.
    if (Object.hasOwn(record, member)) value(bytes, record[member]);
    else bytes.push(MISSING);
    // Inverting prefix-free bytes reverses their order: two values differ first at a byte within both.
    if (descending) bytes.invert(start);
  }
  value(bytes, record.id);
  return bytes.done();
}

/** Writes a JSON value's bytes: its type's tag, then what compareJson compares within the type, in its order. */
function value(bytes: Bytes, json: unknown): void {
  if (json === null) bytes.push(NULL);
  else if (typeof json === "string") {
    bytes.push(STRING);
    text(bytes, json);
  } else if (typeof json === "number") {
    bytes.push(NUMBER);
    bytes.number(json);
  } else if (typeof json === "boolean") bytes.push(json ? TRUE : FALSE);
  else if (Array.isArray(json)) {
    // Length first: compareJson orders a shorter array first, whatever its elements.
    bytes.push(ARRAY);
    bytes.count(json.length);
    for (const element of json) value(bytes, element);
  } else {
    // Members in jsonb's order, each as its name's UTF-8 length, its name and its value: the order compareJson compares them in.
    const object = json as Record<string, unknown>;
    const names = jsonbKeyOrder(Object.keys(object));
    bytes.push(OBJECT);
    bytes.count(names.length);
    for (const name of names) {
      bytes.count(utf8Length(name));
      text(bytes, name);
      value(bytes, object[name]);
    }
  }
}

/**
 * Writes a string in compareCodePoints's order: each UTF-16 unit moved by codePointOrder
 * (lone surrogates included, where that puts them), written as UTF-8 writes a number of up to
 * 16 bits, which keeps numeric order. A 0 byte (from U+0000) is written 0x00 0xFF and the end
 * 0x00 0x01: the end sorts before every unit, so a string sorts before the longer ones it starts.
 */
function text(bytes: Bytes, string: string): void {
  for (let i = 0; i < string.length; i++) {
    const unit = codePointOrder(string.charCodeAt(i));
    if (unit === 0) bytes.push(0x00, 0xff);
    else if (unit < 0x80) bytes.push(unit);
    else if (unit < 0x800) bytes.push(0xc0 | (unit >> 6), 0x80 | (unit & 0x3f));
    else bytes.push(0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f));
  }
  bytes.push(0x00, 0x01);
}

/** A growing byte array. */
class Bytes {
  #array = new Uint8Array(64);
  #view = new DataView(this.#array.buffer);
  length = 0;

  push(...values: number[]): void {
    this.#room(values.length);
    for (const byte of values) this.#array[this.length++] = byte;
  }

  /** A length or a count: 4 bytes, big-endian, so that a smaller one sorts first. */
  count(value: number): void {
    this.#room(4);
    this.#view.setUint32(this.length, value);
    this.length += 4;
  }

  /**
   * A double's 8 bytes, big-endian, with the sign bit set for a positive number and every bit
   * inverted for a negative one: then bytewise order is numeric order. -0 is written as 0,
   * which compareJson counts it equal to.
   */
  number(value: number): void {
    this.#room(8);
    this.#view.setFloat64(this.length, value === 0 ? 0 : value);
    const negative = this.#array[this.length]! >= 0x80;
    for (let i = this.length; i < this.length + 8; i++) {
      this.#array[i] = negative ? ~this.#array[i]! & 0xff : i === this.length ? this.#array[i]! | 0x80 : this.#array[i]!;
    }
    this.length += 8;
  }

  /** Inverts every byte from `start`. */
  invert(start: number): void {
    for (let i = start; i < this.length; i++) this.#array[i] = ~this.#array[i]! & 0xff;
  }

  done(): Uint8Array {
    return this.#array.slice(0, this.length);
  }

  #room(more: number): void {
    if (this.length + more <= this.#array.length) return;
    const grown = new Uint8Array(Math.max(this.#array.length * 2, this.length + more));
    grown.set(this.#array.subarray(0, this.length));
    this.#array = grown;
    this.#view = new DataView(grown.buffer);
  }
}
