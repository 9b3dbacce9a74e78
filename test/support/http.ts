// Small fetch helpers shared by the black-box tests.

/** A response with its body already read and parsed. */
export type JsonResponse = { status: number; headers: Headers; body: unknown; text: string };

/** Sends a request and reads the whole answer; a JSON body is parsed (the metrics' text is not). */
export async function call(url: string, init: RequestInit & { json?: unknown } = {}): Promise<JsonResponse> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  // Against servers with tokens, every request of the suite sends one, unless it sends its own.
  const token = process.env.TEST_AUTH_TOKEN;
  if (token !== undefined && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
  const response = await fetch(url, {
    ...rest,
    headers,
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
  const text = await response.text();
  const parsed = text !== "" && !(response.headers.get("content-type") ?? "").startsWith("text/plain");
  return { status: response.status, headers: response.headers, body: parsed ? JSON.parse(text) : undefined, text };
}

/** The headers a request sent with fetch itself carries in the suite: the suite's token, when it runs with one. */
export function suiteHeaders(): Record<string, string> {
  const token = process.env.TEST_AUTH_TOKEN;
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** The headers every JSON answer must carry: the media type and the exact byte length. */
export function assertJsonHeaders(response: JsonResponse): void {
  const type = response.headers.get("content-type");
  const length = response.headers.get("content-length");
  if (type !== "application/json; charset=utf-8") throw new Error(`Content-Type was ${type}`);
  if (length !== String(Buffer.byteLength(response.text))) {
    throw new Error(`Content-Length ${length} does not match ${Buffer.byteLength(response.text)} bytes`);
  }
}

/** Sends a request with exactly these headers: unlike call(), it never adds the suite's token. */
export async function send(url: string, init: { method?: string; headers?: Record<string, string>; json?: unknown } = {}): Promise<JsonResponse> {
  const headers = new Headers(init.headers);
  if (init.json !== undefined) headers.set("content-type", "application/json");
  const response = await fetch(url, { method: init.method, headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  const text = await response.text();
  const json = (response.headers.get("content-type") ?? "").startsWith("application/json");
  return { status: response.status, headers: response.headers, body: json && text !== "" ? JSON.parse(text) : undefined, text };
}

/** The header that sends a bearer token. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
