// One crash-test client: the records it alone owns, as its acknowledged writes left them, the writes it sends, and what a restarted server may hold of them.
import { isDeepStrictEqual } from "node:util";
import type { Answer } from "./crash-http.ts";

export const KINDS = ["users", "posts", "comments", "replies"] as const;
export type Kind = (typeof KINDS)[number];
/** The collections whose ids the server gives in sequence, never reusing one. */
export type SequenceKind = Exclude<Kind, "users">;
export type Rec = Record<string, unknown> & { id: number };

/** A record a client owns: its last acknowledged state, that write's ETag (undefined until read after a write of unknown fate), and its older ETags. */
export type Held = { record: Rec; etag: string | undefined; stale: string[] };

/** The highest id acknowledged so far in each sequence collection, over every client. */
export type Highest = Record<SequenceKind, number>;

/** One write a client sends, with the answer it must get and what that answer changes. */
export type Op = {
  /** Unique to this write; every record it creates or updates carries it, so its trace can be found. */
  mark: string;
  method: "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  expect: number;
  kind: Kind;
  /** What a 2xx answer does; `none` for a write that must be refused and leave no trace. */
  effect: "create" | "put" | "patch" | "delete" | "none";
  /** The record written, when known before the answer (every write but a create of a sequence id). */
  id?: number;
  parentId?: number;
  /** For a create of a sequence id: the highest id acknowledged when it was sent, which its id must pass. */
  floor?: number;
};

export type Client = {
  index: number;
  held: Record<Kind, Map<number, Held>>;
  /** Ids deleted, or refused at creation (users), since the last check: each must answer 404 after a restart. */
  gone: Record<Kind, Set<number>>;
  /** A few ids that no longer exist, kept for writes that must answer 404. */
  dead: Record<Kind, number[]>;
  nextUserId: number;
  ops: number;
  /** The write that was sent and never answered when the server was killed. */
  pending: Op | undefined;
  acked: number;
  refused: number;
};

const PARENT = { comments: { kind: "posts", key: "postId" }, replies: { kind: "comments", key: "commentId" } } as const;
const CHILD: Partial<Record<Kind, Kind>> = { posts: "comments", comments: "replies" };
// Caps keep each client's records few, so that checking all of them after every restart stays quick.
const CAP = { users: 6, posts: 3, comments: 3, replies: 2 };
// Each client's users have ids from a range of their own, far above the seed's and any count + 1.
const USER_RANGE = 100_000;
const MERGE_PATCH = { "content-type": "application/merge-patch+json" };

export function newClient(index: number): Client {
  const sets = () => ({ users: new Set<number>(), posts: new Set<number>(), comments: new Set<number>(), replies: new Set<number>() });
  return {
    index,
    held: { users: new Map(), posts: new Map(), comments: new Map(), replies: new Map() },
    gone: sets(),
    dead: { users: [], posts: [], comments: [], replies: [] },
    nextUserId: USER_RANGE * (index + 1),
    ops: 0,
    pending: undefined,
    acked: 0,
    refused: 0,
  };
}

