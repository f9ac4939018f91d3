import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClockRangeError, VirtualClock, parseDuration, type ClockEvent } from '../../src/core/clock.js';
import { CLOCK_RANGE } from '../../src/core/time.js';

const START = Date.parse('2026-03-02T09:00:00Z');

/** A clock whose handlers record `type@offset-from-START` for each event they run. */
function recordingClock(types: string[] = ['a', 'b', 'c']): { clock: VirtualClock; log: string[] } {
  const clock = new VirtualClock(START);
  const log: string[] = [];
  for (const type of types) {
    clock.on(type, (event) => {
      log.push(`${type}@${clock.now() - START}`);
      expect(event.type).toBe(type);
    });
  }
  return { clock, log };
}

describe('parseDuration', () => {
  it('takes a number as milliseconds', () => {
    expect(parseDuration(1500)).toBe(1500);
  });

  it('rounds a fractional number of milliseconds', () => {
    expect(parseDuration(1.6)).toBe(2);
  });

  it('accepts zero', () => {
    expect(parseDuration(0)).toBe(0);
    expect(parseDuration('0s')).toBe(0);
  });

  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['3d', 259_200_000],
    ['1h30m', 5_400_000],
    ['1m30s', 90_000],
    ['1.5s', 1_500],
    ['250', 250],
    [' 15m ', 900_000],
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '   ', '5x', '-1', '-5s', '1h30', 'h', 's5', '5 s', '1.5'])('rejects the text %j with a RangeError', (text) => {
    expect(() => parseDuration(text)).toThrow(RangeError);
  });

  it.each([-1, -0.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects the number %d with a RangeError', (ms) => {
    expect(() => parseDuration(ms)).toThrow(RangeError);
  });
});

describe('VirtualClock ordering', () => {
  it('starts at the given time', () => {
    expect(new VirtualClock(START).now()).toBe(START);
  });

  it('runs events in time order, not in scheduling order', async () => {
    const { clock, log } = recordingClock();
    clock.schedule(START + 3000, 'c', {});
    clock.schedule(START + 1000, 'a', {});
    clock.schedule(START + 2000, 'b', {});
    await clock.advance('5s');
    expect(log).toEqual(['a@1000', 'b@2000', 'c@3000']);
  });

  it('runs events due at the same time in the order they were scheduled', async () => {
    const { clock, log } = recordingClock();
    clock.schedule(START + 1000, 'c', {});
    clock.schedule(START + 1000, 'a', {});
    clock.schedule(START + 500, 'b', {});
    clock.schedule(START + 1000, 'b', {});
    await clock.advance('1s');
    expect(log).toEqual(['b@500', 'c@1000', 'a@1000', 'b@1000']);
  });

  it('passes the event data to the handler', async () => {
    const clock = new VirtualClock(START);
    const seen: ClockEvent[] = [];
    clock.on('ping', (event) => {
      seen.push(event);
    });
    const id = clock.schedule(START + 10, 'ping', { lead_id: 7 });
    await clock.advance(10);
    expect(seen).toEqual([{ id, seq: id, at: START + 10, type: 'ping', payload: { lead_id: 7 } }]);
  });

  it('gives each scheduled event a new increasing id', () => {
    const clock = new VirtualClock(START);
    const ids = [clock.schedule(START, 'a', {}), clock.schedule(START, 'a', {}), clock.schedule(START, 'a', {})];
    expect(ids).toEqual([1, 2, 3]);
  });

  it('lists pending events in firing order', () => {
    const clock = new VirtualClock(START);
    clock.schedule(START + 2000, 'x', 1);
    clock.schedule(START + 1000, 'y', 2);
    clock.schedule(START + 2000, 'z', 3);
    expect(clock.pendingEvents().map((e) => [e.type, e.at - START, e.payload])).toEqual([
      ['y', 1000, 2],
      ['x', 2000, 1],
      ['z', 2000, 3],
    ]);
  });

  it('counts pending events', () => {
    const clock = new VirtualClock(START);
    expect(clock.pendingCount).toBe(0);
    clock.schedule(START + 1, 'a', {});
    clock.schedule(START + 2, 'a', {});
    expect(clock.pendingCount).toBe(2);
  });
});

