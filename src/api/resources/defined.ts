// Resources a file defines (a resources file or a json-server db.json), made into the same
// Resource descriptions the built-in ones are, so that every route, list and rule serves them alike.
import { defineResource, type ResourceMap } from "../resource.ts";
import type { ResourceDefinition } from "../resources-file.ts";

/**
 * The resources of the definitions, parents first. Their ids count up from 1 and are never
 * given twice; the server sets `id` and the parent's member, and no `createdAt`; a missing
 * record is `RECORD_NOT_FOUND`, its message naming the collection in the singular.
 */
export function defineFileResources(definitions: readonly ResourceDefinition[]): ResourceMap {
  const resources: ResourceMap = {};
  for (const definition of definitions) {
    const { name, parent } = definition;
    if (definition.id !== "integer") throw new TypeError(`resource "${name}": only integer ids are served so far`);
    resources[name] = defineResource({
      name,
      label: singular(name),
      path: `/${name}`,
      notFound: "RECORD_NOT_FOUND",
      ids: "sequence",
      fields: {},
      schema: definition.check === undefined ? undefined : { source: definition.schema, check: definition.check },
      clientIds: false,
      timestamps: false,
      parent: parent === undefined ? undefined : { resource: resources[parent.resource]!, key: parent.member, segment: name },
    });
  }
  return resources;
}

/** A collection's name in the singular, capitalised, as messages use it: `todos` is `Todo`, `entries` `Entry`. */
export function singular(name: string): string {
  const one = name.endsWith("ies") && name.length > 3 ? `${name.slice(0, -3)}y` : name.endsWith("s") && !name.endsWith("ss") && name.length > 1 ? name.slice(0, -1) : name;
  return one.charAt(0).toUpperCase() + one.slice(1);
}
