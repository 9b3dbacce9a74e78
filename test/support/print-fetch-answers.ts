// Prints fetchAnswers() as one line of JSON: what Deno and Bun answer, for test/fetch-app-runtimes.test.ts to compare with Node.
import { fetchAnswers } from "./fetch-answers.ts";

console.log(JSON.stringify(await fetchAnswers()));
