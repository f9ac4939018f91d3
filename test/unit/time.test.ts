import { describe, expect, it } from 'vitest';
import { dayRange, formatControlTime, formatIsoOffset, formatIsoUtc, formatSqlUtc, isCalendarDate, isTimezone, parseInstant } from '../../src/core/time.js';

const at = (iso: string): number => Date.parse(iso);

describe('formatSqlUtc', () => {
  it('writes YYYY-MM-DD HH:MM:SS in UTC', () => {
    expect(formatSqlUtc(at('2026-03-02T09:00:00Z'))).toBe('2026-03-02 09:00:00');
  });

  it('pads single-digit parts and drops milliseconds', () => {
    expect(formatSqlUtc(at('2026-01-05T03:04:05.987Z'))).toBe('2026-01-05 03:04:05');
  });

  it('writes the UTC time of an instant given with an offset', () => {
    expect(formatSqlUtc(at('2026-12-31T23:30:00-02:00'))).toBe('2027-01-01 01:30:00');
  });

  it('writes leap days, the epoch, the second before it and the last second of 9999', () => {
    expect(formatSqlUtc(at('2024-02-29T12:00:00Z'))).toBe('2024-02-29 12:00:00');
    expect(formatSqlUtc(at('2000-02-29T00:00:00Z'))).toBe('2000-02-29 00:00:00');
    expect(formatSqlUtc(0)).toBe('1970-01-01 00:00:00');
    expect(formatSqlUtc(-1)).toBe('1969-12-31 23:59:59');
    expect(formatSqlUtc(253_402_300_799_999)).toBe('9999-12-31 23:59:59');
  });
});

describe('formatIsoUtc', () => {
  it('writes ISO 8601 with six fractional digits and Z', () => {
    expect(formatIsoUtc(at('2026-03-02T09:00:00Z'))).toBe('2026-03-02T09:00:00.000000Z');
  });

  it('keeps milliseconds as the first three of the six digits', () => {
    expect(formatIsoUtc(at('2026-03-02T09:00:00.123Z'))).toBe('2026-03-02T09:00:00.123000Z');
  });
});

