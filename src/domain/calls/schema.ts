/** Calls (spec: Call; List calls, Get call, Delete call; decisions: Start one call). */
import * as z from 'zod';
import { emptyArray, integer, jsonObject, offsetTimestamp, sqlTimestamp } from '../../core/answers.js';
import { copyJson } from '../../core/json.js';
import { pageQuery } from '../../core/pagination.js';
import { fromMicros } from '../../core/money.js';
import { formatSqlUtc } from '../../core/time.js';
import { RULE_MESSAGES, freeObject, int, oneOf, queryInt, usd } from '../../core/validation.js';
import { ANSWERED_BY, CALL_STATUSES, type AnsweredBy, type CallStatus } from '../../core/vocabulary.js';
import type { Wire } from '../../core/wire.js';
import type { OutcomeName, OutcomeSource } from '../../engine/outcomes.js';
import { CAMPAIGN_STATUSES, DAYS } from '../campaigns/schema.js';
import { DATES_ORDER_ERROR, LEAD_STATUSES, dateFilters, datesInOrder } from '../leads/schema.js';
import { lazySchema } from '../../core/lazy-schema.js';
import { evaluationSchema, withBuiltIns } from '../assistants/evaluation.js';
import { callBuiltIns } from './evaluation.js';
import type { FileSpace } from '../../core/files.js';
import { recordingLink } from './recording.js';

export { ANSWERED_BY, CALL_STATUSES, type AnsweredBy, type CallStatus };
export const CALL_TYPES = ['inbound', 'outbound', 'web'] as const;
export type CallType = (typeof CALL_TYPES)[number];

export interface Call {
  id: number;
  account_id: number;
  assistant_id: number | null;
  assistant_name: string;
  campaign_id: number | null;
  campaign_name: string | null;
  lead_id: number | null;
  /** The secondary contact dialed, when not the lead's primary number. */
  contact_id: number | null;
  type: CallType;
  duration: number;
  assistant_phone_number: string;
  client_phone_number: string;
  status: CallStatus;
  transcript: string;
  variables: Record<string, unknown>;
  /** Variables given when the call was started (make_call, lead variables). */
  input_variables: Record<string, unknown>;
  evaluation: Record<string, unknown>;
  webhook_response: Record<string, unknown> | null;
  carrier_cost_micros: number;
  total_cost_micros: number;
  answered_by: AnsweredBy;
  recording_url: string | null;
  /** What the call will do, decided when it is placed (engine/outcomes). */
  plan: CallPlan | null;
  /** The pending lifecycle event. */
  event_id: number | null;
  answered_at: number | null;
  ended_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A call's scripted course: decided at dial time, played out on the clock. */
export interface CallPlan {
  kind: OutcomeName;
  source: OutcomeSource;
  answered_by: AnsweredBy;
  final_status: CallStatus;
  ring_seconds: number;
  talk_seconds: number;
  transcript: string | null;
  variables: Record<string, unknown> | null;
  evaluation: Record<string, unknown> | null;
  /** The mid-call tools the call calls, `at` seconds into the talk (live-platform H.10); absent when none. */
  tool_calls?: PlannedToolCall[];
}

/** A mid-call tool a call's plan calls: the tool's name, the arguments, the second of the talk. */
export interface PlannedToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  at: number;
}

/** Statuses of calls nobody answered: no talk time, no cost (decisions: Costs of unanswered calls). */
export const UNANSWERED_STATUSES: ReadonlySet<CallStatus> = new Set(['busy', 'no-answer', 'failed']);

/** What a call record is made of; the rest starts empty. */
export type CallFields = Pick<Call, 'account_id' | 'assistant_id' | 'assistant_name' | 'type' | 'assistant_phone_number' | 'client_phone_number' | 'created_at'> & Partial<Omit<Call, 'id'>>;

/**
 * What a call without collected values holds (variables, evaluation, input variables):
 * one frozen object shared by all of them, as a row's fields change by patches only.
 */
export const NO_VALUES: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

