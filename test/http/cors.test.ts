// Black-box tests of CORS (contract 10): CORS_ORIGINS as loopback (the default), *, a list and off; answers, errors and preflights.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertJsonHeaders, call, type JsonResponse } from "../support/http.ts";
import { rawRequest } from "../support/raw.ts";
import { startTarget, type Target } from "../support/target.ts";

const APP = "https://app.example.com";
const DEV = "http://localhost:5173";
const EVIL = "https://evil.example";
const EXPOSE = "X-Total-Count, Location, ETag, Link, X-Request-Id";
const ALLOW_HEADERS = "Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id";
const CORS_HEADERS = [
  "access-control-allow-origin",
  "access-control-expose-headers",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-max-age",
  "access-control-allow-credentials",
];

/** Asserts the answer carries no CORS header at all. */
function assertNoCors(response: JsonResponse): void {
  for (const name of CORS_HEADERS) assert.equal(response.headers.get(name), null, name);
}

/** Asserts an ordinary answer lets a page from `origin` read it: Allow-Origin and the exposed headers, nothing of a preflight. */
function assertReadableBy(response: JsonResponse, allowOrigin: string): void {
  assert.equal(response.headers.get("access-control-allow-origin"), allowOrigin);
  assert.equal(response.headers.get("access-control-expose-headers"), EXPOSE);
  assert.equal(response.headers.get("access-control-allow-methods"), null);
  assert.equal(response.headers.get("access-control-max-age"), null);
  assert.equal(response.headers.get("access-control-allow-credentials"), null);
}

function preflight(url: string, origin: string | undefined, method: string, headers = "content-type"): Promise<JsonResponse> {
  const sent: Record<string, string> = { "access-control-request-method": method, "access-control-request-headers": headers };
  if (origin !== undefined) sent.origin = origin;
  return call(url, { method: "OPTIONS", headers: sent });
}

