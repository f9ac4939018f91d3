/**
 * Webhook delivery (spec: Events > Delivery, Retry; Limits: Webhook retries;
 * decisions: Webhook timing; ARCHITECTURE §4 Webhook delivery; STYLE: webhook URLs
 * under the simulator's base URL are refused). Time moves only through the virtual
 * clock: `await clock.advance(...)` runs each attempt to completion, real HTTP included.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handlers } from '../../src/adapters/msw.js';
import { VirtualClock } from '../../src/core/clock.js';
import {
  ATTEMPT_EVENT,
  RECEIVER_TIMEOUT_MS,
  RETRY_DELAYS_MS,
  WebhookEngine,
  WebhookTransportError,
  type DeliverFn,
  type DeliverRequest,
  type Delivery,
  type WebhookEngineOptions,
} from '../../src/engine/webhooks.js';
import { createSimulator } from '../../src/simulator.js';

const START = '2026-03-02T09:00:00Z';
const T0 = Date.parse(START);
/** t, t+30 s, t+90 s, t+210 s (decisions: Webhook timing). */
const ATTEMPT_TIMES = [T0, T0 + 30_000, T0 + 90_000, T0 + 210_000];
const HOOK = 'https://hooks.example.test/ended';
const OTHER_HOOK = 'https://hooks.example.test/other';
const PAYLOAD = { conversation_id: '4f1c2a9e-0000-4000-8000-000000000001', status: 'ended', message_count: 3 };

/** One answer of a scripted receiver: a status (body `answer N`) or a rejection. */
type Answer = number | Error;

interface Call {
  /** The clock's time when the engine called `deliver`. */
  at: number;
  request: DeliverRequest;
}

/**
 * An engine on its own clock whose `deliver` plays `script` in order (the last answer
 * repeats) and records the clock time and request of every call.
 */
function rig(script: Answer[], options: Partial<Omit<WebhookEngineOptions, 'clock' | 'deliver'>> = {}) {
  const clock = new VirtualClock(T0);
  const calls: Call[] = [];
  const deliver: DeliverFn = async (request) => {
    calls.push({ at: clock.now(), request });
    const answer = script[Math.min(calls.length - 1, script.length - 1)]!;
    if (answer instanceof Error) throw answer;
    return { status: answer, body: `answer ${calls.length}`, duration_ms: 7 };
  };
  const engine = new WebhookEngine({ clock, deliver, ...options });
  const send = (overrides: Partial<{ kind: Delivery['kind']; url: string; payload: unknown; account_id: number }> = {}) =>
    engine.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: PAYLOAD, ...overrides });
  const only = (id = 1): Delivery => {
    const found = engine.deliveries().find((d) => d.id === id);
    if (!found) throw new Error(`delivery ${id} is not in the journal`);
    return found;
  };
  return { clock, engine, calls, send, only };
}