export const CallListQuery = lazySchema(() => pageQuery(15)
  .extend({
    status: oneOf(CALL_STATUSES).optional(),
    type: oneOf(CALL_TYPES).optional(),
    phone_number: z.string().max(64, { error: RULE_MESSAGES.maxString.replace(':max', '64') }).optional(),
    assistant_id: queryInt().pipe(int()).optional(),
    campaign_id: queryInt().pipe(int()).optional(),
    ...dateFilters(),
  })
  .refine(datesInOrder, DATES_ORDER_ERROR));
export type CallListQuery = z.infer<typeof CallListQuery>;

/** `POST /user/make_call` (decisions: Start one call). */
export const MakeCallBody = lazySchema(() => z.object({
  assistant_id: int(),
  phone_number: z.string().min(1),
  variables: freeObject().optional(),
}));

/** `POST /__sim/calls`: a finished call record for tests that need history only. */
export const InsertCallBody = lazySchema(() => z.object({
  account_id: int(1).default(1),
  assistant_id: int(),
  campaign_id: int().nullable().optional(),
  lead_id: int().nullable().optional(),
  type: oneOf(CALL_TYPES).default('outbound'),
  status: oneOf(CALL_STATUSES).default('completed'),
  client_phone_number: z.string().min(1),
  assistant_phone_number: z.string().min(1).optional(),
  duration: int(0, 86_400).default(0),
  transcript: z.string().default(''),
  variables: freeObject().default({}),
  evaluation: freeObject().default({}),
  webhook_response: freeObject().nullable().default(null),
  carrier_cost: usd().default(0),
  total_cost: usd().default(0),
  answered_by: oneOf(ANSWERED_BY).default('human'),
  recording_url: z.string().url({ error: RULE_MESSAGES.url }).nullable().default(null),
  created_at: z.string().optional(),
}));
export type InsertCallInput = z.infer<typeof InsertCallBody>;

/** A post-call schema item as the call's evaluation reads it (spec: Post-call schema item). */
export interface EvaluationSchemaItem {
  name: string;
  type: string;
  description: string;
}

/** A call as every route shows it on the spec wire (spec: Call table; `serialiseCall`). */
export const CallRecord = lazySchema(() => z
  .object({
    id: integer(),
    assistant_id: integer().nullable(),
    assistant_name: z.string(),
    campaign_id: integer().nullable(),
    campaign_name: z.string().nullable(),
    type: z.enum(CALL_TYPES),
    duration: integer(),
    assistant_phone_number: z.string(),
    client_phone_number: z.string(),
    status: z.enum(CALL_STATUSES),
    transcript: z.string(),
    variables: jsonObject(),
    evaluation: jsonObject(),
    webhook_response: jsonObject().nullable(),
    carrier_cost: z.number(),
    total_cost: z.number(),
    answered_by: z.enum(ANSWERED_BY),
    recording_url: z.string().nullable(),
    created_at: sqlTimestamp(),
    updated_at: sqlTimestamp(),
  })
  .meta({ id: 'Call' }));
export type CallRecord = z.output<typeof CallRecord>;

/**
 * The post-call webhook's body (decisions: Post-call webhook payload; lifecycle.ts
 * postCallPayload is typed by it). Times are in the assistant's timezone; `recording_url`
 * is present only with `include_recording_in_webhook`.
 */
export const PostCallWebhookBody = lazySchema(() => z
  .object({
    id: integer(),
    customer_phone: z.string(),
    assistant_phone: z.string(),
    duration: integer(),
    status: z.enum(CALL_STATUSES),
    extracted_variables: jsonObject(),
    input_variables: jsonObject(),
    transcript: z.string(),
    created_at: offsetTimestamp(),
    finished_at: offsetTimestamp(),
    lead: z.object({ id: integer(), phone_number: z.string(), status: z.enum(LEAD_STATUSES), variables: jsonObject() }).nullable(),
    campaign: z.object({ id: integer(), name: z.string(), status: z.enum(CAMPAIGN_STATUSES) }).nullable(),
    total_cost: z.number(),
    recording_url: z.string().nullable().optional(),
  })
  .meta({ id: 'PostCallWebhook' }));
export type PostCallWebhookBody = z.output<typeof PostCallWebhookBody>;