/** Which client a record's mark names, or undefined for a record no client wrote (the seed). */
export function ownerOf(record: Rec): number | undefined | "unknown" {
  if (record.mark === undefined) return undefined;
  const match = typeof record.mark === "string" ? /^c(\d+)-o\d+$/.exec(record.mark) : null;
  return match === null ? "unknown" : Number(match[1]);
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const chance = (p: number) => Math.random() < p;
// Multi-byte characters, as real text has, so a torn line would show.
const text = (mark: string) => `${mark} — ✓ ü`;

/** The next write of a client: mostly writes that succeed, some that must be refused. */
export function nextOp(client: Client, highest: Highest): Op {
  const mark = `c${client.index}-o${++client.ops}`;
  if (chance(0.1)) {
    const refusal = refusedOp(client, mark);
    if (refusal !== undefined) return refusal;
  }
  const { held } = client;
  const kind = pick<Kind>(["users", "users", "posts", "comments", "comments", "replies", "replies"]);
  if (kind === "users" || kind === "posts") {
    const count = held[kind].size;
    if (count === 0 || (count < CAP[kind] && chance(0.5))) return create(client, kind, mark, highest);
    return change(client, kind, pick([...held[kind].values()]), mark);
  }
  const parent = pickParent(client, kind);
  if (parent === undefined) return add(client, PARENT[kind].kind, mark, highest);
  const children = [...held[kind].values()].filter((h) => h.record[PARENT[kind].key] === parent);
  if (children.length === 0 || (children.length < CAP[kind] && chance(0.5))) return create(client, kind, mark, highest, parent);
  return change(client, kind, pick(children), mark);
}

/** One of the client's records that can be a parent of `kind`, if it holds any. */
function pickParent(client: Client, kind: "comments" | "replies"): number | undefined {
  const parents = [...client.held[PARENT[kind].kind].keys()];
  return parents.length === 0 ? undefined : pick(parents);
}

/** A create in `kind`, or in its parent's collection when the client holds no parent yet. */
function add(client: Client, kind: Kind, mark: string, highest: Highest): Op {
  if (kind === "users" || kind === "posts") return create(client, kind, mark, highest);
  const parent = pickParent(client, kind);
  return parent === undefined ? add(client, PARENT[kind].kind, mark, highest) : create(client, kind, mark, highest, parent);
}

function create(client: Client, kind: Kind, mark: string, highest: Highest, parentId?: number): Op {
  if (kind === "users") {
    const id = client.nextUserId++;
    const body = { id, name: text(mark), email: `${mark}@example.com`, mark };
    return { mark, method: "POST", path: "/users", body, expect: 201, kind, effect: "create", id };
  }
  const body = kind === "posts" ? { title: text(mark), body: `body of ${mark}`, mark } : { body: text(mark), mark };
  const path = kind === "posts" ? "/posts" : `/${PARENT[kind].kind}/${parentId}/${kind}`;
  return { mark, method: "POST", path, body, expect: 201, kind, effect: "create", parentId, floor: highest[kind] };
}

/** A PUT, PATCH or DELETE of a held record, with its current ETag in If-Match now and then. */
function change(client: Client, kind: Kind, target: Held, mark: string): Op {
  const { id } = target.record;
  const path = `/${kind}/${id}`;
  const ifMatch: Record<string, string> = target.etag !== undefined && chance(0.3) ? { "if-match": target.etag } : {};
  if (chance(0.2)) return { mark, method: "DELETE", path, headers: ifMatch, expect: 204, kind, effect: "delete", id };
  const field = kind === "users" ? "name" : kind === "posts" ? "title" : "body";
  if (chance(0.5)) {
    return { mark, method: "PUT", path, body: { [field]: text(mark), mark }, headers: ifMatch, expect: 200, kind, effect: "put", id };
  }
  // A merge patch that sets a member or removes it, as `null` does.
  const body = { mark, extra: chance(0.5) ? null : `extra ${mark}` };
  return { mark, method: "PATCH", path, body, headers: { ...MERGE_PATCH, ...ifMatch }, expect: 200, kind, effect: "patch", id };
}

/** A write the server must refuse, changing nothing: 409, 400, 404 or 412; undefined if the client holds nothing to aim it at. */
function refusedOp(client: Client, mark: string): Op | undefined {
  const { held, dead } = client;
  const users = [...held.users.values()];
  const staled = KINDS.flatMap((kind) => [...held[kind].values()].filter((h) => h.stale.length > 0).map((h) => ({ kind, h })));
  const choices: (() => Op | undefined)[] = [
    // An id the client holds already.
    () => {
      if (users.length === 0) return undefined;
      const id = pick(users).record.id;
      return { mark, method: "POST", path: "/users", body: { id, name: text(mark), email: `${mark}@example.com`, mark }, expect: 409, kind: "users", effect: "none", id };
    },
    // An invalid body on a new id: that id must stay free.
    () => {
      const id = client.nextUserId++;
      return { mark, method: "POST", path: "/users", body: { id, name: "", email: "nope", mark }, expect: 400, kind: "users", effect: "none", id };
    },
    () => {
      if (users.length === 0) return undefined;
      const id = pick(users).record.id;
      return { mark, method: "PATCH", path: `/users/${id}`, body: { email: "nope", mark }, headers: MERGE_PATCH, expect: 400, kind: "users", effect: "none", id };
    },
    // A parent that is gone.
    () => {
      const kind = pick(["comments", "replies"] as const);
      const parentKind = PARENT[kind].kind;
      if (dead[parentKind].length === 0) return undefined;
      const parentId = pick(dead[parentKind]);
      return { mark, method: "POST", path: `/${parentKind}/${parentId}/${kind}`, body: { body: text(mark), mark }, expect: 404, kind, effect: "none", parentId };
    },
    // An ETag the record had before its last write.
    () => {
      if (staled.length === 0) return undefined;
      const { kind, h } = pick(staled);
      const headers = { "if-match": pick(h.stale) };
      const path = `/${kind}/${h.record.id}`;
      if (chance(0.5)) return { mark, method: "DELETE", path, headers, expect: 412, kind, effect: "none", id: h.record.id };
      const field = kind === "users" ? "name" : kind === "posts" ? "title" : "body";
      return { mark, method: "PUT", path, body: { [field]: text(mark), mark }, headers, expect: 412, kind, effect: "none", id: h.record.id };
    },
  ];
  return pick(choices)();
}

/** The record an update leaves: PUT merges the body's members over it, PATCH applies the (flat) merge patch. */
function updated(record: Rec, op: Op): Rec {
  const result: Rec = { ...record, ...op.body };
  if (op.effect === "patch") for (const [name, value] of Object.entries(op.body!)) if (value === null) delete result[name];
  return result;
}

/**
 * Takes the answer to a write into the model, or returns what is wrong with it: a status
 * other than the one expected, or a record other than the write should have made.
 */
export function settle(client: Client, op: Op, answer: Answer, highest: Highest): string | undefined {
  const wrong = (what: string) => `client ${client.index}, ${op.method} ${op.path} ${JSON.stringify(op.body ?? {})}: ${what}`;
  if (answer.status !== op.expect) return wrong(`answered ${answer.status}, expected ${op.expect}: ${JSON.stringify(answer.body)}`);
  if (op.effect === "none") {
    client.refused++;
    if (op.expect === 400 && op.method === "POST") client.gone.users.add(op.id!);
    return undefined;
  }
  client.acked++;
  if (op.effect === "delete") {
    removeTree(client, op.kind, op.id!);
    return undefined;
  }
  const record = answer.body as Rec;
  if (answer.etag === undefined) return wrong("no ETag");
  if (op.effect === "create") {
    const expected = expectedCreate(op, record);
    if (!isDeepStrictEqual(canonical(record), canonical(expected))) return wrong(`made ${JSON.stringify(record)}, expected ${JSON.stringify(expected)}`);
    if (op.floor !== undefined && !(record.id > op.floor)) return wrong(`gave id ${record.id}, not above ${op.floor}, an id given before`);
    client.held[op.kind].set(record.id, { record, etag: answer.etag, stale: [] });
    if (op.kind !== "users") highest[op.kind] = Math.max(highest[op.kind], record.id);
    return undefined;
  }
  const held = client.held[op.kind].get(op.id!)!;
  const expected = updated(held.record, op);
  if (!isDeepStrictEqual(canonical(record), canonical(expected))) return wrong(`left ${JSON.stringify(record)}, expected ${JSON.stringify(expected)}`);
  client.held[op.kind].set(op.id!, { record, etag: answer.etag, stale: [...held.stale.slice(-3), held.etag!] });
  return undefined;
}

/** What a create makes: the body, the id (chosen or given), the parent's id and the server's `createdAt`. */
function expectedCreate(op: Op, made: Rec): Rec {
  if (op.kind === "users") return { ...op.body, id: op.id! };
  const record: Rec = { ...op.body, id: made.id, createdAt: made.createdAt };
  if (op.kind !== "posts") record[PARENT[op.kind].key] = op.parentId;
  return record;
}

/** Forgets a record and everything below it, as the server's cascade does, noting each id as gone. */
function removeTree(client: Client, kind: Kind, id: number): void {
  client.held[kind].delete(id);
  client.gone[kind].add(id);
  client.dead[kind] = [...client.dead[kind].slice(-4), id];
  const child = CHILD[kind];
  if (child === undefined) return;
  const key = child === "comments" ? "postId" : "commentId";
  for (const [childId, held] of [...client.held[child]]) if (held.record[key] === id) removeTree(client, child, childId);
}

/** A client's records in each collection, in creation order. */
export type Records = Record<Kind, Rec[]>;

/**
 * What a restarted server may hold of a client's records: its acknowledged state, and, when a
 * write was in flight at the kill, that state with the write applied. The in-flight write of a
 * sequence id is found by its mark, since its id was never answered.
 */
export function candidates(client: Client, observed: Records): { applied: boolean; records: Records }[] {
  const base = {} as Records;
  for (const kind of KINDS) base[kind] = [...client.held[kind].values()].map((h) => h.record);
  const op = client.pending;
  const list = [{ applied: false, records: base }];
  if (op === undefined || op.effect === "none") return list;
  const records: Records = { ...base, [op.kind]: [...base[op.kind]] };
  if (op.effect === "create") {
    const made = op.kind === "users" ? { id: op.id! } : observed[op.kind].find((record) => record.mark === op.mark);
    if (made === undefined) return list;
    // An id not above every id given before is wrong: the candidate keeps the floor, so it cannot match.
    const id = op.floor !== undefined && !(made.id > op.floor) ? op.floor : made.id;
    records[op.kind].push(expectedCreate(op, { ...(made as Rec), id }));
  } else if (op.effect === "delete") {
    const removed = structuredClone(client);
    removeTree(removed, op.kind, op.id!);
    for (const kind of KINDS) records[kind] = [...removed.held[kind].values()].map((h) => h.record);
  } else {
    records[op.kind] = records[op.kind].map((record) => (record.id === op.id ? updated(record, op) : record));
  }
  return [{ applied: true, records }, ...list];
}

/**
 * Makes the model what the server was found to hold (one of the candidates): the in-flight
 * write's fate is settled, and the records it touched have ETags to be read.
 */
export function adopt(client: Client, found: Records, applied: boolean): void {
  const op = client.pending;
  client.pending = undefined;
  if (op === undefined) return;
  if (applied) client.acked++;
  for (const kind of KINDS) {
    const before = client.held[kind];
    const now = new Map<number, Held>();
    for (const record of found[kind]) {
      const old = before.get(record.id);
      const touched = applied && op.kind === kind && op.id === record.id;
      if (old === undefined || touched) now.set(record.id, { record, etag: undefined, stale: old?.etag === undefined ? (old?.stale ?? []) : [...old.stale, old.etag] });
      else now.set(record.id, old);
    }
    for (const id of before.keys()) {
      if (!now.has(id)) {
        client.gone[kind].add(id);
        client.dead[kind] = [...client.dead[kind].slice(-4), id];
      }
    }
    client.held[kind] = now;
  }
  // A user create that was not applied, or was to be refused, leaves its id free.
  if (!applied && op.method === "POST" && op.kind === "users" && !client.held.users.has(op.id!)) client.gone.users.add(op.id!);
}

/** A value with its object members in name order, so that two records compare as JSON regardless of member order. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((name) => [name, canonical((value as Record<string, unknown>)[name])]),
  );
}

/** Says how a client's records on the server differ from what it expected, briefly. */
export function difference(expected: Records, observed: Records): string {
  const lines: string[] = [];
  for (const kind of KINDS) {
    const want = new Map(expected[kind].map((record) => [record.id, record]));
    const have = new Map(observed[kind].map((record) => [record.id, record]));
    for (const [id, record] of want) {
      const there = have.get(id);
      if (there === undefined) lines.push(`${kind}/${id} is missing (expected ${JSON.stringify(record)})`);
      else if (!isDeepStrictEqual(canonical(there), canonical(record))) lines.push(`${kind}/${id} is ${JSON.stringify(there)}, expected ${JSON.stringify(record)}`);
    }
    for (const [id, record] of have) if (!want.has(id)) lines.push(`${kind}/${id} should not exist: ${JSON.stringify(record)}`);
    if (lines.length === 0 && !isDeepStrictEqual(observed[kind].map((r) => r.id), expected[kind].map((r) => r.id))) {
      lines.push(`${kind} are out of creation order: ${observed[kind].map((r) => r.id).join(",")}`);
    }
  }
  return lines.slice(0, 6).join("; ");
}