describe('webhook retries', () => {
  it('records a new delivery as pending with its first attempt due now and sends nothing before the clock runs', () => {
    const { calls, send } = rig([200]);
    const delivery = send();
    expect(delivery).toStrictEqual({
      id: 1,
      account_id: 1,
      kind: 'conversation_ended',
      url: HOOK,
      payload: PAYLOAD,
      state: 'pending',
      attempts: [],
      next_attempt_at: T0,
      response: null,
      created_at: T0,
    });
    expect(calls).toHaveLength(0);
  });

  it('makes the first attempt at the trigger time when the clock runs', async () => {
    const { clock, calls, send } = rig([200]);
    send();
    await clock.advance(0);
    expect(calls.map((c) => c.at)).toStrictEqual([T0]);
  });

  it('retries a receiver answering 500, 500, 500, 200 at t, t+30 s, t+90 s and t+210 s', async () => {
    const { clock, calls, send, only } = rig([500, 500, 500, 200]);
    send();
    await clock.advance('4m');
    expect(calls.map((c) => c.at)).toStrictEqual(ATTEMPT_TIMES);
    expect(only().attempts).toStrictEqual([
      { at: ATTEMPT_TIMES[0], status: 500, error: null, duration_ms: 7 },
      { at: ATTEMPT_TIMES[1], status: 500, error: null, duration_ms: 7 },
      { at: ATTEMPT_TIMES[2], status: 500, error: null, duration_ms: 7 },
      { at: ATTEMPT_TIMES[3], status: 200, error: null, duration_ms: 7 },
    ]);
  });

  it('ends a delivery delivered with the 2xx as its response and no next attempt', async () => {
    const { clock, send, only } = rig([500, 500, 500, 200]);
    send();
    await clock.advance('4m');
    expect(only()).toMatchObject({ state: 'delivered', response: { status: 200, body: 'answer 4' }, next_attempt_at: null });
  });

  it('sends nothing more once a 2xx was received, even hours later', async () => {
    const { clock, calls, send, only } = rig([500, 500, 500, 200]);
    send();
    await clock.advance('4m');
    await clock.advance('6h');
    expect(calls).toHaveLength(4);
    expect(only().attempts).toHaveLength(4);
    expect(clock.pendingCount).toBe(0);
  });

  it('keeps a failing delivery pending with the time of its next attempt', async () => {
    const { clock, send, only } = rig([500]);
    send();
    await clock.advance(0);
    expect(only()).toMatchObject({ state: 'pending', next_attempt_at: T0 + 30_000, response: { status: 500, body: 'answer 1' } });
    await clock.advance('30s');
    expect(only()).toMatchObject({ state: 'pending', next_attempt_at: T0 + 90_000 });
    await clock.advance('60s');
    expect(only()).toMatchObject({ state: 'pending', next_attempt_at: T0 + 210_000 });
  });

  it('marks an always-500 delivery failed after four attempts at t, t+30 s, t+90 s and t+210 s', async () => {
    const { clock, calls, send, only } = rig([500]);
    send();
    await clock.advance('4m');
    expect(calls.map((c) => c.at)).toStrictEqual(ATTEMPT_TIMES);
    expect(only()).toMatchObject({ state: 'failed', next_attempt_at: null, response: { status: 500, body: 'answer 4' } });
    expect(only().attempts.map((a) => [a.at, a.status])).toStrictEqual(ATTEMPT_TIMES.map((at) => [at, 500]));
  });

  it('sends nothing after the fourth failed attempt, even hours later', async () => {
    const { clock, calls, send, only } = rig([500]);
    send();
    await clock.advance('4m');
    await clock.advance('6h');
    expect(calls).toHaveLength(4);
    expect(only().attempts).toHaveLength(4);
    expect(clock.pendingCount).toBe(0);
  });

  it('uses the spec delays of 30, 60 and 120 seconds', () => {
    expect([...RETRY_DELAYS_MS]).toStrictEqual([30_000, 60_000, 120_000]);
  });

  it('counts a timeout as a failed attempt with status null and the error text', async () => {
    const { clock, send, only } = rig([new WebhookTransportError('timeout', 'The receiver did not answer within 10000 ms.', 10_000)]);
    send();
    await clock.advance(0);
    expect(only().attempts).toStrictEqual([
      { at: T0, status: null, error: 'timeout: The receiver did not answer within 10000 ms.', duration_ms: 10_000 },
    ]);
    expect(only()).toMatchObject({ state: 'pending', next_attempt_at: T0 + 30_000, response: null });
  });

  it('counts a refused connection as a failed attempt with status null and the error text', async () => {
    const { clock, send, only } = rig([new WebhookTransportError('refused', 'Connection failed: ECONNREFUSED', 3)]);
    send();
    await clock.advance(0);
    expect(only().attempts).toStrictEqual([{ at: T0, status: null, error: 'refused: Connection failed: ECONNREFUSED', duration_ms: 3 }]);
    expect(only()).toMatchObject({ state: 'pending', next_attempt_at: T0 + 30_000 });
  });

  it('counts any other rejection of deliver as a refused connection', async () => {
    const { clock, send, only } = rig([new TypeError('socket hang up')]);
    send();
    await clock.advance(0);
    expect(only().attempts).toStrictEqual([{ at: T0, status: null, error: 'refused: socket hang up', duration_ms: 0 }]);
  });

  it('fails a delivery whose receiver times out four times, with no response', async () => {
    const { clock, calls, send, only } = rig([new WebhookTransportError('timeout', 'The receiver did not answer within 10000 ms.')]);
    send();
    await clock.advance('4m');
    expect(calls.map((c) => c.at)).toStrictEqual(ATTEMPT_TIMES);
    expect(only()).toMatchObject({ state: 'failed', response: null, next_attempt_at: null });
    expect(only().attempts.every((a) => a.status === null && a.error?.startsWith('timeout: '))).toBe(true);
  });

  it('keeps the last answer as the response when a failed delivery ends with a timeout', async () => {
    const { clock, send, only } = rig([502, 500, new WebhookTransportError('refused', 'Connection failed: ECONNRESET'), new WebhookTransportError('timeout', 'late')]);
    send();
    await clock.advance('4m');
    expect(only()).toMatchObject({ state: 'failed', response: { status: 500, body: 'answer 2' } });
    expect(only().attempts.map((a) => a.status)).toStrictEqual([502, 500, null, null]);
  });

  it('delivers with one attempt when the first answer is 200', async () => {
    const { clock, calls, send, only } = rig([200]);
    send();
    await clock.advance('1h');
    expect(calls).toHaveLength(1);
    expect(only()).toMatchObject({
      state: 'delivered',
      attempts: [{ at: T0, status: 200, error: null, duration_ms: 7 }],
      response: { status: 200, body: 'answer 1' },
      next_attempt_at: null,
    });
  });

  it.each([201, 204, 299])('counts %i as success', async (status) => {
    const { clock, calls, send, only } = rig([status]);
    send();
    await clock.advance('4m');
    expect(calls).toHaveLength(1);
    expect(only()).toMatchObject({ state: 'delivered', response: { status, body: 'answer 1' } });
  });

  it.each([300, 404, 199])('counts %i as a failure and retries it', async (status) => {
    const { clock, calls, send, only } = rig([status]);
    send();
    await clock.advance('4m');
    expect(calls).toHaveLength(4);
    expect(only()).toMatchObject({ state: 'failed', response: { status, body: 'answer 4' } });
  });

  it('sends the first retry at t+30 s and not a second earlier', async () => {
    const { clock, calls, send } = rig([500]);
    send();
    await clock.advance('29s');
    expect(calls.map((c) => c.at)).toStrictEqual([T0]);
    await clock.advance('1s');
    expect(calls.map((c) => c.at)).toStrictEqual([T0, T0 + 30_000]);
  });

  it('sends the last retry at t+210 s and not a second earlier', async () => {
    const { clock, calls, send, only } = rig([500]);
    send();
    await clock.advance('209s');
    expect(calls).toHaveLength(3);
    expect(only().state).toBe('pending');
    await clock.advance('1s');
    expect(calls).toHaveLength(4);
    expect(calls[3]!.at).toBe(T0 + 210_000);
    expect(only().state).toBe('failed');
  });

  it('counts each retry delay from the previous attempt, not from the trigger', async () => {
    const { clock, calls, send } = rig([500]);
    await clock.advance('10s');
    send();
    await clock.advance('10m');
    expect(calls.map((c) => c.at - T0)).toStrictEqual([10_000, 40_000, 100_000, 220_000]);
  });

  it('ignores an attempt event for a delivery that already ended delivered', async () => {
    const { clock, calls, send, only } = rig([200]);
    send();
    await clock.advance(0);
    // A stale event, as a restored clock queue could hold.
    clock.schedule(clock.now() + 1_000, ATTEMPT_EVENT, { delivery_id: 1 });
    await clock.advance('1m');
    expect(calls).toHaveLength(1);
    expect(only().attempts).toHaveLength(1);
  });

  it('returns a copy of the new delivery, so changing it changes nothing', async () => {
    const { send, only } = rig([200]);
    const delivery = send();
    delivery.url = 'https://elsewhere.test/';
    delivery.attempts.push({ at: 0, status: 200, error: null, duration_ms: 0 });
    expect(only()).toMatchObject({ url: HOOK, attempts: [] });
  });

  it('keeps a copy of the payload, not the caller\'s object', async () => {
    const { clock, calls, send, only } = rig([200]);
    const payload = { status: 'ended', tags: ['a'] };
    send({ payload });
    payload.tags.push('b');
    await clock.advance(0);
    expect(only().payload).toStrictEqual({ status: 'ended', tags: ['a'] });
    expect(JSON.parse(calls[0]!.request.body)).toStrictEqual({ status: 'ended', tags: ['a'] });
  });
});

