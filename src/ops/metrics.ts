// Metrics in the Prometheus text exposition format (version 0.0.4), counted in place, rendered on a scrape.
import type { Awaitable } from "../store/seam.ts";

/** The media type of a scrape's answer. */
export const METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Upper bounds of the request latency buckets, in seconds: 0.1 ms to 10 s. */
const REQUEST_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Upper bounds of the store latency buckets, in seconds: a journal sync or a database round trip, 0.05 ms to 5 s. */
const STORE_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/** The methods a label may name; any other is counted as `other`, so a client cannot grow the label set. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** What the counts of records come from at a scrape: the store, by collection. */
export type MetricsSources = {
  records: () => Awaitable<Record<string, number>>;
};

/** The metrics of one instance. */
export type Metrics = {
  /** A request arrived (it is in flight until answered or given up). */
  arrived(): void;
  /** A request that arrived was given up without an answer (its client hung up). */
  abandoned(): void;
  /** A request was answered: its method, route pattern (`none` when no route matched), status and time taken in ms. */
  answered(method: string, route: string, status: number, milliseconds: number): void;
  /** An answer written on a raw socket (malformed HTTP, a time-out): no request arrived as such, and none was in flight. */
  answeredRaw(status: number): void;
  /** A store operation's time, in ms: a journal sync, or a database read or write transaction. */
  storeTook(operation: string, milliseconds: number): void;
  /** The text a scrape gets. */
  render(): Awaitable<string>;
};

/** A histogram's counts, one per bucket (not cumulative; summed when rendered), with their sum. */
type Histogram = { counts: number[]; sum: number; count: number };

/** What is counted of one route pattern: answers by method, then status, and the latency histogram. */
type RouteStats = { byMethod: Map<string, Map<number, Counter>>; latency: Histogram };

/** One count of answers, kept in an object so that the last one counted can be counted again directly. */
type Counter = { value: number };

/** Where the last answer was counted: its route pattern, method as sent and status, and their counter. */
type LastCounted = { route: string; method: string; status: number; counter: Counter; stats: RouteStats };

