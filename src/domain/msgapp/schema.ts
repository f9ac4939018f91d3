/**
 * The messaging-application channel (spec: Messaging-application channel; Messaging
 * session; decisions: Messaging senders, templates, Session status, prices).
 */
import * as z from 'zod';
import { integer } from '../../core/answers.js';
import { RULE_MESSAGES, int, oneOf, queryInt } from '../../core/validation.js';
import type { Wire } from '../../core/wire.js';
import { lazySchema } from '../../core/lazy-schema.js';

export interface Sender {
  id: number;
  account_id: number;
  phone_number: string;
  display_name: string;
  status: 'online' | 'offline';
  quality_rating: 'high' | 'medium' | 'low';
  /** Messages per 24 hours; null: no limit (the fixtures always set one). */
  messaging_limit: number | null;
  /** The assistant that answers customers of this sender (control API); null: nobody answers. */
  assistant_id: number | null;
}

export interface Template {
  id: number;
  account_id: number;
  sender_id: number;
  name: string;
  language: string;
  category: string;
  status: 'approved' | 'pending' | 'rejected';
  body_text: string;
  variables: string[];
}

/** The 24-hour window of one sender and one recipient (spec: States > Messaging session). */
export interface Session {
  id: number;
  account_id: number;
  sender_id: number;
  recipient_phone: string;
  conversation_id: number;
  /** The window is open while the clock is before this instant. */
  expires_at: number | null;
  last_customer_message_at: number | null;
  close_event_id: number | null;
}

/** One message sent or received through the channel (the channel's message record). */
export interface ChannelMessage {
  id: number;
  account_id: number;
  sender_id: number;
  conversation_id: number;
  direction: 'outbound' | 'inbound';
  kind: 'template' | 'freeform' | 'customer' | 'reply';
  body: string;
  message_sid: string;
  status: string;
  cost_micros: number;
  created_at: number;
}

/** Messaging limits (spec: Limits). */
export const FREEFORM_MAX = 4096;
export const RECIPIENT_NAME_MAX = 255;

const phone = () => z.string().min(1).max(64, { error: RULE_MESSAGES.maxString.replace(':max', '64') });

export const SendTemplateBody = lazySchema(() => z.object({
  sender_id: int(),
  template_id: int(),
  recipient_phone: phone(),
  recipient_name: z.string().max(RECIPIENT_NAME_MAX, { error: RULE_MESSAGES.maxString.replace(':max', String(RECIPIENT_NAME_MAX)) }).optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
}));
export type SendTemplateInput = z.infer<typeof SendTemplateBody>;

export const SendFreeformBody = lazySchema(() => z.object({
  sender_id: int(),
  recipient_phone: phone(),
  message: z.string().min(1).max(FREEFORM_MAX, { error: RULE_MESSAGES.maxString.replace(':max', String(FREEFORM_MAX)) }),
}));
export type SendFreeformInput = z.infer<typeof SendFreeformBody>;

export const SendersQuery = lazySchema(() => z.object({ status: oneOf(['online', 'all']).default('online') }));
export const TemplatesQuery = lazySchema(() => z.object({ status: oneOf(['approved', 'all']).default('approved') }));
export const SessionStatusQuery = lazySchema(() => z.object({ sender_id: queryInt().pipe(int()), recipient_phone: phone() }));

/** `POST /__sim/msgapp/inbound`: a customer writes to a sender. */
export const InboundBody = lazySchema(() => z.object({ sender_id: int(1), from: phone(), text: z.string().min(1).max(FREEFORM_MAX), name: z.string().max(255).optional() }));
/** `PATCH /__sim/msgapp/senders/{id}`. */
export const SenderPatchBody = lazySchema(() => z.object({ online: z.boolean().optional(), assistant_id: int(1).nullable().optional() }));

/** `1000` -> `1K`, `100000` -> `100K`, `Infinity`-like large -> `1M`; no limit -> `Unlimited`. */
export function formatLimit(n: number | null): string {
  if (n === null) return 'Unlimited';
  if (n >= 1_000_000) return `${n / 1_000_000}M`;
  if (n >= 1_000) return `${n / 1_000}K`;
  return String(n);
}

/**
 * live-platform E: the limit with thousands commas per 24 hours; no limit -> `Unlimited`.
 * @example formatLiveLimit(1000) // '1,000 / 24hr'
 */
export function formatLiveLimit(n: number | null): string {
  return n === null ? 'Unlimited' : `${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} / 24hr`;
}

/** live-platform E: the live platform rates a sender's quality by colour. */
const LIVE_QUALITY = { high: 'GREEN', medium: 'YELLOW', low: 'RED' } as const satisfies Record<Sender['quality_rating'], string>;

