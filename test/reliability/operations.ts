// Random sequences of API requests, valid and invalid, run against a fresh server and the model side by side.
import { Agent, request as httpRequest } from "node:http";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { startServer } from "../../src/http/server.ts";
import { checkEtag, type EtagLedger, newEtagLedger } from "./etags.ts";
import { ApiModel, type Expected, type ModelRequest } from "./model.ts";

/** Ids small enough to collide often, and path ids the contract refuses. */
const goodId = fc
  .oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 2 }) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 4 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 9 }) },
  )
  .map(String);
const badId = fc.constantFrom("abc", "0", "-1", "1.5", "1e3", "99999999999999999999", "9007199254740992", "01", "002");
const pathId = fc.oneof({ weight: 12, arbitrary: goodId }, { weight: 1, arbitrary: badId });

/** Member values of every JSON type, small. */
const anyValue = fc.jsonValue({ maxDepth: 2 });
const nonEmpty = fc.constantFrom("Grace Hopper", "x", "Ünïcødé ✓", "tab\tinside", "a".repeat(300));
const notNonEmpty = fc.constantFrom<unknown>("", "   ", "\t\n", null, 0, true, [], {});
const text = fc.oneof(
  { weight: 12, arbitrary: nonEmpty },
  { weight: 1, arbitrary: notNonEmpty },
  // Any characters, white space of every kind included.
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 4 }) },
);
const email = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("grace@example.com", "a@b.io", "x.y+z@sub.example.org", "ü@ex.de") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "",
      "plain",
      "@b.io",
      "a@b",
      "a@.io",
      "a@b..io",
      "a b@c.io",
      "a@@b.io",
      `${"a".repeat(250)}@b.io`,
      5,
      null,
    ),
  },
  // Random text around an "@", with dots: the address rule tried at its edges.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ unit: "binary", maxLength: 3 }), fc.constantFrom("@", "@@", ""), fc.string({ maxLength: 3 }))
      .map(([local, at, domain]) => `${local}${at}${domain}.${domain}`),
  },
);
const userId = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 9 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, "3", 2 ** 53, null, 1e21) },
);
const extras = fc.dictionary(fc.constantFrom("role", "tags", "meta", "score", "note", "name2", "x"), anyValue, {
  maxKeys: 3,
});

const ABSENT = Symbol("absent");

/** A member sent `present` times in 20, else left out. */
function member(value: fc.Arbitrary<unknown>, present: number): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: present, arbitrary: value }, { weight: 20 - present, arbitrary: fc.constant(ABSENT) });
}

/** An object body with some of the members a resource knows and maybe some it does not. */
function objectBody(members: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<string> {
  return fc.tuple(fc.record(members), extras).map(([known, other]) => {
    const sent: Record<string, unknown> = { ...other };
    for (const [name, value] of Object.entries(known)) if (value !== ABSENT) sent[name] = value;
    return JSON.stringify(sent);
  });
}

/** Bodies no resource may accept, whatever the resource: the checks of contract 3. */
const badBody = fc.constantFrom(
  "",
  " \r\n",
  "{",
  '{"name":"a",}',
  "{}{}",
  "[]",
  '"user"',
  "42",
  "null",
  "true",
  '{"__proto__":{"admin":true}}',
  '{"a":{"constructor":1}}',
  '{"a":[{"prototype":{}}]}',
  `{"a":${"[".repeat(64)}${"]".repeat(64)}}`,
  `{"a":${"[".repeat(63)}${"]".repeat(63)}}`,
  '{"n":1e400}',
  '{"title":"t","body":"b","n":-1e999}',
  '{"name":"first","name":"Ada","email":"a@b.io"}',
);

function body(members: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<string> {
  return fc.oneof({ weight: 10, arbitrary: objectBody(members) }, { weight: 1, arbitrary: badBody });
}

const contentType = fc.oneof(
  { weight: 20, arbitrary: fc.constant("application/json") },
  {
    weight: 1,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      "text/plain",
      "APPLICATION/JSON",
      "application/json; charset=utf-8",
      "application/merge-patch+json",
      'application/json; charset="UTF-8"',
      "application/json; charset=latin1",
      "application/jsonx",
    ),
  },
);

const page = fc.oneof(
  { weight: 4, arbitrary: fc.constant("") },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.option(fc.integer({ min: 0, max: 4 })), fc.option(fc.integer({ min: 0, max: 4 })))
      .map(([limit, offset]) => {
        const pairs = [limit === null ? "" : `limit=${limit}`, offset === null ? "" : `offset=${offset}`];
        const query = pairs.filter((pair) => pair !== "").join("&");
        return query === "" ? "" : `?${query}`;
      }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "?limit=-1",
      "?limit=abc",
      "?offset=1.5",
      "?limit=",
      "?limit=1&limit=1",
      "?limit=01",
      "?other=1",
    ),
  },
);

