// json-server 1.0's Service, as its tests call it, reached over HTTP instead of in process:
// each method is the request its app makes for it, and `undefined` stands for a 404, as the
// Service's own `undefined` becomes one. The ports of service.test.ts call this.
import { type DialectServer, startDialect } from "./target.ts";
import { send } from "./support.ts";

type Item = Record<string, unknown>;
/** 1.0's find options: a where object, a sort, a page (beta.15); or its query parameters (beta.3). */
type FindOptions = { where?: Record<string, unknown>; sort?: string; page?: number; perPage?: number } | Record<string, unknown>;

/** A Service over a server started on `data`; `setData` starts it again on other data, as assigning `db.data` does upstream. */
export function httpService() {
  let server: DialectServer | undefined;
  const url = () => server!.url;
  const answer = async (method: string, path: string, json?: unknown) => {
    const res = await send(url(), method, path, json === undefined ? {} : { json });
    return res.status === 404 ? undefined : res.body;
  };
  const query = (params: Record<string, unknown>) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) for (const one of [value].flat()) search.append(name, String(one));
    const text = search.toString();
    return text === "" ? "" : `?${text}`;
  };
  return {
    async setData(data: unknown) {
      await server?.close();
      server = await startDialect(structuredClone(data));
    },
    /** The data held now, as upstream reads `db.data`. */
    async data(): Promise<Record<string, Item[]>> {
      return (await send(url(), "GET", "/db")).body as Record<string, Item[]>;
    },
    close: async () => server?.close(),
    findById: (name: string, id: string, params: { _embed?: string[] | string }) => answer("GET", `/${name}/${id}${query(params)}`),
    find(name: string, options: FindOptions = {}) {
      const { where, sort, page, perPage, ...rest } = options as { where?: unknown; sort?: string; page?: number; perPage?: number };
      const params: Record<string, unknown> = { ...rest };
      if (where !== undefined && Object.keys(where as object).length > 0) params._where = JSON.stringify(where);
      if (sort !== undefined) params._sort = sort;
      if (page !== undefined) params._page = page;
      if (perPage !== undefined) params._per_page = perPage;
      return answer("GET", `/${name}${query(params)}`);
    },
    create: (name: string, body: Item) => answer("POST", `/${name}`, body) as Promise<Item | undefined>,
    update: (name: string, body: Item) => answer("PUT", `/${name}`, body) as Promise<Item | undefined>,
    patch: (name: string, body: Item) => answer("PATCH", `/${name}`, body) as Promise<Item | undefined>,
    updateById: (name: string, id: string, body: Item) => answer("PUT", `/${name}/${id}`, body) as Promise<Item | undefined>,
    patchById: (name: string, id: string, body: Item) => answer("PATCH", `/${name}/${id}`, body) as Promise<Item | undefined>,
    destroyById: (name: string, id: string, dependents?: string[]) => answer("DELETE", `/${name}/${id}${query(dependents === undefined ? {} : { _dependent: dependents.join(",") })}`),
  };
}
