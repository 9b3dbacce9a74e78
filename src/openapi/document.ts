// The OpenAPI 3.1 document of the whole API, built from the route table and the resources behind it.
import { BODY_ERROR_CODES } from "../api/json.ts";
import { ERROR_CATALOGUE, type ErrorCode } from "../api/errors.ts";
import type { ApiRoute, CustomOperation, ResourceOperation, RouteOperation } from "../api/handler.ts";
import { filterText } from "../store/query.ts";
import { CREATED_AT_SCHEMA, ERROR_SCHEMAS, errorResponse, EXAMPLE_STRING_ID, HEADERS, headerRef, ID_SCHEMA, STRING_ID_SCHEMA, JSON_MEDIA, MERGE_PATCH_MEDIA, PARAMETERS, parameterRef, filtersParameter, type Ref, type ResponseDoc, RESPONSES, responseRef, RULE_SCHEMAS, schemaRef, withAnswerHeaders, withoutBody } from "./components.ts";
import { type Schema } from "../api/handler.ts";
import { type Resource, serverMembers } from "../api/resource.ts";
import type { CollectionName, RecordId } from "../store/records.ts";
import { ResourcesFileError } from "../api/resources-file.ts";
import { VERSION } from "../ops/version.ts";

/** One documented operation. `responses` is keyed by status, plus `default` for answers any request can get. */
export type OperationDoc = {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Array<Ref | Schema>;
  requestBody?: { required: true; content: Record<string, { schema: Ref; example: unknown }> };
  responses: Record<string, ResponseDoc | Ref>;
};

/** The methods an operation can be documented under, lower case as OpenAPI spells them, in the order the document lists them. */
export const DOCUMENTED_METHODS = ["get", "head", "post", "put", "patch", "delete", "options"] as const;

/** A method an operation can be documented under. */
export type DocumentedMethod = (typeof DOCUMENTED_METHODS)[number];

/** One path: its shared parameters and its operations by method. */
export type PathItemDoc = { parameters?: Schema[] } & Partial<Record<DocumentedMethod, OperationDoc>>;

/** The whole document. */
export type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string; summary: string; description: string; license: { name: string; identifier: string } };
  servers: Array<{ url: string; description: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, PathItemDoc>;
  components: {
    schemas: Record<string, Schema>;
    parameters: Record<string, Schema>;
    headers: Record<string, Schema>;
    responses: Record<string, ResponseDoc>;
  };
};

const DESCRIPTION = `A JSON REST server: users, and posts with comments with replies.

- Every body is JSON, sent as \`application/json; charset=utf-8\` with an exact \`Content-Length\`, but that of
  \`GET /metrics\`, which is Prometheus text. Every error body is \`{"message", "code"}\`; a validation failure
  adds \`errors\`, one entry per wrong member, and a 500 adds \`requestId\`.
- Every answer carries \`X-Request-Id\`: the request's own, if sane, or a new one.
- Every \`GET\` also answers \`HEAD\`: the same status and headers, no body. \`OPTIONS\` on any path answers 204
  with \`Allow\`. Another method on a known path is a 405 METHOD_NOT_ALLOWED with \`Allow\` (listed on every
  operation, as OpenAPI has no place for the methods a path does not have); an unknown path is a
  404 ROUTE_NOT_FOUND. One trailing slash is ignored.
- Checks run in this order: route (404, 405), path id (400), query (400), body (415, 413, 400),
  the record or its parent (404), preconditions (304, 412), the record's rules (400 VALIDATION_FAILED),
  conflicts (409).
- Every record and list answer has a strong \`ETag\`. \`If-None-Match\` on a GET or HEAD answers 304 when it
  matches; \`If-Match\` that does not match, or \`If-None-Match\` that does on a write, answers 412
  PRECONDITION_FAILED and changes nothing. A create's preconditions are evaluated against its list's ETag.
- Posts, comments and replies each number their own ids from 1 and never reuse one. Deleting a post
  deletes its comments and their replies; deleting a comment deletes its replies.
- Once shutdown has begun, every request but \`GET /healthz\`, \`GET /readyz\` and \`GET /metrics\` gets 503 SHUTTING_DOWN.
- Browsers: every answer to a request whose \`Origin\` \`CORS_ORIGINS\` allows (by default, pages served from
  this machine) carries the CORS headers.
- Access: a request whose \`Host\` is not in \`ALLOWED_HOSTS\` gets 403 HOST_NOT_ALLOWED. With tokens configured
  (\`AUTH_TOKENS\`), every request but \`GET /healthz\`, \`GET /readyz\` and CORS preflights needs
  \`Authorization: Bearer <token>\`: without a known token, 401 UNAUTHORIZED; a \`read\` token on a write, 403
  INSUFFICIENT_SCOPE. With \`READ_ONLY=on\`, every write gets 403 READ_ONLY. A write past the store's budget
  (\`STORE_LIMIT\`) gets 507 STORE_FULL and stores nothing.

The paths are listed so that calling every operation in the order listed, with the examples given,
on a fresh server (two seeded users, nothing else) succeeds: a record is created before it is read,
and deleted after everything that needs it.`;