/** Members records have, or could have through `extras`, to sort and filter on; and one none has. */
const listMember = fc.constantFrom(
  "id",
  "name",
  "email",
  "title",
  "body",
  "role",
  "tags",
  "meta",
  "score",
  "note",
  "x",
  "createdAt",
  "postId",
  "commentId",
  "nowhere",
);
const sortKey = fc.tuple(fc.boolean(), listMember).map(([descending, name]) => (descending ? `-${name}` : name));
const sort = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .uniqueArray(sortKey, { minLength: 1, maxLength: 3, selector: (key) => key.replace(/^-/, "") })
      .map((keys) => `sort=${keys.join(",")}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "sort=",
      "sort",
      "sort=-",
      "sort=id,,name",
      "sort=name,",
      "sort=+name",
      "sort=id&sort=name",
      "sort=id,-id",
      "sort=a,b,c,d,e,f",
    ),
  },
);
/** Values that the generated members often hold, as query text. */
const filterValue = fc.constantFrom("1", "2", "3", "null", "true", "false", "0", "Grace+Hopper", "x", "", "grace%40example.com");
const filter = fc.oneof(
  { weight: 10, arbitrary: fc.tuple(listMember, filterValue).map(([name, value]) => `${name}=${value}`) },
  { weight: 1, arbitrary: fc.constantFrom("=x", "=") },
);
/** Contract 10's list controls on top of a page: maybe a sort, maybe some filters, in any order. */
const listQuery = fc
  .tuple(
    page,
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<string[]>([]) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.option(sort, { nil: undefined }), fc.array(filter, { maxLength: 3 }))
          .chain(([sorted, filters]) => fc.shuffledSubarray(sorted === undefined ? filters : [sorted, ...filters])),
      },
    ),
  )
  .map(([paged, controls]) => {
    const parts = paged === "" ? controls : [paged.slice(1), ...controls];
    return parts.length === 0 ? "" : `?${parts.join("&")}`;
  });

const slash = fc.oneof({ weight: 9, arbitrary: fc.constant("") }, { weight: 1, arbitrary: fc.constant("/") });

function send(method: string, path: fc.Arbitrary<string>, bodies?: fc.Arbitrary<string>): fc.Arbitrary<ModelRequest> {
  if (bodies === undefined) return fc.tuple(path, slash).map(([target, end]) => ({ method, target: target + end }));
  return fc
    .tuple(path, slash, contentType, bodies)
    .map(([target, end, type, text]) =>
      type === undefined
        ? { method, target: target + end, body: text }
        : { method, target: target + end, contentType: type, body: text },
    );
}

/** Creates send the required members nearly always; updates send each member about half the time. */
function bodies(required: Record<string, fc.Arbitrary<unknown>>, serverSet: string[], present: number) {
  const members: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, value] of Object.entries(required)) members[name] = member(value, present);
  for (const name of serverSet)
    members[name] = member(fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constant("2020-01-01T00:00:00.000Z")), 1);
  return body(members);
}

const userCreate = bodies({ name: text, email }, [], 19).chain((text) =>
  // Some creates choose their id; a small one often collides with a held user.
  fc.oneof({ weight: 3, arbitrary: fc.constant(text) }, { weight: 1, arbitrary: userId.map((id) => withId(text, id)) }),
);
const userUpdate = bodies({ name: text, email }, [], 8).chain((text) =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(text) }, { weight: 1, arbitrary: userId.map((id) => withId(text, id)) }),
);
const postCreate = bodies({ title: text, body: text }, ["id", "createdAt"], 19);
const postUpdate = bodies({ title: text, body: text }, ["id", "createdAt"], 8);
const childCreate = (key: string) => bodies({ body: text }, ["id", key, "createdAt"], 19);
const childUpdate = (key: string) => bodies({ body: text }, ["id", key, "createdAt"], 8);
// A merge patch sends null (remove) as often as a value, and nested objects, which merge.
const orNull = (value: fc.Arbitrary<unknown>) => fc.oneof(value, fc.constant(null));
const nested = fc.oneof(text, fc.constant(null), fc.record({ a: fc.oneof(text, fc.constant(null)), b: fc.constant({ c: null }) }));
const userPatch = bodies({ name: orNull(text), email: orNull(email), role: nested }, [], 8);
const postPatch = bodies({ title: orNull(text), body: orNull(text), meta: nested }, ["id", "createdAt"], 8);
const childPatch = (key: string) => bodies({ body: orNull(text), meta: nested }, ["id", key, "createdAt"], 8);

/** Adds an `id` member to a body that is a JSON object; leaves any other body as it is. */
function withId(text: string, id: unknown): string {
  if (!text.startsWith("{") || !text.endsWith("}")) return text;
  const rest = text.slice(1, -1);
  return `{"id":${JSON.stringify(id)}${rest === "" ? "" : `,${rest}`}}`;
}

const item = (collection: string) => pathId.map((id) => `/${collection}/${id}`);
const under = (parent: string, children: string) => pathId.map((id) => `/${parent}/${id}/${children}`);
const list = (path: string) => listQuery.map((query) => path + query);

/** One request of any kind the API knows, weighted towards creates so records exist to read and delete. */
export const operation: fc.Arbitrary<ModelRequest> = fc.oneof(
  { weight: 6, arbitrary: send("POST", fc.constant("/users"), userCreate) },
  { weight: 2, arbitrary: send("GET", list("/users")) },
  { weight: 2, arbitrary: send("GET", item("users")) },
  { weight: 3, arbitrary: send("PUT", item("users"), userUpdate) },
  { weight: 2, arbitrary: send("PATCH", item("users"), userPatch) },
  { weight: 2, arbitrary: send("DELETE", item("users")) },
  { weight: 5, arbitrary: send("POST", fc.constant("/posts"), postCreate) },
  { weight: 2, arbitrary: send("GET", list("/posts")) },
  { weight: 1, arbitrary: send("GET", item("posts")) },
  { weight: 2, arbitrary: send("PUT", item("posts"), postUpdate) },
  { weight: 2, arbitrary: send("PATCH", item("posts"), postPatch) },
  { weight: 1, arbitrary: send("DELETE", item("posts")) },
  { weight: 7, arbitrary: send("POST", under("posts", "comments"), childCreate("postId")) },
  {
    weight: 2,
    arbitrary: send(
      "GET",
      fc.tuple(under("posts", "comments"), listQuery).map(([path, query]) => path + query),
    ),
  },
  { weight: 1, arbitrary: send("GET", item("comments")) },
  { weight: 2, arbitrary: send("PUT", item("comments"), childUpdate("postId")) },
  { weight: 1, arbitrary: send("PATCH", item("comments"), childPatch("postId")) },
  { weight: 1, arbitrary: send("DELETE", item("comments")) },
  { weight: 8, arbitrary: send("POST", under("comments", "replies"), childCreate("commentId")) },
  {
    weight: 2,
    arbitrary: send(
      "GET",
      fc.tuple(under("comments", "replies"), listQuery).map(([path, query]) => path + query),
    ),
  },
  { weight: 1, arbitrary: send("GET", item("replies")) },
  { weight: 2, arbitrary: send("PUT", item("replies"), childUpdate("commentId")) },
  { weight: 1, arbitrary: send("PATCH", item("replies"), childPatch("commentId")) },
  { weight: 1, arbitrary: send("DELETE", item("replies")) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom("PATCH", "OPTIONS", "HEAD", "DELETE", "POST", "PUT"),
        fc.constantFrom(
          "/users",
          "/posts",
          "/users/1",
          "/posts/1/comments",
          "/comments/1",
          "/replies/2",
          "/comments",
          "/Users",
          "/users//",
          "/users/1/replies",
          "/posts/x/comments",
          "/replies/1/replies",
        ),
      )
      .map(([method, target]) => ({ method, target })),
  },
);

/** What the server sent, read whole. */
type Actual = { status: number; headers: Record<string, string | string[] | undefined>; text: string };

/** Sends one request exactly as written, on a keep-alive agent. */
function perform(url: string, agent: Agent, request: ModelRequest): Promise<Actual> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (request.contentType !== undefined) headers["content-type"] = request.contentType;
    const payload = request.body === undefined ? undefined : Buffer.from(request.body);
    if (payload !== undefined) headers["content-length"] = String(payload.length);
    const outgoing = httpRequest(`${url}${request.target}`, { method: request.method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

// What Date#toISOString writes: always UTC, always milliseconds.
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Says how the server's answer differs from the model's, or nothing when they agree. */
function compare(
  model: ApiModel,
  expected: Expected,
  actual: Actual,
  head: boolean,
  window: [number, number],
): string | undefined {
  if (actual.status !== expected.status)
    return `status ${actual.status}, model says ${expected.status}: ${actual.text.slice(0, 300)}`;
  const empty = expected.status === 204 || head;
  if (empty) {
    if (actual.text !== "") return `expected no body, got ${actual.text.slice(0, 200)}`;
  } else {
    if (actual.headers["content-type"] !== "application/json; charset=utf-8")
      return `Content-Type ${String(actual.headers["content-type"])}`;
    if (actual.headers["content-length"] !== String(Buffer.byteLength(actual.text)))
      return "Content-Length disagrees with the body";
  }
  const allow = expected.allow;
  if (allow !== undefined && actual.headers["allow"] !== allow)
    return `Allow ${String(actual.headers["allow"])}, model says ${allow}`;
  if (expected.kind === "error") {
    if (head) return undefined;
    const body = JSON.parse(actual.text) as {
      code?: unknown;
      message?: unknown;
      errors?: Array<{ path: string; message: string }>;
    };
    if (body.code !== expected.code) return `code ${String(body.code)}, model says ${expected.code}`;
    if (typeof body.message !== "string" || body.message === "") return "the error has no message";
    if (expected.message !== undefined && body.message !== expected.message)
      return `message "${body.message}", model says "${expected.message}"`;
    const paths = body.errors?.map((entry) => entry.path).sort();
    if (!isDeepStrictEqual(paths, expected.errorPaths))
      return `errors ${JSON.stringify(body.errors)}, model lists ${JSON.stringify(expected.errorPaths)}`;
    if (body.errors?.some((entry) => typeof entry.message !== "string" || entry.message === ""))
      return "an error entry has no message";
    return undefined;
  }
  if (expected.location !== actual.headers["location"])
    return `Location ${String(actual.headers["location"])}, model says ${String(expected.location)}`;
  const total = expected.totalCount === undefined ? undefined : String(expected.totalCount);
  if (total !== actual.headers["x-total-count"])
    return `X-Total-Count ${String(actual.headers["x-total-count"])}, model says ${String(total)}`;
  if (expected.link !== actual.headers["link"])
    return `Link ${String(actual.headers["link"])}, model says ${String(expected.link)}`;
  if (empty) return undefined;
  const body = JSON.parse(actual.text) as Record<string, unknown>;
  if (expected.created !== undefined) {
    // createdAt is the server's clock: checked for shape and time, then taken into the model.
    const at = body.createdAt;
    if (typeof at !== "string" || !ISO_UTC.test(at))
      return `createdAt ${JSON.stringify(at)} is not an ISO 8601 UTC time`;
    const time = Date.parse(at);
    if (time < window[0] || time > window[1]) return `createdAt ${at} is outside the request's time`;
    model.stamp(expected.created, at);
  }
  // Through JSON, as the server's answer went: -0 is written 0.
  const wanted: unknown = JSON.parse(JSON.stringify(expected.body));
  if (!isDeepStrictEqual(body, wanted))
    return `body ${actual.text.slice(0, 400)}, model says ${JSON.stringify(wanted).slice(0, 400)}`;
  return undefined;
}

