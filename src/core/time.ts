/**
 * The specification's timestamp formats and zone arithmetic. Every function takes
 * the instant explicitly (from the simulator clock); nothing here reads real time.
 */
import { lazyRequire } from './lazy.js';

/**
 * luxon, loaded on first use so that importing voxsim does not pay for it (issue 29):
 * UTC instants are formatted by arithmetic, a zone's local time asks luxon.
 */
export const luxon = lazyRequire<typeof import('luxon')>('luxon');

/**
 * The range of the clock (docs/clock.md: Clock range): whole epoch milliseconds from
 * 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z. A start, a reset, a restored state and
 * every move stay in it, so no clock arithmetic leaves what a Date holds (±8.64e15 ms):
 * ten years ahead of its end is still year 10008.
 */
export const CLOCK_RANGE = { min: 0, max: 253_370_764_800_000 } as const;
/** The range in words, for messages. */
export const CLOCK_RANGE_TEXT = 'from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z';

/**
 * The latest time the state may hold (a record's timestamp, a pending event):
 * 9999-12-31T23:59:59.999Z. What the simulator schedules lies ahead of the clock, a
 * number's renewal a month ahead being the furthest, so the state's range ends a year
 * after the clock's: every time the simulator shows has a four-digit year.
 */
export const LATEST_STATE_TIME = 253_402_300_799_999;

/**
 * Whether `ms` is a time the clock may show (CLOCK_RANGE).
 * @example isClockTime(Date.parse('+275760-09-12T00:00:00Z')) // false
 */
export function isClockTime(ms: unknown): ms is number {
  return Number.isSafeInteger(ms) && (ms as number) >= CLOCK_RANGE.min && (ms as number) <= CLOCK_RANGE.max;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * `YYYY-MM-DD HH:MM:SS` in UTC (calls, conversations, leads).
 * @example formatSqlUtc(Date.parse('2026-03-02T09:00:00Z')) // '2026-03-02 09:00:00'
 */
export function formatSqlUtc(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const secondOfDay = Math.floor((ms - days * 86_400_000) / 1000);
  // The rows of a page mostly share a day: its text is computed once for them.
  if (days !== lastDay.days) lastDay = { days, text: civilDate(days) };
  const h = Math.floor(secondOfDay / 3600);
  const m = Math.floor((secondOfDay % 3600) / 60);
  return `${lastDay.text} ${two(h)}:${two(m)}:${two(secondOfDay % 60)}`;
}

/**
 * The last day `formatSqlUtc` formatted, with its text: a memo of a pure function (the
 * same day always gives the same text), so sharing it between simulators changes no answer.
 */
let lastDay = { days: Number.NaN, text: '' };

/** `YYYY-MM-DD` of a count of days since the epoch. */
function civilDate(days: number): string {
  // Calendar arithmetic (days to civil date, proleptic Gregorian) instead of a Date and six getters: every list row formats two of these.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${two(month)}-${two(day)}`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

/**
 * ISO 8601 in UTC with microseconds, as the platform serialises model timestamps
 * (campaigns, assistants, phone numbers).
 * @example formatIsoUtc(Date.parse('2026-03-02T09:00:00Z')) // '2026-03-02T09:00:00.000000Z'
 */
export function formatIsoUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000Z`;
}

/**
 * ISO 8601 with the zone's offset (webhook payloads).
 * @example formatIsoOffset(Date.parse('2026-03-02T09:00:00Z'), 'Europe/Berlin') // '2026-03-02T10:00:00+01:00'
 */
export function formatIsoOffset(ms: number, zone = 'UTC'): string {
  return luxon().DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }) ?? formatIsoUtc(ms);
}

/** ISO 8601 UTC without fractional seconds, used on the control API's wire. */
export function formatControlTime(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

const AREA_CITY = /^[A-Za-z]+(?:\/[A-Za-z0-9_+\-]+)+$/;
/** Zones found valid (the IANA database has some 600 names; the bound only guards against an odd Intl). */
const KNOWN_ZONES = new Set<string>();

/**
 * Whether `zone` is an IANA identifier of the form Area/City (or `UTC`), as the
 * platform's timezone fields require.
 * @example isTimezone('Europe/Berlin') // true
 */
export function isTimezone(zone: string): boolean {
  if (zone === 'UTC' || KNOWN_ZONES.has(zone)) return true;
  // Asking Intl builds a date formatter (tens of µs); the zones in use are few, so each valid one is asked once.
  // Invalid names are not kept: they are the caller's text, unbounded.
  const valid = AREA_CITY.test(zone) && luxon().IANAZone.isValidZone(zone);
  if (valid && KNOWN_ZONES.size < 4096) KNOWN_ZONES.add(zone);
  return valid;
}

/**
 * The UTC instant range [start, end) of a calendar day `YYYY-MM-DD` in `zone`.
 * @example dayRange('2026-03-02', 'UTC') // [1772409600000, 1772496000000]
 */
export function dayRange(day: string, zone: string): [number, number] {
  const start = luxon().DateTime.fromISO(day, { zone }).startOf('day');
  return [start.toMillis(), start.plus({ days: 1 }).toMillis()];
}

/** Whether `text` is a real calendar date written `YYYY-MM-DD`. */
export function isCalendarDate(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && luxon().DateTime.fromISO(text, { zone: 'UTC' }).isValid;
}

const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/**
 * Parses an ISO 8601 instant; `undefined` when it is not one.
 * @example parseInstant('2026-03-02T09:00:00Z') // 1772442000000
 */
export function parseInstant(text: string): number | undefined {
  // The common UTC form reads without luxon (which resolves the system locale first): when
  // it reads back as written it is the same instant luxon would give; anything else goes to luxon.
  if (UTC_INSTANT.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 19) === text.slice(0, 19)) return ms;
  }
  const dt = luxon().DateTime.fromISO(text, { zone: 'UTC' });
  return dt.isValid ? dt.toMillis() : undefined;
}

/**
 * `ms` plus `months` calendar months in UTC, clamped to the month's last day
 * (decisions: Billing period: Jan 31 -> Feb 28/29).
 * @example addMonthsUtc(Date.parse('2026-01-31T10:00:00Z'), 1) // 2026-02-28T10:00:00Z
 */
export function addMonthsUtc(ms: number, months: number): number {
  return luxon().DateTime.fromMillis(ms, { zone: 'utc' }).plus({ months }).toMillis();
}
