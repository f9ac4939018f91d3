/** Inputs and wire shapes of the control API (ARCHITECTURE §6). */
import * as z from 'zod';
import { controlTimestamp, integer, jsonObject } from '../core/answers.js';
import { SPEED_RANGE, parseDuration, type VirtualClock } from '../core/clock.js';
import { CLOCK_RANGE, formatControlTime, isClockTime, parseInstant } from '../core/time.js';
import { MAX_SEED } from '../core/random.js';
import { RULE_MESSAGES, int, oneOf, queryInt } from '../core/validation.js';
import { WIRES } from '../core/wire.js';
import { DELIVERY_STATES, WEBHOOK_KINDS, type Delivery, type FailureRule, type ToolCall, type WebhookKind } from '../engine/webhooks.js';
import { FAILURE_KINDS } from '../core/vocabulary.js';
import { DEFAULT_RETRY_AFTER, FAULT_STATUSES } from '../engine/faults.js';
import { LivePostCallWebhookBody, PostCallWebhookBody } from '../domain/calls/schema.js';
import { ConversationEndedWebhookBody, LiveConversationEndedWebhookBody } from '../domain/conversations/schema.js';
import { ReadReceiptWebhookBody } from '../domain/msgapp/schema.js';
import { lazySchema } from '../core/lazy-schema.js';

/** The body of each webhook the platform sends, by kind (the OpenAPI document's `webhooks`, a delivery's `payload`). */
export const WEBHOOK_BODIES = {
  // live-platform H.2: the live wire's post-call body is the reference's.
  post_call: lazySchema(() => z.union([PostCallWebhookBody, LivePostCallWebhookBody])),
  // live-platform H.3: the live wire's payload has the integer id, timed items and attachments.
  conversation_ended: lazySchema(() => z.union([ConversationEndedWebhookBody, LiveConversationEndedWebhookBody])),
  read_receipt: ReadReceiptWebhookBody,
} as const satisfies Record<WebhookKind, z.ZodType>;

/** A duration: milliseconds, or text with units (`90s`, `15m`, `2h`, `3d`). */
export const duration = lazySchema(() => z.union([z.number(), z.string()]).refine(
  (d) => {
    try {
      parseDuration(d);
      return true;
    } catch {
      return false;
    }
  },
  { error: 'The :attribute must be a duration in milliseconds or with units (90s, 15m, 2h, 3d).' },
));

/** Texts of the clock's limits (docs/control-api.md; docs/clock.md: Clock range). */
export const CLOCK_MESSAGES = {
  horizon: (field: string) => `The ${field} may move the clock at most ten years (3652.5 days) ahead.`,
  pastEnd: (field: 'by' | 'to') => `The ${field} may not move the clock past ${formatControlTime(CLOCK_RANGE.max)}, the end of its range.`,
  /** A time the clock is set to (`:attribute` is the field). */
  range: RULE_MESSAGES.clockTime,
  speed: `The :attribute must be between ${SPEED_RANGE.min} and ${SPEED_RANGE.max}.`,
} as const;

const instant = lazySchema(() => z.string().refine((t) => parseInstant(t) !== undefined, { error: 'The :attribute must be an ISO 8601 time.', abort: true }));
/** An ISO 8601 time within the clock's range (CLOCK_RANGE). */
export const clockTime = lazySchema(() => instant.refine((t) => isClockTime(parseInstant(t)), { error: CLOCK_MESSAGES.range }));

export const ResetBody = lazySchema(() => z.object({ seed: int(0, MAX_SEED).optional(), start: clockTime.optional(), wire: oneOf(WIRES).optional() }));
export type ResetInput = z.infer<typeof ResetBody>;

export const AdvanceBody = lazySchema(() => z
  .object({ by: duration.optional(), to: instant.optional() })
  .refine((b) => (b.by === undefined) !== (b.to === undefined), { error: 'Give exactly one of by or to.', path: ['by'] }));
export type AdvanceInput = z.infer<typeof AdvanceBody>;

