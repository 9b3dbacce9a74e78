// The benchmark's wrk requests: the same bytes in every run of wrk, headers in one order.
import assert from "node:assert/strict";
import { test } from "node:test";
import { luaRequest, oneRequestScript } from "../bench/wrk.ts";

test("luaRequest builds a GET with the request line and Host alone", () => {
  assert.equal(luaRequest("GET", "/users/1"), 'table.concat({"GET /users/1 HTTP/1.1", "Host: " .. wrk.headers["Host"], "", ""}, "\\r\\n")');
});

test("luaRequest builds a POST with Host, Content-Type and Content-Length in that order, the length in bytes", () => {
  const json = { name: "Zoë", email: "zoe@example.com" };
  const body = JSON.stringify(json);
  assert.equal(
    luaRequest("POST", "/users", json),
    `table.concat({"POST /users HTTP/1.1", "Host: " .. wrk.headers["Host"], "Content-Type: application/json", ` +
      `"Content-Length: ${Buffer.byteLength(body)}", "", ${JSON.stringify(body)}}, "\\r\\n")`,
  );
  assert.equal(Buffer.byteLength(body), body.length + 1);
});

test("oneRequestScript builds its request with luaRequest, never wrk.format", () => {
  const script = oneRequestScript("POST", "/users", { name: "Ada" });
  assert.ok(script.includes(`req = ${luaRequest("POST", "/users", { name: "Ada" })}\n`));
  assert.ok(!script.includes("wrk.format"));
});