describe('the request given to deliver', () => {
  it('carries the payload as JSON text', async () => {
    const { clock, calls, send } = rig([200]);
    send();
    await clock.advance(0);
    expect(calls[0]!.request.url).toBe(HOOK);
    expect(calls[0]!.request.body).toBe(JSON.stringify(PAYLOAD));
  });

  it('carries content-type, the delivery id and the event kind as headers', async () => {
    const { clock, calls, send } = rig([200]);
    send({ kind: 'post_call' });
    send();
    await clock.advance(0);
    expect(calls.map((c) => c.request.headers)).toStrictEqual([
      { 'content-type': 'application/json', 'user-agent': 'voxsim-webhooks', 'x-voxsim-delivery': '1', 'x-voxsim-event': 'post_call', 'x-voxsim-attempt': '1' },
      { 'content-type': 'application/json', 'user-agent': 'voxsim-webhooks', 'x-voxsim-delivery': '2', 'x-voxsim-event': 'conversation_ended', 'x-voxsim-attempt': '1' },
    ]);
  });

  it('numbers the attempts 1 to 4 in x-voxsim-attempt', async () => {
    const { clock, calls, send } = rig([500]);
    send();
    await clock.advance('4m');
    expect(calls.map((c) => c.request.headers['x-voxsim-attempt'])).toStrictEqual(['1', '2', '3', '4']);
  });

  it('gives the receiver 10 seconds by default', async () => {
    const { clock, calls, send } = rig([200]);
    send();
    await clock.advance(0);
    expect(RECEIVER_TIMEOUT_MS).toBe(10_000);
    expect(calls[0]!.request.timeoutMs).toBe(10_000);
  });

  it('gives the receiver the timeout set in the options', async () => {
    const { clock, calls, send } = rig([200], { timeoutMs: 250 });
    send();
    await clock.advance(0);
    expect(calls[0]!.request.timeoutMs).toBe(250);
  });
});