/** Creates the metrics of one instance; `records` is asked at each scrape. */
export function createMetrics(sources: MetricsSources): Metrics {
  const startedAt = Date.now();
  // By route pattern, then method, then status: nested maps with the request's own strings
  // as keys. Fast path: no key is joined per request
  // (docs/benchmarks.md, "Measurements behind fast paths in the code").
  const routes = new Map<string, RouteStats>();
  const storeLatency = new Map<string, Histogram>();
  let arrivals = 0;
  let finished = 0;

  // A server under load answers the same route, method and status over and over. Fast path:
  // an answer like the last one counted is counted by three comparisons instead of a Set
  // look-up and three Map look-ups
  // (docs/benchmarks.md, "Measurements behind fast paths in the code").
  // Made at the first count, then updated in place, so that a different answer allocates nothing.
  let last: LastCounted | undefined;

  /** Counts an answer under its route pattern, method (any but the METHODS as `other`) and status. */
  function count(route: string, method: string, status: number): RouteStats {
    if (last !== undefined && last.route === route && last.status === status && last.method === method) {
      last.counter.value++;
      return last.stats;
    }
    const label = METHODS.has(method) ? method : "other";
    let stats = routes.get(route);
    if (stats === undefined) {
      stats = { byMethod: new Map(), latency: histogram(REQUEST_BUCKETS) };
      routes.set(route, stats);
    }
    let byStatus = stats.byMethod.get(label);
    if (byStatus === undefined) {
      byStatus = new Map();
      stats.byMethod.set(label, byStatus);
    }
    let counter = byStatus.get(status);
    if (counter === undefined) {
      counter = { value: 0 };
      byStatus.set(status, counter);
    }
    counter.value++;
    if (last === undefined) last = { route, method, status, counter, stats };
    else {
      last.route = route;
      last.method = method;
      last.status = status;
      last.counter = counter;
      last.stats = stats;
    }
    return stats;
  }

  return {
    arrived: () => {
      arrivals++;
    },
    abandoned: () => {
      finished++;
    },
    answered(method, route, status, milliseconds) {
      finished++;
      const stats = count(route, method, status);
      observe(stats.latency, REQUEST_BUCKETS, milliseconds / 1000);
    },
    answeredRaw(status) {
      // Counted, but with no latency: the parser gave up before a request began.
      count("none", "other", status);
    },
    storeTook(operation, milliseconds) {
      let found = storeLatency.get(operation);
      if (found === undefined) {
        found = histogram(STORE_BUCKETS);
        storeLatency.set(operation, found);
      }
      observe(found, STORE_BUCKETS, milliseconds / 1000);
    },
    render() {
      const records = sources.records();
      // A database that cannot be asked leaves the records out; the other metrics still say what the process sees.
      return records instanceof Promise ? records.then(text, () => text(undefined)) : text(records);
    },
  };

  function text(records: Record<string, number> | undefined): string {
    const memory = process.memoryUsage();
    const lines: string[] = [];
    family(lines, "http_requests_total", "counter", "Requests answered, by method, route pattern and status.");
    for (const [route, stats] of routes) {
      for (const [method, byStatus] of stats.byMethod) {
        for (const [status, counter] of byStatus) lines.push(`http_requests_total${labels({ method, route, status: String(status) })} ${counter.value}`);
      }
    }
    family(lines, "http_request_duration_seconds", "histogram", "Time from a request's arrival to its answer being handed to the connection, by route pattern.");
    for (const [route, stats] of routes) {
      if (stats.latency.count > 0) histogramLines(lines, "http_request_duration_seconds", { route }, REQUEST_BUCKETS, stats.latency);
    }
    family(lines, "http_requests_in_flight", "gauge", "Requests arrived and not yet answered, this scrape among them.");
    lines.push(`http_requests_in_flight ${arrivals - finished}`);
    if (records !== undefined) {
      family(lines, "rest_records", "gauge", "Records held, by collection.");
      for (const collection in records) lines.push(`rest_records${labels({ collection })} ${records[collection]}`);
    }
    if (storeLatency.size > 0) {
      family(lines, "rest_store_duration_seconds", "histogram", "Time the store took: a journal sync (sync), or a database read (query) or write transaction (transaction), by operation.");
      for (const [operation, histogram] of storeLatency) histogramLines(lines, "rest_store_duration_seconds", { operation }, STORE_BUCKETS, histogram);
    }
    family(lines, "process_resident_memory_bytes", "gauge", "Resident set size of the process, in bytes.");
    lines.push(`process_resident_memory_bytes ${memory.rss}`);
    family(lines, "process_heap_used_bytes", "gauge", "JavaScript heap in use, in bytes.");
    lines.push(`process_heap_used_bytes ${memory.heapUsed}`);
    family(lines, "process_start_time_seconds", "gauge", "When the instance started, in seconds since the Unix epoch.");
    lines.push(`process_start_time_seconds ${startedAt / 1000}`);
    family(lines, "process_uptime_seconds", "gauge", "Seconds since the instance started.");
    lines.push(`process_uptime_seconds ${(Date.now() - startedAt) / 1000}`);
    return `${lines.join("\n")}\n`;
  }
}

function histogram(bounds: number[]): Histogram {
  return { counts: new Array<number>(bounds.length + 1).fill(0), sum: 0, count: 0 };
}

function observe(into: Histogram, bounds: number[], seconds: number): void {
  let bucket = 0;
  while (bucket < bounds.length && seconds > bounds[bucket]!) bucket++;
  into.counts[bucket]!++;
  into.sum += seconds;
  into.count++;
}

function family(lines: string[], name: string, type: string, help: string): void {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
}

function histogramLines(lines: string[], name: string, by: Record<string, string>, bounds: number[], histogram: Histogram): void {
  let cumulative = 0;
  for (let i = 0; i < bounds.length; i++) {
    cumulative += histogram.counts[i]!;
    lines.push(`${name}_bucket${labels({ ...by, le: String(bounds[i]) })} ${cumulative}`);
  }
  lines.push(`${name}_bucket${labels({ ...by, le: "+Inf" })} ${histogram.count}`);
  lines.push(`${name}_sum${labels(by)} ${histogram.sum}`);
  lines.push(`${name}_count${labels(by)} ${histogram.count}`);
}

/** `{name="value",...}`, values escaped as the format asks (backslash, quote, newline). */
function labels(values: Record<string, string>): string {
  const parts: string[] = [];
  for (const name in values) parts.push(`${name}="${values[name]!.replace(/[\\"\n]/g, escape)}"`);
  return `{${parts.join(",")}}`;
}

function escape(character: string): string {
  return character === "\n" ? "\\n" : `\\${character}`;
}
