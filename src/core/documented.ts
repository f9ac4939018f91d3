/**
 * What the OpenAPI document (control/openapi.ts) shows for an input field whose zod type
 * says less than the server takes: a field that preprocesses its input (an id taken as a
 * number or a string, a form's digits read as an integer) shows only the type it ends as,
 * and a validator or a generated client then refuses what the server accepts (issue 34).
 * The field names the JSON Schema of what it really takes; the document shows that instead.
 * A body read as raw text names the other media types it arrives as.
 */
import type * as z from 'zod';

/** A JSON Schema, as OpenAPI 3.1 takes it. */
export type JsonSchema = Record<string, unknown>;

/** What a field or a body takes. */
export interface InputDoc {
  /** What it takes in a JSON body, in place of what zod writes. */
  json?: JsonSchema;
  /** What it takes in a `multipart/form-data` body, when that differs from JSON (a file). */
  form?: JsonSchema;
  /** A body's other media types: the same data written otherwise (a scenario as YAML text). */
  media?: readonly string[];
  /** A body's description in the document. */
  description?: string;
}

const DOCS = new WeakMap<z.ZodType, InputDoc>();

/**
 * Marks `schema` as taking what `doc` says (the same schema, for use in place).
 * @example export const AssistantRef = documentedAs(z.preprocess(toText, z.string()), { json: { anyOf: [{ type: 'integer' }, { type: 'string' }] } })
 */
export function documentedAs<S extends z.ZodType>(schema: S, doc: InputDoc): S {
  DOCS.set(schema, doc);
  return schema;
}

/**
 * What a marked schema takes, or undefined for one whose zod type says it.
 * @example inputDoc(AssistantRef)?.json // { anyOf: [...] }
 */
export function inputDoc(schema: z.ZodType): InputDoc | undefined {
  return DOCS.get(schema);
}
