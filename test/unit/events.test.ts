/**
 * The event bus (src/core/events.ts): the journal, type-prefix and account filters,
 * subscriptions that replay from `since`, and the wire form of the WebSocket stream.
 */
import { describe, expect, it } from 'vitest';
import { EventBus, matchesFilter, toWire, type SimEvent } from '../../src/core/events.js';

const T0 = Date.parse('2026-03-02T09:00:00Z');

/** A bus with `n` events alternating call.status (account 1) and lead.status (account 2). */
function busWith(n: number, limit = 10_000): EventBus {
  const bus = new EventBus(limit);
  for (let i = 1; i <= n; i++) {
    if (i % 2 === 1) bus.emit('call.status', T0 + i, { account_id: 1, call_id: i, status: 'ringing' });
    else bus.emit('lead.status', T0 + i, { account_id: 2, lead_id: i, status: 'completed' });
  }
  return bus;
}

const event = (type: string, data: Record<string, unknown>): SimEvent => ({ type, at: T0, seq: 1, data });

describe('event filters', () => {
  it('matches every event without a filter', () => {
    expect(matchesFilter(event('call.status', { account_id: 1 }), {})).toBe(true);
  });

  it('matches types by prefix, any of several', () => {
    const filter = { types: ['call.', 'webhook.attempt'] };
    expect(matchesFilter(event('call.status', {}), filter)).toBe(true);
    expect(matchesFilter(event('webhook.attempt', {}), filter)).toBe(true);
    expect(matchesFilter(event('webhook.queued', {}), filter)).toBe(false);
    expect(matchesFilter(event('campaign.status', {}), filter)).toBe(false);
  });

  it("keeps one account's events and those of the whole simulator under an account filter", () => {
    expect(matchesFilter(event('call.status', { account_id: 2 }), { accountId: 2 })).toBe(true);
    expect(matchesFilter(event('call.status', { account_id: 1 }), { accountId: 2 })).toBe(false);
    expect(matchesFilter(event('request.answered', { account_id: null }), { accountId: 2 })).toBe(false);
    expect(matchesFilter(event('clock.advanced', { by: 'advance' }), { accountId: 2 })).toBe(true);
  });

  it('needs both the type and the account to match when both are given', () => {
    const filter = { types: ['call.'], accountId: 1 };
    expect(matchesFilter(event('call.status', { account_id: 1 }), filter)).toBe(true);
    expect(matchesFilter(event('lead.status', { account_id: 1 }), filter)).toBe(false);
    expect(matchesFilter(event('call.status', { account_id: 2 }), filter)).toBe(false);
  });
});

describe('subscriptions', () => {
  it('replays the journal after `since` that passes the filter, then goes live', () => {
    const bus = busWith(6);
    const seen: number[] = [];
    const sub = bus.subscribe({ types: ['call.'], since: 2 }, (e) => seen.push(e.seq));
    expect(seen).toEqual([3, 5]);
    expect(sub).toMatchObject({ latestSeq: 6, oldestSeq: 1, replayed: 2, missed: 0 });
    bus.emit('call.status', T0, { account_id: 1 });
    bus.emit('lead.status', T0, { account_id: 1 });
    expect(seen).toEqual([3, 5, 7]);
  });

  it('replays nothing without `since`', () => {
    const bus = busWith(4);
    const seen: number[] = [];
    const sub = bus.subscribe({}, (e) => seen.push(e.seq));
    expect(sub.replayed).toBe(0);
    bus.emit('clock.advanced', T0, {});
    expect(seen).toEqual([5]);
  });

  it('replays the whole journal with since=0', () => {
    const seen: number[] = [];
    busWith(3).subscribe({ since: 0 }, (e) => seen.push(e.seq));
    expect(seen).toEqual([1, 2, 3]);
  });

  it('counts the events after `since` that the journal no longer holds', () => {
    const bus = busWith(10, 4);
    const seen: number[] = [];
    const sub = bus.subscribe({ since: 3 }, (e) => seen.push(e.seq));
    expect(seen).toEqual([7, 8, 9, 10]);
    expect(sub).toMatchObject({ latestSeq: 10, oldestSeq: 7, replayed: 4, missed: 3 });
  });

  it('replays the whole journal when `since` is beyond the latest seq (an earlier life of the server)', () => {
    const bus = busWith(3);
    const seen: number[] = [];
    const sub = bus.subscribe({ since: 500 }, (e) => seen.push(e.seq));
    expect(seen).toEqual([1, 2, 3]);
    expect(sub.missed).toBe(0);
  });

  it('stops delivering after stop()', () => {
    const bus = busWith(1);
    const seen: number[] = [];
    const sub = bus.subscribe({}, (e) => seen.push(e.seq));
    sub.stop();
    bus.emit('call.status', T0, { account_id: 1 });
    expect(seen).toEqual([]);
  });

  it('delivers the account filter live as well as in the replay', () => {
    const bus = busWith(4);
    const seen: string[] = [];
    bus.subscribe({ accountId: 2, since: 0 }, (e) => seen.push(`${e.seq}:${e.type}`));
    bus.emit('clock.advanced', T0, { by: 'advance' });
    bus.emit('call.status', T0, { account_id: 1 });
    expect(seen).toEqual(['2:lead.status', '4:lead.status', '5:clock.advanced']);
  });
});

describe('the journal across clear()', () => {
  it('empties the journal but goes on counting, so seq never repeats', () => {
    const bus = busWith(3);
    bus.clear();
    expect(bus.history()).toEqual([]);
    bus.emit('sim.reset', T0, { seed: 1 });
    expect(bus.history().map((e) => e.seq)).toEqual([4]);
    expect(bus.count).toBe(4);
  });

  it('keeps the latest `limit` events in order', () => {
    expect(busWith(7, 3).history().map((e) => e.seq)).toEqual([5, 6, 7]);
    expect(busWith(7, 3).capacity).toBe(3);
  });
});

describe('wire form', () => {
  it('sends the time as ISO 8601 UTC with at_ms beside it', () => {
    expect(toWire({ type: 'call.status', at: T0 + 1_000, seq: 7, data: { account_id: 1, call_id: 3 } })).toStrictEqual({
      seq: 7,
      type: 'call.status',
      at: '2026-03-02T09:00:01Z',
      at_ms: T0 + 1_000,
      data: { account_id: 1, call_id: 3 },
    });
  });
});