describe('forced failures (failNext)', () => {
  it('returns the rule with url and kind null when they are absent', () => {
    const { engine } = rig([200]);
    expect(engine.failNext({ times: 2, with: 500 })).toStrictEqual({ id: 1, url: null, kind: null, times: 2, with: 500 });
  });

  it('fails the next two attempts with 500 without calling the receiver, then calls it', async () => {
    const { clock, engine, calls, send, only } = rig([200]);
    engine.failNext({ times: 2, with: 500 });
    send();
    await clock.advance('4m');
    expect(calls.map((c) => c.at)).toStrictEqual([T0 + 90_000]);
    expect(calls[0]!.request.headers['x-voxsim-attempt']).toBe('3');
    expect(only().attempts).toStrictEqual([
      { at: T0, status: 500, error: null, duration_ms: 0 },
      { at: T0 + 30_000, status: 500, error: null, duration_ms: 0 },
      { at: T0 + 90_000, status: 200, error: null, duration_ms: 7 },
    ]);
    expect(only()).toMatchObject({ state: 'delivered', response: { status: 200, body: 'answer 1' } });
  });

  it('records a forced status with an empty response body', async () => {
    const { clock, engine, send, only } = rig([200]);
    engine.failNext({ times: 1, with: 503 });
    send();
    await clock.advance(0);
    expect(only().response).toStrictEqual({ status: 503, body: '' });
  });

  it('applies a url-scoped rule only to deliveries to that url', async () => {
    const { clock, engine, calls, send, only } = rig([200]);
    engine.failNext({ url: OTHER_HOOK, times: 1, with: 500 });
    send({ url: HOOK });
    send({ url: OTHER_HOOK });
    await clock.advance(0);
    expect(calls.map((c) => c.request.url)).toStrictEqual([HOOK]);
    expect(only(1)).toMatchObject({ state: 'delivered' });
    expect(only(2)).toMatchObject({ state: 'pending', attempts: [{ at: T0, status: 500, error: null, duration_ms: 0 }] });
  });

  it('applies a kind-scoped rule only to deliveries of that kind', async () => {
    const { clock, engine, calls, send, only } = rig([200]);
    engine.failNext({ kind: 'post_call', times: 1, with: 500 });
    send({ kind: 'conversation_ended' });
    send({ kind: 'post_call' });
    await clock.advance(0);
    expect(calls.map((c) => c.request.headers['x-voxsim-event'])).toStrictEqual(['conversation_ended']);
    expect(only(1).state).toBe('delivered');
    expect(only(2)).toMatchObject({ state: 'pending', attempts: [{ status: 500 }] });
  });

  it('leaves a scoped rule waiting while only other deliveries are sent', async () => {
    const { clock, engine, send } = rig([200]);
    engine.failNext({ url: OTHER_HOOK, kind: 'post_call', times: 1, with: 500 });
    send({ url: OTHER_HOOK, kind: 'conversation_ended' });
    send({ url: HOOK, kind: 'post_call' });
    await clock.advance(0);
    expect(engine.failureRules()).toStrictEqual([{ id: 1, url: OTHER_HOOK, kind: 'post_call', times: 1, with: 500 }]);
  });

  it('records a forced timeout with status null and the error text', async () => {
    const { clock, engine, calls, send, only } = rig([200]);
    engine.failNext({ times: 1, with: 'timeout' });
    send();
    await clock.advance(0);
    expect(calls).toHaveLength(0);
    expect(only().attempts).toStrictEqual([{ at: T0, status: null, error: 'timeout (forced)', duration_ms: 0 }]);
    expect(only()).toMatchObject({ state: 'pending', response: null });
  });

  it('records a forced refusal with status null and the error text', async () => {
    const { clock, engine, calls, send, only } = rig([200]);
    engine.failNext({ times: 1, with: 'refused' });
    send();
    await clock.advance(0);
    expect(calls).toHaveLength(0);
    expect(only().attempts).toStrictEqual([{ at: T0, status: null, error: 'refused (forced)', duration_ms: 0 }]);
  });

  it('fails a delivery for good when four attempts are forced to fail', async () => {
    const { clock, engine, calls, send, only } = rig([200]);
    engine.failNext({ times: 4, with: 'refused' });
    send();
    await clock.advance('1h');
    expect(calls).toHaveLength(0);
    expect(only()).toMatchObject({ state: 'failed', next_attempt_at: null, response: null });
    expect(only().attempts.map((a) => a.at)).toStrictEqual(ATTEMPT_TIMES);
  });

  it('consumes a rule one attempt at a time and drops it when used up', async () => {
    const { clock, engine, send } = rig([200]);
    engine.failNext({ times: 2, with: 500 });
    send();
    await clock.advance(0);
    expect(engine.failureRules()).toStrictEqual([{ id: 1, url: null, kind: null, times: 1, with: 500 }]);
    await clock.advance('30s');
    expect(engine.failureRules()).toStrictEqual([]);
  });

  it('uses the oldest matching rule first', async () => {
    const { clock, engine, send, only } = rig([200]);
    engine.failNext({ times: 1, with: 503 });
    engine.failNext({ times: 1, with: 502 });
    send();
    await clock.advance('2m');
    expect(only().attempts.map((a) => a.status)).toStrictEqual([503, 502, 200]);
  });

  it('returns copies of the rules, so changing them changes nothing', () => {
    const { engine } = rig([200]);
    engine.failNext({ times: 2, with: 500 });
    engine.failureRules()[0]!.times = 99;
    expect(engine.failureRules()[0]!.times).toBe(2);
  });

  it('clears every forced failure so the next attempt calls the receiver', async () => {
    const { clock, engine, calls, send, only } = rig([200]);
    engine.failNext({ times: 3, with: 500 });
    engine.failNext({ kind: 'post_call', times: 1, with: 'timeout' });
    engine.clearFailures();
    expect(engine.failureRules()).toStrictEqual([]);
    send();
    await clock.advance(0);
    expect(calls).toHaveLength(1);
    expect(only().state).toBe('delivered');
  });
});

