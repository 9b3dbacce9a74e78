// The JSON text of a list, made at once only while it is short: a longer one is written in pieces.

/**
 * The most characters of JSON text a list answer is made of in one step: a list whose text is
 * longer is written in pieces of about this size (docs/decisions.md, "Access and limits").
 */
export const PIECE_CHARS = 64 * 1024;

/** Lists this short are serialised in one call: each record is answered whole by a read anyway. */
const WHOLE_ITEMS = 4;

/**
 * The JSON text of a list, exactly as JSON.stringify gives it, when it is at most PIECE_CHARS
 * long; undefined for a longer one, which the HTTP layer writes in pieces (http/pieces.ts). Stops as soon as the text passes
 * the limit, so a long list costs one piece here.
 */
export function shortListText(items: readonly unknown[]): string | undefined {
  if (items.length <= WHOLE_ITEMS) {
    const text = JSON.stringify(items);
    return text.length <= PIECE_CHARS || items.length <= 1 ? text : undefined;
  }
  const parts: string[] = [];
  let length = 2;
  for (let i = 0; i < items.length; i++) {
    const text = JSON.stringify(items[i]);
    length += text.length + 1;
    if (length > PIECE_CHARS) return undefined;
    parts.push(text);
  }
  return `[${parts.join(",")}]`;
}
