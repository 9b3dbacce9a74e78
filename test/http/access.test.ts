// Black-box tests of access (contract 13): tokens and their scopes, READ_ONLY, and ALLOWED_HOSTS.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { assertJsonHeaders, bearer, send } from "../support/http.ts";
import { rawRequest } from "../support/raw.ts";
import { startTarget, type Target } from "../support/target.ts";

const READ = "reader-token";
const WRITE = "writer.token_2~+/=";
const CHALLENGE = 'Bearer realm="rest-reference-server"';
const DEV = "http://localhost:5173";


/** The headers that authorise a request to a server started without tokens of its own: the suite's token, if it runs with one. */
const SUITE: Record<string, string> = process.env.TEST_AUTH_TOKEN === undefined ? {} : bearer(process.env.TEST_AUTH_TOKEN);

/** The users held, read with the write token (or with `headers`). */
async function users(url: string, headers: Record<string, string> = bearer(WRITE)): Promise<unknown[]> {
  return (await send(`${url}/users`, { headers })).body as unknown[];
}

describe("AUTH_TOKENS=read:…,write:…", () => {
  let target: Target;
  let url: string;
  before(async () => {
    target = await startTarget({ AUTH_TOKENS: `read:${READ}, write:${WRITE}` });
    url = target.url;
  });
  after(() => target.close());

  const missing: Array<[string, Record<string, string>]> = [
    ["no Authorization", {}],
    ["an unknown token", bearer("nope")],
    ["a token one character short", bearer(READ.slice(0, -1))],
    ["another scheme", { authorization: `Basic ${Buffer.from(`u:${WRITE}`).toString("base64")}` }],
    ["Bearer and no token", { authorization: "Bearer" }],
  ];
  for (const [name, headers] of missing) {
    for (const [method, path, json] of [
      ["GET", "/users", undefined],
      ["GET", "/users/1", undefined],
      ["POST", "/users", { name: "Eve", email: "eve@example.com" }],
      ["DELETE", "/users/1", undefined],
      ["GET", "/metrics", undefined],
      ["GET", "/openapi.json", undefined],
      ["GET", "/nowhere", undefined],
    ] as const) {
      test(`${method} ${path} with ${name} -> 401 UNAUTHORIZED with the Bearer challenge, and nothing changes`, async () => {
        const response = await send(url + path, { method, headers: { ...headers, origin: DEV }, json });
        assert.equal(response.status, 401);
        assertJsonHeaders(response);
        assert.deepEqual(response.body, { message: "This API needs a token: send Authorization: Bearer <token>", code: "UNAUTHORIZED" });
        assert.equal(response.headers.get("www-authenticate"), CHALLENGE);
        // Errors carry the CORS headers as every answer does, so the page can read why.
        assert.equal(response.headers.get("access-control-allow-origin"), DEV);
        assert.equal((await users(url)).length, 2);
      });
    }
  }

  for (const path of ["/healthz", "/readyz"]) {
    for (const method of ["GET", "HEAD"]) {
      test(`${method} ${path} needs no token`, async () => {
        const response = await send(url + path, { method });
        assert.equal(response.status, 200);
      });
    }
  }

  test("a CORS preflight needs no token, and allows the Authorization header", async () => {
    const response = await send(`${url}/users/1`, {
      method: "OPTIONS",
      headers: { origin: DEV, "access-control-request-method": "DELETE", "access-control-request-headers": "authorization" },
    });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("access-control-allow-headers"), "Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id");
    assert.equal(response.headers.get("access-control-allow-methods"), "GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
  });

  test("OPTIONS that is no preflight needs a token like any request", async () => {
    assert.equal((await send(`${url}/users`, { method: "OPTIONS" })).status, 401);
    assert.equal((await send(`${url}/users`, { method: "OPTIONS", headers: bearer(READ) })).status, 204);
  });

  test("a read token reads every resource", async () => {
    for (const path of ["/users", "/users/1", "/posts", "/openapi.json", "/metrics"]) {
      const response = await send(url + path, { headers: bearer(READ) });
      assert.equal(response.status, 200, path);
    }
    assert.equal((await send(`${url}/users/1`, { method: "HEAD", headers: bearer(READ) })).status, 200);
  });

  for (const [method, path, json] of [
    ["POST", "/users", { name: "Eve", email: "eve@example.com" }],
    ["PUT", "/users/1", { name: "Eve" }],
    ["DELETE", "/users/2", undefined],
    ["POST", "/posts", { title: "t", body: "b" }],
  ] as const) {
    test(`${method} ${path} with a read token -> 403 INSUFFICIENT_SCOPE, and nothing changes`, async () => {
      const response = await send(url + path, { method, headers: bearer(READ), json });
      assert.equal(response.status, 403);
      assertJsonHeaders(response);
      assert.deepEqual(response.body, { message: "This token may only read; send a write token to change data", code: "INSUFFICIENT_SCOPE" });
      assert.equal(response.headers.get("www-authenticate"), 'Bearer error="insufficient_scope"');
      assert.deepEqual(await users(url), [
        { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
        { id: 2, name: "Alan Turing", email: "alan@example.com" },
      ]);
    });
  }

  test("a write token writes, and reads; the scheme is case-insensitive", async () => {
    const created = await send(`${url}/posts`, { method: "POST", headers: { authorization: `bearer ${WRITE}` }, json: { title: "t", body: "b" } });
    assert.equal(created.status, 201);
    const read = await send(`${url}${created.headers.get("location")}`, { headers: bearer(WRITE) });
    assert.equal(read.status, 200);
    assert.equal((await send(`${url}${created.headers.get("location")}`, { method: "DELETE", headers: bearer(WRITE) })).status, 204);
  });

  test("no token reaches the metrics, and none is echoed in an answer", async () => {
    await send(`${url}/users`, { headers: bearer(`${WRITE}x`) });
    const metrics = await send(`${url}/metrics`, { headers: bearer(READ) });
    assert.ok(!metrics.text.includes(READ) && !metrics.text.includes(WRITE));
    const refused = await send(`${url}/users`, { headers: bearer("guess-me") });
    assert.ok(!refused.text.includes("guess-me"));
  });
});

describe("AUTH_TOKENS_FILE", () => {
  let target: Target;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tokens-"));
    const file = join(dir, "tokens");
    writeFileSync(file, `# mounted as a secret\nread:${READ}\nwrite:${WRITE}\n`);
    target = await startTarget({ AUTH_TOKENS_FILE: file });
  });
  after(async () => {
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the file's tokens are required and honoured", async () => {
    assert.equal((await send(`${target.url}/users`)).status, 401);
    assert.equal((await send(`${target.url}/users`, { headers: bearer(READ) })).status, 200);
    assert.equal((await send(`${target.url}/users`, { method: "POST", headers: bearer(READ), json: { name: "a", email: "a@b.io" } })).status, 403);
    assert.equal((await send(`${target.url}/users`, { method: "POST", headers: bearer(WRITE), json: { name: "a", email: "a@b.io" } })).status, 201);
  });
});

