// GET /openapi.json: the API describing itself, for API explorers and client generators.
import type { ApiRoute } from "../handler.ts";
import { OPENAPI_DOCUMENT } from "../openapi.ts";

/** The route that serves the OpenAPI 3.1 document of the whole API. */
export function openApiRoutes(): ApiRoute[] {
  return [{ method: "GET", pattern: "/openapi.json", handler: () => ({ status: 200, body: OPENAPI_DOCUMENT }) }];
}
