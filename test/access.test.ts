// White-box tests of src/access.ts: token entries, the token check with its scopes, and the Host check.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { hostCheck, isWrite, looseTokensFile, parseTokens, readTokensFile, tokenCheck } from "../src/http/access.ts";

test("parseTokens reads comma-separated SCOPE:TOKEN entries, trimming spaces", () => {
  assert.deepEqual(parseTokens("read:abc, write:DEF-._~+/==", "AUTH_TOKENS"), [
    { scope: "read", token: "abc" },
    { scope: "write", token: "DEF-._~+/==" },
  ]);
});

test("parseTokens refuses a bad entry with a message that names its place and never the token", () => {
  const secret = "s3cret";
  const cases = [`admin:${secret}`, `${secret}`, `read:`, `read:${secret} x`, `write:${secret}"`, `:${secret}`, `Read:${secret}`];
  for (const text of cases) {
    assert.throws(
      () => parseTokens(`read:ok,${text}`, "AUTH_TOKENS"),
      (error: Error) => {
        assert.equal(error.name, "TokenError");
        assert.match(error.message, /^AUTH_TOKENS entry 2 is not SCOPE:TOKEN/);
        assert.ok(!error.message.includes(secret), error.message);
        assert.ok(!error.message.includes("\n"));
        return true;
      },
      text,
    );
  }
  assert.throws(() => parseTokens("", "AUTH_TOKENS"), { name: "TokenError", message: /^AUTH_TOKENS entry 1 is not SCOPE:TOKEN/ });
});

test("readTokensFile reads one entry a line, skipping blank lines and # comments; a bad line is named by its number", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tokens-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const good = join(dir, "good");
  writeFileSync(good, "# the CI's token\nread:r1\r\n\n  write:w1  \n");
  assert.deepEqual(readTokensFile(good, "AUTH_TOKENS_FILE"), [
    { scope: "read", token: "r1" },
    { scope: "write", token: "w1" },
  ]);
  const bad = join(dir, "bad");
  writeFileSync(bad, "read:r1\nwrite s3cret\n");
  assert.throws(() => readTokensFile(bad, "AUTH_TOKENS_FILE"), (error: Error) => {
    assert.equal(error.message.startsWith(`The tokens file ${bad} line 2 is not SCOPE:TOKEN`), true, error.message);
    assert.ok(!error.message.includes("s3cret"));
    return true;
  });
  const empty = join(dir, "empty");
  writeFileSync(empty, "# nothing yet\n");
  assert.throws(() => readTokensFile(empty, "AUTH_TOKENS_FILE"), { name: "TokenError", message: `The tokens file ${empty} holds no token; give SCOPE:TOKEN entries such as read:abc,write:def` });
  assert.throws(() => readTokensFile(join(dir, "missing"), "AUTH_TOKENS_FILE"), {
    name: "TokenError",
    message: `Cannot read the tokens file ${join(dir, "missing")} (ENOENT); check AUTH_TOKENS_FILE`,
  });
});

test("tokenCheck is undefined without tokens: every request passes", () => {
  assert.equal(tokenCheck({}), undefined);
});

test("tokenCheck: a missing, malformed or unknown token -> 401 UNAUTHORIZED with the Bearer challenge", () => {
  const check = tokenCheck({ authTokens: "read:reader,write:writer" })!;
  for (const header of [undefined, "", "Bearer", "Bearer ", "Basic cmVhZGVy", "Bearer readers", "Bearer reade", "Bearer writer2", "bearerwriter"]) {
    for (const writes of [false, true]) {
      const error = check(header, writes);
      assert.equal(error?.code, "UNAUTHORIZED", `${header} ${writes}`);
      assert.equal(error.status, 401);
      assert.deepEqual(error.headers, { "www-authenticate": 'Bearer realm="rest-reference-server"' });
      assert.equal(error.message, "This API needs a token: send Authorization: Bearer <token>");
    }
  }
});

test("tokenCheck: a read token reads and gets 403 INSUFFICIENT_SCOPE on a write; a write token does both", () => {
  const check = tokenCheck({ authTokens: ["read:reader", "write:writer"] })!;
  assert.equal(check("Bearer reader", false), undefined);
  assert.equal(check("bearer reader", false), undefined, "the scheme is case-insensitive");
  assert.equal(check("BEARER reader ", false), undefined);
  const refused = check("Bearer reader", true);
  assert.equal(refused?.code, "INSUFFICIENT_SCOPE");
  assert.equal(refused.status, 403);
  assert.deepEqual(refused.headers, { "www-authenticate": 'Bearer error="insufficient_scope"' });
  assert.equal(check("Bearer writer", false), undefined);
  assert.equal(check("Bearer writer", true), undefined);
});

test("tokenCheck: one token given as both scopes writes", () => {
  const check = tokenCheck({ authTokens: "write:same,read:same" })!;
  assert.equal(check("Bearer same", true), undefined);
  const reversed = tokenCheck({ authTokens: "read:same,write:same" })!;
  assert.equal(reversed("Bearer same", true), undefined);
});

