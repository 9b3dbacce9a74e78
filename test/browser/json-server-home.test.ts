// The json-server dialect's home page at `/` in a real browser: Debian's Chromium, driven by
// playwright-core, loads it from a server started on a db.json, runs its script and styles
// (which the server's own headers must not block), and follows its links.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { type Browser, chromium } from "playwright-core";
import { type DialectServer, startDialect } from "../json-server/target.ts";

// The system's Chromium; a browser is never downloaded.
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-proxy-server"];

const DB = {
  posts: [
    { id: 1, title: "json-server" },
    { id: 2, title: "another" },
    { id: 3, title: "a third" },
  ],
  comments: [{ id: 1, postId: 1, body: "one" }],
  profile: { name: "typicode" },
};

let browser: Browser | undefined;
let server: DialectServer;

before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}; install it with: apt-get install -y --no-install-recommends chromium`);
  }
  server = await startDialect(DB);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("the home page lists every collection with its record count, the singular resource and /db, with its styles and script running", async () => {
  const page = await browser!.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  const answer = await page.goto(`${server.url}/`);
  assert.equal(answer?.status(), 200);
  assert.equal(answer?.headers()["content-type"], "text/html; charset=utf-8");
  assert.equal(await page.title(), "rest-reference-server: JSON Server's API");
  // The script fills in each collection's count from X-Total-Count.
  await page.waitForFunction('[...document.querySelectorAll(".what[data-name]")].every((span) => span.textContent !== "collection")', undefined, { timeout: 10_000 });
  const items = await page.$$eval("#resources li", (lis) => lis.map((li) => ({ href: li.querySelector("a")!.getAttribute("href"), text: li.textContent!.trim() })));
  assert.deepEqual(items, [
    { href: "/posts", text: "/posts 3 records" },
    { href: "/comments", text: "/comments 1 record" },
    { href: "/profile", text: "/profile object" },
    { href: "/db", text: "/db everything" },
  ]);
  // The stylesheet applied: its font, not the browser's default serif.
  assert.match(String(await page.evaluate("getComputedStyle(document.body).fontFamily")), /system-ui/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the home page's links lead to what they name", async () => {
  const page = await browser!.newPage();
  await page.goto(`${server.url}/`);
  await Promise.all([page.waitForURL(`${server.url}/posts`), page.click('a[href="/posts"]')]);
  assert.deepEqual(JSON.parse(await page.innerText("body")), DB.posts);
  await page.goto(`${server.url}/`);
  await Promise.all([page.waitForURL(`${server.url}/profile`), page.click('a[href="/profile"]')]);
  assert.deepEqual(JSON.parse(await page.innerText("body")), DB.profile);
  await page.close();
});
