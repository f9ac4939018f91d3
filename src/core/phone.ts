/** Reading phone numbers in E.164 (spec: Phone numbers; Lead: input is formatted automatically). */
import type { CountryCode, PhoneNumber } from 'libphonenumber-js/max';
import { lazyRequire } from './lazy.js';
import type { Wire } from './wire.js';

export type { CountryCode } from 'libphonenumber-js/max';

const library = lazyRequire<typeof import('libphonenumber-js/max')>('libphonenumber-js/max');
/** The library's own metadata (the same file `max` loads), for its table of calling codes. */
const metadata = lazyRequire<{ country_calling_codes: Record<string, string[] | undefined> }>('libphonenumber-js/metadata.max.json');

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
 * A number as the platform reads it before checking it (live-platform C.5, G.3 item 2):
 * spaces, dashes and parentheses dropped, a leading `00` written as `+`.
 * @example normaliseNumber('0049 (151) 234-5678') // '+491512345678'
 */
export function normaliseNumber(text: string): string {
  const stripped = text.replace(/[\s\-()]/g, '');
  return stripped.startsWith('00') ? `+${stripped.slice(2)}` : stripped;
}

/**
 * Reads an E.164 number and its country; `undefined` when it cannot be a number.
 * - Spec wire: the number must be possible (right length for its country code), not
 *   assigned. Divergence: fictional ranges such as +1 555 work as they do in test fixtures.
 * - Live wire (live-platform G.3 item 2): the platform checks E.164's form alone, after its
 *   normalisation (`normaliseNumber`), so the reference's `+1234567890` passes. The country
 *   is the number's where it can be told, else the main country of its calling code, else US
 *   (decision).
 * @example readE164('+14155550123') // { number: '+14155550123', country: 'US' }
 * @example readE164('+1 234 567 890', 'live') // { number: '+1234567890', country: 'US' }
 */
export function readE164(text: string, wire: Wire = 'spec'): { number: string; country: string } | undefined {
  if (wire === 'live') {
    const number = normaliseNumber(text);
    return E164.test(number) ? { number, country: countryOf(number) } : undefined;
  }
  if (!E164.test(text)) return undefined;
  const parsed = parsePhone(text);
  if (!parsed?.isPossible()) return undefined;
  return { number: parsed.number, country: parsed.country ?? parsed.getPossibleCountries()[0] ?? 'US' };
}

/** The country of an E.164 number: its own, else its calling code's main country (the first the metadata lists), else US. */
function countryOf(number: string): string {
  const parsed = parsePhone(number);
  if (parsed?.isPossible()) return parsed.country ?? parsed.getPossibleCountries()[0] ?? 'US';
  const code = parsed?.countryCallingCode;
  // The metadata's calling-code table lists each code's main country first (1: US, 44: GB).
  return (code !== undefined ? metadata().country_calling_codes[code]?.[0] : undefined) ?? 'US';
}
