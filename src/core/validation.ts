/**
 * Input validation: zod schemas whose failures become the platform's validation
 * answers with Laravel-style messages ("The name field is required.",
 * "The name may not be greater than 255 characters.").
 */
import * as z from 'zod';
import { shapeB, shapeD, shapeE, type FieldErrors, type RouteFamily, type SimError } from './errors.js';
import { MAX_USD } from './money.js';
import { didYouMean } from './suggest.js';
import { CLOCK_RANGE_TEXT } from './time.js';
import { unlazy, type ObjectSchema } from './lazy-schema.js';

type Issue = z.core.$ZodRawIssue;

/** `voice_stability` -> `voice stability`, `tools.0.type` -> `tools.0.type`. */
export function attributeName(path: readonly PropertyKey[]): string {
  // The whole input (an in-process control call given a non-object: `sim.control.outcomes.set(5)`) is "the input".
  if (path.length === 0) return 'input';
  return path.map(String).join('.').replace(/_/g, ' ');
}

/** The key of a field in shape B's `errors`. */
export function fieldKey(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** Message templates; `:attribute`, `:min`, `:max`, `:other`, `:value` are filled in. */
export const RULE_MESSAGES = {
  required: 'The :attribute field is required.',
  string: 'The :attribute must be a string.',
  integer: 'The :attribute must be an integer.',
  numeric: 'The :attribute must be a number.',
  boolean: 'The :attribute field must be true or false.',
  array: 'The :attribute must be an array.',
  object: 'The :attribute must be an object.',
  minString: 'The :attribute must be at least :min characters.',
  maxString: 'The :attribute may not be greater than :max characters.',
  minNumeric: 'The :attribute must be at least :min.',
  maxNumeric: 'The :attribute may not be greater than :max.',
  minArray: 'The :attribute must have at least :min items.',
  maxArray: 'The :attribute may not have more than :max items.',
  between: 'The :attribute must be between :min and :max.',
  betweenString: 'The :attribute must be between :min and :max characters.',
  in: 'The selected :attribute is invalid.',
  format: 'The :attribute format is invalid.',
  url: 'The :attribute format is invalid.',
  distinct: 'The :attribute field has a duplicate value.',
  requiredIf: 'The :attribute field is required when :other is :value.',
  prohibitedUnless: 'The :attribute field is prohibited unless :other is in :value.',
  dateFormat: 'The :attribute does not match the format :value.',
  timezone: 'The :attribute must be a valid zone.',
  exists: 'The selected :attribute is invalid.',
  digits: 'The :attribute must only contain digits.',
  /** A time the clock or a record is set to (CLOCK_RANGE). */
  clockTime: `The :attribute must be a time ${CLOCK_RANGE_TEXT}.`,
} as const;

/**
 * Fills a template for a field path.
 * @example ruleMessage('required', ['name']) // 'The name field is required.'
 */
export function ruleMessage(rule: keyof typeof RULE_MESSAGES | string, path: readonly PropertyKey[] | string, params: Record<string, string | number> = {}): string {
  const template = rule in RULE_MESSAGES ? RULE_MESSAGES[rule as keyof typeof RULE_MESSAGES] : rule;
  const attribute = typeof path === 'string' ? path.replace(/_/g, ' ') : attributeName(path);
  return template.replace(/:(attribute|min|max|other|value)\b/g, (_, key: string) =>
    key === 'attribute' ? attribute : String(params[key] ?? `:${key}`),
  );
}

const TYPE_RULE: Record<string, keyof typeof RULE_MESSAGES> = {
  string: 'string',
  number: 'numeric',
  int: 'integer',
  boolean: 'boolean',
  array: 'array',
  object: 'object',
  record: 'object',
};

/** The zod error map behind every validation message (`schema.safeParse(data, { error: laravelMessage })`). */
export function laravelMessage(issue: Issue): string {
  const path = issue.path ?? [];
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return ruleMessage('required', path);
      // z.int() reports a non-number as "expected number"; the platform's rule is "integer".
      if ((issue as { inst?: { _zod?: { def?: { format?: string } } } }).inst?._zod?.def?.format === 'safeint') return ruleMessage('integer', path);
      return ruleMessage(TYPE_RULE[issue.expected] ?? 'format', path);
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') return ruleMessage(min === 1 ? 'required' : 'minString', path, { min });
      if (issue.origin === 'array' || issue.origin === 'set') return ruleMessage('minArray', path, { min });
      return ruleMessage('minNumeric', path, { min });
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return ruleMessage('maxString', path, { max });
      if (issue.origin === 'array' || issue.origin === 'set') return ruleMessage('maxArray', path, { max });
      return ruleMessage('maxNumeric', path, { max });
    }
    case 'invalid_value':
      return ruleMessage(issue.input === undefined ? 'required' : 'in', path);
    case 'invalid_union': {
      // A discriminated union reports at the discriminator's path, with the object as input.
      const discriminator = (issue as { discriminator?: string }).discriminator;
      const missing = discriminator !== undefined && isPlainObject(issue.input) && issue.input[discriminator] === undefined;
      return ruleMessage(missing ? 'required' : 'in', path);
    }
    case 'invalid_format':
      return ruleMessage('format', path);
    case 'unrecognized_keys': {
      const keys = (issue as { keys?: string[] }).keys ?? [];
      return `The ${keys.join(', ')} field${keys.length === 1 ? ' is' : 's are'} not allowed${path.length ? ` in ${attributeName(path)}` : ''}.`;
    }
    default:
      return ruleMessage('format', path);
  }
}