/** A request as one line: method, target, media type and body. */
export function describeRequest(request: ModelRequest): string {
  const type = request.contentType === undefined ? "" : ` [${request.contentType}]`;
  const body = request.body ?? "";
  const text = request.body === undefined ? "" : ` ${body.length > 200 ? `${body.slice(0, 200)}…` : body}`;
  return `${request.method} ${request.target}${type}${text}`;
}

/** Counts of one model-based run. */
export type ModelStats = { sequences: number; steps: number };

/** What one sequence compares against: the model, the ETags seen, and how requests reach the server. */
export type Session = {
  model: ApiModel;
  etags: EtagLedger;
  url: string;
  agent: Agent;
};

/** Sends one request to the model and the server, and throws at the first difference. */
export async function checkStep(session: Session, request: ModelRequest, step: number | string): Promise<void> {
  const before = Date.now();
  const expected = session.model.handle(request);
  const actual = await perform(session.url, session.agent, request);
  const head = request.method === "HEAD";
  const problem =
    compare(session.model, expected, actual, head, [before, Date.now()]) ??
    checkEtag(session.etags, request, expected, actual.status, actual.headers["etag"], actual.text);
  if (problem !== undefined) throw new Error(`step ${step}, ${describeRequest(request)}: ${problem}`);
}