// The description of a document over a file's collections: its own first line and last
// paragraph, and none of the built-in family's rules.
const FILE_DESCRIPTION = DESCRIPTION.replace("users, and posts with comments with replies.", "the collections a resources file or a db.json defines.")
  .replace(/- Posts, comments and replies each number[^\n]*\n[^\n]*\n/, "- Each collection's records are checked by its JSON Schema. Integer ids are numbered from 1 and never reused.\n")
  .replace("on a fresh server (two seeded users, nothing else)", "on a fresh server (the file's starting records)");

/**
 * The OpenAPI 3.1 document of the API whose route table is `routes`. Paths,
 * operations, parameters, bodies, statuses and error codes all come from the
 * routes and their resources; the examples are built to work, in the order the
 * document lists them, on the data `routes` holds (a fresh server's, for the
 * document the server serves), whose next ids `nextId` gives.
 */
export function buildOpenApiDocument(routes: readonly ApiRoute[], nextId: (name: CollectionName) => RecordId, own = false): OpenApiDocument {
  const byPath = new Map<string, ApiRoute[]>();
  for (const route of routes) {
    const path = openApiPath(route.pattern);
    byPath.set(path, [...(byPath.get(path) ?? []), route]);
  }
  const tags = new Map<string, string>();
  const schemas: Record<string, Schema> = { ...ERROR_SCHEMAS };
  const responses: Record<string, ResponseDoc> = { ...RESPONSES };
  const resources = [...new Set(routes.flatMap((route) => (route.operation.kind === "custom" ? [] : [route.operation.resource])))];
  // The answers of the routes that are not a resource's have schemas of their own, which no collection may take.
  const answers = new Set(routes.flatMap((route) => (route.operation.kind === "custom" ? [route.operation.doc.answer.name] : [])));
  for (const resource of resources) {
    for (const [name, schema] of Object.entries(recordSchemas(resource))) {
      // A file's collection named like a shared component would replace it (`errors` is `Error`).
      if (Object.hasOwn(schemas, name) || answers.has(name)) {
        throw new ResourcesFileError(`resource "${resource.name}": its OpenAPI schema ${name} is taken by another; rename the collection`);
      }
      schemas[name] = schema;
    }
    if (Object.hasOwn(responses, notFoundName(resource))) {
      throw new ResourcesFileError(`resource "${resource.name}": its OpenAPI response ${notFoundName(resource)} is taken by another; rename the collection`);
    }
    responses[notFoundName(resource)] = errorResponse(`No ${noun(resource)} has this id.`, [resource.notFound], {
      message: `${resource.label} not found`,
    });
  }

  const paths: Record<string, PathItemDoc> = {};
  for (const path of orderPaths(byPath, resources)) {
    const pathRoutes = byPath.get(path)!;
    const item: PathItemDoc = {};
    const owner = idOwner(pathRoutes[0]!);
    if (owner !== undefined) item.parameters = [idParameter(owner, owner.ids === "random" ? EXAMPLE_STRING_ID : nextId(owner.name))];
    const tag = tagOf(pathRoutes[0]!.operation);
    tags.set(tag.name, tag.description);
    for (const method of DOCUMENTED_METHODS) {
      if (method === "options") {
        const options = optionsOperation(path, tag.name);
        options.responses = common(options.responses);
        item.options = options;
        continue;
      }
      const route = pathRoutes.find((candidate) => candidate.method === (method === "head" ? "GET" : method.toUpperCase()));
      if (route === undefined) continue;
      let operation =
        route.operation.kind === "custom"
          ? customOperation(route.operation.doc, schemas)
          : resourceOperation(route.operation.kind, route.operation.resource, responses);
      operation.responses = common(operation.responses, route);
      if (method === "head") operation = headOperation(operation, responses);
      item[method] = operation;
    }
    paths[path] = item;
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "REST reference server",
      version: VERSION,
      summary: own ? "Collections a resources file or db.json defines, over JSON." : "Users, posts, comments and replies over JSON.",
      description: own ? FILE_DESCRIPTION : DESCRIPTION,
      license: { name: "MIT", identifier: "MIT" },
    },
    // The first entry suits a client that loads the document from the server itself; the second, a saved copy.
    servers: [
      { url: "/", description: "The instance that serves this document" },
      { url: "http://localhost:3000", description: "A local instance on the default port" },
    ],
    tags: [...tags].map(([name, description]) => ({ name, description })),
    paths,
    components: { schemas, parameters: PARAMETERS, headers: HEADERS, responses },
  };
}

