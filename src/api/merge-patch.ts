// JSON Merge Patch (RFC 7396): a patch applied to a copy, never to the target itself.

/**
 * Applies a merge patch (RFC 7396, section 2): a member set to `null` is removed,
 * an object is merged member by member (over `{}` where the target's member is not
 * an object), anything else replaces. Returns new objects wherever the patch
 * changes something; the target and anything inside it are never modified.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const name of Object.keys(patch)) {
    const value = patch[name];
    // Names such as `__proto__` never get here: the body checks refuse them (body.ts).
    if (value === null) delete result[name];
    else result[name] = applyMergePatch(Object.hasOwn(result, name) ? result[name] : undefined, value);
  }
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
