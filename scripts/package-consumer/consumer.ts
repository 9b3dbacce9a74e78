// Type-checked, never run, by scripts/check-package.ts: the package's types by its name under a strict NodeNext tsc.
import { createServer } from "node:http";
import {
  type AppOptions,
  createApp,
  type FsyncPolicy,
  JournalDamageError,
  LockedError,
  type RunningServer,
  type Seed,
  type ServerOptions,
  type Snapshot,
  startServer,
} from "rest-reference-server";

const seed: Seed = {
  users: [{ id: 5, name: "Grace Hopper", email: "grace@example.com" }],
  posts: [{ id: 3, title: "Hello", body: "First post", createdAt: "2026-01-02T03:04:05.000Z" }],
  comments: [{ id: 4, postId: 3, body: "Nice post", createdAt: "2026-01-02T03:05:00.000Z" }],
};
const options: ServerOptions = { port: 0, host: "127.0.0.1", bodyLimit: 64 * 1024, seed, clock: () => new Date(0) };
const running: RunningServer = await startServer(options);
const url: string = running.url;
const snapshot: Snapshot = await running.snapshot();
const held: number = snapshot.users.length + snapshot.posts.length + snapshot.comments.length + snapshot.replies.length;
await running.reset();
await running.close();

const appOptions: AppOptions = { bodyLimit: 1024, logError: (error: unknown, requestLine: string) => console.error(requestLine, error) };
createServer(createApp(appOptions)).close();

const fsync: FsyncPolicy = "interval";
const durable: ServerOptions = { dataDir: "data", fsync, compactBytes: 1 << 20, logWarning: (line: string) => console.warn(line) };
try {
  await (await startServer(durable)).close();
} catch (error) {
  if (error instanceof JournalDamageError) console.error(error.file, error.offset);
  else if (error instanceof LockedError) console.error(error.pid);
  else throw error;
}

export { held, url };