/** A router pattern as OpenAPI writes a path: `/users/:id` is `/users/{id}`. */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z_]\w*)/g, "{$1}");
}

/**
 * The paths in the order the document lists them: the routes that are not a
 * resource's first, in table order; then each family from its top resource down,
 * lists before records, parents' lists before children's, and children's records
 * before their parents'. A walk in this order creates each record before any use
 * of it and deletes it after.
 */
function orderPaths(byPath: Map<string, ApiRoute[]>, resources: Resource[]): string[] {
  // Where each resource's list and records are, as the routes say.
  const at = new Map<string, string>();
  for (const [path, routes] of byPath) {
    for (const { operation } of routes) {
      if (operation.kind === "list" || operation.kind === "read") at.set(`${operation.kind} ${operation.resource.label}`, path);
    }
  }
  const where = (kind: string, resource: Resource): string[] => {
    const path = at.get(`${kind} ${resource.label}`);
    return path === undefined ? [] : [path];
  };
  const lists = (resource: Resource): string[] => [...where("list", resource), ...resource.children.flatMap(lists)];
  const items = (resource: Resource): string[] => [...resource.children.flatMap(items), ...where("read", resource)];
  const custom = [...byPath].filter(([, routes]) => routes.every((route) => route.operation.kind === "custom")).map(([path]) => path);
  const families = resources.filter((resource) => resource.parent === undefined).flatMap((root) => [...lists(root), ...items(root)]);
  const ordered = [...new Set([...custom, ...families])];
  const rest = [...byPath.keys()].filter((path) => !ordered.includes(path));
  return [...ordered, ...rest];
}

/** The resource whose id a path's `{id}` is: the parent's for a child list, the record's own otherwise. */
function idOwner(route: ApiRoute): Resource | undefined {
  if (!route.pattern.includes(":id")) return undefined;
  const { operation } = route;
  if (operation.kind === "custom") return undefined;
  const isList = operation.kind === "list" || operation.kind === "create";
  return isList ? operation.resource.parent?.resource : operation.resource;
}

/** The tag of an operation: its own, or its family's, named after the family's top resource. */
function tagOf(operation: RouteOperation): { name: string; description: string } {
  if (operation.kind === "custom") return operation.doc.tag;
  let top = operation.resource;
  while (top.parent !== undefined) top = top.parent.resource;
  const below = (resource: Resource): Resource[] => resource.children.flatMap((child) => [child, ...below(child)]);
  const description = [capital(plural(top)), ...below(top).map((resource) => `their ${plural(resource)}`)].join(", with ");
  return { name: plural(top), description };
}