describe('VirtualClock.advance', () => {
  it('sets now() to each event time inside its handler and lands on the target', async () => {
    const clock = new VirtualClock(START);
    const seenAt: number[] = [];
    clock.on('tick', () => {
      seenAt.push(clock.now());
    });
    clock.schedule(START + 60_000, 'tick', {});
    clock.schedule(START + 120_000, 'tick', {});
    await clock.advance('15m');
    expect(seenAt).toEqual([START + 60_000, START + 120_000]);
    expect(clock.now()).toBe(START + 900_000);
  });

  it('returns the number of events it ran', async () => {
    const { clock } = recordingClock();
    clock.schedule(START + 1000, 'a', {});
    clock.schedule(START + 2000, 'b', {});
    clock.schedule(START + 9000, 'c', {});
    await expect(clock.advance('2s')).resolves.toBe(2);
  });

  it('runs an event due exactly at the target and leaves later ones pending', async () => {
    const { clock, log } = recordingClock();
    clock.schedule(START + 1000, 'a', {});
    clock.schedule(START + 1001, 'b', {});
    await clock.advance(1000);
    expect(log).toEqual(['a@1000']);
    expect(clock.pendingEvents().map((e) => e.type)).toEqual(['b']);
  });

  it('moves time when nothing is scheduled', async () => {
    const clock = new VirtualClock(START);
    await expect(clock.advance('2h')).resolves.toBe(0);
    expect(clock.now()).toBe(START + 7_200_000);
  });

  it('awaits an async handler before running the next event', async () => {
    const clock = new VirtualClock(START);
    const log: string[] = [];
    clock.on('slow', async () => {
      log.push('slow:start');
      for (let i = 0; i < 5; i++) await Promise.resolve();
      log.push('slow:end');
    });
    clock.on('fast', () => {
      log.push('fast');
    });
    clock.schedule(START + 1, 'slow', {});
    clock.schedule(START + 2, 'fast', {});
    await clock.advance(10);
    expect(log).toEqual(['slow:start', 'slow:end', 'fast']);
  });

  it('runs an event scheduled by a handler in the same advance when it is due', async () => {
    const clock = new VirtualClock(START);
    const log: string[] = [];
    clock.on('first', () => {
      log.push(`first@${clock.now() - START}`);
      clock.schedule(clock.now() + 500, 'second', {});
    });
    clock.on('second', () => {
      log.push(`second@${clock.now() - START}`);
    });
    clock.schedule(START + 1000, 'first', {});
    await expect(clock.advance('2s')).resolves.toBe(2);
    expect(log).toEqual(['first@1000', 'second@1500']);
  });

  it('leaves an event scheduled by a handler pending when it falls after the target', async () => {
    const clock = new VirtualClock(START);
    clock.on('first', () => {
      clock.schedule(clock.now() + 5000, 'second', {});
    });
    clock.on('second', () => undefined);
    clock.schedule(START + 1000, 'first', {});
    await clock.advance('2s');
    expect(clock.pendingEvents().map((e) => [e.type, e.at - START])).toEqual([['second', 6000]]);
  });

  it('fires an event scheduled in the past at the next advance, at the current time', async () => {
    const { clock, log } = recordingClock();
    await clock.advance('10s');
    clock.schedule(START, 'a', {});
    expect(clock.pendingEvents()[0]?.at).toBe(START + 10_000);
    await clock.advance(0);
    expect(log).toEqual(['a@10000']);
    expect(clock.now()).toBe(START + 10_000);
  });

  it('runs concurrent advance calls one after another', async () => {
    const clock = new VirtualClock(START);
    const log: string[] = [];
    clock.on('slow', async () => {
      log.push(`slow:start@${clock.now() - START}`);
      for (let i = 0; i < 10; i++) await Promise.resolve();
      log.push(`slow:end@${clock.now() - START}`);
    });
    clock.on('fast', () => {
      log.push(`fast@${clock.now() - START}`);
    });
    clock.schedule(START + 500, 'slow', {});
    clock.schedule(START + 1500, 'fast', {});
    const first = clock.advance('1s');
    const second = clock.advance('1s');
    await expect(Promise.all([first, second])).resolves.toEqual([1, 1]);
    expect(log).toEqual(['slow:start@500', 'slow:end@500', 'fast@1500']);
    expect(clock.now()).toBe(START + 2000);
  });

  it('rejects the advance when an event has no registered handler', async () => {
    const clock = new VirtualClock(START);
    clock.schedule(START + 1, 'nobody', {});
    await expect(clock.advance(5)).rejects.toThrow('No handler registered for clock event "nobody"');
  });

  it('keeps serving clock moves after an advance failed', async () => {
    const { clock, log } = recordingClock();
    clock.schedule(START + 1, 'nobody', {});
    clock.schedule(START + 2000, 'a', {});
    await expect(clock.advance(5)).rejects.toThrow(Error);
    await clock.advance('2s');
    expect(log).toEqual(['a@2000']);
  });

  it('rejects an invalid duration', async () => {
    const clock = new VirtualClock(START);
    await expect(async () => clock.advance('soon')).rejects.toThrow(RangeError);
    expect(clock.now()).toBe(START);
  });
});