/**
 * The whole state, read back: every list the model holds (nothing missing, nothing
 * more), then every id ever given, one by one, so a record a cascade should have
 * taken, or one that came back, is found.
 */
export function stateReads(model: ApiModel): ModelRequest[] {
  const reads: ModelRequest[] = [
    { method: "GET", target: "/users" },
    { method: "GET", target: "/posts" },
  ];
  for (const post of model.posts) reads.push({ method: "GET", target: `/posts/${String(post.id)}/comments` });
  for (const comment of model.comments) reads.push({ method: "GET", target: `/comments/${String(comment.id)}/replies` });
  const given: Array<[string, number]> = [
    ["users", 12],
    ["posts", model.lastPostId],
    ["comments", model.lastCommentId],
    ["replies", model.lastReplyId],
  ];
  for (const [collection, last] of given) {
    for (let id = 1; id <= last; id++) reads.push({ method: "GET", target: `/${collection}/${id}` });
  }
  return reads;
}

/**
 * Runs one sequence on a fresh in-process server and a fresh model, comparing
 * every answer, then every list the model holds. Throws at the first difference.
 */
export async function runSequence(requests: readonly ModelRequest[], stats: ModelStats, shared?: SharedTarget): Promise<void> {
  const server = shared === undefined ? await startServer() : { url: shared.url, close: () => Promise.resolve() };
  await shared?.reset();
  const session: Session = {
    model: new ApiModel(),
    etags: newEtagLedger(),
    url: server.url,
    // A shared target gets a new connection per request, so that a proxy in front of several servers alternates them.
    agent: new Agent(shared === undefined ? { keepAlive: true, maxSockets: 1 } : { keepAlive: false, maxSockets: 1 }),
  };
  stats.sequences++;
  try {
    for (const [step, request] of requests.entries()) {
      stats.steps++;
      await checkStep(session, request, step + 1);
    }
    for (const request of stateReads(session.model)) await checkStep(session, request, "final");
  } finally {
    session.agent.destroy();
    await server.close();
  }
}