describe('the bounded journal', () => {
  it('evicts the oldest finished delivery when a fourth one is kept with a limit of 3', async () => {
    const { clock, engine, send } = rig([200], { journalLimit: 3 });
    for (let i = 0; i < 4; i++) {
      send();
      await clock.advance(0);
    }
    expect(engine.deliveries().map((d) => d.id)).toStrictEqual([2, 3, 4]);
    expect(engine.evicted).toBe(1);
  });

  it('counts every eviction', async () => {
    const { clock, engine, send } = rig([200], { journalLimit: 3 });
    for (let i = 0; i < 6; i++) {
      send();
      await clock.advance(0);
    }
    expect(engine.deliveries().map((d) => d.id)).toStrictEqual([4, 5, 6]);
    expect(engine.evicted).toBe(3);
  });

  it('never evicts a pending delivery, even over the limit', () => {
    const { engine, send } = rig([200], { journalLimit: 3 });
    for (let i = 0; i < 4; i++) send();
    expect(engine.deliveries().map((d) => [d.id, d.state])).toStrictEqual([
      [1, 'pending'],
      [2, 'pending'],
      [3, 'pending'],
      [4, 'pending'],
    ]);
    expect(engine.evicted).toBe(0);
  });

  it('skips an older pending delivery and evicts the oldest finished one', async () => {
    const clock = new VirtualClock(T0);
    const deliver: DeliverFn = async ({ url }) => ({ status: url === OTHER_HOOK ? 500 : 200, body: '', duration_ms: 1 });
    const engine = new WebhookEngine({ clock, deliver, journalLimit: 3 });
    engine.send({ account_id: 1, kind: 'conversation_ended', url: OTHER_HOOK, payload: {} });
    engine.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: {} });
    engine.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: {} });
    await clock.advance(0);
    engine.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: {} });
    expect(engine.deliveries().map((d) => [d.id, d.state])).toStrictEqual([
      [1, 'pending'],
      [3, 'delivered'],
      [4, 'pending'],
    ]);
    expect(engine.evicted).toBe(1);
  });

  it('evicts pending deliveries kept over the limit once they finish', async () => {
    const { clock, engine, send } = rig([200], { journalLimit: 3 });
    for (let i = 0; i < 5; i++) send();
    await clock.advance(0);
    expect(engine.deliveries().map((d) => d.id)).toStrictEqual([3, 4, 5]);
    expect(engine.evicted).toBe(2);
  });

  it('hands out copies of the journal, so changing them changes nothing', async () => {
    const { clock, engine, send } = rig([500]);
    send();
    await clock.advance(0);
    const [copy] = engine.deliveries();
    copy!.state = 'delivered';
    copy!.attempts.length = 0;
    expect(engine.deliveries()[0]).toMatchObject({ state: 'pending', attempts: [{ at: T0, status: 500 }] });
  });

  it('filters the journal by state and by kind, oldest first', async () => {
    const { clock, engine, send } = rig([200]);
    engine.failNext({ url: OTHER_HOOK, times: 1, with: 500 });
    send({ kind: 'post_call' });
    send({ url: OTHER_HOOK });
    send({ kind: 'post_call', url: OTHER_HOOK });
    await clock.advance(0);
    expect(engine.deliveries({ state: 'delivered' }).map((d) => d.id)).toStrictEqual([1, 3]);
    expect(engine.deliveries({ state: 'pending' }).map((d) => d.id)).toStrictEqual([2]);
    expect(engine.deliveries({ state: 'failed' })).toStrictEqual([]);
    expect(engine.deliveries({ kind: 'post_call' }).map((d) => d.id)).toStrictEqual([1, 3]);
    expect(engine.deliveries({ kind: 'conversation_ended', state: 'pending' }).map((d) => d.id)).toStrictEqual([2]);
  });
});

