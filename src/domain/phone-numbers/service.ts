/** Phone numbers that reach an account outside the purchase flow (control API: sip and caller-ID numbers). */
import parsePhoneNumber from 'libphonenumber-js/max';
import { z } from 'zod';
import { ErrorBag, int, oneOf } from '../../core/validation.js';
import type { SimState } from '../core-services.js';
import type { PhoneNumber } from './schema.js';

export const PHONE_MESSAGES = {
  invalidNumber: 'The phone number must be a valid phone number in E.164 format.',
  taken: 'The phone number has already been taken.',
} as const;

export const InsertNumberBody = z.object({
  account_id: int(1),
  type: oneOf(['sip', 'caller_id']),
  phone_number: z.string().min(1),
});
export type InsertNumberInput = z.infer<typeof InsertNumberBody>;

/** The provisioning region of a number's country. Divergence: the platform's region names are not shown; ours are short codes. */
export function regionOf(country: string): string {
  if (['US', 'CA'].includes(country)) return 'us1';
  if (country === 'AU') return 'au1';
  return 'ie1';
}

/** Reads an E.164 number and its country; `undefined` when it is not a valid number. */
export function readE164(text: string): { number: string; country: string } | undefined {
  if (!/^\+[1-9]\d{6,14}$/.test(text)) return undefined;
  const parsed = parsePhoneNumber(text);
  if (!parsed?.isValid() || !parsed.country) return undefined;
  return { number: parsed.number, country: parsed.country };
}

/**
 * Adds a sip or caller-ID number to an account (ARCHITECTURE §6: POST /__sim/phone-numbers).
 * @example insertPhoneNumber(state, { account_id: 1, type: 'sip', phone_number: '+14155550100' })
 */
export function insertPhoneNumber(state: SimState, input: InsertNumberInput): PhoneNumber {
  const bag = new ErrorBag();
  if (!state.db.accounts.get(input.account_id)) bag.rule('account_id', 'exists');
  const read = readE164(input.phone_number);
  if (!read) bag.add('phone_number', PHONE_MESSAGES.invalidNumber);
  else if (state.db.phoneNumbers.first('number', read.number)) bag.add('phone_number', PHONE_MESSAGES.taken);
  bag.throwIfAny();
  return state.db.phoneNumbers.insert({
    account_id: input.account_id,
    phone_number: read!.number,
    country_code: read!.country,
    type: input.type,
    sms_capable: false,
    region: regionOf(read!.country),
    has_active_subscription: false,
    created_at: state.clock.now(),
  });
}