describe('VirtualClock.advanceTo', () => {
  it('moves to an epoch-millisecond time, running the events on the way', async () => {
    const { clock, log } = recordingClock();
    clock.schedule(START + 1000, 'a', {});
    clock.schedule(START + 5000, 'b', {});
    await expect(clock.advanceTo(START + 3000)).resolves.toBe(1);
    expect(log).toEqual(['a@1000']);
    expect(clock.now()).toBe(START + 3000);
  });

  it('moves to an ISO 8601 time', async () => {
    const clock = new VirtualClock(START);
    await clock.advanceTo('2026-03-02T10:30:00Z');
    expect(clock.now()).toBe(Date.parse('2026-03-02T10:30:00Z'));
  });

  it('accepts the current time', async () => {
    const clock = new VirtualClock(START);
    await expect(clock.advanceTo(START)).resolves.toBe(0);
    expect(clock.now()).toBe(START);
  });

  it('refuses a time in the past and stays put', async () => {
    const clock = new VirtualClock(START);
    await expect(async () => clock.advanceTo(START - 1)).rejects.toThrow(new RangeError('The clock cannot move backwards.'));
    expect(clock.now()).toBe(START);
  });

  it('refuses text that is not a time', async () => {
    const clock = new VirtualClock(START);
    await expect(async () => clock.advanceTo('tomorrow')).rejects.toThrow(RangeError);
    expect(clock.now()).toBe(START);
  });
});

describe('VirtualClock.cancel', () => {
  it('stops a pending event from firing', async () => {
    const { clock, log } = recordingClock();
    const a = clock.schedule(START + 1000, 'a', {});
    clock.schedule(START + 2000, 'b', {});
    expect(clock.cancel(a)).toBe(true);
    await clock.advance('5s');
    expect(log).toEqual(['b@2000']);
  });

  it('removes the event from the pending list', () => {
    const clock = new VirtualClock(START);
    const a = clock.schedule(START + 1000, 'a', {});
    clock.schedule(START + 2000, 'b', {});
    clock.cancel(a);
    expect(clock.pendingCount).toBe(1);
    expect(clock.pendingEvents().map((e) => e.type)).toEqual(['b']);
  });

  it('answers false for an id that is not pending', async () => {
    const { clock } = recordingClock();
    const a = clock.schedule(START + 1000, 'a', {});
    expect(clock.cancel(999)).toBe(false);
    expect(clock.cancel(a)).toBe(true);
    expect(clock.cancel(a)).toBe(false);
    const b = clock.schedule(START + 1000, 'b', {});
    await clock.advance('1s');
    expect(clock.cancel(b)).toBe(false);
  });
});

