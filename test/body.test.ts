// White-box tests of src/body.ts: the Content-Type check and the JSON object parser with its safety limits.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { BODIES_AT_ONCE, checkMediaType } from "../src/http/body.ts";
import { countValues, MAX_DEPTH, measureJson, parseJsonObject } from "../src/api/json.ts";
import { ERROR_CATALOGUE, HttpError } from "../src/api/errors.ts";
import { RESPONSES } from "../src/openapi/components.ts";

const encoder = new TextEncoder();

function parse(text: string): unknown {
  return parseJsonObject(encoder.encode(text));
}

/** A body of `levels` objects, each the only member of the one around it. */
function nestedObjects(levels: number, innermost = "1"): string {
  return '{"a":'.repeat(levels - 1) + `{"a":${innermost}}` + "}".repeat(levels - 1);
}

/** A body whose top-level object holds `levels - 1` arrays, one inside the next. */
function nestedArrays(levels: number): string {
  return '{"a":' + "[".repeat(levels - 1) + "]".repeat(levels - 1) + "}";
}

/** A body of `levels` levels that alternate between an object and an array holding one object. */
function nestedMixed(levels: number): string {
  // Level 1 is the top-level object; each '[{"b":' pair adds two levels.
  const pairs = Math.floor((levels - 1) / 2);
  const innermost = (levels - 1) % 2 === 1 ? "[]" : "1";
  return '{"a":' + '[{"b":'.repeat(pairs) + innermost + "}]".repeat(pairs) + "}";
}

test("checkMediaType accepts application/json in any case, with or without a UTF-8 charset", () => {
  const headers = [
    "application/json",
    "Application/JSON",
    "APPLICATION/JSON",
    " application/json ",
    "application/json;charset=utf-8",
    "application/json; charset=utf-8",
    "application/json; charset=UTF-8",
    "application/json; charset=utf8",
    "application/json; charset=UTF8",
    'application/json; charset="utf-8"',
    'application/json; charset="UTF-8"',
    "application/json; CHARSET=utf-8",
    "application/json; charset=utf-8; profile=x",
    "application/json; profile=x",
  ];
  for (const header of headers) {
    assert.doesNotThrow(() => checkMediaType(header), header);
  }
});

test("checkMediaType refuses a missing or non-JSON Content-Type with 415 UNSUPPORTED_MEDIA_TYPE", () => {
  const cases: Array<[header: string | undefined, message: string]> = [
    [undefined, "Content-Type must be application/json; the header is missing"],
    ["", "Content-Type must be application/json"],
    ["text/plain", "Content-Type must be application/json"],
    ["text/json", "Content-Type must be application/json"],
    ["application/x-www-form-urlencoded", "Content-Type must be application/json"],
    ["multipart/form-data; boundary=x", "Content-Type must be application/json"],
    ["application/jsonp", "Content-Type must be application/json"],
    ["application/json-patch+json", "Content-Type must be application/json"],
    ["application/problem+json", "Content-Type must be application/json"],
    ["application/ json", "Content-Type must be application/json"],
    ["json", "Content-Type must be application/json"],
    ["charset=utf-8; application/json", "Content-Type must be application/json"],
  ];
  for (const [header, message] of cases) {
    assert.throws(
      () => checkMediaType(header),
      { name: "HttpError", code: "UNSUPPORTED_MEDIA_TYPE", status: 415, message },
      String(header),
    );
  }
});

test("checkMediaType refuses a charset other than UTF-8 with 415 UNSUPPORTED_MEDIA_TYPE", () => {
  const headers = [
    "application/json; charset=latin1",
    "application/json; charset=iso-8859-1",
    "application/json; charset=utf-16",
    'application/json; charset="utf-16"',
    "application/json; charset=us-ascii",
    "application/json; charset=",
    "application/json; charset",
    "application/json; charset=utf-8; charset=latin1",
  ];
  for (const header of headers) {
    assert.throws(
      () => checkMediaType(header),
      { name: "HttpError", code: "UNSUPPORTED_MEDIA_TYPE", status: 415, message: "Content-Type charset must be utf-8" },
      header,
    );
  }
});