/**
 * The example id of a resource's records: the id its create example gets when sent
 * to the data the routes hold (the next id), so that every later operation finds it.
 */
function idParameter(resource: Resource, example: RecordId): Schema {
  if (resource.ids === "random") {
    return {
      name: "id",
      in: "path",
      required: true,
      description: `The ${noun(resource)}'s id: 1 to 64 of A-Z, a-z, 0-9, \`_\` and \`-\`; anything else is a 400 INVALID_ID.`,
      schema: STRING_ID_SCHEMA,
      example,
    };
  }
  return {
    name: "id",
    in: "path",
    required: true,
    description:
      `The ${noun(resource)}'s id: digits only, read in base 10 (\`01\` is 1); anything else is a 400 INVALID_ID. ` +
      "Records count from 1, so 0 finds none (404).",
    schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    example,
  };
}

/** `a user`, `an item`: a noun with its article, capitalised to begin a sentence. */
function article(word: string, capitalised = false): string {
  // A vowel sound: `an item`, `an update`, but `a user`.
  const a = /^(?:[aeio]|u[^s])/i.test(word) ? "an" : "a";
  return `${capitalised ? capital(a) : a} ${word}`;
}

/** `user`, as summaries use it. */
function noun(resource: Resource): string {
  return resource.label.toLowerCase();
}

/** `users`: the last segment of the resource's path. */
function plural(resource: Resource): string {
  return resource.path.slice(resource.path.lastIndexOf("/") + 1);
}

