// The home page the dialect serves at `/`, as json-server does: what it serves, with links.
import type { Reply } from "../reply.ts";

const HTML = "text/html; charset=utf-8";

/** The page: each collection with its link, each singular resource, and `/db`; an empty icon, so a browser asks for no `/favicon.ico`. */
export function homePage(names: { collections: string[]; singulars: string[] }): Reply {
  const item = (name: string, what: string) => `<li><a href="/${name}">/${name}</a> <span class="what" data-name="${name}">${what}</span></li>`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rest-reference-server: JSON Server's API</title>
<link rel="stylesheet" href="/style.css">
<link rel="icon" href="data:,">
</head>
<body>
<h1>rest-reference-server</h1>
<p>You're successfully running JSON Server's API, as rest-reference-server speaks it.</p>
<h2>Resources</h2>
<ul id="resources">
${names.collections.map((name) => item(name, "collection")).join("\n")}
${names.singulars.map((name) => item(name, "object")).join("\n")}
<li><a href="/db">/db</a> <span class="what">everything</span></li>
</ul>
<p>To change them, send POST, PUT, PATCH and DELETE requests; the db.json file itself is never written.</p>
<script src="/script.js"></script>
</body>
</html>
`;
  return { status: 200, json: html, type: HTML };
}

/** The page's styles. */
export function homeStyle(): Reply {
  const css = "body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}a{color:#0b5fff}.what{color:#666}\n";
  return { status: 200, json: css, type: "text/css; charset=utf-8" };
}

/** The page's script: it adds each collection's record count, read from X-Total-Count. */
export function homeScript(): Reply {
  const js = `for (const span of document.querySelectorAll(".what[data-name]")) {
  if (span.textContent !== "collection") continue;
  fetch("/" + span.dataset.name + "?_limit=0").then((answer) => {
    const count = answer.headers.get("X-Total-Count");
    if (count !== null) span.textContent = count + (count === "1" ? " record" : " records");
  });
}
`;
  return { status: 200, json: js, type: "text/javascript; charset=utf-8" };
}
