// GET /openapi.json: the API describing itself, for API explorers and client generators.
import type { ApiRoute } from "../api/handler.ts";

/**
 * The route that serves the OpenAPI 3.1 document of the whole API. `documentText`
 * gives the document as JSON text; it is asked on the first request, not at start-up.
 */
export function openApiRoutes(documentText: () => string): ApiRoute[] {
  return [
    {
      method: "GET",
      pattern: "/openapi.json",
      handler: () => ({ status: 200, json: documentText() }),
      operation: {
        kind: "custom",
        doc: {
          operationId: "getOpenApiDocument",
          summary: "This document",
          tag: { name: "meta", description: "This document" },
          answer: {
            description: "The OpenAPI 3.1 document of this API.",
            name: "OpenApiDocument",
            schema: {
              type: "object",
              description: "An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0).",
              required: ["openapi", "info", "paths", "components"],
              properties: {
                openapi: { type: "string", const: "3.1.0" },
                info: {
                  type: "object",
                  required: ["title", "version"],
                  properties: { title: { type: "string" }, version: { type: "string" } },
                },
                servers: { type: "array", items: { type: "object", required: ["url"], properties: { url: { type: "string" } } } },
                tags: { type: "array", items: { type: "object", required: ["name"], properties: { name: { type: "string" } } } },
                paths: { type: "object", additionalProperties: { type: "object" } },
                components: { type: "object", additionalProperties: { type: "object" } },
              },
            },
          },
        },
      },
    },
  ];
}
