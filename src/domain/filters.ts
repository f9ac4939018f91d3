/** Filters shared by the list routes (leads, calls, conversations). */
import { dayRange } from '../core/time.js';

/**
 * A partial-number filter (spec: List leads: phone_number, partial match): its digits
 * are looked for in the number; a filter without digits matches as written.
 * @example partialNumberFilter('(555)')('+15551230001') // true
 */
export function partialNumberFilter(filter: string): (number: string) => boolean {
  const needle = partialNumberNeedle(filter);
  return (number) => number.includes(needle);
}

/**
 * What a partial-number filter looks for in a number: its digits, or the filter as written
 * when it has none.
 * @example partialNumberNeedle('(555) 12') // '55512'
 */
export function partialNumberNeedle(filter: string): string {
  const digits = filter.replace(/\D/g, '');
  return digits.length > 0 ? digits : filter;
}

/**
 * The instants [from, to) that `date_from`..`date_to` cover as calendar days in `zone`
 * (decisions: Dates in filters, both inclusive).
 * @example dateWindow({ date_from: '2026-03-02' }, 'UTC') // [1772409600000, Infinity]
 */
export function dateWindow(q: { date_from?: string | undefined; date_to?: string | undefined }, zone: string): [number, number] {
  return [q.date_from ? dayRange(q.date_from, zone)[0] : -Infinity, q.date_to ? dayRange(q.date_to, zone)[1] : Infinity];
}
