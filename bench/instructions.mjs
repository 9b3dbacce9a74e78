// Instructions per request of built servers, counted by valgrind: a figure that a busy, shared machine does not move.
//
//   node bench/instructions.mjs [get|404|post|comments] <dir holding dist/>...
//
// bench/in-memory.mjs's CPU time per request moves by 10% or more from run to run when
// other work shares the machine. Counting instructions (valgrind's callgrind, which runs
// the process on a simulated CPU) gives the same figure run after run. Each build runs
// twice, with 5,000 and with 25,000 measured requests; the difference, divided by 20,000,
// leaves out start-up and the JIT's warm-up. Each run takes a minute or two.
// Instructions are not time (a cache miss costs more than an add), so a change that
// moves memory around is also checked with bench/in-memory.mjs.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const [kind = "get", ...dirs] = process.argv.slice(2);
if (dirs.length === 0) throw new Error("Name at least one folder holding a dist/ build");
const inMemory = fileURLToPath(new URL("./in-memory.mjs", import.meta.url));

/** The instructions valgrind counted for one run of bench/in-memory.mjs. */
function instructions(dir, requests) {
  const args = ["--tool=callgrind", "--callgrind-out-file=/dev/null", process.execPath, inMemory, kind, String(requests), dir];
  const run = spawnSync("valgrind", args, { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  if (run.error) throw new Error("valgrind is needed: apt-get install valgrind", { cause: run.error });
  const found = /Collected : (\d+)/.exec(run.stderr);
  if (found === null) throw new Error(`valgrind printed no count for ${dir}`);
  return Number(found[1]);
}

for (const dir of dirs) {
  const perRequest = (instructions(dir, 25_000) - instructions(dir, 5_000)) / 20_000;
  console.log(JSON.stringify({ kind, dir, instructionsPerRequest: Math.round(perRequest) }));
}