/** The error answers every mode checks, each sent with `origin` (built per call: a body is read once). */
function errorCases(url: string, origin: string): Array<[name: string, send: () => Promise<JsonResponse>, status: number, code: string]> {
  const json = { "content-type": "application/json", origin };
  return [
    ["GET /nowhere -> 404 ROUTE_NOT_FOUND", () => call(`${url}/nowhere`, { headers: { origin } }), 404, "ROUTE_NOT_FOUND"],
    ["GET /users/99 -> 404 USER_NOT_FOUND", () => call(`${url}/users/99`, { headers: { origin } }), 404, "USER_NOT_FOUND"],
    ["GET /users/abc -> 400 INVALID_ID", () => call(`${url}/users/abc`, { headers: { origin } }), 400, "INVALID_ID"],
    ["DELETE /users -> 405 METHOD_NOT_ALLOWED", () => call(`${url}/users`, { method: "DELETE", headers: { origin } }), 405, "METHOD_NOT_ALLOWED"],
    ["POST /users with broken JSON -> 400 INVALID_JSON", () => call(`${url}/users`, { method: "POST", headers: json, body: "{" }), 400, "INVALID_JSON"],
    [
      "POST /users over BODY_LIMIT -> 413 BODY_TOO_LARGE",
      () => call(`${url}/users`, { method: "POST", headers: json, body: JSON.stringify({ name: "x".repeat(2048) }) }),
      413,
      "BODY_TOO_LARGE",
    ],
    [
      "POST /users as text/plain -> 415 UNSUPPORTED_MEDIA_TYPE",
      () => call(`${url}/users`, { method: "POST", headers: { "content-type": "text/plain", origin }, body: "{}" }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    ],
    [
      "POST /users with a taken id -> 409 ID_CONFLICT",
      () => call(`${url}/users`, { method: "POST", headers: json, body: JSON.stringify({ id: 1, name: "A", email: "a@example.com" }) }),
      409,
      "ID_CONFLICT",
    ],
  ];
}

/** Asserts the two seeded users are all there is: nothing was stored, changed or deleted. */
async function assertUntouched(url: string): Promise<void> {
  const users = await call(`${url}/users`);
  assert.deepEqual(users.body, [
    { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
    { id: 2, name: "Alan Turing", email: "alan@example.com" },
  ]);
}

describe("CORS_ORIGINS unset: loopback pages only (contract 10 and 13)", () => {
  let target: Target;
  let url: string;
  before(async () => {
    target = await startTarget({ BODY_LIMIT: "1024" });
    url = target.url;
  });
  after(() => target.close());

  for (const origin of [DEV, "http://127.0.0.1:8080", "https://app.localhost", "http://[::1]:3000"]) {
    test(`GET /users with Origin: ${origin} -> 200 readable by that page, varying by Origin`, async () => {
      const response = await call(`${url}/users`, { headers: { origin } });
      assert.equal(response.status, 200);
      assertReadableBy(response, origin);
      assert.equal(response.headers.get("vary"), "Origin");
    });
  }

  test("a preflight from a loopback page for DELETE -> 204 granting it, with Authorization among the headers", async () => {
    const response = await preflight(`${url}/users/1`, DEV, "DELETE", "authorization");
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("access-control-allow-origin"), DEV);
    assert.equal(response.headers.get("access-control-allow-methods"), "GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
    assert.equal(response.headers.get("access-control-allow-headers"), ALLOW_HEADERS);
  });

  for (const origin of [EVIL, "null", "http://localhost.evil.example", "http://192.168.1.20:3000"]) {
    test(`a page from ${origin} gets no CORS header on a read, and a preflight that grants nothing`, async () => {
      const read = await call(`${url}/users`, { headers: { origin } });
      assert.equal(read.status, 200);
      assertNoCors(read);
      assert.equal(read.headers.get("vary"), "Origin");
      const response = await preflight(`${url}/users/1`, origin, "DELETE");
      assert.equal(response.status, 204);
      assert.equal(response.headers.get("allow"), "GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
      assertNoCors(response);
    });
  }

  test("GET /users without Origin -> 200 with Vary: Origin and no other CORS header", async () => {
    const response = await call(`${url}/users`);
    assert.equal(response.status, 200);
    assertNoCors(response);
    assert.equal(response.headers.get("vary"), "Origin");
  });
});

describe("CORS_ORIGINS=*", () => {
  let target: Target;
  let url: string;
  before(async () => {
    target = await startTarget({ CORS_ORIGINS: "*", BODY_LIMIT: "1024" });
    url = target.url;
  });
  after(() => target.close());

  test("GET /users with Origin -> 200 with Allow-Origin *, the exposed headers, and no Vary", async () => {
    const response = await call(`${url}/users?limit=1`, { headers: { origin: APP } });
    assert.equal(response.status, 200);
    assertJsonHeaders(response);
    assertReadableBy(response, "*");
    assert.equal(response.headers.get("vary"), null);
    assert.equal(response.headers.get("x-total-count"), "2");
  });

  test("GET /users without Origin -> 200 with no CORS header and no Vary", async () => {
    const response = await call(`${url}/users`);
    assert.equal(response.status, 200);
    assertNoCors(response);
    assert.equal(response.headers.get("vary"), null);
  });

  test("GET /users with Origin: null (a sandboxed page, a file) -> Allow-Origin *: the API is public", async () => {
    const response = await call(`${url}/users`, { headers: { origin: "null" } });
    assert.equal(response.status, 200);
    assertReadableBy(response, "*");
  });

  test("POST /users with Origin -> 201 with Location readable by the page", async () => {
    const response = await call(`${url}/posts`, { method: "POST", headers: { origin: DEV }, json: { title: "T", body: "B" } });
    assert.equal(response.status, 201);
    assertReadableBy(response, "*");
    assert.equal(response.headers.get("location"), "/posts/1");
  });

  test("every error answer to a request with Origin carries Allow-Origin * and the exposed headers", async () => {
    for (const [name, send, status, code] of errorCases(url, EVIL)) {
      const response = await send();
      assert.equal(response.status, status, name);
      assert.equal((response.body as { code: string }).code, code, name);
      assertReadableBy(response, "*");
    }
    await assertUntouched(url);
  });

  test("HEAD /nowhere with Origin -> 404 with the CORS headers and no body", async () => {
    const response = await rawRequest(url, `HEAD /nowhere HTTP/1.1\r\nHost: localhost\r\nOrigin: ${APP}\r\nConnection: close\r\n\r\n`);
    assert.equal(response.status, 404);
    assert.equal(response.body, "");
    assert.equal(response.headers["access-control-allow-origin"], "*");
    assert.equal(response.headers["access-control-expose-headers"], EXPOSE);
  });

  for (const [path, allow, method] of [
    ["/users", "GET, HEAD, POST, OPTIONS", "POST"],
    ["/users/1", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS", "DELETE"],
    ["/posts/1/comments", "GET, HEAD, POST, OPTIONS", "POST"],
    ["/healthz", "GET, HEAD, OPTIONS", "GET"],
  ] as const) {
    test(`OPTIONS ${path} as a preflight for ${method} -> 204 granting ${allow}`, async () => {
      const response = await preflight(url + path, APP, method);
      assert.equal(response.status, 204);
      assert.equal(response.text, "");
      assert.equal(response.headers.get("allow"), allow);
      assert.equal(response.headers.get("access-control-allow-origin"), "*");
      assert.equal(response.headers.get("access-control-allow-methods"), allow);
      assert.equal(response.headers.get("access-control-allow-headers"), ALLOW_HEADERS);
      assert.equal(response.headers.get("access-control-max-age"), "600");
      assert.equal(response.headers.get("access-control-expose-headers"), EXPOSE);
      assert.equal(response.headers.get("access-control-allow-credentials"), null);
      assert.equal(response.headers.get("vary"), null);
    });
  }

  test("a preflight for a method the path lacks -> 204 granting the path's own methods, which the browser then refuses", async () => {
    const response = await preflight(`${url}/users`, APP, "PATCH");
    assert.equal(response.status, 204);
    const allow = response.headers.get("allow");
    assert.equal(allow, "GET, HEAD, POST, OPTIONS");
    assert.equal(response.headers.get("access-control-allow-methods"), allow);
  });

  test("a preflight asking for other headers -> 204 granting the fixed list, not what was asked", async () => {
    const response = await preflight(`${url}/users`, APP, "POST", "content-type, authorization, x-custom");
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("access-control-allow-headers"), ALLOW_HEADERS);
  });

  test("a preflight for an unknown path -> 404 ROUTE_NOT_FOUND with Allow-Origin, so the page can read why", async () => {
    const response = await preflight(`${url}/nowhere`, APP, "GET");
    assert.equal(response.status, 404);
    assert.deepEqual(response.body, { message: "No route for OPTIONS /nowhere", code: "ROUTE_NOT_FOUND" });
    assertReadableBy(response, "*");
  });

  test("OPTIONS with Origin but no Access-Control-Request-Method is no preflight: 204, Allow and Allow-Origin only", async () => {
    const response = await call(`${url}/users`, { method: "OPTIONS", headers: { origin: APP } });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), "GET, HEAD, POST, OPTIONS");
    assertReadableBy(response, "*");
  });

  test("OPTIONS with Access-Control-Request-Method but no Origin -> 204 with Allow and no CORS header", async () => {
    const response = await preflight(`${url}/users`, undefined, "POST");
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), "GET, HEAD, POST, OPTIONS");
    assertNoCors(response);
  });
});

