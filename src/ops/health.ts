// Liveness and readiness probes (docs/spec.md#2-routing).
import { HttpError } from "../api/errors.ts";
import type { ApiRoute } from "../api/handler.ts";
import type { Reply } from "../api/reply.ts";
import { andThen, type Awaitable } from "../store/seam.ts";

const READY: Reply = { status: 200, body: { status: "ready" } };

const TAG = { name: "health", description: "Liveness and readiness probes" };

/**
 * `/healthz` answers while the process lives; `/readyz` turns 503 once shutdown has begun,
 * or while the store cannot keep writes (`storeReady`).
 */
export function healthRoutes(isDraining: () => boolean, storeReady: () => Awaitable<boolean> = always): ApiRoute[] {
  return [
    {
      method: "GET",
      pattern: "/healthz",
      handler: () => ({ status: 200, body: { status: "ok" } }),
      servedWhileDraining: true,
      open: true,
      operation: {
        kind: "custom",
        doc: {
          operationId: "getHealth",
          summary: "Liveness: answers while the process is alive, during shutdown too",
          tag: TAG,
          answer: {
            description: "The process is alive.",
            name: "Health",
            schema: { type: "object", required: ["status"], properties: { status: { const: "ok" } } },
          },
        },
      },
    },
    {
      method: "GET",
      pattern: "/readyz",
      handler: () => {
        if (isDraining()) throw new HttpError("SHUTTING_DOWN", "Server is shutting down; send no more requests here");
        return andThen(storeReady(), (ready) => {
          if (!ready) throw new HttpError("STORE_UNAVAILABLE", "The data store cannot serve requests now; send none here");
          return READY;
        });
      },
      // It answers during shutdown itself, with the 503 that says so.
      servedWhileDraining: true,
      open: true,
      operation: {
        kind: "custom",
        doc: {
          operationId: "getReadiness",
          summary: "Readiness: 503 once shutdown has begun, or while the data store cannot keep writes",
          tag: TAG,
          answer: {
            description: "The server takes requests.",
            name: "Readiness",
            schema: { type: "object", required: ["status"], properties: { status: { const: "ready" } } },
          },
          errors: ["SHUTTING_DOWN", "STORE_UNAVAILABLE"],
        },
      },
    },
  ];
}

function always(): boolean {
  return true;
}