/**
 * UTC `YYYY-MM-DDTHH:MM:SSZ`, the reference's form of the post-call payload's times
 * (live-platform H.2).
 * @example formatZuluSeconds(Date.parse('2024-01-15T10:30:00.250Z')) // '2024-01-15T10:30:00Z'
 */
export function formatZuluSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** A time as `formatZuluSeconds` writes it. */
const zuluSeconds = () => z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

/**
 * The post-call webhook's body on the live wire (live-platform H.2; lifecycle.ts
 * livePostCallPayload): the reference's fields in its order, no `total_cost`.
 */
export const LivePostCallWebhookBody = lazySchema(() => z
  .object({
    id: integer(),
    customer_phone: z.string().nullable(),
    assistant_phone: z.string().nullable(),
    duration: integer(),
    status: z.enum(CALL_STATUSES),
    extracted_variables: jsonObject(),
    input_variables: jsonObject(),
    transcript: z.string(),
    recording_url: z.string().nullable().optional(),
    created_at: zuluSeconds(),
    finished_at: zuluSeconds(),
    lead: z
      .object({ id: integer(), phone_number: z.string(), variables: jsonObject(), status: z.enum(LEAD_STATUSES), created_at: zuluSeconds(), updated_at: zuluSeconds() })
      .nullable(),
    campaign: z
      .object({
        id: integer(),
        name: z.string(),
        status: z.enum(CAMPAIGN_STATUSES),
        allowed_hours_start_time: z.string(),
        allowed_hours_end_time: z.string(),
        allowed_days: z.array(z.enum(DAYS)),
        max_calls_in_parallel: integer(),
        max_retries: integer(),
        retry_interval: integer(),
        created_at: zuluSeconds(),
        updated_at: zuluSeconds(),
      })
      .nullable(),
  })
  .meta({ id: 'LivePostCallWebhook' }));
export type LivePostCallWebhookBody = z.output<typeof LivePostCallWebhookBody>;

/** A USD amount with 8 decimals (`costString`). */
const costText = () => z.string().regex(/^-?\d+\.\d{8}$/);

/** One transcript line on the live wire (live-platform D.2; `transcriptItems`). */
const TranscriptItemRecord = lazySchema(() => z.object({ text: z.string(), type: z.literal('transcript'), sender: z.enum(['bot', 'human']), timestamp: z.number() }));

/** A call on the live wire (live-platform D.2). */
export const LiveCallRecord = lazySchema(() => CallRecord.unwrap().extend({
  transcript: z.array(TranscriptItemRecord),
  variables: z.union([jsonObject(), emptyArray()]),
  evaluation: z.array(z.object({ name: z.string(), type: z.string(), value: z.unknown(), description: z.string() })),
  webhook_response: z.union([jsonObject(), emptyArray()]).nullable(),
  carrier_cost: costText(),
  total_cost: costText(),
}).meta({ id: 'LiveCall' }));
export type LiveCallRecord = z.output<typeof LiveCallRecord>;

/**
 * A call as every route shows it (spec: Call table), plus the ids it belongs to; on the
 * live wire with live-platform D.2's encodings. `schema` is the post_call_schema of the
 * call's assistant (empty when it is gone), read for the live evaluation items;
 * `evaluates` its `post_call_evaluation` (without it the live evaluation shows only what
 * was stored, no built-ins). `files` is where the simulator serves its recordings: a
 * recording it made shows as its own link there (live-platform H.7, both wires).
 * @example serialiseCall(call, ctx.files, ctx.wire, assistant?.post_call_schema, assistant?.post_call_evaluation)
 */
