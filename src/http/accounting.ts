// What an answer leaves behind: the metrics, the access log line and the request log's entry.
// Imported rather than read from the global, which Node makes a getter run on every use.
import { performance } from "node:perf_hooks";
import type { Exchange } from "./serving.ts";

/** Counts and logs an answer once its bytes are written, or counts it gone (-1). */
export function answered(exchange: Exchange, status: number, bytes: number): void {
  if (bytes < 0) return gone(exchange);
  const { request, serving } = exchange;
  if (exchange.logged) logRequest(exchange, status);
  const milliseconds = performance.now() - exchange.started;
  const method = request.method ?? "GET";
  serving.metrics?.answered(method, exchange.route, status, milliseconds);
  if (serving.accessLog) {
    const path = request.url ?? "/";
    serving.logger.access({ method, path, status, bytes, milliseconds, requestId: exchange.id, remote: request.socket.remoteAddress });
  }
}

/** A request that will get no answer: its client hung up, its answer broke off, or it asked for a reset. */
export function gone(exchange: Exchange): void {
  exchange.serving.metrics?.abandoned();
  if (exchange.logged) logRequest(exchange, null);
}

/** The request log's entry for an API request (`GET /__control/requests`), with its status, or null when it got none. */
function logRequest(exchange: Exchange, status: number | null): void {
  const { request } = exchange;
  const time = new Date(performance.timeOrigin + exchange.started).toISOString();
  exchange.serving.requestLog!.add({ method: request.method ?? "GET", path: request.url ?? "/", headers: request.headers, body: exchange.body, status, time });
}
