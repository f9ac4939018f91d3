/**
 * Field kinds: checkers of plain JSON values (parsed snapshots, state files) built once
 * from a description of a record's fields, and typed against the record's interface
 * (`record<Call>({...})` does not compile while a field of `Call` lacks its kind, or has
 * a kind of another type). A check is a few `typeof` tests per field, with nothing
 * allocated unless something is wrong: the 320k rows of a 206 MB state file (100k leads,
 * 220k calls) are checked in about 40 ms at a restart.
 */
import type * as z from 'zod';
import { LATEST_STATE_TIME, formatControlTime } from './time.js';

/** What is wrong with a value: where inside it (`''` the value itself, `.plan.max_tools`, `[2]`) and what. */
export interface Problem {
  readonly at: string;
  readonly message: string;
}

/** The checker of one JSON value of type T. */
export interface FieldKind<T> {
  /** Undefined when `value` is a T, else what is wrong. */
  readonly check: (value: unknown) => Problem | undefined;
  /**
   * The same test as a JavaScript expression of the variable named `x` (true when the
   * value is one), for the generated check of a record to inline; absent for kinds that
   * are called instead.
   */
  readonly inline?: (x: string) => string;
  /** Never set: makes FieldKind<T> invariant in T, so a kind must match its field's type exactly (nullability included). */
  readonly type?: (value: T) => T;
}

/** The kind of every field of R, optional fields included. */
export type Fields<R> = { [K in keyof R]-?: FieldKind<R[K]> };

/** A kind from a test, its expression, and the message of its failure (one Problem object, shared by every failure). */
function simple<T>(test: (value: unknown) => boolean, message: string, inline?: (x: string) => string): FieldKind<T> {
  const problem: Problem = { at: '', message };
  return { check: (value) => (test(value) ? undefined : problem), ...(inline && { inline }) };
}

/**
 * `problem` as found inside the part of a value at the path `at` (undefined stays undefined).
 * @example within('.payload', { at: '.call_id', message: 'is required' }) // { at: '.payload.call_id', message: 'is required' }
 */