export function serialiseCall(c: Call, files: FileSpace, wire: Wire = 'spec', schema: readonly EvaluationSchemaItem[] = [], evaluates = true): CallRecord | LiveCallRecord {
  const spec = {
    id: c.id,
    assistant_id: c.assistant_id,
    assistant_name: c.assistant_name,
    campaign_id: c.campaign_id,
    campaign_name: c.campaign_name,
    type: c.type,
    duration: c.duration,
    assistant_phone_number: c.assistant_phone_number,
    client_phone_number: c.client_phone_number,
    status: c.status,
    transcript: c.transcript,
    variables: copyJson(c.variables),
    evaluation: copyJson(c.evaluation),
    webhook_response: c.webhook_response === null ? null : copyJson(c.webhook_response),
    carrier_cost: fromMicros(c.carrier_cost_micros),
    total_cost: fromMicros(c.total_cost_micros),
    answered_by: c.answered_by,
    recording_url: recordingLink(files, c),
    created_at: formatSqlUtc(c.created_at),
    updated_at: formatSqlUtc(c.updated_at),
  };
  if (wire === 'spec') return spec;
  // live-platform H.1: an ended call shows the built-in status and summary first, in variables and (when the assistant evaluates) evaluation.
  const builtIns = callBuiltIns(c);
  const variables = builtIns ? withBuiltIns(spec.variables, builtIns) : spec.variables;
  const evaluation = builtIns && evaluates ? withBuiltIns(c.evaluation, builtIns) : c.evaluation;
  // live-platform D.2: the same keys in the same order, only these values encoded as the live platform does.
  return {
    ...spec,
    transcript: transcriptItems(c),
    // live-platform D.2: PHP encodes an empty associative array as `[]`.
    variables: Object.keys(variables).length === 0 ? [] : variables,
    evaluation: evaluationItems(evaluation, evaluationSchema(schema)),
    webhook_response: c.webhook_response !== null && Object.keys(c.webhook_response).length === 0 ? [] : spec.webhook_response,
    carrier_cost: costString(c.carrier_cost_micros),
    total_cost: costString(c.total_cost_micros),
  };
}

/** One transcript line on the live wire (live-platform D.2). */
export type TranscriptItem = z.output<typeof TranscriptItemRecord>;

/**
 * The stored transcript as live items (live-platform D.2): `Assistant:` lines are the bot's,
 * `Customer:` lines the human's, any other line the bot's whole (decision). Line i of n
 * (from 0) is stamped at the answer (else creation) time plus duration·i/n, in unix seconds
 * to 6 decimals (decision). Blank lines are not lines (decision: a trailing newline adds nothing).
 * @example transcriptItems(call) // [{ text: 'Hello', type: 'transcript', sender: 'bot', timestamp: 1772442000 }]
 */
export function transcriptItems(c: Pick<Call, 'transcript' | 'answered_at' | 'created_at' | 'duration'>): TranscriptItem[] {
  const lines = c.transcript.split(/\r?\n/).filter((line) => line.trim() !== '');
  const startSeconds = (c.answered_at ?? c.created_at) / 1000;
  return lines.map((line, i) => {
    const said = /^(Assistant|Customer): (.*)$/.exec(line);
    const timestamp = Math.round((startSeconds + (c.duration * i) / lines.length) * 1e6) / 1e6;
    if (said?.[1] === 'Customer') return { text: said[2]!, type: 'transcript', sender: 'human', timestamp };
    return { text: said ? said[2]! : line, type: 'transcript', sender: 'bot', timestamp };
  });
}

/** A stored evaluation as live items (live-platform D.2). */
function evaluationItems(evaluation: Record<string, unknown>, schema: readonly EvaluationSchemaItem[]) {
  return Object.entries(evaluation).map(([name, value]) => {
    const item = schema.find((s) => s.name === name);
    // live-platform D.2 (decision): without a schema item the type follows the value, the description is empty.
    const type = item?.type ?? (typeof value === 'boolean' ? 'bool' : typeof value === 'number' ? 'number' : 'string');
    return { name, type, value: copyJson(value), description: item?.description ?? '' };
  });
}

/**
 * Micro-dollars as a USD string with exactly 8 decimals (live-platform D.2), built from
 * the integer so no float rounding shows.
 * @example costString(25_000) // '0.02500000'
 */
export function costString(micros: number): string {
  const whole = Math.round(micros);
  const sign = whole < 0 ? '-' : '';
  const abs = Math.abs(whole);
  return `${sign}${Math.trunc(abs / 1_000_000)}.${String(abs % 1_000_000).padStart(6, '0')}00`;
}