describe("CORS_ORIGINS as a list", () => {
  let target: Target;
  let url: string;
  before(async () => {
    // Written in another case and with a default port: both are normalised.
    target = await startTarget({ CORS_ORIGINS: `HTTPS://App.Example.com:443, ${DEV}`, BODY_LIMIT: "1024" });
    url = target.url;
  });
  after(() => target.close());

  for (const origin of [APP, DEV]) {
    test(`GET /users with Origin: ${origin} -> 200 echoing the origin, with Vary: Origin`, async () => {
      const response = await call(`${url}/users`, { headers: { origin } });
      assert.equal(response.status, 200);
      assertReadableBy(response, origin);
      assert.equal(response.headers.get("vary"), "Origin");
    });
  }

  for (const origin of [EVIL, "null", "https://APP.example.com", `${APP}/`, "http://app.example.com", "*"]) {
    test(`GET /users with Origin: ${origin} -> 200 with no CORS header, and Vary: Origin`, async () => {
      const response = await call(`${url}/users`, { headers: { origin } });
      assert.equal(response.status, 200);
      assertNoCors(response);
      assert.equal(response.headers.get("vary"), "Origin");
    });
  }

  test("GET /users without Origin -> 200 with Vary: Origin and no CORS header", async () => {
    const response = await call(`${url}/users`);
    assert.equal(response.status, 200);
    assertNoCors(response);
    assert.equal(response.headers.get("vary"), "Origin");
  });

  test("every error answer to a listed origin echoes it with the exposed headers", async () => {
    for (const [name, send, status, code] of errorCases(url, DEV)) {
      const response = await send();
      assert.equal(response.status, status, name);
      assert.equal((response.body as { code: string }).code, code, name);
      assertReadableBy(response, DEV);
      assert.equal(response.headers.get("vary"), "Origin", name);
    }
  });

  test("every error answer to an origin not listed has no CORS header", async () => {
    for (const [name, send, status, code] of errorCases(url, EVIL)) {
      const response = await send();
      assert.equal(response.status, status, name);
      assert.equal((response.body as { code: string }).code, code, name);
      assertNoCors(response);
      assert.equal(response.headers.get("vary"), "Origin", name);
    }
    await assertUntouched(url);
  });

  test("a preflight from a listed origin -> 204 granting the path's methods to that origin", async () => {
    const response = await preflight(`${url}/users/1`, APP, "PUT", "content-type, if-match");
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), "GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
    assert.equal(response.headers.get("access-control-allow-origin"), APP);
    assert.equal(response.headers.get("access-control-allow-methods"), "GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
    assert.equal(response.headers.get("access-control-allow-headers"), ALLOW_HEADERS);
    assert.equal(response.headers.get("access-control-max-age"), "600");
    assert.equal(response.headers.get("vary"), "Origin");
  });

  test("a preflight from an origin not listed -> 204 with Allow and Vary only: the browser sends nothing more", async () => {
    const response = await preflight(`${url}/users/1`, EVIL, "DELETE");
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), "GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
    assertNoCors(response);
    assert.equal(response.headers.get("vary"), "Origin");
  });

  test("a preflight from Origin: null -> 204 with Allow only: null is allowed only where the list names it", async () => {
    const response = await preflight(`${url}/users`, "null", "POST");
    assert.equal(response.status, 204);
    assertNoCors(response);
  });

  test("a text/plain POST from an origin not listed (what a plain HTML form can send) -> 415, nothing stored", async () => {
    const response = await call(`${url}/users`, {
      method: "POST",
      headers: { origin: EVIL, "content-type": "text/plain;charset=UTF-8" },
      body: JSON.stringify({ name: "Mallory", email: "mallory@example.com" }),
    });
    assert.equal(response.status, 415);
    assert.equal((response.body as { code: string }).code, "UNSUPPORTED_MEDIA_TYPE");
    assertNoCors(response);
    await assertUntouched(url);
  });

  test("a form-encoded POST from an origin not listed -> 415, nothing stored", async () => {
    const response = await call(`${url}/users`, {
      method: "POST",
      headers: { origin: EVIL, "content-type": "application/x-www-form-urlencoded" },
      body: "name=Mallory&email=mallory%40example.com",
    });
    assert.equal(response.status, 415);
    await assertUntouched(url);
  });
});

describe("CORS_ORIGINS=off", () => {
  let target: Target;
  let url: string;
  before(async () => {
    target = await startTarget({ CORS_ORIGINS: "off" });
    url = target.url;
  });
  after(() => target.close());

  test("GET /users with Origin -> 200 with no CORS header and no Vary", async () => {
    const response = await call(`${url}/users`, { headers: { origin: APP } });
    assert.equal(response.status, 200);
    assertNoCors(response);
    assert.equal(response.headers.get("vary"), null);
  });

  test("GET /nowhere with Origin -> 404 with no CORS header", async () => {
    const response = await call(`${url}/nowhere`, { headers: { origin: APP } });
    assert.equal(response.status, 404);
    assertNoCors(response);
  });

  test("a preflight -> 204 with Allow only", async () => {
    const response = await preflight(`${url}/users`, APP, "POST");
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), "GET, HEAD, POST, OPTIONS");
    assertNoCors(response);
    assert.equal(response.headers.get("vary"), null);
  });
});
