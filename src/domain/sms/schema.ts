/** SMS (live-platform C.5): the send body, the stored record and its wire shapes. */
import * as z from 'zod';
import { integer, isoTimestamp } from '../../core/answers.js';
import { fromMicros } from '../../core/money.js';
import { formatIsoUtc } from '../../core/time.js';
import { RULE_MESSAGES, int } from '../../core/validation.js';
import { lazySchema } from '../../core/lazy-schema.js';

/** The body's limit in Unicode code points (live-platform C.5). */
export const SMS_BODY_MAX = 300;

/** A sent SMS; the cost is kept in micro-dollars like every other amount. */
export interface Sms {
  id: number;
  account_id: number;
  sms_id: string;
  phone_number_id: number;
  from: string;
  to: string;
  body: string;
  segments: number;
  cost_micros: number;
  currency: 'USD';
  status: 'sent';
  created_at: number;
}

/** `POST /user/sms`: every field required; `body` counts code points, as the platform's `max` does. */
export const SendSmsBody = lazySchema(() => z.object({
  from: int(),
  to: z.string().min(1),
  body: z
    .string()
    .min(1)
    .refine((text) => [...text].length <= SMS_BODY_MAX, { error: RULE_MESSAGES.maxString.replace(':max', String(SMS_BODY_MAX)) }),
}));
export type SendSmsInput = z.infer<typeof SendSmsBody>;

/** The answer's `data` (live-platform C.5). */
const smsFields = {
  sms_id: z.string(),
  from: z.string(),
  to: z.string(),
  body: z.string(),
  segments: integer(),
  cost: z.number(),
  currency: z.literal('USD'),
  status: z.literal('sent'),
};

/** The `data` of a `POST /user/sms` answer (live-platform C.5). */
export const SentSmsRecord = lazySchema(() => z.object(smsFields).meta({ id: 'SentSms' }));
export type SentSmsRecord = z.output<typeof SentSmsRecord>;

/** A sent SMS as `GET /__sim/sms` shows it. */
export const SmsRecord = lazySchema(() => z.object({ id: integer(), account_id: integer(), phone_number_id: integer(), ...smsFields, created_at: isoTimestamp() }).meta({ id: 'SmsRecord' }));
export type SmsRecord = z.output<typeof SmsRecord>;

export function serialiseSentSms(m: Sms): SentSmsRecord {
  return { sms_id: m.sms_id, from: m.from, to: m.to, body: m.body, segments: m.segments, cost: fromMicros(m.cost_micros), currency: m.currency, status: m.status };
}

/** The record as `GET /__sim/sms` shows it (live-platform C.5 Record, C.6). */
export function serialiseSms(m: Sms): SmsRecord {
  return {
    id: m.id,
    account_id: m.account_id,
    sms_id: m.sms_id,
    phone_number_id: m.phone_number_id,
    from: m.from,
    to: m.to,
    body: m.body,
    segments: m.segments,
    cost: fromMicros(m.cost_micros),
    currency: m.currency,
    status: m.status,
    created_at: formatIsoUtc(m.created_at),
  };
}