export const RunUntilIdleBody = lazySchema(() => z.object({ max_events: int(1, 10_000_000).optional() }));
export const ClockModeBody = lazySchema(() => z.object({
  mode: z.enum(['manual', 'realtime']),
  speed: z.number().min(SPEED_RANGE.min, { error: CLOCK_MESSAGES.speed }).max(SPEED_RANGE.max, { error: CLOCK_MESSAGES.speed }).optional(),
}));
export type ClockModeInput = z.infer<typeof ClockModeBody>;

export const FaultBody = lazySchema(() => z
  .object({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    path: z.string().startsWith('/', { error: 'The :attribute must start with /.' }),
    times: int(1, 1000).default(1),
    // live-platform H.11: the status a matched request answers (500 the route's documented failure), and a 429's Retry-After seconds.
    status: z.literal(FAULT_STATUSES, { error: 'The selected :attribute is invalid.' }).default(500).meta({ description: 'The status a matched request answers: 500 (default) the route\'s documented failure, 502/503/504 shape A, 429 shape R with a Retry-After header.' }),
    retry_after: int(1, 86_400).optional().meta({ description: `With status 429: the seconds of retry_after and Retry-After (default ${DEFAULT_RETRY_AFTER}).` }),
  })
  .refine((f) => f.retry_after === undefined || f.status === 429, { path: ['retry_after'], error: 'The retry after field is only allowed with status 429.' }));
export type FaultInput = z.input<typeof FaultBody>;

/** `GET /__sim/charges` and `GET /__sim/sms` (a number in the query string, or an integer in-process). */
export const ChargesQuery = lazySchema(() => z.object({ account_id: queryInt().pipe(int(1)).optional() }));

/** `GET /__sim/documents` (live-platform C.1: a document's stored source, which the platform never shows). */
export const DocumentsQuery = lazySchema(() => z.object({ account_id: queryInt().pipe(int(1)).optional(), knowledgebase_id: queryInt().pipe(int(1)).optional() }));

export const WebhookFailureBody = lazySchema(() => z.object({
  url: z.string().min(1).nullable().optional(),
  kind: z.enum(FAILURE_KINDS).nullable().optional(),
  times: int(1, 1000).default(1),
  // A forced failure: any status outside 2xx, or no answer at all.
  with: z.union(
    [int(100, 599).refine((status) => status < 200 || status > 299, { error: 'The :attribute must be a failing status (not 2xx), "timeout" or "refused".' }), z.enum(['timeout', 'refused'])],
    { error: 'The :attribute must be a status code from 100 to 599, "timeout" or "refused".' },
  ),
}));
export const DeliveriesQuery = lazySchema(() => z.object({ kind: z.enum(WEBHOOK_KINDS).optional(), state: z.enum(DELIVERY_STATES).optional() }));

/** A delivery as the control API shows it (ARCHITECTURE §6). */
/** A webhook delivery as the control API shows it (ARCHITECTURE §6). */
export const DeliveryRecord = lazySchema(() => z
  .object({
    id: integer(),
    account_id: integer(),
    kind: z.enum(WEBHOOK_KINDS),
    url: z.string(),
    state: z.enum(DELIVERY_STATES),
    attempts: z.array(z.object({ at: controlTimestamp(), status: integer().nullable(), error: z.string().nullable(), duration_ms: z.number() })),
    next_attempt_at: controlTimestamp().nullable(),
    response: z.object({ status: integer(), body: z.string(), truncated: z.literal(true).optional() }).nullable(),
    created_at: controlTimestamp(),
    payload: z.union([WEBHOOK_BODIES.post_call, WEBHOOK_BODIES.conversation_ended, WEBHOOK_BODIES.read_receipt]),
    /** Headers of its own sent with every attempt (a read receipt's `x-signature-256`). */
    headers: z.record(z.string(), z.string()).optional(),
    /** The delivery this one re-sends (`POST /__sim/webhooks/deliveries/{id}/resend`). */
    resent_from: integer().optional(),
  })
  .meta({ id: 'Delivery' }));
export type DeliveryRecord = z.output<typeof DeliveryRecord>;

/** A forced webhook failure rule. */
export const FailureRuleRecord = lazySchema(() => z
  .object({
    id: integer(),
    url: z.string().nullable(),
    kind: z.enum(FAILURE_KINDS).nullable(),
    times: integer(),
    with: z.union([integer(), z.enum(['timeout', 'refused'])]),
  })
  .meta({ id: 'WebhookFailureRule' }));
