/** Reading phone numbers in E.164 (spec: Phone numbers; Lead: input is formatted automatically). */
import type { CountryCode, PhoneNumber } from 'libphonenumber-js/max';
import { lazyRequire } from './lazy.js';

export type { CountryCode } from 'libphonenumber-js/max';

const library = lazyRequire<typeof import('libphonenumber-js/max')>('libphonenumber-js/max');

/**
 * Parses a phone number with the full metadata, `undefined` when it cannot be one. The
 * library and its metadata are loaded on first use (`lazyRequire`), so importing
 * voxsim does not pay for them (issue 29: about 60 ms of a cold import).
 * @example parsePhone('(415) 555-0123', 'US')?.number // '+14155550123'
 */
export function parsePhone(text: string, country?: CountryCode): PhoneNumber | undefined {
  return library().parsePhoneNumberFromString(text, country);
}

/** `+` and 7 to 15 digits, the first not 0. */
export const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * Reads an E.164 number and its country; `undefined` when it cannot be a number.
 * Divergence: numbers need only be possible (right length for their country code),
 * not assigned, so fictional ranges such as +1 555 work as they do in test fixtures.
 * @example readE164('+14155550123') // { number: '+14155550123', country: 'US' }
 */
export function readE164(text: string): { number: string; country: string } | undefined {
  if (!E164.test(text)) return undefined;
  const parsed = parsePhone(text);
  if (!parsed?.isPossible()) return undefined;
  return { number: parsed.number, country: parsed.country ?? parsed.getPossibleCountries()[0] ?? 'US' };
}