describe("READ_ONLY=on", () => {
  let target: Target;
  before(async () => {
    target = await startTarget({ READ_ONLY: "on" });
  });
  after(() => target.close());

  for (const [method, path, json] of [
    ["POST", "/users", { name: "Eve", email: "eve@example.com" }],
    ["PUT", "/users/1", { name: "Eve" }],
    ["PATCH", "/users/1", { name: "Eve" }],
    ["DELETE", "/users/1", undefined],
    ["POST", "/posts", { title: "t", body: "b" }],
  ] as const) {
    test(`${method} ${path} -> 403 READ_ONLY, and nothing is stored`, async () => {
      const response = await send(target.url + path, { method, json, headers: { ...SUITE, origin: DEV } });
      assert.equal(response.status, 403);
      assertJsonHeaders(response);
      assert.deepEqual(response.body, { message: "This server is read-only: it stores no writes", code: "READ_ONLY" });
      assert.equal(response.headers.get("access-control-allow-origin"), DEV);
      assert.equal((await users(target.url, SUITE)).length, 2);
      assert.equal((await send(`${target.url}/users/1`, { headers: SUITE })).status, 200);
    });
  }

  test("reads, 404 and 405 answer as usual", async () => {
    assert.equal((await send(`${target.url}/users`, { headers: SUITE })).status, 200);
    assert.equal((await send(`${target.url}/nowhere`, { method: "POST", json: {}, headers: SUITE })).status, 404);
    assert.equal((await send(`${target.url}/users`, { method: "DELETE", headers: SUITE })).status, 405);
  });
});

describe("ALLOWED_HOSTS", () => {
  let target: Target;
  let custom: Target;
  before(async () => {
    target = await startTarget({});
    custom = await startTarget({ ALLOWED_HOSTS: "api.example.com,*.apps.example.com" });
  });
  after(async () => {
    await target.close();
    await custom.close();
  });

  const get = (url: string, host: string, path = "/users/1") => rawRequest(url, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);

  for (const host of ["localhost", "localhost:3000", "app.localhost:5173", "127.0.0.1:3000", "[::1]:3000", "10.0.0.7:8080"]) {
    test(`by default, Host: ${host} is served`, async () => {
      assert.equal((await get(target.url, host)).status, 200);
    });
  }

  for (const host of ["evil.example", "evil.example:3000", "localhost.evil.example", "rebind.attacker.test"]) {
    test(`by default, Host: ${host} -> 403 HOST_NOT_ALLOWED, before anything else happens`, async () => {
      const response = await get(target.url, host);
      assert.equal(response.status, 403);
      assert.equal(response.headers["content-type"], "application/json; charset=utf-8");
      assert.deepEqual(JSON.parse(response.body), {
        message: `Host ${host} is not allowed; the server's operator can add it to ALLOWED_HOSTS`,
        code: "HOST_NOT_ALLOWED",
      });
      const write = await rawRequest(
        target.url,
        `DELETE /users/1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(write.status, 403);
      assert.equal((await get(target.url, "localhost")).status, 200, "user 1 is still there");
      // Even the probes: a rebound page cannot learn anything from them either.
      assert.equal((await get(target.url, host, "/healthz")).status, 403);
    });
  }

  test("a probe by IP address keeps working with the default, as orchestrators and the image's HEALTHCHECK send", async () => {
    assert.equal((await get(target.url, "127.0.0.1", "/healthz")).status, 200);
    assert.equal((await get(target.url, "10.42.0.12:3000", "/readyz")).status, 200);
  });

  test("a listed name and subdomains of *.name are served; the defaults are replaced", async () => {
    assert.equal((await get(custom.url, "api.example.com")).status, 200);
    assert.equal((await get(custom.url, "API.EXAMPLE.COM:443")).status, 200);
    assert.equal((await get(custom.url, "one.apps.example.com")).status, 200);
    assert.equal((await get(custom.url, "apps.example.com")).status, 403);
    assert.equal((await get(custom.url, "localhost")).status, 403);
  });
});
