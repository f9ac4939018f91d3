/** Inputs and wire shapes of the control API (ARCHITECTURE §6). */
import { z } from 'zod';
import { parseDuration, type VirtualClock } from '../core/clock.js';
import { formatControlTime, parseInstant } from '../core/time.js';
import { int, oneOf, queryInt } from '../core/validation.js';
import { WIRES } from '../core/wire.js';
import { DELIVERY_STATES, WEBHOOK_KINDS, type Delivery, type FailureRule } from '../engine/webhooks.js';

const duration = z.union([z.number(), z.string()]).refine(
  (d) => {
    try {
      parseDuration(d);
      return true;
    } catch {
      return false;
    }
  },
  { error: 'The :attribute must be a duration in milliseconds or with units (90s, 15m, 2h, 3d).' },
);
const instant = z.string().refine((t) => parseInstant(t) !== undefined, { error: 'The :attribute must be an ISO 8601 time.' });

export const ResetBody = z.object({ seed: int(0, 2 ** 31 - 1).optional(), start: instant.optional(), wire: oneOf(WIRES).optional() });
export type ResetInput = z.infer<typeof ResetBody>;

export const AdvanceBody = z
  .object({ by: duration.optional(), to: instant.optional() })
  .refine((b) => (b.by === undefined) !== (b.to === undefined), { error: 'Give exactly one of by or to.', path: ['by'] });
export type AdvanceInput = z.infer<typeof AdvanceBody>;

export const RunUntilIdleBody = z.object({ max_events: int(1, 10_000_000).optional() });
export const ClockModeBody = z.object({
  mode: z.enum(['manual', 'realtime']),
  speed: z.number().positive({ error: 'The :attribute must be greater than 0.' }).max(1_000_000, { error: 'The :attribute may not be greater than 1000000.' }).optional(),
});
export type ClockModeInput = z.infer<typeof ClockModeBody>;

export const FaultBody = z.object({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  path: z.string().startsWith('/', { error: 'The :attribute must start with /.' }),
  times: int(1, 1000).default(1),
});
export type FaultInput = z.input<typeof FaultBody>;

/** `GET /__sim/charges` and `GET /__sim/sms` (a number in the query string, or an integer in-process). */
export const ChargesQuery = z.object({ account_id: queryInt().pipe(int(1)).optional() });

/** `GET /__sim/documents` (live-platform C.1: a document's stored source, which the platform never shows). */
export const DocumentsQuery = z.object({ account_id: queryInt().pipe(int(1)).optional(), knowledgebase_id: queryInt().pipe(int(1)).optional() });

export const WebhookFailureBody = z.object({
  url: z.string().min(1).nullable().optional(),
  kind: z.enum(WEBHOOK_KINDS).nullable().optional(),
  times: int(1, 1000).default(1),
  // A forced failure: any status outside 2xx, or no answer at all.
  with: z.union(
    [int(100, 599).refine((status) => status < 200 || status > 299, { error: 'The :attribute must be a failing status (not 2xx), "timeout" or "refused".' }), z.enum(['timeout', 'refused'])],
    { error: 'The :attribute must be a status code from 100 to 599, "timeout" or "refused".' },
  ),
});
export const DeliveriesQuery = z.object({ kind: z.enum(WEBHOOK_KINDS).optional(), state: z.enum(DELIVERY_STATES).optional() });

/** A delivery as the control API shows it (ARCHITECTURE §6). */
export function serialiseDelivery(d: Delivery) {
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
    payload: d.payload,
  };
}

export function serialiseFailureRule(r: FailureRule) {
  return { id: r.id, url: r.url, kind: r.kind, times: r.times, with: r.with };
}

/** `GET /__sim/requests`. */
export const RequestsQuery = z.object({ limit: queryInt().pipe(int(1, 100_000)).optional() });

/** `GET /__sim/overview`: rows per list (calls, deliveries, sessions, requests). */
export const OverviewQuery = z.object({ limit: queryInt().pipe(int(1, 200)).optional() });

/**
 * `GET /__sim/events` (WebSocket) and `sim.control.events.subscribe`: `type` prefixes
 * (repeatable, or comma-separated), `account_id`, `since` (replay the journal after it).
 */
export const EventStreamQuery = z.object({
  type: z
    .union([z.string(), z.array(z.string())])
    .transform((t) => (Array.isArray(t) ? t : [t]).flatMap((v) => v.split(',')).map((v) => v.trim()))
    .refine((types) => types.every((t) => t.length > 0 && t.length <= 100), { error: 'The :attribute must be one or more event type prefixes such as call. or webhook.attempt.' })
    .optional(),
  account_id: queryInt().pipe(int(1)).optional(),
  since: queryInt().pipe(int(0)).optional(),
});
export type EventStreamInput = z.input<typeof EventStreamQuery>;

/** `POST /__sim/calls/inbound`. */
export const InboundCallBody = z.object({ to: z.string().min(1), from: z.string().min(1) });

/** Any JSON object; the control operation validates it (so in-process calls get the same checks). */
export const AnyObject = z.record(z.string(), z.unknown());

/** The clock as `GET /__sim/clock` shows it. */
export function serialiseClock(clock: VirtualClock) {
  const now = clock.now();
  return { now: formatControlTime(now), now_ms: now, mode: clock.mode, speed: clock.speed, pending_events: clock.pendingCount };
}

export function serialiseClockMove(clock: VirtualClock, ran: number) {
  const now = clock.now();
  return { now: formatControlTime(now), now_ms: now, ran };
}