/** A sender (decisions: Messaging senders); the control API shows the spec wire's form. */
/** A sender on the spec wire (decisions: Messaging senders; `serialiseSender`). */
export const SenderRecord = lazySchema(() => z
  .object({
    id: integer(),
    phone_number: z.string(),
    display_name: z.string(),
    status: z.enum(['online', 'offline']),
    quality_rating: z.enum(['high', 'medium', 'low']),
    messaging_limit: integer().nullable(),
    messaging_limit_formatted: z.string(),
  })
  .meta({ id: 'Sender' }));
export type SenderRecord = z.output<typeof SenderRecord>;

/** A sender on the live wire: the quality as a colour (live-platform E). */
export const LiveSenderRecord = lazySchema(() => SenderRecord.unwrap().extend({ quality_rating: z.enum(['GREEN', 'YELLOW', 'RED']) }).meta({ id: 'LiveSender' }));
export type LiveSenderRecord = z.output<typeof LiveSenderRecord>;

/** A template (decisions: Messaging templates); the category is lowercase on the live wire. */
export const TemplateRecord = lazySchema(() => z
  .object({
    id: integer(),
    name: z.string(),
    language: z.string(),
    category: z.string(),
    status: z.enum(['approved', 'pending', 'rejected']),
    body_text: z.string(),
    variables: z.array(z.string()),
    has_variables: z.boolean(),
  })
  .meta({ id: 'Template' }));
export type TemplateRecord = z.output<typeof TemplateRecord>;

/** `session_status` with all six keys (spec: Other shapes), plus `expired_at` on the live wire. */
export const SessionStatusRecord = lazySchema(() => z
  .object({
    is_open: z.boolean(),
    can_send_freeform: z.boolean(),
    requires_template: z.boolean(),
    message: z.string(),
    minutes_remaining: integer(),
    expires_at: z.string().nullable(),
    expired_at: z.string().optional(),
  })
  .meta({ id: 'SessionStatus' }));
export type SessionStatusRecord = z.output<typeof SessionStatusRecord>;

/** `GET /user/msgapp/session-status` (decisions: Session status): the conversation's keys only when there is one. */
export const SessionStatusAnswer = lazySchema(() => z.union([
  z.object({ success: z.literal(true), has_conversation: z.literal(false), session_status: SessionStatusRecord }),
  z.object({
    success: z.literal(true),
    has_conversation: z.literal(true),
    conversation_id: integer(),
    customer_name: z.string().nullable(),
    last_customer_message_at: z.string().nullable(),
    session_status: SessionStatusRecord,
  }),
]));
export type SessionStatusAnswer = z.output<typeof SessionStatusAnswer>;

const sent = { success: z.literal(true), conversation_id: integer(), message_id: integer(), whatsapp_message_id: integer(), message_sid: z.string() };
/** `POST /user/msgapp/send` (spec: Send template). */
export const TemplateSentAnswer = lazySchema(() => z.object({ ...sent, status: z.string() }));
export type TemplateSentAnswer = z.output<typeof TemplateSentAnswer>;
/** `POST /user/msgapp/send-freeform` (spec: Send freeform). */
export const FreeformSentAnswer = lazySchema(() => z.object({ ...sent, session_status: SessionStatusRecord }));
export type FreeformSentAnswer = z.output<typeof FreeformSentAnswer>;
/** `POST /__sim/msgapp/inbound`. */
export const InboundAnswer = lazySchema(() => z.object({ conversation_id: integer(), session_status: SessionStatusRecord }));
export type InboundAnswer = z.output<typeof InboundAnswer>;

export function serialiseSender(s: Sender, wire: Wire = 'spec'): SenderRecord | LiveSenderRecord {
  const live = wire === 'live';
  return {
    id: s.id,
    phone_number: s.phone_number,
    display_name: s.display_name,
    status: s.status,
    quality_rating: live ? LIVE_QUALITY[s.quality_rating] : s.quality_rating,
    messaging_limit: s.messaging_limit,
    messaging_limit_formatted: live ? formatLiveLimit(s.messaging_limit) : formatLimit(s.messaging_limit),
  };
}

export function serialiseTemplate(t: Template, wire: Wire): TemplateRecord {
  return {
    id: t.id,
    name: t.name,
    language: t.language,
    // live-platform E: the live platform writes the category in lowercase.
    category: wire === 'live' ? t.category.toLowerCase() : t.category,
    status: t.status,
    body_text: t.body_text,
    variables: [...t.variables],
    has_variables: t.variables.length > 0,
  };
}
