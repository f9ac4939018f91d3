/**
 * What each event on `sim.events` (and the `/__sim/events` stream) carries in its `data`,
 * as zod schemas: the exported event types are derived from them, and the test suite
 * checks every event a run emits against its schema, so the types and the table in docs/events.md
 * cannot drift from what is emitted. Times inside `data` are ISO 8601 UTC text.
 */
import * as z from 'zod';
import { eventShape, type EventShape } from '../core/events.js';
import { ANSWERED_BY, CALL_STATUSES, DELIVERY_STATES, WEBHOOK_KINDS } from '../core/vocabulary.js';
import { CALL_TYPES } from './calls/schema.js';
import { CAMPAIGN_STATUSES, IDLE_REASONS } from './campaigns/schema.js';
import { CONVERSATION_TYPES } from './conversations/schema.js';
import { DOCUMENT_STATUSES } from './knowledgebases/schema.js';
import { LEAD_STATUSES } from './leads/schema.js';
import { lazySchema } from '../core/lazy-schema.js';

const id = lazySchema(() => z.number().int().positive());
const account = { account_id: id };

const conversation = {
  ...account,
  /** The conversation's uuid. */
  conversation_id: z.string(),
  assistant_id: id.nullable(),
  type: z.enum(CONVERSATION_TYPES),
};

/** Every event type with the schema of its `data` (docs/events.md: Events). */
export const SIM_EVENT_SCHEMAS = {
  'campaign.status': lazySchema(() => z.object({ ...account, campaign_id: id, status: z.enum(CAMPAIGN_STATUSES) }).strict()),
  'campaign.idle': lazySchema(() => z.object({ ...account, campaign_id: id, reason: z.enum(IDLE_REASONS) }).strict()),
  'lead.status': lazySchema(() => z.object({ ...account, lead_id: id, campaign_id: id, status: z.enum(LEAD_STATUSES) }).strict()),
  'call.status': lazySchema(() => z
    .object({
      ...account,
      call_id: id,
      status: z.enum(CALL_STATUSES),
      campaign_id: id.nullable(),
      lead_id: id.nullable(),
      /** When the call is placed. */
      type: z.enum(CALL_TYPES).optional(),
      /** When the call is placed: the dialed number. */
      phone_number: z.string().optional(),
      /** When the call ends, with who answered, its duration (s) and total cost (USD). */
      ended: z.literal(true).optional(),
      answered_by: z.enum(ANSWERED_BY).optional(),
      duration: z.number().int().nonnegative().optional(),
      total_cost: z.number().nonnegative().optional(),
    })
    .strict()),
  'webhook.queued': lazySchema(() => z.object({ ...account, delivery_id: id, kind: z.enum(WEBHOOK_KINDS), url: z.string() }).strict()),
  'webhook.attempt': lazySchema(() => z
    .object({
      ...account,
      delivery_id: id,
      kind: z.enum(WEBHOOK_KINDS),
      url: z.string(),
      /** 1 to 4: the first attempt and three retries. */
      attempt: z.number().int().min(1).max(4),
      /** The receiver's status, or null when none answered. */
      status: z.number().int().nullable(),
      /** A timeout or a refusal, else null. */
      error: z.string().nullable(),
      /** Real time the attempt took. */
      duration_ms: z.number().nonnegative(),
      state: z.enum(DELIVERY_STATES),
      /** ISO time of the next attempt, null when the delivery is done. */
      next_attempt_at: z.string().nullable(),
    })
    .strict()),
  /** live-platform H.10: a mid-call tool was called (or could not be: `error` says why) and its answer recorded. */
  'tool.called': lazySchema(() => z
    .object({
      ...account,
      /** The record's id in `GET /__sim/tool-calls`. */
      tool_call_id: id,
      tool_id: id.nullable(),
      tool: z.string(),
      /** The call or the conversation (uuid) it was made for; both null for a test call. */
      call_id: id.nullable(),
      conversation_id: z.string().nullable(),
      /** The request's method and URL, null when none was made. */
      method: z.string().nullable(),
      url: z.string().nullable(),
      /** The endpoint's status, null when none answered. */
      status: z.number().int().nullable(),
      error: z.string().nullable(),
    })
    .strict()),
  'msgapp.window_opened': lazySchema(() => z
    .object({
      ...account,
      session_id: id,
      sender_id: id,
      recipient_phone: z.string(),
      expires_at: z.string(),
      by: z.enum(['customer_message', 'template']),
      was_open: z.boolean(),
    })
    .strict()),
  'msgapp.window_closed': lazySchema(() => z.object({ ...account, session_id: id, sender_id: id, recipient_phone: z.string() }).strict()),
  /** A sent message's delivery status moved (live-platform H.4). */
  'msgapp.message_status': lazySchema(() => z
    .object({
      ...account,
      whatsapp_message_id: id,
      sender_id: id,
      recipient_phone: z.string(),
      status: z.enum(['sent', 'delivered', 'read', 'failed', 'undelivered']),
      /** The failure's code (failed, undelivered), else null. */
      error_code: z.number().int().nullable(),
    })
    .strict()),
  'conversation.started': lazySchema(() => z.object(conversation).strict()),
  'conversation.ended': lazySchema(() => z
    .object({
      ...conversation,
      message_count: z.number().int().nonnegative(),
      reason: z.literal('inactivity'),
      /** Whether the conversation-ended webhook was sent. */
      webhook: z.boolean(),
    })
    .strict()),
  'conversation.reopened': lazySchema(() => z.object(conversation).strict()),
  'document.status': lazySchema(() => z.object({ ...account, knowledgebase_id: id, document_id: id, status: z.enum(DOCUMENT_STATUSES) }).strict()),
  'sms.sent': lazySchema(() => z.object({ ...account, sms_id: z.string(), phone_number_id: id, to: z.string(), segments: z.number().int().positive() }).strict()),
  'request.answered': lazySchema(() => z
    .object({
      method: z.string(),
      path: z.string(),
      status: z.number().int(),
      /** The caller's account, or null. */
      account_id: id.nullable(),
      /** The message of a 4xx/5xx answer, else null. */
      error: z.string().nullable(),
    })
    .strict()),
  'clock.advanced': lazySchema(() => z.object({ by: z.enum(['advance', 'run_until_idle']), from: z.string(), to: z.string(), ran: z.number().int().nonnegative() }).strict()),
  'clock.mode': lazySchema(() => z.object({ mode: z.enum(['manual', 'realtime']), speed: z.number().positive() }).strict()),
  'sim.reset': lazySchema(() => z.object({ seed: z.number().int() }).strict()),
  'sim.restored': lazySchema(() => z.object({ seed: z.number().int() }).strict()),
} as const;

/** Each event type's `data`. */
export type SimEventMap = { [K in keyof typeof SIM_EVENT_SCHEMAS]: z.output<(typeof SIM_EVENT_SCHEMAS)[K]> };

/** An event type of `sim.events`. */
export type SimEventType = keyof SimEventMap;

/** The types whose data names an account: a domain emits these through its account scope, which adds `account_id`. */
export type AccountEventType = { [K in SimEventType]: SimEventMap[K] extends { account_id: number } ? K : never }[SimEventType];

/**
 * The shape of an event type emitted from its values (`ctx.emitValues`): the keys must be
 * keys of that type's data, in the order the values come.
 * @example const LEAD_STATUS_EVENT = simEventShape('lead.status', ['account_id', 'lead_id', 'campaign_id', 'status'])
 */
export function simEventShape<K extends AccountEventType>(type: K, keys: readonly (keyof SimEventMap[K] & string)[]): EventShape<K> {
  return eventShape(type, keys);
}
