// What the wrk Lua scripts of the benchmarks share: the figures a run prints, as one JSON line.

/** A wrk Lua `done` that prints requests, duration, p99 and p50 latencies (µs) and the error counts as JSON. */
export const WRK_DONE = `function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"micros":%d,"p99":%d,"p50":%d,"status":%d,"socket":%d}\\n',
    summary.requests, summary.duration, latency:percentile(99), latency:percentile(50), e.status,
    e.connect + e.read + e.write + e.timeout))
end
`;
