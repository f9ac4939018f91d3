/**
 * Calling windows (spec: Campaign: allowed_days, allowed_hours_*; ARCHITECTURE §4):
 * dialing is allowed on the allowed days from the start time up to, not including, the
 * end time, in the campaign's timezone, DST-correct through luxon.
 */
import { DateTime } from 'luxon';
import type { Day } from './schema.js';

export interface CallingWindow {
  timezone: string;
  allowed_days: readonly Day[];
  /** `HH:MM:SS` */
  allowed_hours_start_time: string;
  allowed_hours_end_time: string;
}

const WEEKDAYS: Day[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

function secondsOfDay(hms: string): number {
  const [h, m, s] = hms.split(':').map(Number);
  return h! * 3600 + m! * 60 + (s ?? 0);
}

/** The instant a local wall time of `day` happens (a time skipped by DST moves forward, as luxon does). */
function at(day: DateTime, seconds: number): number {
  return day.set({ hour: Math.floor(seconds / 3600), minute: Math.floor((seconds % 3600) / 60), second: seconds % 60, millisecond: 0 }).toMillis();
}

/**
 * Whether `ms` falls inside the window.
 * @example isInWindow(Date.parse('2026-03-06T15:59:00Z'), berlin9to17) // true: 16:59 in Berlin on a Friday
 */
export function isInWindow(ms: number, window: CallingWindow): boolean {
  const local = DateTime.fromMillis(ms, { zone: window.timezone });
  if (!window.allowed_days.includes(WEEKDAYS[local.weekday - 1]!)) return false;
  const day = local.startOf('day');
  return ms >= at(day, secondsOfDay(window.allowed_hours_start_time)) && ms < at(day, secondsOfDay(window.allowed_hours_end_time));
}

/**
 * The next instant at or after `ms` when the window is open; `undefined` if no day is allowed.
 * @example nextWindowStart(fridayFivePm, berlin9to17) // Monday 09:00 Berlin
 */
export function nextWindowStart(ms: number, window: CallingWindow): number | undefined {
  if (isInWindow(ms, window)) return ms;
  const start = secondsOfDay(window.allowed_hours_start_time);
  let day = DateTime.fromMillis(ms, { zone: window.timezone }).startOf('day');
  for (let i = 0; i < 8; i++, day = day.plus({ days: 1 }).startOf('day')) {
    if (!window.allowed_days.includes(WEEKDAYS[day.weekday - 1]!)) continue;
    const opens = at(day, start);
    if (opens >= ms) return opens;
  }
  return undefined;
}