function capital(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function notFoundName(resource: Resource): string {
  return `${resource.label}NotFound`;
}

/** A valid create body: every field's example, or the one a file's schema accepts. */
function createExample(resource: Resource): Record<string, unknown> {
  if (resource.schema !== undefined) return resource.schema.example;
  return Object.fromEntries(Object.entries(resource.fields).map(([name, spec]) => [name, spec.example]));
}

/** A one-member change: the first member of the create example, which leaves the record valid. */
function changeExample(resource: Resource): Record<string, unknown> {
  const [first] = Object.entries(createExample(resource));
  return first === undefined ? {} : Object.fromEntries([first]);
}

/** A filter that matches the record the create example makes: its first member with a scalar value. */
function filterExample(resource: Resource): Record<string, string> {
  for (const [name, value] of Object.entries(createExample(resource))) {
    const text = filterText(value);
    if (text !== undefined) return { [name]: text };
  }
  return {};
}

/** The record schema, and the bodies of its create and its updates, from the resource's fields and rules. */
function recordSchemas(resource: Resource): Record<string, Schema> {
  const { label } = resource;
  const server = serverMembers(resource);
  const parentKey = resource.parent?.key;
  const fields: Record<string, Schema> = {};
  for (const [name, spec] of Object.entries(resource.fields)) {
    const schema = RULE_SCHEMAS.get(spec.rule);
    if (schema === undefined) throw new TypeError(`The rule of ${label}.${name} has no schema in RULE_SCHEMAS`);
    fields[name] = { ...schema, examples: [spec.example] };
  }
  const required = Object.entries(resource.fields)
    .filter(([, spec]) => spec.required)
    .map(([name]) => name);
  // A file's schema is JSON Schema 2020-12, OpenAPI 3.1's own dialect: its members go in as written.
  const source = resource.schema?.source;
  if (source !== undefined) {
    Object.assign(fields, source.properties);
    required.push(...((source.required as string[] | undefined) ?? []));
  }
  const others = source?.additionalProperties ?? true;
  // A client that sends a server-set member gets 400 naming it (docs/spec.md#5-posts-comments-and-replies).
  const refused = server.length === 0 ? {} : { propertyNames: { not: { enum: server } } };
  const idSchema = resource.ids === "random" ? STRING_ID_SCHEMA : ID_SCHEMA;
  const parentIdSchema = resource.parent?.resource.ids === "random" ? STRING_ID_SCHEMA : ID_SCHEMA;
  const owned = { ...idSchema, readOnly: true };
  const kept = others === true ? `Members other than those listed are kept as the client sent them.` : `Members other than those listed follow the schema.`;
  const stored = others === true ? "Any other member is stored" : "Other members follow the schema";
  return {
    [label]: {
      type: "object",
      description: `${article(noun(resource), true)} as stored. ${kept}`,
      required: ["id", ...(parentKey ? [parentKey] : []), ...required, ...(resource.timestamps ? ["createdAt"] : [])],
      properties: {
        id: resource.clientIds ? idSchema : owned,
        ...(parentKey ? { [parentKey]: { ...parentIdSchema, readOnly: true, description: "The id of the record it belongs to, from the path." } } : {}),
        ...fields,
        ...(resource.timestamps ? { createdAt: CREATED_AT_SCHEMA } : {}),
      },
      additionalProperties: others,
    },
    [`New${label}`]: {
      type: "object",
      description: resource.clientIds
        ? `${article(noun(resource), true)} to create. Without \`id\` the server assigns one; a taken id is a 409. ${stored}.`
        : `${article(noun(resource), true)} to create. ${stored}; ${listed(server)} ${server.length === 1 ? "is" : "are"} set by the server and refused.`,
      required,
      properties: { ...(resource.clientIds ? { id: idSchema } : {}), ...fields },
      additionalProperties: others,
      ...refused,
    },
    [`${label}Changes`]: {
      type: "object",
      description: `Members to merge over ${article(noun(resource))}; members not sent are kept, and {} changes nothing.`,
      properties: {
        ...(resource.clientIds ? { id: { ...idSchema, description: "If sent, must equal the id in the path." } } : {}),
        ...fields,
      },
      additionalProperties: others,
      ...refused,
    },
  };
}

/** `a`, `a and b`, `a, b and c`, each in backticks. */
function listed(names: string[]): string {
  const quoted = names.map((name) => `\`${name}\``);
  return quoted.length < 2 ? quoted.join("") : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)!}`;
}

function json(description: string, schema: Schema | Ref, headers: Record<string, Ref> = {}): ResponseDoc {
  return withAnswerHeaders({ description, headers, content: { [JSON_MEDIA]: { schema } } });
}

function body(schema: string, example: unknown, mediaTypes: string[] = [JSON_MEDIA]): OperationDoc["requestBody"] {
  return {
    required: true,
    content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: schemaRef(schema), example }])),
  };
}

const ETAG = { ETag: headerRef("ETag") };
const READS = [parameterRef("IfNoneMatch"), parameterRef("IfMatch")];
const WRITES = [parameterRef("IfMatch")];
const READ_CONDITIONS = { "304": responseRef("NotModified"), "412": responseRef("PreconditionFailed") };
const WRITE_CONDITIONS = { "412": responseRef("PreconditionFailed") };
const BODY_ERRORS = { "413": responseRef("BodyTooLarge"), "415": responseRef("UnsupportedMediaType") };

/** One of the six operations of a resource, derived from its definition. */
function resourceOperation(kind: ResourceOperation, resource: Resource, shared: Record<string, ResponseDoc>): OperationDoc {
  const { label } = resource;
  const name = noun(resource);
  const parent = resource.parent?.resource;
  const tags = [tagOf({ kind, resource }).name];
  const idCodes: ErrorCode[] = ["INVALID_ID"];
  const parentId: ErrorCode[] = parent ? idCodes : [];
  const parentNotFound: Record<string, Ref> = parent ? { "404": responseRef(notFoundName(parent)) } : {};
  const notFound = { "404": responseRef(notFoundName(resource)) };
  const record = schemaRef(label);
  const bodyCodes: ErrorCode[] = [...BODY_ERROR_CODES, "VALIDATION_FAILED"];
  // The 400s, shared by name: a few sets of codes serve every operation.
  const invalid = (name: string, codes: ErrorCode[]): Ref => {
    shared[name] ??= errorResponse("The request is not valid:", codes);
    return responseRef(name);
  };
  switch (kind) {
    case "list": {
      return {
        operationId: `list${capital(plural(resource))}${parent ? `Of${parent.label}` : ""}`,
        summary: parent ? `List the ${plural(resource)} of ${article(noun(parent))}` : `List ${plural(resource)}`,
        description: "Creation order unless `sort` says otherwise; `limit` and `offset` cut a page, and `Link` links the others.",
        tags,
        parameters: [
          parameterRef("Limit"),
          parameterRef("Offset"),
          parameterRef("Sort"),
          filtersParameter(filterExample(resource)),
          ...READS,
        ],
        responses: {
          "200": json(`One page of the ${plural(resource)}${parent ? ` of the ${noun(parent)}` : ""}.`, { type: "array", items: record }, {
            "X-Total-Count": headerRef("X-Total-Count"),
            ...ETAG,
            Link: headerRef("Link"),
          }),
          ...READ_CONDITIONS,
          "400": invalid(parent ? "InvalidIdOrQuery" : "InvalidQuery", [...parentId, "INVALID_QUERY", "INVALID_SORT"]),
          ...parentNotFound,
        },
      };
    }
    case "create": {
      const responses: Record<string, ResponseDoc | Ref> = {
        "201": json(`The ${name} as stored.`, record, { Location: headerRef("Location"), ...ETAG }),
        "400": invalid(parent ? "InvalidIdOrBody" : "InvalidBody", [...parentId, ...bodyCodes]),
        ...parentNotFound,
        ...WRITE_CONDITIONS,
        ...BODY_ERRORS,
      };
      if (resource.clientIds) {
        responses["409"] = errorResponse(`The ${name}'s id is already taken; nothing is stored or overwritten.`, ["ID_CONFLICT"], {
          message: `A ${name} with id 2 already exists; send another id or none`,
        });
      }
      return {
        operationId: parent ? `create${label}On${parent.label}` : `create${label}`,
        summary: parent ? `Add ${article(name)} to ${article(noun(parent))}` : `Create ${article(name)}`,
        tags,
        parameters: WRITES,
        // A string id is sent, so that the operations after this one find the record.
        requestBody: body(`New${label}`, resource.ids === "random" ? { id: EXAMPLE_STRING_ID, ...createExample(resource) } : createExample(resource)),
        responses,
      };
    }
    case "read":
      return {
        operationId: `get${label}`,
        summary: `Read ${article(name)}`,
        tags,
        parameters: READS,
        responses: {
          "200": json(`The ${name}.`, record, ETAG),
          ...READ_CONDITIONS,
          "400": invalid("InvalidId", idCodes),
          ...notFound,
        },
      };
    case "replace":
    case "patch": {
      const patch = kind === "patch";
      return {
        operationId: `${patch ? "patch" : "update"}${label}`,
        summary: `${patch ? "Patch" : "Update"} ${article(name)}`,
        description: patch
          ? "A JSON Merge Patch (RFC 7396), sent as `application/merge-patch+json` or `application/json`: " +
            "`null` removes a member, objects merge recursively, anything else replaces. The result must pass the record's rules."
          : "Members sent replace the stored ones; members not sent are kept (a shallow merge).",
        tags,
        parameters: WRITES,
        requestBody: patch
          ? body(`${label}Changes`, changeExample(resource), [MERGE_PATCH_MEDIA, JSON_MEDIA])
          : body(`${label}Changes`, createExample(resource)),
        responses: {
          "200": json(`The ${name} as ${patch ? "patched" : "updated"}.`, record, ETAG),
          "400": invalid("InvalidIdOrBody", [...idCodes, ...bodyCodes]),
          ...notFound,
          ...WRITE_CONDITIONS,
          ...BODY_ERRORS,
          // A replace or patch may also make a record larger than a body may be.
          "413": responseRef("RecordTooLarge"),
        },
      };
    }
    case "delete": {
      const below = resource.children.map((child) => `${plural(child)}`);
      return {
        operationId: `delete${label}`,
        summary: `Delete ${article(name)}`,
        description:
          `The ${name} is gone from every read and list.` +
          (below.length > 0 ? ` Its ${below.join(" and ")}, and everything under them, are deleted with it.` : ""),
        tags,
        parameters: WRITES,
        responses: {
          "204": withAnswerHeaders({ description: `The ${name} is deleted; no body.` }),
          "400": invalid("InvalidId", idCodes),
          ...notFound,
          ...WRITE_CONDITIONS,
        },
      };
    }
  }
}