test("parseJsonObject returns the object a valid body holds", () => {
  const cases: Array<[text: string, value: unknown]> = [
    ["{}", {}],
    [' \t\r\n{ "a" : 1 }\n', { a: 1 }],
    [
      '{"name":"Ada","tags":[1,"x",null,true,false],"nested":{"k":{}},"n":-0.5e2}',
      { name: "Ada", tags: [1, "x", null, true, false], nested: { k: {} }, n: -50 },
    ],
    ['{"name":"Zo\\u00eb \\ud83d\\ude00"}', { name: "Zoë 😀" }],
    ['{"name":"Zoë 😀"}', { name: "Zoë 😀" }],
    ['{"big":1.7976931348623157e308,"tiny":1e-400}', { big: Number.MAX_VALUE, tiny: 0 }],
    ['{"__proto":1,"constructors":2,"Prototype":3,"proto":4,"_constructor":5,"Constructor":6,"__PROTO__":7,"__proto_x":8}', {
      __proto: 1,
      constructors: 2,
      Prototype: 3,
      proto: 4,
      _constructor: 5,
      Constructor: 6,
      __PROTO__: 7,
      __proto_x: 8,
    }],
    // The same names one level down, where the whole walk reads them rather than the flat pass.
    ['{"a":{"Prototype":1,"Constructor":2,"__PROTO__":3,"__proto_x":4,"prototypes":5}}', {
      a: { Prototype: 1, Constructor: 2, __PROTO__: 3, __proto_x: 4, prototypes: 5 },
    }],
    ['{"a":1,"a":2}', { a: 2 }],
  ];
  for (const [text, value] of cases) {
    assert.deepEqual(parse(text), value, text);
  }
});

test("parseJsonObject ignores a UTF-8 byte order mark before the JSON", () => {
  const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
  const body = encoder.encode('{"a":1}');
  assert.deepEqual(parseJsonObject(new Uint8Array([...bom, ...body])), { a: 1 });
});

test("parseJsonObject refuses an empty or blank body with 400 EMPTY_BODY", () => {
  const cases: Array<[name: string, bytes: Uint8Array]> = [
    ["no bytes", new Uint8Array(0)],
    ["one space", encoder.encode(" ")],
    ["JSON white space only", encoder.encode(" \t\r\n \n")],
    ["a byte order mark only", Uint8Array.of(0xef, 0xbb, 0xbf)],
  ];
  for (const [name, bytes] of cases) {
    assert.throws(
      () => parseJsonObject(bytes),
      { name: "HttpError", code: "EMPTY_BODY", status: 400, message: "Request body is empty; send a JSON object" },
      name,
    );
  }
});

test("parseJsonObject refuses a body of white space JSON does not count as such with 400 INVALID_JSON", () => {
  const cases: Array<[name: string, bytes: Uint8Array]> = [
    ["a no-break space", Uint8Array.of(0xc2, 0xa0)],
    ["a line separator", Uint8Array.of(0xe2, 0x80, 0xa8)],
    ["two byte order marks", Uint8Array.of(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf)],
  ];
  for (const [name, bytes] of cases) {
    assert.throws(() => parseJsonObject(bytes), { name: "HttpError", code: "INVALID_JSON", status: 400 }, name);
  }
});

test("parseJsonObject refuses malformed or truncated JSON with 400 INVALID_JSON and the SyntaxError as cause", () => {
  const texts = [
    "{",
    "}",
    '{"a":}',
    "{a:1}",
    "{'a':1}",
    '{"a":1,}',
    '{"a":1}}',
    "{} {}",
    '{"a":undefined}',
    '{"a":NaN}',
    '{"a":01}',
    '{"a":"line\nbreak"}',
    "nul",
    "tru",
    '{"name":"Ada","email":"ada@exa',
    '{"name":"Ada","tags":[1,2',
    '{"name":"Ada",',
  ];
  for (const text of texts) {
    assert.throws(
      () => parse(text),
      (error: unknown) => {
        assert.ok(error instanceof HttpError, text);
        assert.equal(error.code, "INVALID_JSON", text);
        assert.equal(error.status, 400, text);
        assert.equal(error.message, "Request body is malformed JSON", text);
        assert.ok(error.cause instanceof SyntaxError, text);
        return true;
      },
    );
  }
});

test("parseJsonObject refuses a body that is not valid UTF-8 with 400 INVALID_ENCODING", () => {
  const cases: Array<[name: string, bytes: number[]]> = [
    ["a 0xff byte inside a string", [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]],
    ["a lone continuation byte", [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d]],
    ["an overlong slash", [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]],
    ["an encoded surrogate", [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]],
    ["a multi-byte character cut short at the end", [0x7b, 0x7d, 0xe2, 0x82]],
    ["Latin-1 text", [0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0x5a, 0x6f, 0xeb, 0x22, 0x7d]],
    // Blank but for one bad byte: the encoding is checked before whether the body is empty.
    ["white space and a 0xff byte", [0x20, 0x0a, 0xff]],
  ];
  for (const [name, bytes] of cases) {
    assert.throws(
      () => parseJsonObject(Uint8Array.from(bytes)),
      (error: unknown) => {
        assert.ok(error instanceof HttpError, name);
        assert.equal(error.code, "INVALID_ENCODING", name);
        assert.equal(error.status, 400, name);
        assert.equal(error.message, "Request body must be valid UTF-8", name);
        assert.ok(error.cause instanceof TypeError, name);
        return true;
      },
    );
  }
});

