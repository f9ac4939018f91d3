/** Reading phone numbers in E.164 (spec: Phone numbers; Lead: input is formatted automatically). */
import { createRequire } from 'node:module';
import type { CountryCode, PhoneNumber } from 'libphonenumber-js/max';

export type { CountryCode } from 'libphonenumber-js/max';

let library: typeof import('libphonenumber-js/max') | undefined;

/**
 * Parses a phone number with the full metadata, `undefined` when it cannot be one. The
 * library and its metadata are loaded on first use (a synchronous require), so importing
 * voxsim does not pay for them (issue 29: about 60 ms of a cold import).
 * @example parsePhone('(415) 555-0123', 'US')?.number // '+14155550123'
 */
export function parsePhone(text: string, country?: CountryCode): PhoneNumber | undefined {
  library ??= createRequire(import.meta.url)('libphonenumber-js/max') as typeof import('libphonenumber-js/max');
  return library.parsePhoneNumberFromString(text, country);
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