describe('VirtualClock.runUntilIdle', () => {
  it('runs every pending event and moves time to the last one', async () => {
    const { clock, log } = recordingClock();
    clock.schedule(START + 3_600_000, 'b', {});
    clock.schedule(START + 1000, 'a', {});
    await expect(clock.runUntilIdle()).resolves.toBe(2);
    expect(log).toEqual(['a@1000', 'b@3600000']);
    expect(clock.now()).toBe(START + 3_600_000);
    expect(clock.pendingCount).toBe(0);
  });

  it('runs events that handlers schedule along the way', async () => {
    const clock = new VirtualClock(START);
    let fired = 0;
    clock.on('again', () => {
      fired++;
      if (fired < 4) clock.schedule(clock.now() + 60_000, 'again', {});
    });
    clock.schedule(START + 60_000, 'again', {});
    await expect(clock.runUntilIdle()).resolves.toBe(4);
    expect(clock.now()).toBe(START + 240_000);
  });

  it('stops after maxEvents and leaves the rest pending', async () => {
    const { clock, log } = recordingClock();
    clock.schedule(START + 1000, 'a', {});
    clock.schedule(START + 2000, 'b', {});
    clock.schedule(START + 3000, 'c', {});
    await expect(clock.runUntilIdle({ maxEvents: 2 })).resolves.toBe(2);
    expect(log).toEqual(['a@1000', 'b@2000']);
    expect(clock.now()).toBe(START + 2000);
    expect(clock.pendingEvents().map((e) => e.type)).toEqual(['c']);
  });

  it('returns 0 and keeps the time when nothing is pending', async () => {
    const clock = new VirtualClock(START);
    await expect(clock.runUntilIdle()).resolves.toBe(0);
    expect(clock.now()).toBe(START);
  });
});

describe('VirtualClock snapshot, restore and reset', () => {
  it('round-trips the time, the queue and the sequence', async () => {
    const { clock } = recordingClock();
    await clock.advance('1m');
    clock.schedule(START + 120_000, 'b', { n: 1 });
    const cancelled = clock.schedule(START + 90_000, 'a', { n: 2 });
    clock.schedule(START + 90_000, 'c', { n: 3 });
    clock.cancel(cancelled);
    const snap = clock.snapshot();

    const copy = new VirtualClock(START - 86_400_000);
    copy.restore(snap);
    expect(copy.now()).toBe(START + 60_000);
    expect(copy.pendingCount).toBe(2);
    expect(copy.pendingEvents()).toEqual(clock.pendingEvents());
    expect(copy.snapshot()).toEqual(snap);
    expect(copy.schedule(START + 200_000, 'a', {})).toBe(4);
  });

  it('describes the clock as plain data', () => {
    const clock = new VirtualClock(START);
    clock.schedule(START + 5, 'a', { x: 1 });
    expect(clock.snapshot()).toEqual({
      now: START,
      seq: 1,
      mode: 'manual',
      speed: 1,
      events: [{ id: 1, seq: 1, at: START + 5, type: 'a', payload: { x: 1 } }],
    });
  });

  it('keeps a snapshot unchanged when the clock moves on', async () => {
    const { clock } = recordingClock();
    clock.schedule(START + 5, 'a', {});
    const snap = clock.snapshot();
    await clock.advance(10);
    clock.schedule(START + 50, 'b', {});
    expect(snap.now).toBe(START);
    expect(snap.seq).toBe(1);
    expect(snap.events.map((e) => e.type)).toEqual(['a']);
  });

  it('restores the same snapshot twice with the same result', async () => {
    const { clock } = recordingClock();
    clock.schedule(START + 5, 'a', {});
    const snap = clock.snapshot();
    await clock.advance(10);
    clock.restore(snap);
    await clock.advance(10);
    clock.restore(snap);
    expect(clock.now()).toBe(START);
    expect(clock.pendingEvents().map((e) => [e.type, e.at])).toEqual([['a', START + 5]]);
  });

  it('reset sets the time, empties the queue and restarts the ids', () => {
    const clock = new VirtualClock(START);
    clock.schedule(START + 1, 'a', {});
    clock.schedule(START + 2, 'a', {});
    clock.reset(START + 86_400_000);
    expect(clock.now()).toBe(START + 86_400_000);
    expect(clock.pendingCount).toBe(0);
    expect(clock.pendingEvents()).toEqual([]);
    expect(clock.mode).toBe('manual');
    expect(clock.schedule(START + 86_400_000, 'a', {})).toBe(1);
  });

  it('reset does not run the dropped events', async () => {
    const { clock, log } = recordingClock();
    clock.schedule(START + 1, 'a', {});
    clock.reset(START);
    await clock.advance('1h');
    expect(log).toEqual([]);
  });
});

describe('VirtualClock restored queue', () => {
  it('runs restored events in order', async () => {
    const { clock } = recordingClock();
    clock.schedule(START + 90_000, 'c', {});
    clock.schedule(START + 120_000, 'b', {});
    const snap = clock.snapshot();
    const { clock: copy, log } = recordingClock();
    copy.restore(snap);
    expect(await copy.runUntilIdle()).toBe(2);
    expect(log).toEqual(['c@90000', 'b@120000']);
    expect(copy.pendingCount).toBe(0);
  });
});

