/**
 * Calling windows (spec: Campaign: allowed_days, allowed_hours_*; ARCHITECTURE §4):
 * dialing is allowed on the allowed days from the start time up to, not including, the
 * end time, in the campaign's timezone, DST-correct through luxon.
 */
import type { DateTime } from 'luxon';
import { luxon } from '../../core/time.js';
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

/** One local day of a window: where the day starts and ends, and its opening hours (empty on a day not allowed). */
interface WindowDay {
  from: number;
  to: number;
  opens: number;
  closes: number;
  /** The next opening after this day's (for any time past its opening), once asked for; null when none is within a week. */
  later?: number | null;
}

/**
 * The day each window was last asked about. A pure memo (the same answers, only without
 * building luxon dates on every dial): keyed by the campaign row, checked against the
 * window's fields so an update of the campaign is seen at once, and gone with the row.
 */
const lastDay = new WeakMap<CallingWindow, WindowDay & { timezone: string; days: readonly Day[]; start: string; end: string }>();

const DAY_MS = 86_400_000;

/** A local day in a zone: where it starts, its weekday, the instant of a wall time on it, the day after. */
interface LocalDay {
  readonly from: number;
  readonly weekday: Day;
  at(seconds: number): number;
  next(): LocalDay;
}

/**
 * The local day of `ms` in `timezone`. UTC (no DST, days of 24 hours) is worked out by
 * arithmetic alone: luxon's first use in a process sets up Intl (some 20 ms), which a
 * campaign dialing in UTC never needs. Other names of UTC (`Etc/UTC`) go through luxon
 * and answer the same.
 */
function localDay(ms: number, timezone: string): LocalDay {
  return timezone === 'UTC' ? utcDay(Math.floor(ms / DAY_MS)) : zoneDay(luxon().DateTime.fromMillis(ms, { zone: timezone }).startOf('day'));
}

/** A UTC day by its count of days since the epoch (1970-01-01 was a Thursday). */
function utcDay(days: number): LocalDay {
  const from = days * DAY_MS;
  return { from, weekday: WEEKDAYS[(((days + 3) % 7) + 7) % 7]!, at: (seconds) => from + seconds * 1000, next: () => utcDay(days + 1) };
}

/** A day of luxon's at its start (DST-correct). */
function zoneDay(day: DateTime): LocalDay {
  return { from: day.toMillis(), weekday: WEEKDAYS[day.weekday - 1]!, at: (seconds) => at(day, seconds), next: () => zoneDay(day.plus({ days: 1 }).startOf('day')) };
}

/** The local day of `window` that `ms` falls in (worked out once per day). */
function windowDay(ms: number, window: CallingWindow): WindowDay {
  const cached = lastDay.get(window);
  if (
    cached &&
    ms >= cached.from &&
    ms < cached.to &&
    cached.timezone === window.timezone &&
    cached.days === window.allowed_days &&
    cached.start === window.allowed_hours_start_time &&
    cached.end === window.allowed_hours_end_time
  ) {
    return cached;
  }
  const day = localDay(ms, window.timezone);
  const allowed = window.allowed_days.includes(day.weekday);
  const computed = {
    from: day.from,
    to: day.next().from,
    opens: allowed ? day.at(secondsOfDay(window.allowed_hours_start_time)) : day.from,
    closes: allowed ? day.at(secondsOfDay(window.allowed_hours_end_time)) : day.from,
    timezone: window.timezone,
    days: window.allowed_days,
    start: window.allowed_hours_start_time,
    end: window.allowed_hours_end_time,
  };
  lastDay.set(window, computed);
  return computed;
}

/**
 * Whether `ms` falls inside the window.
 * @example isInWindow(Date.parse('2026-03-06T15:59:00Z'), berlin9to17) // true: 16:59 in Berlin on a Friday
 */
export function isInWindow(ms: number, window: CallingWindow): boolean {
  const day = windowDay(ms, window);
  return ms >= day.opens && ms < day.closes;
}

/**
 * The next instant at or after `ms` when the window is open; `undefined` if no day is allowed.
 * @example nextWindowStart(fridayFivePm, berlin9to17) // Monday 09:00 Berlin
 */
export function nextWindowStart(ms: number, window: CallingWindow): number | undefined {
  const day = windowDay(ms, window);
  if (ms >= day.opens && ms < day.closes) return ms;
  if (ms < day.opens) return day.opens;
  if (ms === day.opens) return laterStart(ms, window);
  // Past the day's opening: the answer is the same for the rest of the day, computed once.
  if (day.later === undefined) day.later = laterStart(ms, window) ?? null;
  return day.later ?? undefined;
}

/** The first opening at or after `ms` on an allowed day, looking a week ahead. */
function laterStart(ms: number, window: CallingWindow): number | undefined {
  const start = secondsOfDay(window.allowed_hours_start_time);
  let day = localDay(ms, window.timezone);
  for (let i = 0; i < 8; i++, day = day.next()) {
    if (!window.allowed_days.includes(day.weekday)) continue;
    const opens = day.at(start);
    if (opens >= ms) return opens;
  }
  return undefined;
}
