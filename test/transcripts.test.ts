// Replays every console transcript of the README and the docs named in DOCUMENTS on a real server and checks the answers word for word.
//
// What is a transcript: every ```console block with `$ ` lines. Each `$ ` line (with its
// `\` continuation lines) is a command, and the lines under it, up to the next `$ `, are
// its recorded answer. A command is `curl` (sent to an in-process server: startServer on
// port 0, with `http://localhost:<port>` replaced by its URL; options -s -i -I -X -H -d
// -o -w and `| head -c N`, any other is an error) or `npx rest-reference-server` (run
// from the source with `node --import tsx src/main.ts` in a fresh folder: its output if
// it ends, its first line if it starts listening, then it is stopped).
//
// Sessions: the commands of one document run in order against one server, from the top
// of the document, until a `<!-- transcript: NAME -->` comment before a block starts a
// fresh server (and folder) with the setup NAME below; the document's top starts with
// `seeded`. So the walk-through in docs/api-family.md is one session, as its prose says.
// A reader does not see the marker, so the text just before a session's first block (since
// the block before it) must say how its server was started: each setup names the words.
//
// Compared: the status line, every header line in order (names in any case; `Date`,
// `Keep-Alive` and Node's `Connection: keep-alive` are left out of transcripts, a
// `Connection: close` is not) and the body, exactly; for `curl -s`, the body, and the
// status and headers its `# 201, Location: ...` comment names.
// Normalised: `createdAt` is not, because every server's clock is fixed at CLOCK. ETags
// are random per server: a recorded tag stands for the tag the server sent at the same
// place, the same recorded tag must be the same real one throughout a session, a new
// recorded tag a new real one, and a recorded tag a command sends is replaced by its
// real one. The port in `Listening on http://127.0.0.1:<port>` is not compared.
//
// Regenerate: `UPDATE_TRANSCRIPTS=1 npx tsx --test test/transcripts.test.ts` rewrites, in
// place, every session with an answer that differs from what the server sends now;
// `UPDATE_TRANSCRIPTS=all` rewrites every session (new ETag epochs everywhere).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { after, test } from "node:test";
import { ROOT } from "./support/target.ts";
import { DOCUMENTS, type Replay, readDocument, readSessions, type Session, type Setup, startSession } from "./support/transcripts.ts";
import { dbJsonResources, readDbJson } from "../src/api/resources-file.ts";
import type { Seed } from "../src/store/records.ts";

const UPDATE = process.env.UPDATE_TRANSCRIPTS === "1" || process.env.UPDATE_TRANSCRIPTS === "all";
const UPDATE_ALL = process.env.UPDATE_TRANSCRIPTS === "all";

// docs/configuration.md: the seed file of the transcript of a refused start.
const BAD_SEED = JSON.stringify({ users: [{ id: 1, name: "Ada Lovelace", email: "ada" }] });
// docs/api.md, PATCH: the user the transcript patches.
const PATCHED_USER = {
  name: "Grace Hopper",
  email: "grace@example.com",
  role: "admiral",
  address: { city: "Arlington", street: "Army Navy Drive" },
};