describe('VirtualClock pending queue under churn', () => {
  it('answers each pending event by id, the count and the firing order, through thousands of events, cancels, long waits and a restore', async () => {
    const { SeededRandom } = await import('../../src/core/random.js');
    const random = new SeededRandom(3);
    let clock = new VirtualClock(START);
    const model = new Set<number>();
    const handle = (event: ClockEvent) => {
      expect(model.delete(event.id)).toBe(true);
      // Most events schedule a successor soon, as the dialer's do.
      if (random.int(0, 3) > 0) model.add(clock.schedule(clock.now() + random.int(0, 5_000), 'e', {}));
    };
    clock.on('e', handle);
    // Waits far longer than the churn around them: they stay pending while thousands of ids pass.
    for (const wait of [86_400_000, 30 * 86_400_000]) model.add(clock.schedule(START + wait, 'e', {}));
    const check = () => {
      expect(clock.pendingCount).toBe(model.size);
      for (let id = 1; id <= clock.head().seq; id++) expect(clock.pendingEvent(id)?.id, `id ${id}`).toBe(model.has(id) ? id : undefined);
      expect(clock.pendingEvents().map((e) => e.id).sort((a, b) => a - b)).toEqual([...model].sort((a, b) => a - b));
    };
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 400; i++) model.add(clock.schedule(clock.now() + random.int(0, 60_000), 'e', {}));
      for (const id of [...model]) if (random.int(0, 9) === 0 && id > 2) expect(clock.cancel(id)).toBe(model.delete(id));
      await clock.advance(random.int(1_000, 90_000));
      if (round % 10 === 9) {
        check();
        const restored = new VirtualClock(START);
        restored.on('e', handle);
        restored.restore(clock.snapshot());
        clock = restored;
        check();
      }
    }
    check();
  });
});