describe('onFinished', () => {
  it('tells a listener once about a delivery that ends delivered', async () => {
    const { clock, engine, send } = rig([500, 200]);
    const seen: Delivery[] = [];
    engine.onFinished((d) => seen.push(d));
    send();
    await clock.advance(0);
    expect(seen).toHaveLength(0);
    await clock.advance('1h');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ id: 1, state: 'delivered', next_attempt_at: null, response: { status: 200, body: 'answer 2' } });
    expect(seen[0]!.attempts).toHaveLength(2);
  });

  it('tells a listener once about a delivery that ends failed, after its fourth attempt', async () => {
    const { clock, engine, send } = rig([500]);
    const seen: Delivery[] = [];
    engine.onFinished((d) => seen.push(d));
    send();
    await clock.advance('209s');
    expect(seen).toHaveLength(0);
    await clock.advance('1h');
    expect(seen.map((d) => [d.id, d.state, d.attempts.length])).toStrictEqual([[1, 'failed', 4]]);
  });

  it('tells every listener about every delivery', async () => {
    const { clock, engine, send } = rig([200]);
    const first: number[] = [];
    const second: number[] = [];
    engine.onFinished((d) => first.push(d.id));
    engine.onFinished((d) => second.push(d.id));
    send();
    send();
    await clock.advance(0);
    expect(first).toStrictEqual([1, 2]);
    expect(second).toStrictEqual([1, 2]);
  });
});

describe('URLs under the simulator\'s own API (refuseUnder)', () => {
  it('fails every attempt to a URL under the prefix without calling the receiver', async () => {
    const { clock, engine, calls, send, only } = rig([200]);
    engine.refuseUnder('https://api.voxsim.test/api');
    send({ url: 'https://api.voxsim.test/api/hook' });
    await clock.advance('1h');
    expect(calls).toHaveLength(0);
    expect(only()).toMatchObject({ state: 'failed', response: null });
    expect(only().attempts).toStrictEqual(
      ATTEMPT_TIMES.map((at) => ({ at, status: null, error: "refused: the URL is the simulator's own API", duration_ms: 0 })),
    );
  });

  it.each([
    'https://api.voxsim.test/api?x=1',
    'https://api.voxsim.test/api#frag',
    'https://API.VOXSIM.TEST/api/user/me',
    'https://api.voxsim.test:443/api/user/me',
    'https://api.voxsim.test/x/../api/user/me',
  ])('refuses %s, which names the same place as a URL under the prefix', async (url) => {
    const { clock, engine, calls, send } = rig([200]);
    engine.refuseUnder('https://api.voxsim.test/api');
    send({ url });
    await clock.advance(0);
    expect(calls).toHaveLength(0);
  });

  it('refuses the prefix itself', async () => {
    const { clock, engine, calls, send } = rig([200]);
    engine.refuseUnder('https://api.voxsim.test/api');
    send({ url: 'https://api.voxsim.test/api' });
    await clock.advance(0);
    expect(calls).toHaveLength(0);
  });

  it('refuses under a prefix given with a trailing slash', async () => {
    const { clock, engine, calls, send, only } = rig([200]);
    engine.refuseUnder('https://api.voxsim.test/api/');
    send({ url: 'https://api.voxsim.test/api/hook' });
    await clock.advance(0);
    expect(calls).toHaveLength(0);
    expect(only().attempts[0]!.error).toBe("refused: the URL is the simulator's own API");
  });

  it('delivers to a URL that only shares the prefix\'s text (/apix)', async () => {
    const { clock, engine, calls, send, only } = rig([200]);
    engine.refuseUnder('https://api.voxsim.test/api');
    send({ url: 'https://api.voxsim.test/apix/hook' });
    await clock.advance(0);
    expect(calls.map((c) => c.request.url)).toStrictEqual(['https://api.voxsim.test/apix/hook']);
    expect(only().state).toBe('delivered');
  });
});