/** The state each marked transcript starts from, as its prose describes it. */
const SETUPS: Record<string, Setup> = {
  // A fresh server with the two seeded users.
  seeded: { says: ["fresh server"] },
  // docs/api.md, Lists: "the two seeded users and three more".
  lists: {
    says: ["fresh server", "three more", "Grace Hopper", "Margaret Hamilton", "Katherine Johnson"],
    creates: [
      ["/users", { name: "Grace Hopper", email: "grace@example.com", role: "engineer" }],
      ["/users", { name: "Margaret Hamilton", email: "margaret@example.com", role: "engineer" }],
      ["/users", { name: "Katherine Johnson", email: "katherine@example.com", role: "mathematician" }],
    ],
  },
  // docs/api.md, PATCH: "where user 3 was created as ...".
  patch: {
    says: ["fresh server", `user 3 was created as \`${JSON.stringify(PATCHED_USER)}\``],
    creates: [["/users", PATCHED_USER]],
  },
  // docs/api.md, CORS: "started with CORS_ORIGINS=https://app.example.com".
  cors: { says: ["fresh server started with `CORS_ORIGINS=https://app.example.com`"], options: { corsOrigins: ["https://app.example.com"] } },
  // docs/testing-clients.md: test control on.
  control: { says: ["fresh server started with `CONTROL=on`"], options: { control: true } },
  // docs/configuration.md: a seed file whose first user has a bad e-mail address.
  "bad-seed-file": {
    says: [`folder whose \`seed.json\` holds one user, \`${BAD_SEED}\``],
    files: () => ({ "seed.json": BAD_SEED }),
  },
  // docs/resources.md: the resources file shown just above the transcript.
  "resources-file": {
    says: ["started with this file as `resources.json`"],
    options: (session) => ({ resources: JSON.parse(jsonBefore(session)) }),
    files: (session) => ({ "resources.json": jsonBefore(session) }),
  },
  // docs/resources.md: the db.json shown just above the transcript.
  "db-json": {
    says: ["started with this file as `db.json`"],
    options: (session) => {
      const db = readDbJson(JSON.parse(jsonBefore(session)));
      return { resources: dbJsonResources(db), seed: db.records as unknown as Seed };
    },
    files: (session) => ({ "db.json": jsonBefore(session) }),
  },
  // docs/json-server.md: the db.json shown just above the transcript, in json-server's dialect.
  "json-server": {
    says: ["started with this file as `db.json`"],
    options: (session) => ({ db: JSON.parse(jsonBefore(session)) }),
    files: (session) => ({ "db.json": jsonBefore(session) }),
  },
  // docs/configuration.md, Seeds: the seed file shown just above the transcript.
  "seed-file": {
    says: ["holds this file as `seed.json`"],
    files: (session) => {
      assert.ok(session.jsonBefore !== undefined, "the seed-file transcript follows a ```json block");
      return { "seed.json": session.jsonBefore };
    },
  },
};

/** The ```json block just before a session, which its setup reads. */
function jsonBefore(session: Session): string {
  assert.ok(session.jsonBefore !== undefined, `${session.document}:${session.line}: the ${session.setup} transcript follows a \`\`\`json block`);
  return session.jsonBefore;
}

for (const document of DOCUMENTS) {
  const markdown = readDocument(document);
  const sessions = readSessions(document, markdown);
  const rewrites: Replay[] = [];
  if (UPDATE) {
    after(() => {
      const lines = markdown.split("\n");
      for (const { command, rendered, retag } of rewrites.sort((a, b) => b.command.answerAt - a.command.answerAt)) {
        lines.splice(command.answerAt, command.answer.length, ...rendered);
        for (let i = command.line - 1; i < command.answerAt; i++) lines[i] = retag(lines[i]!);
      }
      if (rewrites.length > 0) writeFileSync(join(ROOT, document), lines.join("\n"));
    });
  }

  test(`${document} has transcripts`, () => {
    assert.ok(sessions.some((session) => session.commands.length > 0));
  });

  test(`${document}: the text before each session says how its server was started`, () => {
    // Line breaks and runs of spaces are one space to a reader.
    const unsaid = sessions.flatMap((session) =>
      (SETUPS[session.setup]?.says ?? [`a setup named ${session.setup}`])
        .filter((words) => !session.prose.replace(/\s+/g, " ").includes(words))
        .map((words) => `${document}:${session.line}: the text before the ${session.setup} session does not say: ${words}`),
    );
    assert.deepEqual(unsaid, []);
  });

  for (const session of sessions) {
    test(`${document}:${session.line}: the ${session.setup} session answers as its transcript shows`, async (t) => {
      const run = await startSession(session, SETUPS);
      t.after(() => run.close());
      const replays = [];
      for (const command of session.commands) replays.push(await run.run(command));
      const differs =
        UPDATE_ALL || replays.some((replay) => replay.problems.length > 0 || !isDeepStrictEqual(replay.actual, replay.expected));
      // A session is rewritten whole, so that its ETags all come from one server.
      if (UPDATE && differs) rewrites.push(...replays);
      else for (const replay of replays) {
        assert.deepEqual(replay.problems, [], `${document}:${replay.command.line}: ETags`);
        assert.deepEqual(replay.actual, replay.expected, `${document}:${replay.command.line}: $ ${replay.command.text}`);
      }
    });
  }
}