describe('VirtualClock realtime mode', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function fakeRealTime(): void {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: Date.parse('2030-01-01T00:00:00Z') });
  }

  it('starts in manual mode with speed 1', () => {
    const clock = new VirtualClock(START);
    expect(clock.mode).toBe('manual');
    expect(clock.speed).toBe(1);
  });

  it('moves speed simulated milliseconds per real millisecond', () => {
    fakeRealTime();
    const clock = new VirtualClock(START);
    clock.setMode('realtime', 60);
    expect(clock.mode).toBe('realtime');
    expect(clock.speed).toBe(60);
    vi.advanceTimersByTime(1000);
    expect(clock.now()).toBe(START + 60_000);
    clock.dispose();
  });

  it('fires a scheduled event by itself when its time comes', async () => {
    fakeRealTime();
    const clock = new VirtualClock(START);
    const seenAt: number[] = [];
    clock.on('tick', () => {
      seenAt.push(clock.now());
    });
    clock.setMode('realtime', 60);
    clock.schedule(START + 30_000, 'tick', {});
    await vi.advanceTimersByTimeAsync(499);
    expect(seenAt).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(seenAt).toEqual([START + 30_000]);
    expect(clock.pendingCount).toBe(0);
    clock.dispose();
  });

  it('fires an event scheduled before switching to realtime', async () => {
    fakeRealTime();
    const clock = new VirtualClock(START);
    const seenAt: number[] = [];
    clock.on('tick', () => {
      seenAt.push(clock.now());
    });
    clock.schedule(START + 120_000, 'tick', {});
    clock.setMode('realtime', 60);
    await vi.advanceTimersByTimeAsync(2000);
    expect(seenAt).toEqual([START + 120_000]);
    clock.dispose();
  });

  it('fires successive events in order as real time passes', async () => {
    fakeRealTime();
    const clock = new VirtualClock(START);
    const log: string[] = [];
    clock.on('tick', (event) => {
      log.push(`${String(event.payload)}@${clock.now() - START}`);
    });
    clock.setMode('realtime', 60);
    clock.schedule(START + 60_000, 'tick', 'first');
    clock.schedule(START + 120_000, 'tick', 'second');
    await vi.advanceTimersByTimeAsync(1000);
    expect(log).toEqual(['first@60000']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(log).toEqual(['first@60000', 'second@120000']);
    clock.dispose();
  });

  it('fires an earlier event scheduled after a later one on time', async () => {
    fakeRealTime();
    const clock = new VirtualClock(START);
    const log: string[] = [];
    clock.on('tick', (event) => {
      log.push(`${String(event.payload)}@${clock.now() - START}`);
    });
    clock.setMode('realtime', 60);
    clock.schedule(START + 120_000, 'tick', 'second');
    clock.schedule(START + 60_000, 'tick', 'first');
    await vi.advanceTimersByTimeAsync(1000);
    expect(log).toEqual(['first@60000']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(log).toEqual(['first@60000', 'second@120000']);
    clock.dispose();
  });

  it('freezes time when switched back to manual', () => {
    fakeRealTime();
    const clock = new VirtualClock(START);
    clock.setMode('realtime', 60);
    vi.advanceTimersByTime(1000);
    clock.setMode('manual');
    expect(clock.mode).toBe('manual');
    vi.advanceTimersByTime(5000);
    expect(clock.now()).toBe(START + 60_000);
  });

  it('does not fire events by itself in manual mode', async () => {
    fakeRealTime();
    const { clock, log } = recordingClock();
    clock.schedule(START + 1000, 'a', {});
    await vi.advanceTimersByTimeAsync(10_000);
    expect(log).toEqual([]);
    expect(clock.now()).toBe(START);
  });

  it('keeps the time an explicit advance reached in realtime mode', async () => {
    fakeRealTime();
    const clock = new VirtualClock(START);
    clock.setMode('realtime', 60);
    await clock.advance('1h');
    expect(clock.now()).toBe(START + 3_600_000);
    vi.advanceTimersByTime(1000);
    expect(clock.now()).toBe(START + 3_660_000);
    clock.dispose();
  });

  it.each([0, -1, 0.0009, 1e-300, 1_000_001, Number.NaN, Number.POSITIVE_INFINITY])('rejects speed %d with a RangeError', (speed) => {
    const clock = new VirtualClock(START);
    expect(() => clock.setMode('realtime', speed)).toThrow(new RangeError('speed must be a number from 0.001 to 1000000'));
    expect(clock.mode).toBe('manual');
  });

  it.each([0.001, 1_000_000])('takes speed %d, an edge of SPEED_RANGE', (speed) => {
    const clock = new VirtualClock(START);
    clock.setMode('realtime', speed);
    expect(clock.speed).toBe(speed);
    clock.dispose();
  });
});

describe('VirtualClock range (CLOCK_RANGE: 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z)', () => {
  const OUTSIDE = 'The clock\'s time must be whole milliseconds from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z';

  it.each([CLOCK_RANGE.min, CLOCK_RANGE.max])('starts at %d, an edge of the range', (start) => {
    expect(new VirtualClock(start).now()).toBe(start);
  });

  it.each([-1, CLOCK_RANGE.max + 1, 8.64e15, 1.5, Number.NaN])('refuses to start or be reset at %d with a RangeError', (start) => {
    expect(() => new VirtualClock(start)).toThrow(`${OUTSIDE}: ${start}`);
    const clock = new VirtualClock(START);
    expect(() => clock.reset(start)).toThrow(`${OUTSIDE}: ${start}`);
    expect(clock.now()).toBe(START);
  });

  it('advances to the end of the range and no further, by either form', async () => {
    const clock = new VirtualClock(CLOCK_RANGE.max - 1000);
    await expect(clock.advance(1001)).rejects.toThrow(ClockRangeError);
    await expect(clock.advanceTo(CLOCK_RANGE.max + 1)).rejects.toThrow(new ClockRangeError('The clock cannot move past the end of its range (from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z).'));
    expect(clock.now()).toBe(CLOCK_RANGE.max - 1000);
    await clock.advance(1000);
    expect(clock.now()).toBe(CLOCK_RANGE.max);
  });

  it('runs until idle no further than ten years ahead, leaving later work pending', async () => {
    const { clock, log } = recordingClock(['a']);
    const tenYears = 3652.5 * 86_400_000;
    clock.schedule(START + tenYears, 'a', {});
    clock.schedule(START + tenYears + 1, 'a', {});
    expect(await clock.runUntilIdle()).toBe(1);
    expect(log).toEqual([`a@${tenYears}`]);
    expect(clock.pendingCount).toBe(1);
  });
});