/** A server that every sequence shares, put back to its starting records before each one (several processes on one database). */
export type SharedTarget = { url: string; reset: () => Promise<void> };

/** Options of runModel. */
export type ModelRunOptions = {
  /** Runs every sequence against this server instead of a fresh one in this process. */
  shared?: SharedTarget;
  seed: number;
  runs: number;
  maxSteps: number;
  /** A counterexample path printed by a failed run: with its seed, replays only the shortest sequence. */
  path?: string;
};

/**
 * Runs `runs` random sequences from `seed`. On a difference, fast-check shrinks the
 * sequence, and the error lists the shortest one found, request by request.
 */
export async function runModel(options: ModelRunOptions): Promise<ModelStats> {
  const stats: ModelStats = { sequences: 0, steps: 0 };
  const sequences = fc.array(operation, { minLength: 1, maxLength: options.maxSteps, size: "max" });
  await checkSequences(sequences, (requests) => runSequence(requests, stats, options.shared), (requests) => requests.map(describeRequest), options);
  return stats;
}

/**
 * Runs a property over random sequences; on a failure, throws with the replay
 * settings and the shortest sequence fast-check found, one line a step.
 */
export async function checkSequences<T>(
  sequences: fc.Arbitrary<T>,
  run: (sequence: T) => Promise<void>,
  describe: (sequence: T) => string[],
  options: ModelRunOptions,
): Promise<void> {
  const result = await fc.check(fc.asyncProperty(sequences, run), {
    seed: options.seed,
    numRuns: options.runs,
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  if (!result.failed) return;
  const shortest = result.counterexample?.[0];
  const lines = shortest === undefined ? [] : describe(shortest);
  const cause = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
  throw new Error(
    `The server and the model disagree (replay with RELIABILITY_SEED=${options.seed} ` +
      `RELIABILITY_PATH="${result.counterexamplePath ?? ""}"; ` +
      `shrunk ${result.numShrinks} times).\n` +
      `Shortest sequence, ${lines.length} steps:\n${lines.map((line, index) => `  ${index + 1}. ${line}`).join("\n")}\n${cause}`,
  );
}
