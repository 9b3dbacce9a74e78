// A script that asks an in-process app for a long list, looks at its status alone, and prints it,
// as a test file would: nothing else keeps its process alive (test/fetch-app.test.ts). The body
// it never reads must not keep the process alive until the stall time-out.
import { createFetchApp } from "../../src/http/fetch-app.ts";
import { MANY } from "./fetch-answers.ts";

const app = createFetchApp({ seed: MANY });
const response = await app.fetch(new Request("http://localhost/users"));
console.log(response.status, response.headers.get("content-length") !== null);
