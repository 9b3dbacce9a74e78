// White-box tests of src/http/prefer.ts: the `Prefer` header read (RFC 7240), the applied text, and the delay setting and its draw.
import assert from "node:assert/strict";
import { test } from "node:test";
import { appliedText, type Delay, drawDelay, MAX_DELAY, readDelay, readPreferences } from "../src/http/prefer.ts";

const DELAY_ERROR = new RangeError("delay must be N or MIN-MAX milliseconds, whole numbers from 0 to 60000, such as 200 or 100-500");

test("readPreferences reads delay, status and fault from comma-separated preferences", () => {
  assert.deepEqual(readPreferences("delay=300"), { delay: 300 });
  assert.deepEqual(readPreferences("status=503"), { status: 503 });
  assert.deepEqual(readPreferences("fault=reset"), { fault: "reset" });
  assert.deepEqual(readPreferences("delay=300, status=503"), { delay: 300, status: 503 });
  assert.deepEqual(readPreferences("delay=300,status=503,fault=reset"), { delay: 300, status: 503, fault: "reset" });
  assert.deepEqual(readPreferences("  fault=reset ,\tdelay=1  "), { delay: 1, fault: "reset" });
});

test("readPreferences takes names in any case, and whitespace around the equals sign", () => {
  assert.deepEqual(readPreferences("DELAY=5, Status=404, fAuLt=reset"), { delay: 5, status: 404, fault: "reset" });
  assert.deepEqual(readPreferences("delay = 5, status =500, fault= reset"), { delay: 5, status: 500, fault: "reset" });
  // The fault's value is compared without case too.
  assert.deepEqual(readPreferences("fault=RESET"), { fault: "reset" });
});

test("readPreferences reads a quoted value, quoted pairs unescaped", () => {
  assert.deepEqual(readPreferences('delay="250"'), { delay: 250 });
  assert.deepEqual(readPreferences('status="5\\03", fault="reset"'), { status: 503, fault: "reset" });
  assert.deepEqual(readPreferences('delay = "7" ; x=1'), { delay: 7 });
});

test("readPreferences ignores the parameters after a semicolon", () => {
  assert.deepEqual(readPreferences("delay=100; unit=s"), { delay: 100 });
  assert.deepEqual(readPreferences("delay=100;unit=s;x, status=429;retry"), { delay: 100, status: 429 });
  assert.deepEqual(readPreferences('fault=reset; reason="a;b"'), { fault: "reset" });
});

test("readPreferences lets the first occurrence of a name win, even one it cannot honour", () => {
  assert.deepEqual(readPreferences("delay=100, delay=200"), { delay: 100 });
  assert.deepEqual(readPreferences("status=500, STATUS=404"), { status: 500 });
  assert.equal(readPreferences("delay=abc, delay=200"), undefined);
  assert.equal(readPreferences("Delay=99999, delay=200"), undefined);
  assert.deepEqual(readPreferences("fault=close, fault=reset, status=503"), { status: 503 });
});

test("readPreferences ignores preferences it does not know", () => {
  assert.deepEqual(readPreferences("respond-async, wait=10, delay=20, return=minimal, handling=lenient"), { delay: 20 });
  assert.equal(readPreferences("respond-async, wait=10, return=representation"), undefined);
  assert.equal(readPreferences("delays=5, xstatus=500, faults=reset"), undefined);
});

test("readPreferences honours a delay of 0 to 60000 whole milliseconds and ignores any other", () => {
  const honoured: Array<[header: string, delay: number]> = [
    ["delay=0", 0],
    ["delay=1", 1],
    ["delay=60000", MAX_DELAY],
    ["delay=00100", 100],
  ];
  for (const [header, delay] of honoured) assert.deepEqual(readPreferences(header), { delay }, header);
  for (const header of ["delay", "delay=", 'delay=""', "delay=60001", "delay=99999", "delay=100000", "delay=-1", "delay=1.5", "delay=1e3", "delay=0x10", "delay=+5", "delay=abc", "delay=5ms", 'delay="5 "']) {
    assert.equal(readPreferences(header), undefined, header);
  }
});

