// What the wrk Lua scripts of the benchmarks share: the figures a run prints, as one JSON line.

/** A wrk Lua `done` that prints requests, duration, p99 and p50 latencies (µs) and the error counts as JSON. */
export const WRK_DONE = `function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"micros":%d,"p99":%d,"p50":%d,"status":%d,"socket":%d}\\n',
    summary.requests, summary.duration, latency:percentile(99), latency:percentile(50), e.status,
    e.connect + e.read + e.write + e.timeout))
end
`;

/**
 * A Lua expression, for a script's `init`, that builds one request: the request line, Host,
 * and for a body of `json`, Content-Type and Content-Length, in that order, then the body.
 *
 * Not wrk.format: it writes the headers of a Lua table in the table's order, which can differ
 * from one wrk process to the next. A POST's three headers then came in another order in some
 * runs of wrk, and the race starts wrk anew for each slice. A new order is a new shape of
 * Node's `req.headers` object: V8 drops the optimised code of each function that had read a
 * header from the shapes seen before, and compiles it again on the server's own core. A real
 * client sends its headers in one order; the benchmark now does too, so that every slice
 * sends the same bytes (docs/benchmarks.md, "Fifth look").
 */
export function luaRequest(method: string, path: string, json?: unknown): string {
  const body = json === undefined ? "" : JSON.stringify(json);
  const headers = json === undefined ? [] : ["Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`];
  // Host is the one wrk takes from its URL, so it is joined in Lua. A JSON string literal is a
  // Lua one too for these texts: they hold no control character JSON would write as \u00XX.
  const parts = [`${method} ${path} HTTP/1.1`, ...headers, "", body].map((text) => JSON.stringify(text));
  parts.splice(1, 0, '"Host: " .. wrk.headers["Host"]');
  return `table.concat({${parts.join(", ")}}, "\\r\\n")`;
}

/**
 * A wrk Lua script that sends one request over and over and prints its figures as JSON:
 * a GET, or a POST of `json` as an application/json body.
 */
export function oneRequestScript(method: string, path: string, json?: unknown): string {
  return `-- Built in init, once wrk knows the Host header every request must carry.
local req
function init(args)
  req = ${luaRequest(method, path, json)}
end
function request()
  return req
end
${WRK_DONE}`;
}
