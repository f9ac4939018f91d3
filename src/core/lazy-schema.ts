/**
 * Schemas built on first use. The route tables, the answers' schemas (read only by the
 * OpenAPI document and the contract suites) and the scenario format built some 4,600 zod
 * schemas while the package was imported, about 12 µs each: some 40 ms of every test
 * file's import (issue 29); about 260 are built now. A module's schema is declared as
 * `lazySchema(() => z.object(...))`: the value stands for the schema and builds it when
 * anything first reads it (a parse, a method, zod reading it inside another schema).
 */
import * as z from 'zod';

export { once } from './lazy.js';

/**
 * A schema built on its first use: zod's own `z.lazy`, which builds the schema `build`
 * answers when it is first parsed, converted to JSON Schema or unwrapped, and keeps it.
 * Where a module needs the schema itself (to extend it, to read its shape), it unwraps
 * it, inside another lazy schema's `build` or in the function that uses it. A field that
 * preprocesses its input stays eager: zod's JSON Schema reads a lazy one as optional
 * (its `required` looks through a pipe, not through a lazy schema), where parsing does not.
 * @example export const LeadRecord = lazySchema(() => z.object({ id: integer() }).meta({ id: 'Lead' }))
 */
export function lazySchema<S extends z.ZodType>(build: () => S): z.ZodLazy<S> {
  return z.lazy(build);
}

/** A schema that may be lazy, as the schema itself. */
export type Unlazy<S> = S extends z.ZodLazy<infer T> ? T : S;

/** An object schema, or a lazy schema standing for one (what `unlazy` turns into an object schema). */
export type ObjectSchema = z.ZodObject | z.ZodLazy<z.ZodObject>;

/**
 * The schema a lazy schema stands for (built now if it was not yet), or the schema itself.
 * @example unlazy(CallRecord).extend({ live: z.boolean() })
 */
export function unlazy<S extends z.ZodType>(schema: S): Unlazy<S> {
  return (schema instanceof z.ZodLazy ? schema.unwrap() : schema) as Unlazy<S>;
}