/** Shape B's `errors` from zod issues; custom check messages may use the placeholders. */
export function issuesToFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const key = fieldKey(issue.path);
    const message = issue.message.includes(':attribute') ? ruleMessage(issue.message, issue.path) : issue.message;
    const list = (errors[key] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return errors;
}

/** Turns field errors into the failure shape of a route family (decisions: Validation outside the Errors table). */
export function validationFailure(errors: FieldErrors, family: RouteFamily): SimError {
  const first = Object.values(errors).flat()[0] ?? 'The given data was invalid.';
  if (family === 'chat') return shapeE(422, first);
  if (family === 'messaging') return shapeD(422, first, 'VALIDATION_ERROR');
  return shapeB(errors);
}

/**
 * Parses `input` with `schema`, throwing the family's validation failure.
 * @example parseInput(z.object({ name: z.string() }), {}, 'management') // throws 422 {message, errors: {name: [...]}}
 */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown, family: RouteFamily): T {
  const result = schema.safeParse(input, { error: laravelMessage });
  if (result.success) return result.data;
  throw validationFailure(issuesToFieldErrors(result.error.issues), family);
}

/**
 * The errors of the keys of `input` that the object `schema` does not have, each with
 * the closest known key: `{seeds: ['The seeds field is not allowed; did you mean seed?']}`.
 * Control bodies (docs/control-api.md) are closed at their top level: the control API is
 * the simulator's, so a misspelt option is refused with 422 shape B, where the platform's
 * API ignores an unknown field as the platform does.
 */
export function unknownKeyErrors(lazyOrObject: ObjectSchema, input: unknown): FieldErrors {
  const errors: FieldErrors = {};
  if (!isPlainObject(input)) return errors;
  const schema = unlazy(lazyOrObject);
  for (const key of Object.keys(input)) {
    // A key set to undefined is absent, as zod reads it (a caller's spread that clears one).
    if (Object.hasOwn(schema.shape, key) || input[key] === undefined) continue;
    errors[key] = [`The ${key} field is not allowed${didYouMean(key, Object.keys(schema.shape)) || '.'}`];
  }
  return errors;
}

/**
 * Parses a control body with its object schema, its own keys closed (`unknownKeyErrors`);
 * the schema's failures come after the unknown keys'.
 * @example parseControlBody(z.object({ seed: z.number().optional() }), { seeds: 1 }) // throws 422 {errors: {seeds: ['The seeds field is not allowed; did you mean seed?']}}
 */
export function parseControlBody<S extends ObjectSchema>(schema: S, input: unknown): z.output<S> {
  const errors = unknownKeyErrors(schema, input);
  const result = schema.safeParse(input, { error: laravelMessage });
  if (result.success && Object.keys(errors).length === 0) return result.data as z.output<S>;
  throw validationFailure({ ...errors, ...(result.success ? {} : issuesToFieldErrors(result.error.issues)) }, 'control');
}

/** Collects rule failures found after parsing (catalog lookups, cross-field rules). */
export class ErrorBag {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): this {
    const list = (this.errors[field] ??= []);
    if (!list.includes(message)) list.push(message);
    return this;
  }

  /** Adds the message of a rule for a field. */
  rule(field: string, rule: keyof typeof RULE_MESSAGES, params: Record<string, string | number> = {}): this {
    return this.add(field, ruleMessage(rule, field, params));
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  /** Throws shape B (or the family's shape) when anything was added. */
  throwIfAny(family: RouteFamily = 'management'): void {
    if (!this.empty) throw validationFailure(this.errors, family);
  }
}

// Schema builders: the platform's field kinds with the messages of their rules.

/**
 * A schema builder that builds once per argument list and answers that schema to every
 * later call. Zod schemas are immutable (`.optional()`, `.meta()` and the rest answer new
 * ones), so a shared one behaves as a fresh one; building costs some 10 µs, and the
 * route tables call these builders some 1,500 times while the package is imported (issue 29).
 * @example const int = shared((min?: number, max?: number) => z.int().min(min ?? 0).max(max ?? 9))
 */
export function shared<A extends unknown[], S>(build: (...args: A) => S): (...args: A) => S {
  const built = new Map<string, S>();
  return (...args) => {
    const key = JSON.stringify(args);
    let schema = built.get(key);
    if (schema === undefined) built.set(key, (schema = build(...args)));
    return schema;
  };
}

/** A string of at most `max` characters. */
export const str = shared((max?: number) => {
  const s = z.string();
  return max === undefined ? s : s.max(max, { error: RULE_MESSAGES.maxString.replace(':max', String(max)) });
});

