/**
 * Checks on JSON bodies at the edge, pure. The spec asks for a depth limit (value ours) and for
 * markup in input to be cleaned.
 */

/** Depth of nested objects/arrays (a scalar is 0, `{}` is 1); stops counting past `max`. */
export function jsonDepth(value: unknown, max: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > max) return deepest;
    for (const child of Object.values(v as object)) stack.push([child, depth]);
  }
  return deepest;
}

/**
 * Secrets and opaque tokens are passed as sent: "cleaning" a password or a store receipt would
 * silently change it.
 */
const VERBATIM_KEY = /pass(word)?|token|secret|receipt|signature|code$|^code|key$/i;

const TAG = /<\/?[A-Za-z][^<>]*>|<!--[\s\S]*?(-->|$)/g;
const SCRIPT_OR_STYLE = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;

/** Removes HTML markup (tags, comments, script/style blocks with their content) from a string. */
export function stripMarkup(text: string): string {
  if (!text.includes('<')) return text;
  return text.replace(SCRIPT_OR_STYLE, '').replace(TAG, '');
}

/** A copy of a parsed JSON value with markup removed from every string, except under secret-like keys. */
export function cleanMarkup(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return VERBATIM_KEY.test(key) ? value : stripMarkup(value);
  if (Array.isArray(value)) return value.map((v) => cleanMarkup(v, key));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    // defineProperty: a JSON "__proto__" key stays a plain key instead of replacing the prototype
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, {
        value: cleanMarkup(v, k),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return value;
}
