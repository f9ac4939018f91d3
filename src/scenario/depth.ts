/**
 * How deep a scenario's or catalog's text nests, checked before the YAML composer builds
 * it: the composer recurses once per level and overflows the stack at a depth that depends
 * on the stack and on whether V8 has optimised it yet (measured on a cold main thread:
 * between 700 and 800 levels of flow collections, between 900 and 1,000 of block ones; far
 * more in a warm worker), and the tokenizer slows down with the depth of flow collections
 * (a 5 MB body of `[[[…` took a minute). So text nested far beyond the limit is refused
 * before composing, the same way everywhere. The exact limit (MAX_JSON_DEPTH, as for
 * every body) is checked on the composed value, with its path.
 */
import type { CST } from 'yaml';

/** Text nested deeper than this is refused before composing (well under where the composer overflows). */
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

/**
 * The offset of the first collection (block or flow) of the tokenizer's output that
 * sits more than `limit` collections deep, or -1; walked without recursion, so that any
 * depth is measured. A document's top-level collection is level 1.
 * @example collectionTooDeep([...new Parser().parse('a:\n  b: 1\n')], 1) // 5
 */
export function collectionTooDeep(tokens: readonly CST.Token[], limit = MAX_TEXT_DEPTH): number {
  const pending: [CST.Token | null | undefined, number][] = tokens.map((token) => [token, 0]);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [token, depth] = next;
    if (!token) continue;
    switch (token.type) {
      case 'document':
        pending.push([token.value, depth]);
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection':
        if (depth + 1 > limit) return token.offset;
        for (const item of token.items) pending.push(['key' in item ? item.key : undefined, depth + 1], [item.value, depth + 1]);
        break;
      default:
    }
  }
  return -1;
}