test("readPreferences honours a status of 400 to 599 and ignores any other", () => {
  for (const status of [400, 404, 429, 499, 500, 503, 599]) assert.deepEqual(readPreferences(`status=${status}`), { status });
  for (const header of ["status", "status=", "status=200", "status=302", "status=399", "status=600", "status=999", "status=50", "status=5000", "status=0503", "status=5O3", "status=503.0", "status=-500"]) {
    assert.equal(readPreferences(header), undefined, header);
  }
});

test("readPreferences honours only the reset fault", () => {
  for (const header of ["fault", "fault=", "fault=close", "fault=timeout", "fault=resets", "fault=re set", "fault=1"]) {
    assert.equal(readPreferences(header), undefined, header);
  }
});

test("readPreferences gives undefined when there is no header or nothing it knows in it", () => {
  for (const header of [undefined, "", " ", ",", ",,, ,", "=5", ";delay=5", "@delay=5", "x delay=5"]) {
    assert.equal(readPreferences(header), undefined, String(header));
  }
});

test("readPreferences reads at most 16 preferences of a very long header", () => {
  const filler = (count: number) => Array.from({ length: count }, (_, index) => `x${index}=1`);
  // The 16th preference is read; the 17th is not.
  assert.deepEqual(readPreferences([...filler(15), "delay=5"].join(", ")), { delay: 5 });
  assert.equal(readPreferences([...filler(16), "delay=5"].join(", ")), undefined);
  // Empty preferences count too.
  assert.equal(readPreferences(`${",".repeat(16)}delay=5`), undefined);
  // A header of a hundred thousand preferences is read quickly, its first 16 only.
  const long = ["status=503", ...filler(100_000), "delay=5", "fault=reset"].join(", ");
  assert.deepEqual(readPreferences(long), { status: 503 });
});

test("appliedText names what was honoured in the order delay, status, fault", () => {
  assert.equal(appliedText({}), "");
  assert.equal(appliedText({ delay: 300 }), "delay=300");
  assert.equal(appliedText({ delay: 0 }), "delay=0");
  assert.equal(appliedText({ status: 503 }), "status=503");
  assert.equal(appliedText({ fault: "reset" }), "fault=reset");
  assert.equal(appliedText({ status: 503, delay: 300 }), "delay=300, status=503");
  assert.equal(appliedText({ fault: "reset", status: 500, delay: 1 }), "delay=1, status=500, fault=reset");
  assert.equal(appliedText(readPreferences("fault=reset, status=429, DELAY=10")!), "delay=10, status=429, fault=reset");
});

test("readDelay takes a number of ms as a fixed delay, and 0 or undefined as none", () => {
  assert.equal(readDelay(undefined), undefined);
  assert.equal(readDelay(0), undefined);
  assert.deepEqual(readDelay(1), { min: 1, max: 1 });
  assert.deepEqual(readDelay(200), { min: 200, max: 200 });
  assert.deepEqual(readDelay(MAX_DELAY), { min: MAX_DELAY, max: MAX_DELAY });
});

test('readDelay takes the text "N" or "MIN-MAX"', () => {
  const cases: Array<[text: string, delay: Delay | undefined]> = [
    ["0", undefined],
    ["0-0", undefined],
    ["200", { min: 200, max: 200 }],
    ["100-500", { min: 100, max: 500 }],
    ["0-100", { min: 0, max: 100 }],
    ["300-300", { min: 300, max: 300 }],
    [" 100 - 500 ", { min: 100, max: 500 }],
    ["007", { min: 7, max: 7 }],
    ["60000", { min: MAX_DELAY, max: MAX_DELAY }],
    ["0-60000", { min: 0, max: MAX_DELAY }],
  ];
  for (const [text, delay] of cases) assert.deepEqual(readDelay(text), delay, text);
});

