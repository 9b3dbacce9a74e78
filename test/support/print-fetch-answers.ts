// Prints which runtime runs it and fetchAnswers(), as one line of JSON: what Deno and Bun answer, for test/fetch-app-runtimes.test.ts to compare with Node.
import { versions } from "node:process";
import { fetchAnswers } from "./fetch-answers.ts";

const runtime = versions.bun !== undefined ? "bun" : versions.deno !== undefined ? "deno" : "node";
console.log(JSON.stringify({ runtime, answers: await fetchAnswers() }));
