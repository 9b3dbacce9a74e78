// A script that awaits one delayed in-process answer and prints its status, as a test file would:
// nothing else keeps its process alive (test/fetch-app.test.ts).
import { createFetchApp } from "../../src/http/fetch-app.ts";

const app = createFetchApp({ control: true });
const response = await app.fetch(new Request("http://localhost/users/1", { headers: { prefer: "delay=100" } }));
console.log(response.status, response.headers.get("preference-applied"));
await app.close();
