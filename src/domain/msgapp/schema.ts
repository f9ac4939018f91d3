/**
 * The messaging-application channel (spec: Messaging-application channel; Messaging
 * session; decisions: Messaging senders, templates, Session status, prices).
 */
import * as z from 'zod';
import { integer } from '../../core/answers.js';
import { RULE_MESSAGES, int, oneOf, queryInt, url } from '../../core/validation.js';
import type { Wire } from '../../core/wire.js';
import type { DeliveryPlan } from '../../engine/message-outcomes.js';
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
  /** Where its messages' status changes are posted, signed (live-platform H.4); absent or null: nowhere. */
  read_receipts_webhook_url?: string | null;
  /** The secret the read receipts are signed with, made when a URL is first set; absent or null: none yet. */
  read_receipts_signing_secret?: string | null;
}

export interface Template {
  id: number;
  account_id: number;
  sender_id: number;
  name: string;
  language: string;
  category: string;
  status: TemplateStatus;
  body_text: string;
  variables: string[];
}

/** A template's review status (live-platform H.5: `PATCH /__sim/msgapp/templates/{id}` moves it). */
export const TEMPLATE_STATUSES = ['approved', 'pending', 'rejected', 'disabled'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

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
  /** An outbound message's delivery statuses so far, oldest first (live-platform H.4); absent on inbound messages. */
  status_history?: MessageStatusChange[];
  /** What the recipient's side does with it, drawn at the send (the outcome script); absent on inbound messages. */
  plan?: DeliveryPlan;
  /** The pending clock event of its next status, else null. */
  status_event_id?: number | null;
  /** Set once it failed or went undelivered (live-platform H.4), else null. */
  error_code?: number | null;
}

/** The statuses an outbound message moves through (live-platform H.4). */
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed', 'undelivered'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export interface MessageStatusChange {
  status: MessageStatus;
  at: number;
}

