/**
 * One nesting limit for JSON at the door. Every later walk (validation, canonical JSON, storage)
 * then stays far from the stack's limit, and a 5,000-level body is refused in one linear scan
 * instead of failing somewhere deep inside with a 500.
 */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests objects/arrays deeper than `limit`, found in one pass over the text
 * without parsing it (brackets inside strings do not count). Malformed text is left to the parser.
 */
export function jsonTextTooDeep(text: string, limit: number): boolean {
  // The depth never exceeds the number of `{` and `[` in the text (those inside strings only add to
  // it): with at most `limit` of them, no scan is needed. indexOf finds them natively, so a usual
  // request (a handful of brackets) costs a few calls instead of a loop over every character.
  if (openersAtMost(text, limit)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Whether `text` holds at most `limit` characters `{` and `[` together; stops counting past it. */
function openersAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > limit) return false;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > limit) return false;
  return true;
}

/** The same limit for a value parsed elsewhere (an app-wide body parser); iterative, so any depth is safe to ask about. */
export function jsonValueTooDeep(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
