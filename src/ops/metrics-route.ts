// GET /metrics: the instance's metrics for a Prometheus scraper.
import type { ApiRoute } from "../api/handler.ts";
import { type Metrics, METRICS_TYPE } from "./metrics.ts";
import { andThen } from "../store/seam.ts";

/** The route that serves `metrics` in the Prometheus text format; it answers during shutdown too, so a scrape sees the drain. */
export function metricsRoutes(metrics: Metrics): ApiRoute[] {
  return [
    {
      method: "GET",
      pattern: "/metrics",
      handler: () => andThen(metrics.render(), (text) => ({ status: 200, json: text, type: METRICS_TYPE })),
      servedWhileDraining: true,
      operation: {
        kind: "custom",
        doc: {
          operationId: "getMetrics",
          summary: "Metrics in the Prometheus text format (off with METRICS=off)",
          tag: { name: "operations", description: "What a scraper reads" },
          answer: {
            description:
              "Requests by method, route pattern and status; a latency histogram; requests in flight; records per collection; " +
              "the store's latency (with DATA_DIR); process memory and uptime. The Prometheus text exposition format, version 0.0.4.",
            name: "Metrics",
            mediaType: "text/plain",
            schema: { type: "string", description: "Prometheus text exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/)." },
          },
        },
      },
    },
  ];
}