test("parseJsonObject refuses every JSON value that is not an object with 400 BODY_NOT_OBJECT", () => {
  const cases: Array<[text: string, message: string]> = [
    ["[]", "Request body must be a JSON object, not an array"],
    ['[{"name":"Ada"}]', "Request body must be a JSON object, not an array"],
    ['[{"__proto__":{}}]', "Request body must be a JSON object, not an array"],
    ['"text"', "Request body must be a JSON object, not a string"],
    ['""', "Request body must be a JSON object, not a string"],
    ["42", "Request body must be a JSON object, not a number"],
    ["1e400", "Request body must be a JSON object, not a number"],
    ["true", "Request body must be a JSON object, not a boolean"],
    ["false", "Request body must be a JSON object, not a boolean"],
    ["null", "Request body must be a JSON object, not null"],
    [" null ", "Request body must be a JSON object, not null"],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parse(text), { name: "HttpError", code: "BODY_NOT_OBJECT", status: 400, message }, text);
  }
});

test("parseJsonObject refuses __proto__, constructor and prototype members at any depth with 400 FORBIDDEN_KEY", () => {
  for (const key of ["__proto__", "constructor", "prototype"]) {
    const placements: Array<[where: string, text: string]> = [
      ["at top level", `{"${key}":{"polluted":true}}`],
      ["at top level after other members", `{"name":"Ada","email":"a@b.c","${key}":1}`],
      ["nested in an object", `{"a":{"b":{"${key}":{}}}}`],
      ["inside an array", `{"a":[1,{"${key}":null}]}`],
      ["inside an array of arrays", `{"a":[[],[{"x":1},{"${key}":[]}]]}`],
      ["in an object inside an array inside an object", `{"a":[{"b":{"${key}":"x"}}]}`],
    ];
    for (const [where, text] of placements) {
      assert.throws(
        () => parse(text),
        {
          name: "HttpError",
          code: "FORBIDDEN_KEY",
          status: 400,
          message: `Request body must not have a member named "${key}"`,
        },
        `${key} ${where}`,
      );
    }
  }
});

test("parseJsonObject refuses a forbidden member name written with escapes", () => {
  assert.throws(() => parse('{"\\u005f_proto__":{"polluted":true}}'), {
    code: "FORBIDDEN_KEY",
    message: 'Request body must not have a member named "__proto__"',
  });
  assert.throws(() => parse('{"a":{"constr\\u0075ctor":1}}'), {
    code: "FORBIDDEN_KEY",
    message: 'Request body must not have a member named "constructor"',
  });
});

test("parseJsonObject names the first forbidden member of an object that has several", () => {
  assert.throws(() => parse('{"constructor":1,"prototype":2,"__proto__":3}'), {
    code: "FORBIDDEN_KEY",
    message: 'Request body must not have a member named "constructor"',
  });
});