/** A route that is not a resource's: its 200 answer, and the codes it answers with itself. */
function customOperation(doc: CustomOperation, schemas: Record<string, Schema>): OperationDoc {
  schemas[doc.answer.name] = doc.answer.schema;
  const { description, name, mediaType } = doc.answer;
  const responses: Record<string, ResponseDoc | Ref> = {
    "200": mediaType === undefined ? json(description, schemaRef(name)) : withAnswerHeaders({ description, content: { [mediaType]: { schema: schemaRef(name) } } }),
  };
  // Codes that share a status share its one response, which lists them all.
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of doc.errors ?? []) {
    const status = String(ERROR_CATALOGUE[code].status);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of byStatus) {
    responses[status] = errorResponse(codes.length === 1 ? "This route's own error:" : "This route's own errors:", codes);
  }
  return { operationId: doc.operationId, summary: doc.summary, tags: [doc.tag.name], responses };
}

/** HEAD, which every GET route answers: GET's parameters and statuses, with headers and no bodies. */
function headOperation(get: OperationDoc, shared: Record<string, ResponseDoc>): OperationDoc {
  const responses: Record<string, ResponseDoc | Ref> = {};
  for (const [status, response] of Object.entries(get.responses)) {
    const resolved = "$ref" in response ? shared[(response as Ref).$ref.slice("#/components/responses/".length)]! : (response as ResponseDoc);
    // A 405 answers another method, never a HEAD (HEAD is answered wherever GET is), so it keeps its body.
    responses[status] = resolved.content === undefined || status === "405" ? response : withoutBody(resolved);
  }
  return {
    ...get,
    operationId: `head${capital(get.operationId)}`,
    summary: `${get.summary}: the headers only`,
    description: "The status and headers a GET would get, and no body.",
    responses,
  };
}