test("readDelay takes { min, max }, a copy, and { 0, 0 } as none", () => {
  const given = { min: 10, max: 20, extra: true };
  const delay = readDelay(given);
  assert.deepEqual(delay, { min: 10, max: 20 });
  assert.notEqual(delay, given);
  assert.deepEqual(readDelay({ min: 0, max: 5 }), { min: 0, max: 5 });
  assert.deepEqual(readDelay({ min: 5, max: 5 }), { min: 5, max: 5 });
  assert.equal(readDelay({ min: 0, max: 0 }), undefined);
});

test("readDelay throws a RangeError for a negative delay, one past 60000 ms, or min above max", () => {
  for (const value of [-1, 60_001, Number.MAX_SAFE_INTEGER, "-5", "60001", "0-60001", "1-2-3", "500-100", "1 - 0", { min: -1, max: 5 }, { min: 0, max: 60_001 }, { min: 10, max: 5 }, { min: 1, max: 0 }]) {
    assert.throws(() => readDelay(value), DELAY_ERROR, JSON.stringify(value));
  }
});

test("readDelay throws a RangeError for a delay that is not whole numbers, or garbage", () => {
  const values: unknown[] = [
    1.5, 0.1, Number.NaN, Number.POSITIVE_INFINITY, -0.5,
    "", " ", "1.5", "1e3", "0x10", "+5", "abc", "100-", "-", "100-abc", "100 500", "100,500", "1234567890", "5ms",
    { min: 1.5, max: 2 }, { min: 1, max: 2.5 }, { min: Number.NaN, max: 5 }, { min: "1", max: "2" }, {}, { min: 1 }, null, true, [],
  ];
  for (const value of values) assert.throws(() => readDelay(value as never), DELAY_ERROR, String(JSON.stringify(value)));
});

test("drawDelay gives exactly a fixed delay", () => {
  for (let draw = 0; draw < 100; draw++) assert.equal(drawDelay({ min: 250, max: 250 }), 250);
  assert.equal(drawDelay({ min: 0, max: 0 }), 0);
});

test("drawDelay gives min when Math.random gives 0 and max when it gives its largest value", (t) => {
  const random = t.mock.method(Math, "random", () => 0);
  assert.equal(drawDelay({ min: 100, max: 500 }), 100);
  random.mock.mockImplementation(() => 1 - Number.EPSILON / 2);
  assert.equal(drawDelay({ min: 100, max: 500 }), 500);
  assert.equal(drawDelay({ min: 0, max: MAX_DELAY }), MAX_DELAY);
  random.mock.mockImplementation(() => 0.5);
  assert.equal(drawDelay({ min: 0, max: 9 }), 5);
});

test("drawDelay stays within min to max in whole ms, and over many draws reaches both ends", () => {
  const delay = { min: 3, max: 7 };
  const seen = new Set<number>();
  for (let draw = 0; draw < 2000; draw++) {
    const wait = drawDelay(delay);
    assert.ok(Number.isInteger(wait) && wait >= delay.min && wait <= delay.max, String(wait));
    seen.add(wait);
  }
  // Missing any one of five values in 2000 uniform draws has a chance of about 10^-193.
  assert.deepEqual([...seen].sort((a, b) => a - b), [3, 4, 5, 6, 7]);
});

test("readPreferences ignores a quoted value left open, and splits only at commas outside quoted strings", () => {
  assert.equal(readPreferences('delay="100'), undefined);
  assert.equal(readPreferences('status="5031'), undefined);
  assert.equal(readPreferences('note="a, delay=5, b"'), undefined);
  assert.deepEqual(readPreferences('respond-async, status=404;foo="a,b", fault=reset'), { status: 404, fault: "reset" });
  assert.deepEqual(readPreferences('note="a \\" , delay=5", delay=7'), { delay: 7 });
});

test("readPreferences reads a header of 16 KB of spaces at once: no quadratic backtracking", () => {
  const started = performance.now();
  for (let i = 0; i < 20; i++) assert.equal(readPreferences(`a${" ".repeat(16_000)}x`), undefined);
  // Twenty reads took 4.6 s with two runs of white space side by side; now well under one.
  assert.ok(performance.now() - started < 1000);
});
