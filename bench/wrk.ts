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
 * A wrk Lua script that sends one request over and over and prints its figures as JSON:
 * a GET, or a POST of `json` as an application/json body.
 */
export function oneRequestScript(method: string, path: string, json?: unknown): string {
  const body = json === undefined ? "nil" : JSON.stringify(JSON.stringify(json));
  const headers = json === undefined ? "{}" : '{["Content-Type"] = "application/json"}';
  return `-- Built in init, once wrk knows the Host header every request must carry.
local req
function init(args)
  req = wrk.format(${JSON.stringify(method)}, ${JSON.stringify(path)}, ${headers}, ${body})
end
function request()
  return req
end
${WRK_DONE}`;
}