describe('snapshot and restore', () => {
  async function busyEngine() {
    const r = rig([500], { journalLimit: 2 });
    r.engine.failNext({ url: OTHER_HOOK, times: 3, with: 'timeout' });
    for (let i = 0; i < 3; i++) {
      r.send();
      await r.clock.advance('4m');
    }
    r.send();
    await r.clock.advance(0);
    return r;
  }

  it('keeps the deliveries, the forced failures and the eviction count', async () => {
    const { engine } = await busyEngine();
    const other = new WebhookEngine({ clock: new VirtualClock(T0), deliver: async () => ({ status: 200, body: '', duration_ms: 0 }) });
    other.restore(structuredClone(engine.snapshot()));
    expect(other.deliveries()).toStrictEqual(engine.deliveries());
    expect(other.deliveries().map((d) => [d.id, d.state])).toStrictEqual([
      [3, 'failed'],
      [4, 'pending'],
    ]);
    expect(other.failureRules()).toStrictEqual([{ id: 1, url: OTHER_HOOK, kind: null, times: 3, with: 'timeout' }]);
    expect(other.evicted).toBe(2);
  });

  it('goes on numbering deliveries and rules after a restore', async () => {
    const { engine } = await busyEngine();
    const clock = new VirtualClock(T0);
    const other = new WebhookEngine({ clock, deliver: async () => ({ status: 200, body: '', duration_ms: 0 }) });
    other.restore(engine.snapshot());
    expect(other.send({ account_id: 1, kind: 'post_call', url: HOOK, payload: {} }).id).toBe(5);
    expect(other.failNext({ times: 1, with: 500 }).id).toBe(2);
  });

  it('takes a snapshot that later changes do not alter', async () => {
    const { clock, engine, send } = await busyEngine();
    const snapshot = engine.snapshot();
    const saved = structuredClone(snapshot);
    send();
    engine.failNext({ times: 1, with: 500 });
    await clock.advance('1h');
    expect(snapshot).toStrictEqual(saved);
  });
});

describe('createSimulator options', () => {
  it('gives sim.webhooks the deliver function from the options', async () => {
    const urls: string[] = [];
    const sim = createSimulator({ startAt: START, deliver: async ({ url }) => (urls.push(url), { status: 204, body: '', duration_ms: 0 }) });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: PAYLOAD });
    await sim.clock.advance(0);
    expect(urls).toStrictEqual([HOOK]);
    expect(sim.webhooks.deliveries()[0]).toMatchObject({ state: 'delivered', response: { status: 204, body: '' } });
  });

  it('bounds the journal by webhookJournalLimit', async () => {
    const sim = createSimulator({ startAt: START, webhookJournalLimit: 1, deliver: async () => ({ status: 200, body: '', duration_ms: 0 }) });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: {} });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: {} });
    await sim.clock.advance(0);
    expect(sim.webhooks.deliveries().map((d) => d.id)).toStrictEqual([2]);
    expect(sim.webhooks.evicted).toBe(1);
  });

  it('passes webhookTimeoutMs to deliver', async () => {
    const timeouts: number[] = [];
    const sim = createSimulator({ startAt: START, webhookTimeoutMs: 1234, deliver: async ({ timeoutMs }) => (timeouts.push(timeoutMs), { status: 200, body: '', duration_ms: 0 }) });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: {} });
    await sim.clock.advance(0);
    expect(timeouts).toStrictEqual([1234]);
  });

  it('empties the journal and the forced failures on reset', async () => {
    const sim = createSimulator({ startAt: START, deliver: async () => ({ status: 200, body: '', duration_ms: 0 }) });
    sim.webhooks.failNext({ times: 1, with: 500 });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: {} });
    sim.webhooks.failNext({ times: 1, with: 500 });
    sim.reset();
    expect(sim.webhooks.deliveries()).toStrictEqual([]);
    expect(sim.webhooks.failureRules()).toStrictEqual([]);
    expect(sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: {} }).id).toBe(1);
  });
});

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('real HTTP to a local server (default realDeliver)', () => {
  let server: Server;
  let base: string;
  let received: Received[] = [];
  /** Answers the n-th request (1-based); `null` leaves it hanging. */
  let answer: (n: number) => { status: number; body: string } | null = () => ({ status: 200, body: 'ok' });
  const hanging: ServerResponse[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const reply = answer(received.length);
        if (reply === null) {
          hanging.push(res);
          return;
        }
        res.writeHead(reply.status, { 'content-type': 'text/plain' }).end(reply.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    received = [];
    answer = () => ({ status: 200, body: 'ok' });
  });

  const fiveHundredsThenOk = (n: number) => (n < 4 ? { status: 500, body: `down ${n}` } : { status: 200, body: 'thanks' });

  it('POSTs the JSON payload with the voxsim headers to the receiver', async () => {
    answer = fiveHundredsThenOk;
    const sim = createSimulator({ startAt: START });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: `${base}/hooks/ended`, payload: PAYLOAD });
    await sim.clock.advance('4m');
    expect(received).toHaveLength(4);
    received.forEach((r, i) => {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/hooks/ended');
      expect(JSON.parse(r.body)).toStrictEqual(PAYLOAD);
      expect(r.headers).toMatchObject({
        'content-type': 'application/json',
        'x-voxsim-delivery': '1',
        'x-voxsim-event': 'conversation_ended',
        'x-voxsim-attempt': String(i + 1),
      });
    });
  });

  it('retries a receiver answering 500, 500, 500, 200 at the clock times and ends delivered', async () => {
    answer = fiveHundredsThenOk;
    const sim = createSimulator({ startAt: START });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: `${base}/hooks/ended`, payload: PAYLOAD });
    await sim.clock.advance('4m');
    const [delivery] = sim.webhooks.deliveries();
    expect(delivery).toMatchObject({ state: 'delivered', next_attempt_at: null, response: { status: 200, body: 'thanks' } });
    expect(delivery!.attempts.map((a) => [a.at, a.status, a.error])).toStrictEqual([
      [ATTEMPT_TIMES[0], 500, null],
      [ATTEMPT_TIMES[1], 500, null],
      [ATTEMPT_TIMES[2], 500, null],
      [ATTEMPT_TIMES[3], 200, null],
    ]);
    expect(delivery!.attempts.every((a) => Number.isInteger(a.duration_ms) && a.duration_ms >= 0)).toBe(true);
  });

  it('fails a delivery to a receiver that always answers 500 after four requests and sends no fifth', async () => {
    answer = (n) => ({ status: 500, body: `down ${n}` });
    const sim = createSimulator({ startAt: START });
    sim.webhooks.send({ account_id: 1, kind: 'post_call', url: `${base}/hooks/call`, payload: { id: 1 } });
    await sim.clock.advance('4m');
    await sim.clock.advance('1h');
    expect(received).toHaveLength(4);
    expect(sim.webhooks.deliveries()[0]).toMatchObject({ state: 'failed', response: { status: 500, body: 'down 4' }, next_attempt_at: null });
    expect(sim.webhooks.deliveries()[0]!.attempts.map((a) => a.at)).toStrictEqual(ATTEMPT_TIMES);
  });

  it('counts a receiver that never answers within webhookTimeoutMs as a timeout', async () => {
    answer = () => null;
    const sim = createSimulator({ startAt: START, webhookTimeoutMs: 150 });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: `${base}/hooks/slow`, payload: PAYLOAD });
    // Only the first attempt: the one real wait of this file (~150 ms).
    await sim.clock.advance(0);
    expect(received).toHaveLength(1);
    const [delivery] = sim.webhooks.deliveries();
    expect(delivery).toMatchObject({ state: 'pending', next_attempt_at: T0 + 30_000, response: null });
    expect(delivery!.attempts).toHaveLength(1);
    expect(delivery!.attempts[0]).toMatchObject({ at: T0, status: null, error: 'timeout: The receiver did not answer within 150 ms.' });
    expect(delivery!.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(100);
  });

  it('counts a closed port as a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const sim = createSimulator({ startAt: START });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: `http://127.0.0.1:${port}/hook`, payload: PAYLOAD });
    await sim.clock.advance(0);
    const [delivery] = sim.webhooks.deliveries();
    expect(delivery).toMatchObject({ state: 'pending', next_attempt_at: T0 + 30_000, response: null });
    expect(delivery!.attempts[0]).toMatchObject({ at: T0, status: null, error: 'refused: Connection failed: ECONNREFUSED' });
  });
});

