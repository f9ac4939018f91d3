/**
 * Input as the live platform's framework reads it (live-platform G.3 item 3, decision): every
 * string of a JSON body, a form or a query is trimmed of surrounding whitespace, and a string
 * empty after trimming counts as null (absent), before validation. In a body (and a form) it
 * becomes null, as the framework's empty-string conversion does: a field that takes null is
 * cleared; one that does not is refused as the empty string it was ("The name field is
 * required.", as the framework's `required` says of a null). In a query the parameter is left
 * out, so an empty `?page=` reads as no page. The spec wire reads input as it is sent.
 */
import type * as z from 'zod';
import type { RouteFamily } from './errors.js';
import { fieldKey, issuesToFieldErrors, laravelMessage, validationFailure } from './validation.js';

type Path = (string | number)[];

/**
 * A body or form with its strings trimmed and its empty strings null. Plain objects and
 * arrays are walked; anything else (an uploaded file) is kept. Answers the very value given
 * when nothing changes, so a body without such strings costs one walk and no copy.
 * @example trimInput({ name: '  Sales ', note: ' ', tags: [' a'] }) // { name: 'Sales', note: null, tags: ['a'] }
 */
export function trimInput(value: unknown, emptied: Path[] = [], path: Path = []): unknown {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed !== '') return trimmed;
    emptied.push(path);
    return null;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = trimInput(item, emptied, [...path, i]);
      if (next !== item) (copy ??= [...value])[i] = next;
    });
    return copy ?? value;
  }
  if (!isPlainRecord(value)) return value;
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const next = trimInput(item, emptied, [...path, key]);
    if (next !== item) changed = true;
    return [key, next] as const;
  });
  // fromEntries defines own properties: a `__proto__` key stays data, never a prototype.
  return changed ? Object.fromEntries(entries) : value;
}

/**
 * Parses a body or form as the live platform reads it (`trimInput`): an emptied string is
 * null, and where the schema does not take null there, it is refused as the empty string it
 * was (so a required or optional text field says "required", as the framework does of a null).
 * Throws the family's validation failure, as `parseInput`.
 * @example parseTrimmed(z.object({ name: z.string().min(1) }), { name: ' ' }, 'management') // throws 422 {errors: {name: ['The name field is required.']}}
 */
export function parseTrimmed<T>(schema: z.ZodType<T>, raw: unknown, family: RouteFamily): T {
  const emptied: Path[] = [];
  const input = trimInput(raw, emptied);
  let result = schema.safeParse(input, { error: laravelMessage });
  if (!result.success && emptied.length > 0) {
    const refused = new Set(result.error.issues.map((issue) => fieldKey(issue.path)));
    const empty = emptied.filter((path) => refused.has(fieldKey(path)));
    // trimInput copied every container on the way to an emptied string: writing there touches no caller's data.
    for (const path of empty) parentOf(input, path)[path.at(-1)!] = '';
    if (empty.length > 0) result = schema.safeParse(input, { error: laravelMessage });
  }
  if (result.success) return result.data;
  throw validationFailure(issuesToFieldErrors(result.error.issues), family);
}

/**
 * A query with its values trimmed; a value empty after trimming leaves its parameter out
 * (and an item of a repeated parameter out of its list).
 * @example trimQuery({ customer_phone: ' 49123456789', page: '' }) // { customer_phone: '49123456789' }
 */
export function trimQuery(query: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  let copy: Record<string, string | string[] | undefined> | undefined;
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const next = Array.isArray(value) ? trimList(value) : value.trim() || undefined;
    if (next === value) continue;
    copy ??= Object.fromEntries(Object.entries(query));
    if (next === undefined) delete copy[key];
    else Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? query;
}

/** The container that holds the value at `path` (which exists: trimInput walked it). */
function parentOf(input: unknown, path: Path): Record<string | number, unknown> {
  return path.slice(0, -1).reduce((parent, key) => parent[key] as Record<string | number, unknown>, input as Record<string | number, unknown>);
}

function trimList(values: string[]): string[] {
  const trimmed = values.map((v) => v.trim()).filter((v) => v !== '');
  return trimmed.length === values.length && trimmed.every((v, i) => v === values[i]) ? values : trimmed;
}

/** A record built from JSON or a form: an uploaded file (a class instance) is no record to walk. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
