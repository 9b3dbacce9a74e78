// A client generator's walk over an OpenAPI document: every operation in the document's order,
// with every example it gives, against a server that holds the document's starting data.
import type { Schema } from "../../src/api/handler.ts";
import { DOCUMENTED_METHODS, type OperationDoc } from "../../src/openapi/document.ts";
import { suiteHeaders } from "./http.ts";

/** What the walk needs of a document: its paths and its shared parameters. */
export type WalkedDocument = {
  paths: Record<string, Partial<Record<(typeof DOCUMENTED_METHODS)[number], OperationDoc>> & { parameters?: Schema[] }>;
  components: { parameters: Record<string, Schema> };
};

/**
 * Calls every operation of the document at `url` with all its examples, optional parameters
 * and headers included (more than a generator's defaults send); the calls that got no 2xx.
 */
export async function callEveryOperation(url: string, document: WalkedDocument): Promise<string[]> {
  const parameter = (schema: Schema): Schema => {
    const ref = schema.$ref as string | undefined;
    return ref === undefined ? schema : document.components.parameters[ref.replace("#/components/parameters/", "")]!;
  };
  const failures: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of DOCUMENTED_METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      let address = path;
      const query = new URLSearchParams();
      const headers: Record<string, string> = suiteHeaders();
      for (const given of [...(item.parameters ?? []), ...((operation.parameters ?? []) as Schema[])]) {
        const { name, in: place, example } = parameter(given) as { name: string; in: string; example: unknown };
        if (place === "path") address = address.replace(`{${name}}`, String(example));
        else if (place === "header") headers[name] = String(example);
        else if (typeof example === "object" && example !== null) {
          for (const [member, value] of Object.entries(example)) query.append(member, String(value));
        } else query.append(name, String(example));
      }
      const [type, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
      if (type !== undefined) headers["content-type"] = type;
      const target = `${url}${address}${query.size > 0 ? `?${query}` : ""}`;
      const body = media === undefined ? undefined : JSON.stringify(media.example);
      const response = await fetch(target, { method: method.toUpperCase(), headers, body });
      const text = await response.text();
      if (response.status < 200 || response.status > 299) failures.push(`${method.toUpperCase()} ${target} -> ${response.status} ${text}`);
    }
  }
  return failures;
}
