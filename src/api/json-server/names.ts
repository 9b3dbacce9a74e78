// json-server's naming convention: a collection is a plural (`posts`), and a record names its
// parent with `<singular>Id` (`postId`), as json-server 0.17 and 1.0 both read it.

/** The singular of a collection's name: `posts` -> `post`, `categories` -> `category`, `news` -> `news`. */
export function singularOf(name: string): string {
  if (name.endsWith("ies") && name.length > 3) return `${name.slice(0, -3)}y`;
  if (/(ss|us)$/.test(name)) return name;
  if (name.endsWith("s") && name.length > 1) return name.slice(0, -1);
  return name;
}

/** The member a child record names its parent in: `posts` -> `postId`. */
export function foreignKey(collection: string): string {
  return `${singularOf(collection)}Id`;
}

/** The collection a singular names among `collections`: `post` -> `posts`, `category` -> `categories`; undefined when none. */
export function pluralOf(singular: string, collections: { has: (name: string) => boolean }): string | undefined {
  return [`${singular}s`, `${singular.replace(/y$/, "")}ies`, singular].find((name) => collections.has(name) && singularOf(name) === singular);
}