/** A string of `min`..`max` characters. */
export const strBetween = shared((min: number, max: number) => {
  const message = RULE_MESSAGES.betweenString.replace(':min', String(min)).replace(':max', String(max));
  return z.string().min(min, { error: message }).max(max, { error: message });
});

/** An integer in [min, max] (either bound optional). */
export const int = shared((min?: number, max?: number) => {
  let s = z.int();
  const both = min !== undefined && max !== undefined;
  const between = both ? RULE_MESSAGES.between.replace(':min', String(min)).replace(':max', String(max)) : undefined;
  if (min !== undefined) s = s.min(min, { error: between ?? RULE_MESSAGES.minNumeric.replace(':min', String(min)) });
  if (max !== undefined) s = s.max(max, { error: between ?? RULE_MESSAGES.maxNumeric.replace(':max', String(max)) });
  return s;
});

/** A number (integer or decimal) in [min, max]. */
export const num = shared((min: number, max: number) => {
  const between = RULE_MESSAGES.between.replace(':min', String(min)).replace(':max', String(max));
  return z.number().min(min, { error: between }).max(max, { error: between });
});

/**
 * An amount of US dollars from 0 to `max` (at most MAX_USD, so its micro-dollars are a safe integer).
 * @example usd(1000) // a price per minute
 */
export const usd = shared((max: number = MAX_USD) => {
  return z
    .number()
    .min(0, { error: RULE_MESSAGES.minNumeric.replace(':min', '0') })
    .max(max, { error: RULE_MESSAGES.maxNumeric.replace(':max', String(max)) });
});

/** One of the listed strings. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values);
}

/** A URL with an http or https scheme. */
export const url = shared(() => {
  return z.string().max(2048, { error: 'The :attribute may not be greater than 2048 characters.' }).refine(isHttpUrl, { error: RULE_MESSAGES.url });
});

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Whether a value is a plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A free key-value object stored as plain data: keys such as `__proto__` are kept as
 * ordinary own properties and never touch a prototype (ARCHITECTURE §8).
 */
export const freeObject = shared(() => {
  return z.custom<Record<string, unknown>>(isPlainObject, { error: RULE_MESSAGES.object }).transform(cloneJson);
});

/** How deep JSON may nest: far beyond any real payload, well within what every later copy and serialisation can walk. */
export const MAX_JSON_DEPTH = 64;
/**
 * How deep a whole snapshot (or a state file's log record) may nest: twice a body's
 * limit, since it holds bodies' values a few levels down (a lead's `variables` at level
 * 6, a webhook delivery's payload at 6), so every state the API let in fits.
 */
export const MAX_SNAPSHOT_DEPTH = 2 * MAX_JSON_DEPTH;

/**
 * Whether parsed JSON nests deeper than `limit` levels, counting `value` as level
 * `depth`; any depth is safe to ask about.
 * @example nestsTooDeep({ a: { b: 1 } }) // false
 */
export function nestsTooDeep(value: unknown, depth = 1, limit = MAX_JSON_DEPTH): boolean {
  return tooDeepAt(value, depth, limit) !== undefined;
}

/**
 * The path to the first value nested deeper than `limit` levels (counting `value` as
 * level `depth`), or undefined when none is. The walk recurses at most `limit` + 1
 * calls deep, however deep the value, and touches only objects: a
 * 165 MB snapshot (100k leads, 220k calls) is walked in about 0.2 s.
 * @example tooDeepAt({ a: [[1]] }, 63) // ['a', 0]
 */
export function tooDeepAt(value: unknown, depth = 1, limit = MAX_JSON_DEPTH): (string | number)[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > limit) return [];
  // Only objects are recursed into (most values are not), and keys are read with for-in (no
  // array of them per object). A child within the limit that holds no object (a lead's
  // variables, most of a row's objects) is passed without a call: a fifth of the walk.
  const fits = depth + 1 <= limit;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child !== 'object' || child === null || (fits && holdsNoObject(child))) continue;
      const found = tooDeepAt(child, depth + 1, limit);
      if (found) return [i, ...found];
    }
    return undefined;
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (typeof child !== 'object' || child === null || (fits && holdsNoObject(child))) continue;
    const found = tooDeepAt(child, depth + 1, limit);
    if (found) return [key, ...found];
  }
  return undefined;
}

/** Whether an object or array holds no object (nor array) among its values. */
function holdsNoObject(value: object): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'object' && child !== null) return false;
    }
    return true;
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null) return false;
  }
  return true;
}

/**
 * A path from `tooDeepAt` for a message: its first eight keys, then `…` (a path past the
 * limit has as many keys as the limit has levels, most of them repeating the nesting).
 * @example deepPathText(['db', 'leads', 'rows', 0, 'variables', 'a', 'a', 'a', 'a']) // 'db.leads.rows.0.variables.a.a.a.…'
 */
export function deepPathText(path: readonly (string | number)[]): string {
  return path.length > 8 ? `${path.slice(0, 8).join('.')}.…` : path.join('.');
}

/** A deep copy of JSON data that keeps every key as an own data property. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** A query-string integer: digits become a number, anything else fails the integer rule. */
export const queryInt = shared(() => {
  return z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v), z.int());
});
