/**
 * Reading zod schemas as shapes: which keys a mapping at some path may have. The loader
 * names the keys close to a misspelt one with them, and checks the keys of values the
 * format leaves open to its own schema (a `given` body's nested objects, an expectation's
 * fields) against the schema they stand for: a route's body, a record of an answer.
 */
import type * as z from 'zod';

/** A key or word as scenario messages quote it (`outcomes`). */
export const quoted = (word: string): string => `\`${word}\``;

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  in?: z.ZodType;
  valueType?: z.ZodType;
  entries?: Record<string, string | number>;
  values?: unknown[];
};
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * The schemas a value at `path` inside `schema` may have to match: wrappers (optional,
 * default, pipe, lazy) are seen through and unions give several.
 * @example schemasAt(Scenario, ['given', 'leads', 0])
 */
export function schemasAt(schema: z.ZodType, path: readonly (string | number)[]): z.ZodType[] {
  const def = defOf(schema);
  // A lazy schema (core/lazy-schema.ts) stands for the one it builds.
  if (def.type === 'lazy') return schemasAt((schema as unknown as z.ZodLazy).unwrap() as z.ZodType, path);
  if (def.innerType) return schemasAt(def.innerType, path);
  if (def.type === 'pipe' && def.in) return schemasAt(def.in, path);
  if (def.options) return def.options.flatMap((option) => schemasAt(option, path));
  if (def.left && def.right) return [...schemasAt(def.left, path), ...schemasAt(def.right, path)];
  if (path.length === 0) return [schema];
  const [head, ...rest] = path;
  if (def.type === 'array' && def.element && typeof head === 'number') return schemasAt(def.element, rest);
  if (def.type === 'object' && def.shape && typeof head === 'string' && def.shape[head]) return schemasAt(def.shape[head], rest);
  if (def.type === 'record' && def.valueType) return schemasAt(def.valueType, rest);
  return [];
}

/**
 * The keys the mapping at `path` inside `schema` knows.
 * @example knownKeysAt(Scenario, ['given']) // ['phone_numbers', 'knowledgebases', ...]
 */
export function knownKeysAt(schema: z.ZodType, path: readonly (string | number)[] = []): string[] {
  return [...new Set(schemasAt(schema, path).flatMap((s) => Object.keys(defOf(s).shape ?? {})))];
}

/** Schemas whose values hold no keys of their own (a mapping can never match them). */
const SCALARS = new Set(['string', 'number', 'int', 'boolean', 'bigint', 'enum', 'literal', 'null', 'undefined', 'never', 'nan', 'date', 'template_literal', 'void']);

/** A key of a mapping that its schema does not have, with the keys it has. */
export interface UnknownKey {
  kind: 'key';
  /** Where the mapping is. */
  path: (string | number)[];
  key: string;
  known: string[];
}

/** A text that none of the words of its schema (an enum) is. */
export interface UnknownWord {
  kind: 'word';
  /** Where the text is. */
  path: (string | number)[];
  word: string;
  known: string[];
}

/** The texts an enum or a text literal accepts, or undefined for any other schema. */
function wordsOf(schema: z.ZodType): string[] | undefined {
  const def = defOf(schema);
  if (def.type === 'enum' && def.entries) return Object.values(def.entries).map(String);
  if (def.type === 'literal' && def.values?.every((v) => typeof v === 'string')) return def.values as string[];
  return undefined;
}

/**
 * The first key, at any depth of `value`, that none of `schemas` has where it stands:
 * mappings are followed by their keys, lists by their elements. A place whose schema is
 * open (a record, unknown, a custom check) takes any key. With `words`, a text where
 * every schema is an enum must also be one of its words (`$refs` excepted).
 * @example firstUnknown({ plan: { max_campaign: 3 } }, [AccountInput], ['accounts', 0]) // { kind: 'key', key: 'max_campaign', path: ['accounts', 0, 'plan'], ... }
 */
export function firstUnknown(
  value: unknown,
  schemas: readonly z.ZodType[],
  path: (string | number)[],
  options: { words?: boolean } = {},
): UnknownKey | UnknownWord | undefined {
  const variants = schemas.flatMap((schema) => schemasAt(schema, []));
  const structured = variants.filter((s) => !SCALARS.has(defOf(s).type));
  // An open place: anything goes below it.
  if (structured.some((s) => defOf(s).type !== 'object' && defOf(s).type !== 'array')) return undefined;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const objects = structured.filter((s) => defOf(s).type === 'object');
    // No mapping is expected here: the comparison fails when the scenario runs.
    if (objects.length === 0) return undefined;
    const known = [...new Set(objects.flatMap((o) => knownKeysAt(o)))];
    for (const [key, inner] of Object.entries(value)) {
      if (!known.includes(key)) return { kind: 'key', path, key, known };
      const found = firstUnknown(inner, objects.flatMap((o) => schemasAt(o, [key])), [...path, key], options);
      if (found) return found;
    }
  } else if (Array.isArray(value)) {
    const elements = structured.flatMap((s) => schemasAt(s, [0]));
    for (const [i, inner] of value.entries()) {
      const found = firstUnknown(inner, elements, [...path, i], options);
      if (found) return found;
    }
  } else if (options.words && typeof value === 'string' && !value.startsWith('$')) {
    const scalars = variants.filter((s) => SCALARS.has(defOf(s).type));
    const words = scalars.map(wordsOf);
    if (scalars.length > 0 && words.every((w) => w !== undefined) && !words.flat().includes(value)) {
      return { kind: 'word', path, word: value, known: [...new Set(words.flat())] };
    }
  }
  return undefined;
}
