// A server embedded with startServer on DATA_DIR, as a program of one's own would run it: prints
// its URL, a line when a write cannot be kept, and closes when its standard input ends.
import { startServer } from "../../src/http/server.ts";

const running = await startServer({
  dataDir: process.env.DATA_DIR!,
  onStoreFailure: (error) => console.log(`store failed: ${error.message}`),
});
console.log(`Listening on ${running.url}`);
process.stdin.resume();
process.stdin.on("end", () => {
  running.close().then(
    () => console.log("closed"),
    (error: Error) => console.log(`close failed: ${error.message}`),
  );
});
