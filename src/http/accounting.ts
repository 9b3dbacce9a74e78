// What an answer leaves behind: the metrics, the access log line and the request log's entry.
// Imported rather than read from the global, which Node makes a getter run on every use.
import { performance } from "node:perf_hooks";
import type { Exchange } from "./serving.ts";

/** Counts and logs an answer once its bytes are written, or counts it gone (-1). */
export function answered<R, S>(exchange: Exchange<R, S>, status: number, bytes: number): void {
  if (bytes < 0) return gone(exchange);
  const { method, serving } = exchange;
  if (exchange.logged) logRequest(exchange, status);
  const milliseconds = performance.now() - exchange.started;
  serving.metrics?.answered(method, exchange.route, status, milliseconds);
  if (serving.accessLog) {
    const remote = serving.front.remoteAddress(exchange);
    serving.logger.access({ method, path: exchange.url, status, bytes, milliseconds, requestId: exchange.id, remote });
  }
}

/** A request that will get no answer: its client hung up, its answer broke off, or it asked for a reset. */
export function gone<R, S>(exchange: Exchange<R, S>): void {
  exchange.serving.metrics?.abandoned();
  if (exchange.logged) logRequest(exchange, null);
}

/** The request log's entry for an API request (`GET /__control/requests`), with its status, or null when it got none. */
function logRequest<R, S>(exchange: Exchange<R, S>, status: number | null): void {
  const time = new Date(performance.timeOrigin + exchange.started).toISOString();
  exchange.serving.requestLog!.add({ method: exchange.method, path: exchange.url, headers: exchange.headers, body: exchange.body, status, time });
}
