// Liveness and readiness probes (contract 2).
import { HttpError } from "../errors.ts";
import type { ApiRoute } from "../handler.ts";

/** `/healthz` answers while the process lives; `/readyz` turns 503 once shutdown has begun. */
export function healthRoutes(isDraining: () => boolean): ApiRoute[] {
  return [
    { method: "GET", pattern: "/healthz", handler: () => ({ status: 200, body: { status: "ok" } }) },
    {
      method: "GET",
      pattern: "/readyz",
      handler: () => {
        if (isDraining()) throw new HttpError("SHUTTING_DOWN", "Server is shutting down; send no more requests here");
        return { status: 200, body: { status: "ready" } };
      },
    },
  ];
}