export type FailureRuleRecord = z.output<typeof FailureRuleRecord>;

/** A forced request failure rule (`POST /__sim/faults`). */
export const FaultRuleRecord = lazySchema(() =>
  z.object({ id: integer(), method: z.string(), path: z.string(), times: integer(), status: z.literal(FAULT_STATUSES), retry_after: integer().nullable() }).meta({ id: 'FaultRule' }),
);

/** The clock as `GET /__sim/clock` shows it. */
export const ClockRecord = lazySchema(() => z
  .object({ now: controlTimestamp(), now_ms: integer(), mode: z.enum(['manual', 'realtime']), speed: z.number(), pending_events: integer() })
  .meta({ id: 'ClockState' }));
export type ClockRecord = z.output<typeof ClockRecord>;

/** A clock move: where it ended and how many events ran. */
export const ClockMoveRecord = lazySchema(() => z.object({ now: controlTimestamp(), now_ms: integer(), ran: integer() }).meta({ id: 'ClockMoveResult' }));
export type ClockMoveRecord = z.output<typeof ClockMoveRecord>;

/**
 * `POST /__sim/clock/run-until-idle`: a move, the other events still pending (due beyond
 * the horizon, or left by `max_events`; 0 when idle) and the periodic ones.
 */
export const RunUntilIdleAnswer = lazySchema(() => ClockMoveRecord.unwrap().extend({ pending: integer(), periodic_pending: integer() }));
export type RunUntilIdleAnswer = z.output<typeof RunUntilIdleAnswer>;

/** `{ok: true}`. */
export const OkAnswer = lazySchema(() => z.object({ ok: z.literal(true) }));
export type OkAnswer = z.output<typeof OkAnswer>;
/** `GET /__sim/health`. */
export const HealthAnswer = lazySchema(() => z.object({ ok: z.literal(true), version: z.string(), now: controlTimestamp() }));
export type HealthAnswer = z.output<typeof HealthAnswer>;
/** `POST /__sim/reset`. */
export const ResetAnswer = lazySchema(() => z.object({ ok: z.literal(true), seed: integer(), now: controlTimestamp() }));
export type ResetAnswer = z.output<typeof ResetAnswer>;
/** `PUT /__sim/state`. */
export const StateRestored = lazySchema(() => z.object({ ok: z.literal(true), now: controlTimestamp() }));
export type StateRestored = z.output<typeof StateRestored>;
/** `GET /__sim/state`: a snapshot; its members are the store's own (`format` names their version). */
export const SnapshotAnswer = lazySchema(() => z.looseObject({ format: z.string() }));
/** `POST /__sim/scenario`: the scenario's name and the ids of its `ref`s. */
export const ScenarioLoaded = lazySchema(() => z.object({ name: z.string(), refs: jsonObject() }));
/** One journaled request. */
/** A mid-call tool request and what came of it (live-platform H.10). */
export const ToolCallRecord = lazySchema(() => z
  .object({
    id: integer(),
    account_id: integer(),
    at: controlTimestamp(),
    tool_id: integer().nullable(),
    tool: z.string(),
    call_id: integer().optional(),
    conversation_id: z.string().optional(),
    request: z.object({ method: z.string(), url: z.string(), headers: z.record(z.string(), z.string()), body: z.string().nullable() }).nullable(),
    response: z.object({ status: integer(), body: z.string(), truncated: z.literal(true).optional() }).nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'ToolCall' }));
export type ToolCallRecord = z.output<typeof ToolCallRecord>;
/** `GET /__sim/tool-calls`: the journal, oldest first, with how many records it dropped. */
export const ToolCallsAnswer = lazySchema(() => z.object({ data: z.array(ToolCallRecord), evicted: integer() }));
export type ToolCallsAnswer = z.output<typeof ToolCallsAnswer>;
/** `GET /__sim/tool-calls?account_id`. */
export const ToolCallsQuery = lazySchema(() => z.object({ account_id: queryInt().pipe(int(1)).optional() }));

