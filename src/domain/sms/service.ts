/**
 * Sending an SMS from one of the account's numbers (live-platform C.5): the checks in
 * the documented order, segment counting, the price per segment and the balance
 * charge. No delivery is simulated: a sent SMS is a record.
 */
import { shapeA } from '../../core/errors.js';
import { E164, normaliseNumber } from '../../core/phone.js';
import type { AccountCtx } from '../context.js';
import { DEFAULT_RATES } from '../accounts/schema.js';
import type { SendSmsInput, Sms } from './schema.js';

export const SMS_MESSAGES = {
  sent: 'SMS sent successfully',
  invalidTo: 'Invalid phone number format',
  fromNotFound: 'From number not found',
  notSmsCapable: 'Phone number is not SMS-capable',
  // live-platform C.5: the text is a decision.
  subscriptionInactive: 'Phone number subscription is not active',
  insufficientBalance: 'Insufficient balance to send SMS',
} as const;

/** Every refusal is shape A with status 400, as documented (live-platform C.5; not decisions.md's 422 for `from`). */
export const smsErrors = {
  invalidTo: () => shapeA(400, SMS_MESSAGES.invalidTo),
  fromNotFound: () => shapeA(400, SMS_MESSAGES.fromNotFound),
  notSmsCapable: () => shapeA(400, SMS_MESSAGES.notSmsCapable),
  subscriptionInactive: () => shapeA(400, SMS_MESSAGES.subscriptionInactive),
  insufficientBalance: () => shapeA(400, SMS_MESSAGES.insufficientBalance),
};

/** Printable ASCII and the two line breaks: the bodies counted in the GSM alphabet (live-platform C.5, decision). */
const GSM_BODY = /^[\x20-\x7E\n\r]*$/;

/**
 * How many segments a body takes (live-platform C.5, decision): a GSM body is 1 segment
 * up to 160 characters, else ceil(length / 153); any other body counts UTF-16 units,
 * 1 segment up to 70, else ceil(length / 67).
 * @example countSegments('a'.repeat(161)) // 2
 * @example countSegments('ü'.repeat(70)) // 1
 */
export function countSegments(body: string): number {
  const [single, part] = GSM_BODY.test(body) ? [160, 153] : [70, 67];
  return body.length <= single ? 1 : Math.ceil(body.length / part);
}

/** The account's price of one segment in micro-dollars (`rates.sms_segment`, default 0.05 USD). */
export function segmentPrice(ctx: AccountCtx): number {
  return ctx.account.rates.sms_segment_micros ?? DEFAULT_RATES.sms_segment_micros!;
}

/**
 * Sends an SMS: checks in the documented order, then stores it and charges the balance.
 * @example sendSms(ctx, { from: 1, to: '+4915123456789', body: 'Hello' })
 */
export function sendSms(ctx: AccountCtx, input: SendSmsInput): Sms {
  const to = normaliseNumber(input.to);
  if (!E164.test(to)) throw smsErrors.invalidTo();
  const number = ctx.phoneNumbers.get(input.from);
  if (!number) throw smsErrors.fromNotFound();
  if (!number.sms_capable) throw smsErrors.notSmsCapable();
  if (!number.has_active_subscription) throw smsErrors.subscriptionInactive();
  const segments = countSegments(input.body);
  const cost = segments * segmentPrice(ctx);
  if (ctx.account.balance_micros < cost) throw smsErrors.insufficientBalance();
  ctx.chargeAccount(cost);
  const sms = ctx.sms.insert({
    sms_id: '',
    phone_number_id: number.id,
    from: number.phone_number,
    to,
    body: input.body,
    segments,
    cost_micros: cost,
    currency: 'USD',
    status: 'sent',
    created_at: ctx.now(),
  });
  const stored = ctx.sms.update(sms.id, { sms_id: `SMS_${sms.id}` });
  ctx.emit('sms.sent', { sms_id: stored.sms_id, phone_number_id: number.id, to, segments });
  return stored;
}