/** `OPTIONS`, which the router answers on every path (docs/spec.md#2-routing). */
function optionsOperation(path: string, tag: string): OperationDoc {
  const name = path
    .split(/[^A-Za-z]+/)
    .filter((word) => word !== "" && word !== "json")
    .map(capital)
    .join("");
  return {
    operationId: `options${name}`,
    summary: "List the methods this path answers",
    tags: [tag],
    responses: { "204": responseRef("Options") },
  };
}

/** Which 503 an operation can answer: shutdown alone, or the store's too, and a body's. */
function unavailable(route: ApiRoute | undefined): string {
  const kind = route?.operation.kind;
  if (kind === undefined || kind === "custom") return "ShuttingDown";
  return kind === "create" || kind === "replace" || kind === "patch" ? "UnavailableForBody" : "Unavailable";
}

/**
 * Adds what every operation can answer: 405 for the methods its path does not have,
 * 503 once shutdown has begun (unless the route is served then), and the catch-all.
 */
function common(responses: Record<string, ResponseDoc | Ref>, route?: ApiRoute): Record<string, ResponseDoc | Ref> {
  const all: Record<string, ResponseDoc | Ref> = { ...responses, "405": responseRef("MethodNotAllowed") };
  // A resource's operations also answer 503 when the data store cannot serve them, and those
  // that take a body when the bodies arriving at once are at their bound.
  if (!route?.servedWhileDraining) all["503"] = responseRef(unavailable(route));
  all.default = responseRef("Unexpected");
  return all;
}