/** A tool call on the control API: times as ISO text. */
export function serialiseToolCall(c: ToolCall): ToolCallRecord {
  return {
    id: c.id,
    account_id: c.account_id,
    at: formatControlTime(c.at),
    tool_id: c.tool_id,
    tool: c.tool,
    ...(c.call_id !== undefined && { call_id: c.call_id }),
    ...(c.conversation_id !== undefined && { conversation_id: c.conversation_id }),
    request: c.request && { ...c.request, headers: { ...c.request.headers } },
    response: c.response && { ...c.response },
    error: c.error,
  };
}

export const RequestRecord = lazySchema(() => z.object({ at: controlTimestamp(), method: z.string(), path: z.string(), status: integer(), account_id: integer().nullable() }));
/** `GET /__sim/requests`. */
export const RequestsAnswer = lazySchema(() => z.object({ data: z.array(RequestRecord), evicted: integer() }));
export type RequestsAnswer = z.output<typeof RequestsAnswer>;
/** `GET /__sim/openapi.json`: this document. */
export const OpenApiAnswer = lazySchema(() => z.looseObject({ openapi: z.literal('3.1.0'), info: jsonObject(), paths: jsonObject() }));

export function serialiseDelivery(d: Delivery): DeliveryRecord {
  return {
    id: d.id,
    account_id: d.account_id,
    kind: d.kind,
    url: d.url,
    state: d.state,
    attempts: d.attempts.map((a) => ({ at: formatControlTime(a.at), status: a.status, error: a.error, duration_ms: a.duration_ms })),
    next_attempt_at: d.next_attempt_at === null ? null : formatControlTime(d.next_attempt_at),
    response: d.response,
    created_at: formatControlTime(d.created_at),
    // The engine carries payloads it does not read; the domains hand it only these bodies (postCallPayload, endedPayload, typed by them).
    payload: d.payload as DeliveryRecord['payload'],
    ...(d.headers && { headers: { ...d.headers } }),
    ...(d.resent_from !== undefined && { resent_from: d.resent_from }),
  };
}

export function serialiseFailureRule(r: FailureRule): FailureRuleRecord {
  return { id: r.id, url: r.url, kind: r.kind, times: r.times, with: r.with };
}

/** `GET /__sim/requests`. */
export const RequestsQuery = lazySchema(() => z.object({ limit: queryInt().pipe(int(1, 100_000)).optional() }));

/** `GET /__sim/overview`: rows per list (calls, deliveries, sessions, requests). */
export const OverviewQuery = lazySchema(() => z.object({ limit: queryInt().pipe(int(1, 200)).optional() }));

/**
 * `GET /__sim/events` (WebSocket) and `sim.control.events.subscribe`: `type` prefixes
 * (repeatable, or comma-separated), `account_id`, `since` (replay the journal after it).
 */
export const EventStreamQuery = lazySchema(() => z.object({
  type: z
    .union([z.string(), z.array(z.string())])
    .transform((t) => (Array.isArray(t) ? t : [t]).flatMap((v) => v.split(',')).map((v) => v.trim()))
    .refine((types) => types.every((t) => t.length > 0 && t.length <= 100), { error: 'The :attribute must be one or more event type prefixes such as call. or webhook.attempt.' })
    .optional(),
  account_id: queryInt().pipe(int(1)).optional(),
  since: queryInt().pipe(int(0)).optional(),
}));
export type EventStreamInput = z.input<typeof EventStreamQuery>;

/** `POST /__sim/calls/inbound`. */
export const InboundCallBody = lazySchema(() => z.object({ to: z.string().min(1), from: z.string().min(1) }));

/** Any JSON object; the control operation validates it (so in-process calls get the same checks). */
export const AnyObject = lazySchema(() => z.record(z.string(), z.unknown()));

/** The clock as `GET /__sim/clock` shows it. */
export function serialiseClock(clock: VirtualClock): ClockRecord {
  const now = clock.now();
  return { now: formatControlTime(now), now_ms: now, mode: clock.mode, speed: clock.speed, pending_events: clock.pendingCount };
}

export function serialiseClockMove(clock: VirtualClock, ran: number): ClockMoveRecord {
  const now = clock.now();
  return { now: formatControlTime(now), now_ms: now, ran };
}
