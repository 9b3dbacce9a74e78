// Resources a file defines (a resources file or a json-server db.json), made into the same
// Resource descriptions the built-in ones are, so that every route, list and rule serves them alike.
import { defineResource, type Resource, type ResourceMap } from "../resource.ts";
import { ResourcesFileError, type ResourceDefinition } from "../resources-file.ts";
import { exampleOf } from "../schema.ts";
import type { FieldError } from "../errors.ts";

/**
 * The resources of the definitions, parents first. Integer ids count up from 1 and are never
 * given twice; string ids are 128 random bits, or 1 to 64 URL-safe characters a create sends
 * (409 if taken). The server sets the parent's member, and no `createdAt`; a missing record
 * is `RECORD_NOT_FOUND`, its message naming the collection in the singular.
 */
export function defineFileResources(definitions: readonly ResourceDefinition[]): ResourceMap {
  const resources: ResourceMap = {};
  for (const definition of definitions) {
    const { name, parent } = definition;
    resources[name] = defineResource({
      name,
      label: singular(name),
      path: `/${name}`,
      notFound: "RECORD_NOT_FOUND",
      // String ids are made by the server, or chosen by the client; whole numbers only counted up.
      ids: definition.id === "string" ? "random" : "sequence",
      fields: {},
      schema: schemaOf(definition),
      clientIds: definition.id === "string",
      timestamps: false,
      parent: parent === undefined ? undefined : { resource: resources[parent.resource]!, key: parent.member, segment: name },
    });
  }
  return resources;
}

/** A definition's schema (any object when it has none), its check and an example body it accepts, or a ResourcesFileError. */
function schemaOf(definition: ResourceDefinition): NonNullable<Resource["schema"]> {
  const source = (definition.schema ?? { type: "object" }) as Record<string, unknown>;
  const check = definition.check ?? (() => undefined);
  const example = exampleOf(source);
  const errors: FieldError[] = [];
  if (typeof example === "object" && example !== null && !Array.isArray(example)) check(example, "", errors);
  else errors.push({ path: "", message: "must be an object" });
  if (errors.length > 0) {
    const { path, message } = errors[0]!;
    throw new ResourcesFileError(
      `resource "${definition.name}": the example body made from its schema fails it (${path === "" ? "the body" : path} ${message}); give the schema "examples": [<a valid body>]`,
    );
  }
  return { source, check, example: example as Record<string, unknown> };
}

/** A collection's name in the singular, capitalised, as messages use it: `todos` is `Todo`, `entries` `Entry`. */
export function singular(name: string): string {
  const one = name.endsWith("ies") && name.length > 3 ? `${name.slice(0, -3)}y` : name.endsWith("s") && !name.endsWith("ss") && name.length > 1 ? name.slice(0, -1) : name;
  return one.charAt(0).toUpperCase() + one.slice(1);
}
