/**
 * The building blocks of the success answers' schemas: the spec's timestamp formats, money,
 * the message envelopes and lists every domain answers with. A route names the schemas
 * of its answers (`responses`) for the OpenAPI document; serialisers are typed by them
 * (`z.output`), so a serialiser that drifts from its schema does not compile, and the
 * contract suites validate every answer against the document. They are never parsed at
 * run time: the answers are built by the serialisers alone.
 */
import * as z from 'zod';
import { shared } from './validation.js';
import { lazySchema } from './lazy-schema.js';

/** An integer id or count. */
export const integer = shared(() => z.number().int());

/** `2026-03-02T09:00:00.000000Z` (core/time formatIsoUtc: the spec's records). */
export const isoTimestamp = shared(() => z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/));

/** `2026-03-02 09:00:00` (core/time formatSqlUtc: leads, calls, conversations). */
export const sqlTimestamp = shared(() => z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/));

/** `2026-03-02T10:00:00+01:00` (core/time formatIsoOffset: webhook bodies, in the assistant's timezone). */
export const offsetTimestamp = shared(() => z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/));

/** `2026-03-02T09:00:00Z` (core/time formatControlTime: the control API). */
export const controlTimestamp = shared(() => z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/));

/** Any JSON object (variables, evaluations, payloads). */
export const jsonObject = shared(() => z.record(z.string(), z.unknown()));

/** An empty JSON array: what PHP writes for an empty associative array on the live wire (live-platform D.2, D.3). */
export const emptyArray = shared(() => z.array(z.never()).max(0));

/** `{message}`: a delete or an update that answers its text alone. */
export const MessageAnswer = lazySchema(() => z.object({ message: z.string() }));

/** `{message, data}`: a create or an update with its record. */
export function withMessage<T extends z.ZodType>(data: T) {
  return z.object({ message: z.string(), data });
}

/** `{message, data: []}`: a switch that answers an empty `data` (live-platform B). */
export const MessageEmptyData = lazySchema(() => withMessage(emptyArray()));

/** `{data: [item...]}`. */
export function dataList<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item) });
}

/**
 * The same answer on the two wires (live-platform Rule 5): the document shows both
 * (`anyOf`, the spec wire first), the contract suites accept either.
 * @example perWire(AssistantRecord, LiveAssistantRecord)
 */
export function perWire<S extends z.ZodType, L extends z.ZodType>(spec: S, live: L) {
  return z.union([spec, live]).describe('The spec wire’s answer, or the live wire’s (live-platform Rule 5).');
}
