// The answers of createFetchApp to a fixed set of requests, as plain data, on whichever runtime runs this:
// imported on Node, and run as a script on Deno and Bun (test/fetch-app-runtimes.test.ts), which print it;
// and the seed and header reading that test/fetch-app.test.ts shares.
import { createFetchApp } from "../../src/http/fetch-app.ts";
import type { Seed } from "../../src/store/records.ts";

/** One answer: its status, its headers in the order Headers gives them, and its body. */
export type Answer = { what: string; status: number; headers: Array<[string, string]>; body: string };

const AT = "2026-01-31T09:30:00.000Z";
const JSON_TYPE = { "content-type": "application/json" };
/** Enough users that the whole list is longer than a piece, so it is written in pieces (and streamed in-process). */
export const MANY: Seed = {
  users: Array.from({ length: 1500 }, (_, i) => ({ id: i + 1, name: `User ${i + 1} ${"x".repeat(40)}`, email: `user${i + 1}@example.com`, role: i % 2 ? "a" : "b" })),
};

/**
 * The headers of an answer without those of its connection, which an in-process answer cannot
 * have. An ETag starts with its instance's epoch, which two instances never share: it is masked.
 */
export function headersOf(response: Response): Array<[string, string]> {
  return [...response.headers]
    .filter(([name]) => !["date", "connection", "keep-alive"].includes(name))
    .map(([name, value]) => [name, name === "etag" ? value.replace(EPOCH, '"epoch-') : value]);
}

const EPOCH = /^"[0-9a-f]{8}-/;

/** Every shape of answer the listener writes: a record, a list in one piece and in many, a create, errors, a preflight, 204 and 304, HEAD. */
const STEPS: Array<{ path: string; init?: RequestInit }> = [
  { path: "/users/1" },
  { path: "/users/1", init: { method: "HEAD" } },
  { path: "/users?limit=2&offset=2" },
  { path: "/users" },
  { path: "/users", init: { method: "HEAD" } },
  { path: "/users", init: { method: "POST", headers: JSON_TYPE, body: '{"name":"Grace Hopper","email":"grace@example.com"}' } },
  { path: "/users", init: { method: "POST", headers: JSON_TYPE, body: '{"name":""}' } },
  { path: "/users/1", init: { method: "PUT" } },
  { path: "/nowhere" },
  { path: "/users", init: { method: "OPTIONS", headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" } } },
  { path: "/users/2", init: { method: "DELETE" } },
  { path: "/posts", init: { method: "POST", headers: JSON_TYPE, body: '{"title":"On engines","body":"Notes","userId":1}' } },
];

/** Sends every step to a fresh app, each with its own request id, and returns what it answered. */
export async function fetchAnswers(): Promise<Answer[]> {
  const app = createFetchApp({ seed: MANY, clock: () => new Date(AT) });
  const answers: Answer[] = [];
  try {
    let index = 0;
    for (const { path, init = {} } of STEPS) {
      const headers = { ...(init.headers as Record<string, string>), "x-request-id": `step-${index}` };
      const response = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers }));
      answers.push(await answerOf(`${index++}: ${init.method ?? "GET"} ${path}`, response));
    }
    // A conditional read of what the first read answered: 304, no body.
    const tag = (await app.fetch(new Request("http://localhost/users/1"))).headers.get("etag")!;
    const unchanged = await app.fetch(new Request("http://localhost/users/1", { headers: { "if-none-match": tag, "x-request-id": "step-last" } }));
    answers.push(await answerOf(`${index}: GET /users/1 with If-None-Match`, unchanged));
  } finally {
    await app.close();
  }
  return answers;
}

/** An answer as data, its ETag's epoch masked. */
async function answerOf(what: string, response: Response): Promise<Answer> {
  return { what, status: response.status, headers: headersOf(response), body: await response.text() };
}
