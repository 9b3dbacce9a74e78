// Memory per record in the memory store, part by part: N small users (the shape of the million-user
// seed), measured as heap in use after a full collection, in one process.
//
//   node --expose-gc bench/record-memory.mjs [users]   (after npm run build; 1,000,000 by default)
import { createDataSet } from "../dist/api/dataset.js";

const USERS = Number(process.argv[2] ?? 1_000_000);
if (typeof gc !== "function") throw new Error("Run with node --expose-gc");

/** Heap in use after a full collection, in bytes. */
function heap() {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const user = (i) => ({ id: i, name: `User ${i}`, email: `user${i}@example.com`, role: i % 2 === 0 ? "a" : "b" });
const perRecord = (bytes) => (bytes / USERS).toFixed(0);
const rows = [];

/** The seed's users as JSON.parse makes them from a seed file. */
const parsed = () => JSON.parse(JSON.stringify(Array.from({ length: USERS }, (_, i) => user(i + 1))));

const empty = heap();
let users = parsed();
const records = heap();
rows.push(["the records alone (objects and their strings, as parsed)", records - empty]);
users = undefined;
const released = heap();
// A data set holds the seed's records as its check copied them; the parsed ones are garbage.
const data = (() => createDataSet({ seed: { users: parsed() }, storeLimit: Number.MAX_SAFE_INTEGER }))();
const held = heap();
rows.push(["what the store adds: Map entry, version, creation order", held - released - (records - empty)]);
const collection = data.store.collection("users");
const read = (query) => collection.list(query);
const query = (fields) => ({ offset: 0, limit: 10, sort: [], filters: new Map(), kept: [], ...fields });
read(query({ filters: new Map([["role", new Set(["a"])]]) }));
const filtered = heap();
rows.push(["an equality filter's index (role)", filtered - held]);
read(query({ sort: [{ member: "name", descending: true }] }));
const sorted = heap();
rows.push(["a sort's order (-name)", sorted - filtered]);
for (let id = 1; id <= USERS; id++) collection.read(id);
const readAll = heap();
rows.push(["every record read once (at most KEPT_READS kept, their ETags and texts)", readAll - sorted]);

console.log(`${USERS.toLocaleString("en-US")} users, Node ${process.version}, heap in use after gc()\n`);
console.log("| part | MiB | bytes a user |\n|---|---:|---:|");
for (const [name, bytes] of rows) console.log(`| ${name} | ${(bytes / 2 ** 20).toFixed(1)} | ${perRecord(bytes)} |`);
console.log(`| held after start (records and store) | ${((held - released) / 2 ** 20).toFixed(1)} | ${perRecord(held - released)} |`);
console.log(`\nResident: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
