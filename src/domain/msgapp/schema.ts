/**
 * The messaging-application channel (spec: Messaging-application channel; Messaging
 * session; decisions: Messaging senders, templates, Session status, prices).
 */
import { z } from 'zod';
import { RULE_MESSAGES, int, oneOf, queryInt } from '../../core/validation.js';
import type { Wire } from '../../core/wire.js';

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

export const SendTemplateBody = z.object({
  sender_id: int(),
  template_id: int(),
  recipient_phone: phone(),
  recipient_name: z.string().max(RECIPIENT_NAME_MAX, { error: RULE_MESSAGES.maxString.replace(':max', String(RECIPIENT_NAME_MAX)) }).optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
});
export type SendTemplateInput = z.infer<typeof SendTemplateBody>;

export const SendFreeformBody = z.object({
  sender_id: int(),
  recipient_phone: phone(),
  message: z.string().min(1).max(FREEFORM_MAX, { error: RULE_MESSAGES.maxString.replace(':max', String(FREEFORM_MAX)) }),
});
export type SendFreeformInput = z.infer<typeof SendFreeformBody>;

export const SendersQuery = z.object({ status: oneOf(['online', 'all']).default('online') });
export const TemplatesQuery = z.object({ status: oneOf(['approved', 'all']).default('approved') });
export const SessionStatusQuery = z.object({ sender_id: queryInt().pipe(int()), recipient_phone: phone() });

/** `POST /__sim/msgapp/inbound`: a customer writes to a sender. */
export const InboundBody = z.object({ sender_id: int(1), from: phone(), text: z.string().min(1).max(FREEFORM_MAX), name: z.string().max(255).optional() });
/** `PATCH /__sim/msgapp/senders/{id}`. */
export const SenderPatchBody = z.object({ online: z.boolean().optional(), assistant_id: int(1).nullable().optional() });

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
const LIVE_QUALITY: Record<Sender['quality_rating'], string> = { high: 'GREEN', medium: 'YELLOW', low: 'RED' };

/** A sender (decisions: Messaging senders); the control API shows the spec wire's form. */
export function serialiseSender(s: Sender, wire: Wire = 'spec') {
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

export function serialiseTemplate(t: Template, wire: Wire) {
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