/** The kinds of media a customer can send (live-platform H.6). */
export const MEDIA_TYPES = ['image', 'video', 'audio', 'document'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export interface InboundMedia {
  type: MediaType;
  filename: string;
  caption: string | null;
  /** A voice note: its transcription is the message's content. */
  voice_note: boolean;
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

const FILENAME_MAX = 255;
const filename = () => z.string().min(1).max(FILENAME_MAX, { error: RULE_MESSAGES.maxString.replace(':max', String(FILENAME_MAX)) }).regex(/^[^/\\\u0000-\u001f]+$/, { error: 'The :attribute must be a file name without slashes or control characters.' });

/**
 * `POST /__sim/msgapp/inbound`: a customer writes to a sender: text, media with an optional
 * caption, or a voice note with its transcription (live-platform H.6). One of the three.
 */
export const InboundBody = lazySchema(() => z
  .object({
    sender_id: int(1),
    from: phone(),
    text: z.string().min(1).max(FREEFORM_MAX).optional(),
    name: z.string().max(255).optional(),
    media: z.strictObject({ type: oneOf(MEDIA_TYPES), filename: filename().optional(), caption: z.string().min(1).max(FREEFORM_MAX).optional() }).optional(),
    voice_note: z.strictObject({ transcription: z.string().min(1).max(FREEFORM_MAX) }).optional(),
  })
  .superRefine((body, issue) => {
    const given = [body.text !== undefined, body.media !== undefined, body.voice_note !== undefined].filter(Boolean).length;
    if (given === 0) issue.addIssue({ code: 'custom', path: ['text'], message: 'The text field is required when neither media nor voice_note is present.' });
    else if (given > 1) issue.addIssue({ code: 'custom', path: [body.text !== undefined ? 'text' : 'media'], message: 'Send one of text, media (with its caption) or voice_note.' });
  }));
export type InboundInput = z.output<typeof InboundBody>;


/** `PATCH /__sim/msgapp/senders/{id}` (live-platform H.4: the read-receipts URL and its secret). */
export const SenderPatchBody = lazySchema(() => z.object({
  online: z.boolean().optional(),
  assistant_id: int(1).nullable().optional(),
  read_receipts_webhook_url: url().nullable().optional(),
  regenerate_signing_secret: z.literal(true, { error: 'The :attribute must be true.' }).optional(),
  messaging_limit: int(1, 1_000_000_000).nullable().optional(),
}));
export type SenderPatchInput = z.output<typeof SenderPatchBody>;

/** `POST /__sim/msgapp/senders` (live-platform H.5). */
export const CreateSenderBody = lazySchema(() => z.object({
  account_id: int(1).optional(),
  display_name: z.string().trim().min(1).max(255, { error: RULE_MESSAGES.maxString.replace(':max', '255') }),
  phone_number: phone().optional(),
  status: oneOf(['online', 'offline']).default('online'),
  quality_rating: oneOf(['high', 'medium', 'low']).default('high'),
  messaging_limit: int(1, 1_000_000_000).nullable().default(null),
  assistant_id: int(1).nullable().default(null),
  read_receipts_webhook_url: url().nullable().optional(),
}));
export type CreateSenderInput = z.output<typeof CreateSenderBody>;

/** `POST /__sim/msgapp/templates` (live-platform H.5): `variables` default to the body's placeholders in order. */
export const CreateTemplateBody = lazySchema(() => z.object({
  sender_id: int(1),
  name: z.string().trim().min(1).max(512, { error: RULE_MESSAGES.maxString.replace(':max', '512') }).regex(/^[a-z0-9_]+$/, { error: 'The :attribute may only contain lowercase letters, digits and underscores.' }),
  language: z.string().trim().min(2).max(16).default('en'),
  category: oneOf(['MARKETING', 'UTILITY', 'AUTHENTICATION']).default('UTILITY'),
  status: oneOf(TEMPLATE_STATUSES).default('approved'),
  body_text: z.string().min(1).max(1024, { error: RULE_MESSAGES.maxString.replace(':max', '1024') }),
  variables: z.array(z.string().regex(/^[A-Za-z0-9_]+$/, { error: 'The :attribute must be a variable name (letters, digits, underscores).' })).max(32).optional(),
}));
export type CreateTemplateInput = z.output<typeof CreateTemplateBody>;

/** `PATCH /__sim/msgapp/templates/{id}`: its review status. */
export const TemplatePatchBody = lazySchema(() => z.object({ status: oneOf(TEMPLATE_STATUSES) }));

/** `GET /__sim/msgapp/messages`: filters, each optional. */
export const ChannelMessagesQuery = lazySchema(() => z.object({
  account_id: queryInt().pipe(int(1)).optional(),
  sender_id: queryInt().pipe(int(1)).optional(),
  recipient_phone: z.string().min(1).optional(),
}));

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
    status: z.enum(TEMPLATE_STATUSES),
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

/**
 * The read-receipts webhook's body, keys in the reference's order (live-platform H.4); the
 * test event (`POST /__sim/msgapp/senders/{id}/test-receipt`) adds `test: true` last.
 */
export const ReadReceiptWebhookBody = lazySchema(() => z
  .object({
    event: z.literal('message_status'),
    whatsapp_message_id: integer(),
    message_sid: z.string(),
    meta_message_id: z.null(),
    conversation_id: z.string().nullable(),
    assistant_id: z.string().nullable(),
    sender: z.object({ id: integer(), phone_number: z.string(), display_name: z.string() }),
    to: z.string(),
    from: z.string(),
    direction: z.literal('outbound'),
    status: z.enum(['sent', 'delivered', 'read', 'failed', 'undelivered']),
    error_code: integer().nullable(),
    error_message: z.string().nullable(),
    error_description: z.string().nullable(),
    timestamp: z.string(),
    provider_timestamp: z.null(),
    test: z.literal(true).optional(),
  })
  .meta({ id: 'ReadReceiptWebhook' }));
export type ReadReceiptWebhookBody = z.output<typeof ReadReceiptWebhookBody>;

/** A sender as the control API shows it: the platform's fields, its assistant and its read-receipts webhook. */
export const ControlSenderRecord = lazySchema(() => SenderRecord.unwrap()
  .extend({ assistant_id: integer().nullable(), read_receipts_webhook_url: z.string().nullable(), read_receipts_signing_secret: z.string().nullable() })
  .meta({ id: 'ControlSender' }));
export type ControlSenderRecord = z.output<typeof ControlSenderRecord>;

/** A template as the control API shows it: the platform's fields and its sender. */
export const ControlTemplateRecord = lazySchema(() => TemplateRecord.unwrap().extend({ sender_id: integer() }).meta({ id: 'ControlTemplate' }));
export type ControlTemplateRecord = z.output<typeof ControlTemplateRecord>;

/** A message of the channel as `GET /__sim/msgapp/messages` shows it, with its status history. */
export const ChannelMessageRecord = lazySchema(() => z
  .object({
    whatsapp_message_id: integer(),
    account_id: integer(),
    sender_id: integer(),
    conversation_id: integer(),
    direction: z.enum(['outbound', 'inbound']),
    kind: z.enum(['template', 'freeform', 'customer', 'reply']),
    to: z.string(),
    from: z.string(),
    body: z.string(),
    message_sid: z.string(),
    status: z.string(),
    status_history: z.array(z.object({ status: z.enum(MESSAGE_STATUSES), at: z.string() })),
    error_code: integer().nullable(),
    error_message: z.string().nullable(),
    error_description: z.string().nullable(),
    cost: z.number(),
    created_at: z.string(),
  })
  .meta({ id: 'ChannelMessage' }));
export type ChannelMessageRecord = z.output<typeof ChannelMessageRecord>;

export function serialiseControlSender(s: Sender): ControlSenderRecord {
  return {
    ...(serialiseSender(s) as SenderRecord),
    assistant_id: s.assistant_id,
    read_receipts_webhook_url: s.read_receipts_webhook_url ?? null,
    read_receipts_signing_secret: s.read_receipts_signing_secret ?? null,
  };
}

export function serialiseControlTemplate(t: Template): ControlTemplateRecord {
  return { ...serialiseTemplate(t, 'spec'), sender_id: t.sender_id };
}