test("tokenCheck takes tokens from a file as well as from the option, and refuses a bad option with a TokenError", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tokens-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "tokens");
  writeFileSync(file, "write:from-file\n");
  const check = tokenCheck({ authTokens: "read:from-option", authTokensFile: file })!;
  assert.equal(check("Bearer from-file", true), undefined);
  assert.equal(check("Bearer from-option", false), undefined);
  assert.throws(() => tokenCheck({ authTokens: [42] as never }), { name: "TokenError" });
  assert.throws(() => tokenCheck({ authTokens: "nope" }), { name: "TokenError", message: /^authTokens entry 1 is not SCOPE:TOKEN/ });
});

test("isWrite is true for every method but GET, HEAD and OPTIONS", () => {
  for (const method of ["GET", "HEAD", "OPTIONS"]) assert.equal(isWrite(method), false, method);
  for (const method of ["POST", "PUT", "PATCH", "DELETE", "PROPFIND", "TRACE"]) assert.equal(isWrite(method), true, method);
});

test("hostCheck by default allows localhost, its subdomains and IP literals on any port, and nothing else", () => {
  const check = hostCheck()!;
  const allowed = [
    undefined,
    "localhost",
    "localhost:3000",
    "LOCALHOST:3000",
    "localhost.",
    "app.localhost:5173",
    "a.b.localhost",
    "127.0.0.1",
    "127.0.0.1:3000",
    "10.1.2.3:8080",
    "[::1]:3000",
    "[::1]",
    "[2001:db8::1]:80",
  ];
  for (const host of allowed) assert.equal(check(host), undefined, host);
  const refused = ["evil.example", "evil.example:3000", "localhost.evil.example", "evillocalhost", "127.0.0.1.nip.io", "x", "", "[::1"];
  for (const host of refused) {
    const error = check(host);
    assert.equal(error?.code, "HOST_NOT_ALLOWED", host);
    assert.equal(error.status, 403);
    assert.equal(error.message, `Host ${host} is not allowed; the server's operator can add it to ALLOWED_HOSTS`);
  }
});

test("hostCheck of a list allows the names, subdomains of *.name (not the name itself), and ip only when listed", () => {
  const check = hostCheck("api.example.com, *.apps.example.com")!;
  assert.equal(check("api.example.com"), undefined);
  assert.equal(check("API.example.com:8443"), undefined);
  assert.equal(check("one.apps.example.com"), undefined);
  assert.equal(check("apps.example.com")?.code, "HOST_NOT_ALLOWED");
  assert.equal(check("localhost")?.code, "HOST_NOT_ALLOWED");
  assert.equal(check("127.0.0.1")?.code, "HOST_NOT_ALLOWED");
  const withIp = hostCheck(["api.example.com", "ip", "[::1]"])!;
  assert.equal(withIp("192.168.0.9:80"), undefined);
  assert.equal(withIp("[::1]:1"), undefined);
  assert.equal(hostCheck(["10.0.0.1"])!("10.0.0.1:99"), undefined);
  assert.equal(hostCheck(["10.0.0.1"])!("10.0.0.2")?.code, "HOST_NOT_ALLOWED");
});

test("hostCheck('*') allows every host; a bad entry is a TypeError", () => {
  assert.equal(hostCheck("*"), undefined);
  assert.equal(hostCheck(["api.example.com", "*"]), undefined);
  for (const bad of ["http://api.example.com", "api.example.com/", "a b", "*.", "-bad.example", "api..example"]) {
    assert.throws(() => hostCheck([bad]), { name: "TypeError", message: new RegExp(`^"${bad.replace(/[.*+?()[\]\\/]/g, "\\$&")}" is not a host name`) }, bad);
  }
  assert.throws(() => hostCheck([]), { name: "TypeError" });
});

test("hostCheck remembers a bounded number of hosts, and still answers each rightly past that", () => {
  const check = hostCheck()!;
  for (let i = 0; i < 1000; i++) {
    assert.equal(check(`localhost:${i}`), undefined);
    assert.equal(check(`evil${i}.example`)?.code, "HOST_NOT_ALLOWED");
  }
});

test("looseTokensFile warns of a tokens file whose group or others have any permission, and of no other", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tokens-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "tokens");
  writeFileSync(path, "write:w1\n");
  for (const mode of [0o644, 0o640, 0o604, 0o444, 0o620, 0o601, 0o777]) {
    chmodSync(path, mode);
    const shown = mode.toString(8).padStart(4, "0");
    assert.equal(looseTokensFile(path), `The tokens file ${path} is open to other users of this machine (mode ${shown}); let only the server's user read it: chmod 600 ${path}`, shown);
  }
  for (const mode of [0o600, 0o400, 0o700]) {
    chmodSync(path, mode);
    assert.equal(looseTokensFile(path), undefined, mode.toString(8));
  }
  assert.equal(looseTokensFile(join(dir, "gone")), undefined);
});