describe('formatIsoOffset', () => {
  it('writes Europe/Berlin winter time with +01:00', () => {
    expect(formatIsoOffset(at('2026-03-02T09:00:00Z'), 'Europe/Berlin')).toBe('2026-03-02T10:00:00+01:00');
  });

  it('writes Europe/Berlin summer time with +02:00', () => {
    expect(formatIsoOffset(at('2026-07-01T09:00:00Z'), 'Europe/Berlin')).toBe('2026-07-01T11:00:00+02:00');
  });

  it('switches offset at the spring DST change', () => {
    expect(formatIsoOffset(at('2026-03-29T00:59:59Z'), 'Europe/Berlin')).toBe('2026-03-29T01:59:59+01:00');
    expect(formatIsoOffset(at('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toBe('2026-03-29T03:00:00+02:00');
  });

  it('switches offset back at the autumn DST change', () => {
    expect(formatIsoOffset(at('2026-10-25T00:59:59Z'), 'Europe/Berlin')).toBe('2026-10-25T02:59:59+02:00');
    expect(formatIsoOffset(at('2026-10-25T01:00:00Z'), 'Europe/Berlin')).toBe('2026-10-25T02:00:00+01:00');
  });

  it('writes a negative offset for a zone west of UTC', () => {
    expect(formatIsoOffset(at('2026-03-02T09:00:00Z'), 'America/Argentina/Buenos_Aires')).toBe('2026-03-02T06:00:00-03:00');
  });

  it('writes UTC with Z by default', () => {
    expect(formatIsoOffset(at('2026-03-02T09:00:00Z'))).toBe('2026-03-02T09:00:00Z');
  });

  it('keeps non-zero milliseconds', () => {
    expect(formatIsoOffset(at('2026-03-02T09:00:00.123Z'), 'Europe/Berlin')).toBe('2026-03-02T10:00:00.123+01:00');
  });
});

describe('formatControlTime', () => {
  it('writes ISO 8601 UTC without fractional seconds', () => {
    expect(formatControlTime(at('2026-03-02T09:00:00Z'))).toBe('2026-03-02T09:00:00Z');
  });
});

describe('isTimezone', () => {
  it.each(['Europe/Berlin', 'America/Argentina/Buenos_Aires', 'UTC', 'America/New_York', 'Etc/GMT+1'])('accepts %s', (zone) => {
    expect(isTimezone(zone)).toBe(true);
  });

  it.each(['Mars/Base', 'GMT+1', '', 'Europe', 'europe/berlin_x', 'Europe/Berlin ', '+01:00'])('rejects %j', (zone) => {
    expect(isTimezone(zone)).toBe(false);
  });
});

describe('dayRange', () => {
  it('gives the UTC day as [midnight, next midnight)', () => {
    expect(dayRange('2026-03-02', 'UTC')).toEqual([at('2026-03-02T00:00:00Z'), at('2026-03-03T00:00:00Z')]);
  });

  it('gives a Berlin winter day as 23:00 UTC to 23:00 UTC', () => {
    expect(dayRange('2026-03-02', 'Europe/Berlin')).toEqual([at('2026-03-01T23:00:00Z'), at('2026-03-02T23:00:00Z')]);
  });

  it('gives the Berlin spring-forward day 23 hours', () => {
    const [start, end] = dayRange('2026-03-29', 'Europe/Berlin');
    expect([start, end]).toEqual([at('2026-03-28T23:00:00Z'), at('2026-03-29T22:00:00Z')]);
    expect(end - start).toBe(23 * 3_600_000);
  });

  it('gives a day in a zone west of UTC', () => {
    expect(dayRange('2026-03-02', 'America/Argentina/Buenos_Aires')).toEqual([at('2026-03-02T03:00:00Z'), at('2026-03-03T03:00:00Z')]);
  });
});

describe('isCalendarDate', () => {
  it('accepts a real date', () => {
    expect(isCalendarDate('2026-03-02')).toBe(true);
  });

  it('rejects 29 February in a common year', () => {
    expect(isCalendarDate('2026-02-29')).toBe(false);
  });

  it('accepts 29 February in a leap year', () => {
    expect(isCalendarDate('2028-02-29')).toBe(true);
  });

  it.each(['2026-13-01', '2026-04-31', '2026-00-10', '2026-3-2', '02-03-2026', '2026-03-02T00:00:00Z', '20260302', ''])('rejects %j', (text) => {
    expect(isCalendarDate(text)).toBe(false);
  });
});

describe('parseInstant', () => {
  it('parses a UTC instant', () => {
    expect(parseInstant('2026-03-02T09:00:00Z')).toBe(1772442000000);
  });

  it('refuses a UTC instant of a day the month does not have, and a 60th second', () => {
    expect(parseInstant('2026-02-29T00:00:00Z')).toBeUndefined();
    expect(parseInstant('2026-03-02T09:00:60Z')).toBeUndefined();
  });

  it('reads 24:00 as the midnight ending the day, as luxon does', () => {
    expect(parseInstant('2026-03-02T24:00:00Z')).toBe(at('2026-03-03T00:00:00Z'));
  });

  it('parses an instant with an offset', () => {
    expect(parseInstant('2026-03-02T10:00:00+01:00')).toBe(at('2026-03-02T09:00:00Z'));
  });

  it('reads an instant without an offset as UTC', () => {
    expect(parseInstant('2026-03-02T09:00:00')).toBe(at('2026-03-02T09:00:00Z'));
  });

  it('keeps milliseconds', () => {
    expect(parseInstant('2026-03-02T09:00:00.250Z')).toBe(at('2026-03-02T09:00:00.250Z'));
  });

  it.each(['tomorrow', '', '2026-02-30T00:00:00Z', '2026-03-02T25:00:00Z', '1772442000000'])('answers undefined for %j', (text) => {
    expect(parseInstant(text)).toBeUndefined();
  });
});
