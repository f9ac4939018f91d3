/** Wire shapes of custom mid-call tools (decisions: Custom mid-call tools; live-platform C.2). */
import * as z from 'zod';
import { integer, isoTimestamp, jsonObject } from '../../core/answers.js';
import { formatIsoUtc } from '../../core/time.js';
import { RULE_MESSAGES, int, oneOf, str, strBetween, url } from '../../core/validation.js';
import type { Wire } from '../../core/wire.js';
import type { ToolTemplate } from '../catalog/data.js';
import { lazySchema, once } from '../../core/lazy-schema.js';

/** A custom mid-call tool of an account: headers as a map, the schema as a JSON Schema object. */
export interface Tool extends ToolTemplate {
  id: number;
  account_id: number;
  created_at: number;
  updated_at: number;
}

export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const SCHEMA_TYPES = ['string', 'number', 'boolean'] as const;
/** A tool's timeout in seconds, and its default (live-platform C.2). */
export const TOOL_TIMEOUT = { min: 1, max: 30, default: 10 } as const;

/** An array whose items' `name`s must differ (compared by `key`); a repeat is 422 on `<field>.<i>.name` (live-platform C.2, decision). */
function distinctNames<T extends z.ZodType<{ name: string }>>(item: T, key: (name: string) => string) {
  return z.array(item).superRefine((items, check) => {
    const seen = new Set<string>();
    items.forEach((it, i) => {
      const k = key(it.name);
      if (seen.has(k)) check.addIssue({ code: 'custom', path: [i, 'name'], message: RULE_MESSAGES.distinct });
      seen.add(k);
    });
  });
}

/** Header items `{name, value}`; names are compared case-insensitively, as HTTP does. */
const Headers = lazySchema(() => distinctNames(z.object({ name: str().min(1), value: str().min(1) }), (n) => n.toLowerCase()));
/** Parameter items `{name, type, description}` (live-platform C.2). */
const Parameters = lazySchema(() => distinctNames(
  z.object({
    name: strBetween(2, 32).regex(/^[A-Za-z][A-Za-z_]*$/, { error: RULE_MESSAGES.format }),
    type: oneOf(SCHEMA_TYPES),
    description: strBetween(3, 255),
  }),
  (n) => n,
));

const fields = once(() => ({
  // An empty name is only "required" (Laravel skips the format rule of an empty value).
  name: str(255).min(1).regex(/^(?:[a-z][a-z_]*)?$/, { error: 'The :attribute may only contain lowercase letters and underscores, starting with a letter.' }),
  description: str(255).min(1),
  endpoint: url(),
  method: oneOf(TOOL_METHODS),
  timeout: int(TOOL_TIMEOUT.min, TOOL_TIMEOUT.max),
  headers: Headers,
  schema: Parameters,
}));

/** Writes take the array forms only (live-platform C.2, decision). */
export const CreateToolBody = lazySchema(() => z.object({ ...fields(), timeout: fields().timeout.optional(), headers: fields().headers.optional(), schema: fields().schema.optional() }));
export type CreateToolInput = z.infer<typeof CreateToolBody>;
export const UpdateToolBody = lazySchema(() => z.object(fields()).partial());
export type UpdateToolInput = z.infer<typeof UpdateToolBody>;

type HeaderItems = NonNullable<CreateToolInput['headers']>;
type ParameterItems = NonNullable<CreateToolInput['schema']>;

/**
 * The stored header map of the written items, in order (a name such as `__proto__` stays plain data).
 * @example headersFrom([{ name: 'X-Api-Key', value: 'demo' }]) // { 'X-Api-Key': 'demo' }
 */
export function headersFrom(items: HeaderItems): Record<string, string> {
  const map: Record<string, string> = {};
  for (const { name, value } of items) Object.defineProperty(map, name, { value, enumerable: true, writable: true, configurable: true });
  return map;
}

/**
 * The stored JSON Schema of the written parameters: `{type: object, properties}` in the order given.
 * @example schemaFrom([{ name: 'date', type: 'string', description: 'The day' }]) // { type: 'object', properties: { date: { type: 'string', description: 'The day' } } }
 */
export function schemaFrom(items: ParameterItems): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const { name, type, description } of items) properties[name] = { type, description };
  return { type: 'object', properties };
}

/** live-platform C.2: the live wire writes a stored schema as one item per property. */
function liveSchema(schema: Record<string, unknown>): LiveToolRecord['schema'] {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown; description?: unknown }>;
  return Object.entries(properties).map(([name, p]) => ({
    name,
    type: p?.type === 'number' || p?.type === 'integer' ? 'number' : p?.type === 'boolean' ? 'boolean' : 'string',
    description: typeof p?.description === 'string' ? p.description : '',
  }));
}

/** A tool on the spec wire: headers and schema as stored (decisions: Custom mid-call tools). */
export const ToolRecord = lazySchema(() => z
  .object({
    id: integer(),
    name: z.string(),
    description: z.string(),
    endpoint: z.string(),
    method: z.enum(TOOL_METHODS),
    timeout: integer(),
    headers: z.record(z.string(), z.string()),
    schema: jsonObject(),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .meta({ id: 'Tool' }));
export type ToolRecord = z.output<typeof ToolRecord>;

/** A tool on the live wire: headers and schema as arrays (live-platform C.2). */
export const LiveToolRecord = lazySchema(() => ToolRecord.unwrap().extend({
  headers: z.array(z.object({ name: z.string(), value: z.string() })),
  schema: z.array(z.object({ name: z.string(), type: z.enum(SCHEMA_TYPES), description: z.string() })),
}).meta({ id: 'LiveTool' }));
export type LiveToolRecord = z.output<typeof LiveToolRecord>;

/** The tool record: headers and schema as stored on the spec wire, as arrays on the live wire (live-platform C.2). */
export function serialiseTool(t: Tool, wire: Wire): ToolRecord | LiveToolRecord {
  const { id, name, description, endpoint, method, timeout } = t;
  const created_at = formatIsoUtc(t.created_at);
  const updated_at = formatIsoUtc(t.updated_at);
  // One literal per wire, so each is checked against its record's schema.
  if (wire !== 'live') return { id, name, description, endpoint, method, timeout, headers: { ...t.headers }, schema: structuredClone(t.schema), created_at, updated_at };
  const headers = Object.entries(t.headers).map(([header, value]) => ({ name: header, value }));
  return { id, name, description, endpoint, method, timeout, headers, schema: liveSchema(t.schema), created_at, updated_at };
}
