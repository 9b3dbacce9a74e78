// The files the tests of your own resources serve: the resources file the docs and the issue
// give, and json-server's own example db.json.

/** The example resources file: projects, the todos under them, and notes with string ids. */
export const EXAMPLE_RESOURCES = {
  resources: {
    projects: {
      schema: { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1 } } },
    },
    todos: {
      schema: {
        type: "object",
        required: ["title"],
        properties: {
          title: { type: "string", minLength: 1, maxLength: 200 },
          done: { type: "boolean" },
          tags: { type: "array", items: { type: "string" } },
        },
      },
      parent: { resource: "projects", member: "projectId" },
    },
    notes: { id: "string" },
  },
};

/** json-server's example db.json (v1): string ids, comments linked to posts by postId, and a singular `profile`. */
export const JSON_SERVER_DB = {
  posts: [
    { id: "1", title: "a title", views: 100 },
    { id: "2", title: "another title", views: 200 },
  ],
  comments: [
    { id: "1", text: "a comment about post 1", postId: "1" },
    { id: "2", text: "another comment about post 1", postId: "1" },
  ],
  profile: { name: "typicode" },
};
