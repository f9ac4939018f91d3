/**
 * How deep a scenario's text nests, checked before the YAML parser reads it: the parser
 * recurses once per level (it overflows the stack at about 800) and slows down with the
 * depth of flow collections (a 5 MB body of `[[[…` took a minute), so text nested far
 * beyond the limit is refused unread. The exact limit (MAX_JSON_DEPTH, as for every
 * body) is checked on the parsed value, with its path.
 */

/** Flow collections nested deeper than this are refused before parsing (well under where the parser overflows). */
export const MAX_TEXT_DEPTH = 256;

/**
 * The offset of the first `[` or `{` that opens a flow collection more than `limit`
 * levels deep, or -1. Quoted strings are skipped where YAML starts them (at the start
 * of a token), comments likewise (after a space or a line break); a bracket in plain
 * text (`a[b`, a block scalar) is counted anyway, and a closing one never takes the
 * depth below 0: nesting may be over-counted by stray brackets, not hidden by them.
 * @example flowTooDeep('a: [[1]]', 1) // 4
 */
export function flowTooDeep(text: string, limit = MAX_TEXT_DEPTH): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    // Where a quoted string or a comment may start: the text's start, after a space, a line break or an indicator.
    const atToken = i === 0 || ' \t\r\n[{,:'.includes(text[i - 1]!);
    if (c === '[' || c === '{') {
      if (++depth > limit) return i;
    } else if (c === ']' || c === '}') {
      depth = Math.max(0, depth - 1);
    } else if (atToken && c === '"') {
      // Backslash escapes; an unterminated string runs to the end.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (atToken && c === "'") {
      // A quote is escaped by doubling it.
      for (i++; i < text.length; i++) {
        if (text[i] !== "'") continue;
        if (text[i + 1] !== "'") break;
        i++;
      }
    } else if (c === '#' && (i === 0 || ' \t\r\n'.includes(text[i - 1]!))) {
      while (i < text.length && text[i] !== '\n') i++;
    }
  }
  return -1;
}
