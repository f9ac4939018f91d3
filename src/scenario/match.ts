/** Partial matching for expectations: what the scenario states must hold; anything else may differ. */
import { didYouMean } from '../core/suggest.js';
import { quoted } from './shapes.js';

export interface Mismatch {
  path: string;
  expected: unknown;
  actual: unknown;
  /** Set when the expectation names a field the record does not have: what it may have meant. */
  unknown_field?: string;
}

/** A mismatch for a field `actual` does not have, with the closest field it has. */
function unknownField(key: string, actual: Record<string, unknown>, path: string, expected: unknown): Mismatch {
  return { path, expected, actual: undefined, unknown_field: `there is no field ${key}${didYouMean(key, Object.keys(actual), quoted)}` };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Collects where `actual` differs from `expected`: objects by the keys `expected`
 * names, arrays element by element (same length), other values by equality.
 * @example partialMatch({ status: 'completed' }, lead, 'lead') // [] when the lead is completed
 */
export function partialMatch(expected: unknown, actual: unknown, path: string, out: Mismatch[] = []): Mismatch[] {
  if (isObject(expected)) {
    if (!isObject(actual)) out.push({ path, expected, actual });
    else
      for (const [key, value] of Object.entries(expected)) {
        const at = path ? `${path}.${key}` : key;
        if (!(key in actual)) out.push(unknownField(key, actual, at, value));
        else partialMatch(value, actual[key], at, out);
      }
  } else if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) out.push({ path, expected, actual });
    else expected.forEach((value, i) => partialMatch(value, actual[i], `${path}[${i}]`, out));
  } else if (typeof expected === 'number' && typeof actual === 'number') {
    // Money and rates arrive rounded to 6 decimals.
    if (Math.abs(expected - actual) > 1e-9) out.push({ path, expected, actual });
  } else if (expected !== actual) {
    out.push({ path, expected, actual });
  }
  return out;
}

/**
 * Checks a collection: `count`, `where` (a partial every checked item must match
 * first), and for every other key either one value all items must have, or a list of
 * values, one per item in order.
 */
export function collectionMatch(items: Record<string, unknown>[], expectation: Record<string, unknown>, name: string): Mismatch[] {
  const out: Mismatch[] = [];
  const { count, where, ...fields } = expectation;
  const chosen = where === undefined ? items : items.filter((item) => partialMatch(where, item, '').length === 0);
  if (count !== undefined && chosen.length !== count) out.push({ path: `${name}.count`, expected: count, actual: chosen.length });
  for (const [key, value] of Object.entries(fields)) {
    if (chosen.length > 0 && !(key in chosen[0]!)) {
      out.push(unknownField(key, chosen[0]!, `${name}.${key}`, value));
      continue;
    }
    const listOfValues = Array.isArray(value) && !(chosen.length > 0 && Array.isArray(chosen[0]![key]));
    if (listOfValues) partialMatch(value, chosen.map((item) => item[key]), `${name}.${key}`, out);
    else chosen.forEach((item, i) => partialMatch(value, item[key], `${name}[${i}].${key}`, out));
  }
  return out;
}
