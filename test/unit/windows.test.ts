import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/core/random.js';
import { isInWindow, nextWindowStart, type CallingWindow } from '../../src/domain/campaigns/windows.js';
import type { Day } from '../../src/domain/campaigns/schema.js';

const DAYS: Day[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const hms = (seconds: number) => [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60].map((n) => String(n).padStart(2, '0')).join(':');

describe('calling windows in UTC', () => {
  it('answers what luxon answers for the same window in Etc/UTC, across days, weeks and years', () => {
    const random = new SeededRandom(3);
    for (let n = 0; n < 400; n++) {
      const days = DAYS.filter(() => random.int(0, 2) > 0);
      const start = random.int(0, 86_399);
      const fields = { allowed_days: days, allowed_hours_start_time: hms(start), allowed_hours_end_time: hms(random.int(start, 86_399)) };
      // Separate rows: each window keeps its own day in the memo.
      const utc: CallingWindow = { timezone: 'UTC', ...fields };
      const etc: CallingWindow = { timezone: 'Etc/UTC', ...fields };
      let ms = Date.UTC(1970 + random.int(0, 80), random.int(0, 11), random.int(1, 28), random.int(0, 23), random.int(0, 59));
      for (let step = 0; step < 20; step++) {
        expect([isInWindow(ms, utc), nextWindowStart(ms, utc)]).toEqual([isInWindow(ms, etc), nextWindowStart(ms, etc)]);
        ms += random.int(0, 2) === 0 ? random.int(1, 3) * 86_400_000 : random.int(0, 7_200_000);
      }
    }
  });

  it('opens a Monday-only 09:00-17:00 window on the next Monday at 09:00 UTC', () => {
    const window: CallingWindow = { timezone: 'UTC', allowed_days: ['monday'], allowed_hours_start_time: '09:00:00', allowed_hours_end_time: '17:00:00' };
    // 2026-03-04 is a Wednesday.
    expect(nextWindowStart(Date.parse('2026-03-04T12:00:00Z'), window)).toBe(Date.parse('2026-03-09T09:00:00Z'));
    expect(isInWindow(Date.parse('2026-03-09T16:59:59Z'), window)).toBe(true);
    expect(isInWindow(Date.parse('2026-03-09T17:00:00Z'), window)).toBe(false);
    expect(nextWindowStart(Date.parse('2026-03-09T17:00:00Z'), { ...window, allowed_days: [] })).toBeUndefined();
  });
});