export function within(at: string, problem: Problem | undefined): Problem | undefined {
  return problem && { at: at + problem.at, message: problem.message };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A whole number from 1 to 2^53 - 1 (a row id, a reference to one). */
export const id: FieldKind<number> = simple((v) => Number.isSafeInteger(v) && (v as number) >= 1, 'must be a whole number from 1 to 9007199254740991', (x) => `(Number.isSafeInteger(${x}) && ${x} >= 1)`);
/** A whole number from 0 to 2^53 - 1 (a count, a position). */
export const count: FieldKind<number> = simple((v) => Number.isSafeInteger(v) && (v as number) >= 0, 'must be a whole number from 0 to 9007199254740991', (x) => `(Number.isSafeInteger(${x}) && ${x} >= 0)`);
/** A whole number within ±(2^53 - 1): exact in JSON and in every sum the simulator makes of a few of them (money in micro-dollars). */
export const int: FieldKind<number> = simple(Number.isSafeInteger, 'must be a whole number from -9007199254740991 to 9007199254740991', (x) => `Number.isSafeInteger(${x})`);
/**
 * A whole number from `min` to `max`: a setting the API takes only within a range, that
 * the simulator computes times or amounts from (a ring time in seconds, a price), so a
 * value beyond the range would carry them past what the state may hold.
 * @example whole(1, 60).check(61) // { at: '', message: 'must be a whole number from 1 to 60' }
 */
export function whole(min: number, max: number): FieldKind<number> {
  return simple(
    (v) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max,
    `must be a whole number from ${min} to ${max}`,
    (x) => `(Number.isSafeInteger(${x}) && ${x} >= ${min} && ${x} <= ${max})`,
  );
}
/** A finite number. */
export const number: FieldKind<number> = simple(Number.isFinite, 'must be a finite number', (x) => `Number.isFinite(${x})`);
export const string: FieldKind<string> = simple((v) => typeof v === 'string', 'must be a string', (x) => `(typeof ${x} === "string")`);
export const boolean: FieldKind<boolean> = simple((v) => typeof v === 'boolean', 'must be true or false', (x) => `(typeof ${x} === "boolean")`);
/** A JSON object (not an array, not null). */
export const json: FieldKind<Record<string, unknown>> = simple(isObject, 'must be an object', (x) => `(typeof ${x} === "object" && ${x} !== null && !Array.isArray(${x}))`);
/** Any JSON value. */
export const anything: FieldKind<unknown> = { check: () => undefined };
/**
 * A time the state may hold: whole epoch milliseconds from 1970-01-01T00:00:00Z to
 * LATEST_STATE_TIME (see core/time.ts for why the range ends there).
 */
export const time: FieldKind<number> = simple(
  (v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= LATEST_STATE_TIME,
  `must be a time in whole milliseconds from 0 (1970-01-01T00:00:00Z) to ${LATEST_STATE_TIME} (${formatControlTime(LATEST_STATE_TIME)})`,
  (x) => `(Number.isSafeInteger(${x}) && ${x} >= 0 && ${x} <= ${LATEST_STATE_TIME})`,
);

/**
 * One of `values`.
 * @example oneOf(['draft', 'stopped'] as const).check('paused') // { at: '', message: 'must be one of draft, stopped' }
 */
export function oneOf<const V extends string>(values: readonly V[]): FieldKind<V> {
  const allowed: ReadonlySet<unknown> = new Set(values);
  return simple((v) => allowed.has(v), `must be one of ${values.join(', ')}`, (x) => `(${values.map((v) => `${x} === ${JSON.stringify(v)}`).join(' || ')})`);
}

/** Exactly `value` (a constant field: `currency: 'USD'`, `truncated: true`). */
export function exactly<const V extends string | number | boolean>(value: V): FieldKind<V> {
  return simple((v) => v === value, `must be ${JSON.stringify(value)}`, (x) => `(${x} === ${JSON.stringify(value)})`);
}

/**
 * A `kind` that also passes `test` (a time zone, a time of day).
 * @example refined(string, isTimezone, 'must be an IANA time zone')
 */
export function refined<T, U extends T>(kind: FieldKind<T>, test: (value: T) => value is U, message: string): FieldKind<U>;
export function refined<T>(kind: FieldKind<T>, test: (value: T) => boolean, message: string): FieldKind<T>;
export function refined<T>(kind: FieldKind<T>, test: (value: T) => boolean, message: string): FieldKind<T> {
  const check = kind.check;
  const problem: Problem = { at: '', message };
  return { check: (value) => check(value) ?? (test(value as T) ? undefined : problem) };
}

/** `kind` or null. */
export function nullable<T>(kind: FieldKind<T>): FieldKind<T | null> {
  const { check, inline } = kind;
  return { check: (value) => (value === null ? undefined : check(value)), ...(inline && { inline: (x: string) => `(${x} === null || ${inline(x)})` }) };
}

/** `kind`, or absent (a field older snapshots do not have). */
export function optional<T>(kind: FieldKind<T>): FieldKind<T | undefined> {
  const { check, inline } = kind;
  return { check: (value) => (value === undefined ? undefined : check(value)), ...(inline && { inline: (x: string) => `(${x} === undefined || ${inline(x)})` }) };
}

const notArray: Problem = { at: '', message: 'must be an array' };
const notObject: Problem = { at: '', message: 'must be an object' };

/** An array of `kind`. */
export function list<T>(kind: FieldKind<T>): FieldKind<T[]> {
  const check = kind.check;
  return {
    check: (value) => {
      if (!Array.isArray(value)) return notArray;
      for (let i = 0; i < value.length; i++) {
        const problem = check(value[i]);
        if (problem) return within(`[${i}]`, problem);
      }
      return undefined;
    },
  };
}

/** An object whose every value is `kind` (headers: name to text). */
export function mapOf<T>(kind: FieldKind<T>): FieldKind<Record<string, T>> {
  const check = kind.check;
  return {
    check: (value) => {
      if (!isObject(value)) return notObject;
      for (const key in value) {
        const problem = check(value[key]);
        if (problem) return within(`.${key}`, problem);
      }
      return undefined;
    },
  };
}

/**
 * An object with R's fields, each of its kind; fields it does not name are left alone.
 * The description is compiled, on the first check, into a function that reads each field by its name.
 * @example const plan = record<Plan>({ max_campaigns: count, max_calls_in_parallel: count, max_tools: count })
 */
export function record<R>(fields: Fields<R>): FieldKind<R> {
  const names = Object.keys(fields);
  const kinds = names.map((name) => (fields as Record<string, FieldKind<unknown>>)[name]!);
  const missing = names.map((name) => ({ at: `.${name}`, message: 'is required' }));
  const failed = (i: number, field: unknown): Problem => {
    if (field === undefined) return missing[i]!;
    return within(`.${names[i]}`, kinds[i]!.check(field))!;
  };
  // Compiled on the first check, not when declared: the state's kinds are declared while the
  // package is imported, and most simulators never check a row (issue 29). A kind that holds
  // this one (`nullable`, `list`) reads this same function, so it is generated once for all.
  let compiled: Check | undefined;
  return { check: (value) => (compiled ??= compiledRecord(names, kinds, failed) ?? loopedRecord(names, kinds, failed))(value) };
}

type Check = (value: unknown) => Problem | undefined;
/** The problem of field `i` (known to fail), named by its path. */
type Failed = (i: number, field: unknown) => Problem;

/**
 * The check of a record as generated code: each field read by its literal name (a plain
 * property load) and tested by its kind's expression, inline, or by its check. Reading
 * the fields in a loop by computed names is many times slower (measured on 220k calls
 * and 100k leads, warm: 600 ms in a loop, 90-120 ms generated with a call per field,
 * 30-55 ms inline). Undefined where code cannot be generated (a page whose Content
 * Security Policy forbids it): `loopedRecord` then.
 */
function compiledRecord(names: string[], kinds: FieldKind<unknown>[], failed: Failed): Check | undefined {
  const lines = names.map((name, i) => {
    const test = kinds[i]!.inline?.('f') ?? `c[${i}](f) === undefined`;
    return `f = v[${JSON.stringify(name)}]; if (!(${test})) return failed(${i}, f);`;
  });
  try {
    const build = new Function('c', 'failed', 'isObject', 'notObject', `return (v) => { if (!isObject(v)) return notObject; let f; ${lines.join(' ')} return undefined; };`);
    return build(kinds.map((k) => k.check), failed, isObject, notObject) as Check;
  } catch {
    return undefined;
  }
}

function loopedRecord(names: string[], kinds: FieldKind<unknown>[], failed: Failed): Check {
  const checks = kinds.map((k) => k.check);
  return (value) => {
    if (!isObject(value)) return notObject;
    for (let i = 0; i < checks.length; i++) {
      const field = value[names[i]!];
      if (checks[i]!(field)) return failed(i, field);
    }
    return undefined;
  };
}

/**
 * A value a zod schema accepts (the few nested shapes that have one: built-in tools, post-call
 * schema items), for fields of tables that hold few rows.
 */
export function parsedBy<T>(schema: z.ZodType<T>): FieldKind<T> {
  return {
    check: (value) => {
      const result = schema.safeParse(value);
      if (result.success) return undefined;
      const issue = result.error.issues[0]!;
      return { at: issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join(''), message: issue.message };
    },
  };
}
