// White-box tests of src/http/pieces.ts: the scheduler of long answers, over real sockets.
import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { createPacer, type LongBody, type Pacer } from "../src/http/pieces.ts";
import { closed, openSocket } from "./support/raw.ts";

/** A server whose every answer is `body`, written by `pacer`; `written` gets each answer's bytes, or -1, or null when refused. */
async function serveLong(t: { after: (fn: () => unknown) => void }, pacer: Pacer, body: LongBody, stallTimeout = 0) {
  const written: Array<number | null> = [];
  const server = createServer((request, response: ServerResponse) => {
    const writeHead = (length: number) => response.writeHead(200, { "content-type": "application/json", "content-length": length });
    const taken = pacer.write(response, body, { head: request.method === "HEAD", writeHead, stallTimeout }, (bytes) => written.push(bytes));
    if (!taken) {
      written.push(null);
      response.writeHead(503, { "content-length": 0 }).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  t.after(() => server.closeAllConnections());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, written };
}

/** A client that asks for the answer, takes its first bytes, then reads no more. */
async function stalledReader(url: string) {
  const socket = await openSocket(url);
  socket.write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
  await new Promise((resolve) => socket.once("data", resolve));
  socket.pause();
  return socket;
}

/** Records whose serialising is counted: JSON.stringify calls toJSON once for each. */
function countedRecords(count: number, size: number) {
  const calls = { count: 0 };
  const items = Array.from({ length: count }, (_, id) => ({ toJSON: () => (calls.count++, { id, text: "x".repeat(size) }) }));
  return { items, calls };
}

test("a long list arrives whole, byte for byte as JSON.stringify makes it, with its exact length", async (t) => {
  const { items } = countedRecords(300, 1_000);
  const { url, written } = await serveLong(t, createPacer(), items);
  const response = await fetch(url);
  const text = await response.text();
  assert.equal(text, JSON.stringify(items));
  assert.equal(Number(response.headers.get("content-length")), Buffer.byteLength(text));
  assert.deepEqual(written, [Buffer.byteLength(text)]);
});

test("answers listing the same array at once count its bytes once: each serialises each record twice at most, not three times", async (t) => {
  const { items, calls } = countedRecords(400, 1_000);
  const { url } = await serveLong(t, createPacer(), items);
  const texts = await Promise.all([1, 2, 3, 4].map(async () => (await fetch(url)).text()));
  assert.equal(calls.count, 4 * 400 + 400, "4 x 400 to write, and 400 to count, shared");
  for (const text of texts) assert.equal(text, JSON.stringify(items));
});

test("past the most long answers at once, one more is refused; once one is done, another is taken", async (t) => {
  // Sixteen megabytes a list: more than the sockets' buffers take from a client that reads nothing.
  const { items } = countedRecords(160, 100_000);
  const { url, written } = await serveLong(t, createPacer({ answers: 1 }), items);
  const stalled = await stalledReader(url);
  assert.equal((await fetch(url)).status, 503);
  assert.deepEqual(written, [null]);
  stalled.destroy();
  await closed(stalled);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const again = await fetch(url);
  assert.equal(again.status, 200);
  assert.equal((await again.text()).length, JSON.stringify(items).length);
});

test("texts held by long answers are bounded together: one past the bound is refused", async (t) => {
  const text = "t".repeat(16_000_000);
  const { url, written } = await serveLong(t, createPacer({ textChars: 20_000_000 }), text);
  const stalled = await stalledReader(url);
  assert.equal((await fetch(url)).status, 503);
  assert.deepEqual(written, [null]);
  stalled.destroy();
});

test("a reader that takes nothing for the stall time-out loses its connection, and the answer is told -1", async (t) => {
  const { items } = countedRecords(160, 100_000);
  const { url, written } = await serveLong(t, createPacer(), items, 300);
  const stalled = await stalledReader(url);
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  stalled.resume();
  await closed(stalled);
  assert.deepEqual(written, [-1]);
  assert.ok(Date.now() - started < 10_000);
});

test("HEAD of a long list sends its length and no body", async (t) => {
  const { items } = countedRecords(300, 1_000);
  const { url, written } = await serveLong(t, createPacer(), items);
  const response = await fetch(url, { method: "HEAD" });
  assert.equal(Number(response.headers.get("content-length")), Buffer.byteLength(JSON.stringify(items)));
  assert.equal(await response.text(), "");
  assert.deepEqual(written, [0]);
});

test("a record that cannot be serialised breaks off the answers listing it, and the server goes on", async (t) => {
  const items: unknown[] = Array.from({ length: 200 }, (_, id) => ({ id, text: "x".repeat(1_000) }));
  items.push({ toJSON: () => { throw new Error("no JSON for this one"); } });
  const pacer = createPacer();
  const broken = await serveLong(t, pacer, items);
  await assert.rejects(Promise.all([1, 2].map(async () => (await fetch(broken.url)).text())));
  assert.deepEqual(broken.written, [-1, -1]);
  const { items: good } = countedRecords(300, 1_000);
  const fine = await serveLong(t, pacer, good);
  assert.equal(await (await fetch(fine.url)).text(), JSON.stringify(good));
});