describe('an MSW handler in the same process', () => {
  const server = setupServer();

  beforeAll(() => server.listen({ onUnhandledFrame: 'bypass' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());

  it('receives the delivery when the clock advances', async () => {
    const bodies: unknown[] = [];
    const headers: (string | null)[] = [];
    server.use(
      http.post(HOOK, async ({ request }) => {
        bodies.push(await request.json());
        headers.push(request.headers.get('x-voxsim-event'));
        return new HttpResponse('received', { status: 200 });
      }),
    );
    const sim = createSimulator({ startAt: START });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: PAYLOAD });
    expect(bodies).toHaveLength(0);
    await sim.clock.advance('1s');
    expect(bodies).toStrictEqual([PAYLOAD]);
    expect(headers).toStrictEqual(['conversation_ended']);
    expect(sim.webhooks.deliveries()[0]).toMatchObject({ state: 'delivered', response: { status: 200, body: 'received' } });
  });

  it('delivers after two attempts when the handler answers 503 then 200', async () => {
    let n = 0;
    server.use(http.post(HOOK, () => (++n === 1 ? new HttpResponse('busy', { status: 503 }) : new HttpResponse('ok', { status: 200 }))));
    const sim = createSimulator({ startAt: START });
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: PAYLOAD });
    await sim.clock.advance('4m');
    const [delivery] = sim.webhooks.deliveries();
    expect(n).toBe(2);
    expect(delivery).toMatchObject({ state: 'delivered', response: { status: 200, body: 'ok' }, next_attempt_at: null });
    expect(delivery!.attempts.map((a) => [a.at, a.status])).toStrictEqual([
      [T0, 503],
      [T0 + 30_000, 200],
    ]);
  });

  it('refuses a webhook URL under the base URL given to handlers(), without looping into the simulator', async () => {
    const sim = createSimulator({ startAt: START });
    server.use(...handlers(sim, { baseUrl: 'https://api.voxsim.test/api' }));
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: 'https://api.voxsim.test/api/user/me', payload: PAYLOAD });
    await sim.clock.advance(0);
    expect(sim.webhooks.deliveries()[0]!.attempts).toStrictEqual([
      { at: T0, status: null, error: "refused: the URL is the simulator's own API", duration_ms: 0 },
    ]);
  });
});
