// What a handler answers with: a status, a JSON body or its text, an ETag and headers; http/respond.ts writes it.

/** What a handler returns: a status, an optional JSON body, its ETag, and extra headers. */
export type Reply = {
  status: number;
  body?: unknown;
  /**
   * A body already serialised as JSON text, sent as it is instead of `body`: the
   * OpenAPI document, or a record's text as its store keeps it for reads; or that text in
   * UTF-8, which every answer sends without a copy (the request log of test control).
   */
  json?: string | Uint8Array;
  /** The media type of `json` when it is not JSON (the metrics' text); JSON_TYPE by default. */
  type?: string;
  /**
   * The ETag header. A field of its own rather than a member of `headers`, so that a
   * read builds no headers object to carry it and send() walks none.
   */
  etag?: string;
  headers?: Record<string, string>;
  /** Called once the answer is written or its client gone: a long list's records are let go of then (store/memory/holds.ts). */
  release?: () => void;
};