test("parseJsonObject leaves Object.prototype untouched by a __proto__ body", () => {
  assert.throws(() => parse('{"__proto__":{"polluted":true},"a":{"__proto__":{"polluted":true}}}'), {
    code: "FORBIDDEN_KEY",
  });
  assert.equal(Object.hasOwn(Object.prototype, "polluted"), false);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test("MAX_DEPTH is 64 levels", () => {
  assert.equal(MAX_DEPTH, 64);
});

test("parseJsonObject accepts objects and arrays nested exactly 64 levels deep", () => {
  assert.deepEqual(parse(nestedObjects(2)), { a: { a: 1 } });
  assert.deepEqual(parse(nestedArrays(3)), { a: [[]] });
  assert.deepEqual(parse(nestedMixed(3)), { a: [{ b: 1 }] });
  assert.deepEqual(parse(nestedMixed(4)), { a: [{ b: [] }] });
  for (const [name, text] of [
    ["objects", nestedObjects(64)],
    ["arrays", nestedArrays(64)],
    ["objects and arrays in turn", nestedMixed(64)],
  ] as const) {
    assert.equal(typeof parse(text), "object", name);
  }
});

test("parseJsonObject refuses objects and arrays nested 65 levels deep with 400 BODY_TOO_DEEP", () => {
  const expected = {
    name: "HttpError",
    code: "BODY_TOO_DEEP",
    status: 400,
    message: "Request body must not be nested deeper than 64 levels",
  };
  assert.throws(() => parse(nestedObjects(65)), expected, "objects");
  assert.throws(() => parse(nestedArrays(65)), expected, "arrays");
  assert.throws(() => parse(nestedMixed(65)), expected, "objects and arrays in turn");
  assert.throws(() => parse(nestedObjects(65, "{}")), expected, "66 objects");
  assert.throws(() => parse(`{"shallow":1,"deep":${nestedObjects(64)}}`), expected, "65 levels in the second member");
});

test("parseJsonObject refuses 90,000 levels of nesting without a crash", () => {
  const levels = 90_000;
  const expected = {
    name: "HttpError",
    code: "BODY_TOO_DEEP",
    status: 400,
    message: "Request body must not be nested deeper than 64 levels",
  };
  assert.throws(() => parse(nestedArrays(levels)), expected, "arrays");
  assert.throws(() => parse(nestedObjects(levels)), expected, "objects");
  assert.throws(() => parse(nestedMixed(levels)), expected, "objects and arrays in turn");
});

test("parseJsonObject reports a forbidden member before nesting that is too deep", () => {
  const deep = nestedObjects(100);
  const cases = [
    `{"__proto__":1,"deep":${deep}}`,
    `{"deep":${deep},"constructor":1}`,
    `{"deep":${nestedArrays(70)},"a":{"prototype":1}}`,
    nestedObjects(69, '{"__proto__":1}'),
  ];
  for (const text of cases) {
    assert.throws(() => parse(text), { name: "HttpError", code: "FORBIDDEN_KEY", status: 400 }, text.slice(0, 40));
  }
});

test("parseJsonObject refuses a number too large to hold with 400 NUMBER_OUT_OF_RANGE", () => {
  const texts = ['{"n":1e400}', '{"n":-1e400}', '{"a":[1,2,1e400]}', '{"a":{"b":{"c":123456789e999}}}'];
  for (const text of texts) {
    assert.throws(
      () => parse(text),
      {
        name: "HttpError",
        code: "NUMBER_OUT_OF_RANGE",
        status: 400,
        message: "Request body has a number too large to be held",
      },
      text,
    );
  }
});

test("parseJsonObject reports forbidden members and depth before a number out of range", () => {
  assert.throws(() => parse('{"n":1e400,"constructor":1}'), { code: "FORBIDDEN_KEY" });
  assert.throws(() => parse(`{"n":1e400,"deep":${nestedObjects(65)}}`), { code: "BODY_TOO_DEEP" });
});

test("countValues counts the text, each member's value and each element, and nothing inside strings", () => {
  const count = (text: string) => countValues(Buffer.from(text));
  assert.equal(count("{}"), 1);
  assert.equal(count('{"a":1}'), 2);
  assert.equal(count('{"a":1, "b":[]}'), 3);
  assert.equal(count("[ ]"), 1);
  assert.equal(count("[[],{}, 3 ,\"x\"]"), 5);
  assert.equal(count('{"a":[{"b":{}},[1,2]]}'), 7);
  assert.equal(count('{"a,[{:":"]},:[,"}'), 2);
  assert.equal(count('{"a\\":[,":"x"}'), 2);
  assert.equal(count('{"z":[0,0,'), 5);
});

test("measureJson finds the deepest nesting of a text, the top-level value being level 1, and none inside strings", () => {
  const depth = (text: string) => measureJson(Buffer.from(text)).depth;
  assert.equal(depth("{}"), 1);
  assert.equal(depth('{"a":[[],{"b":[1]}]}'), 4);
  assert.equal(depth('{"a":"[[[{{{"}'), 1);
  assert.equal(depth(`{"a":${"[".repeat(64)}`), 65);
  assert.deepEqual(measureJson(Buffer.from('{"a":[1,2]}')), { values: 4, depth: 2 });
});

test("parseJsonObject refuses a body past both bounds as too deep, and one only past the value bound as too large", () => {
  const levels = (n: number) => Buffer.from(`{"a":${"[".repeat(n)}${"]".repeat(n)}}`);
  assert.throws(() => parseJsonObject(levels(100_000)), { code: "BODY_TOO_DEEP", status: 400 });
  assert.throws(() => parseJsonObject(Buffer.from(`{"a":[${"[],".repeat(100_000)}[]]}`)), { code: "BODY_TOO_LARGE", status: 413 });
  assert.throws(() => parseJsonObject(Buffer.from(`{"a":${"[".repeat(63)}${"0,".repeat(100_000)}0${"]".repeat(63)}}`)), {
    code: "BODY_TOO_LARGE",
  });
  assert.throws(() => parseJsonObject(Buffer.from(`{"a":${"[".repeat(64)}${"0,".repeat(100_000)}0${"]".repeat(64)}}`)), {
    code: "BODY_TOO_DEEP",
  });
});

test("the bound of bodies still arriving is told as the code has it: the catalogue, the OpenAPI document and the docs", () => {
  const told = `${BODIES_AT_ONCE} times \`BODY_LIMIT\``;
  assert.ok(ERROR_CATALOGUE.SERVER_BUSY.when.includes(told), ERROR_CATALOGUE.SERVER_BUSY.when);
  assert.ok(RESPONSES.UnavailableForBody!.description.includes(told));
  for (const document of ["docs/access.md", "docs/decisions.md"]) assert.ok(readFileSync(document, "utf8").includes(told), document);
});
