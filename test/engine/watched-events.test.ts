/**
 * The events a watcher needs on `sim.events` (issue 16): webhook deliveries and each
 * attempt, messaging windows opening and closing, conversations starting and ending,
 * clock moves, answered requests with their error text, resets, and the details of an
 * ended call. Time moves only through the virtual clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/types.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { watchEventSchemas } from '../support/events-check.js';
import { pipelineAssistant } from '../support/fixtures.js';

const START = '2026-03-02T09:00:00Z';
const T0 = Date.parse(START);
const HOOK = 'https://hooks.example.test/ended';
const KEY = 'sim_test_key';

async function request(sim: Simulator, method: string, path: string, body?: unknown, key: string | null = KEY) {
  const res = await sim.handle({
    method,
    path,
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return res as { status: number; body: any };
}

/** The schema checks of the rigs of the running test: every event a rig saw matches its schema (src/domain/sim-events.ts). */
let checks: (() => string[])[] = [];
afterEach(() => {
  for (const problems of checks) expect(problems()).toEqual([]);
  checks = [];
});

/** A simulator whose webhook receiver answers `statuses` in turn (the last repeats), and every event it emits. */
function rig(statuses: number[] = [200]) {
  let attempts = 0;
  const sim = createSimulator({
    seed: 1,
    startAt: START,
    deliver: async () => ({ status: statuses[Math.min(attempts++, statuses.length - 1)]!, body: '{}', duration_ms: 3 }),
  });
  checks.push(watchEventSchemas(sim));
  const events: SimEvent[] = [];
  sim.events.on('*', (e) => events.push(e));
  /** The events of a type prefix as `{event, at, ...data}` (data may hold its own `type`). */
  const of = (prefix: string): Record<string, any>[] => events.filter((e) => e.type.startsWith(prefix)).map((e) => ({ event: e.type, at: e.at, ...e.data }));
  return { sim, events, of };
}

/** A widget conversation of an assistant that ends after 5 idle minutes and reports to HOOK. */
async function widgetConversation(sim: Simulator, overrides: Record<string, unknown> = {}) {
  const created = await request(sim, 'POST', '/user/assistant', pipelineAssistant({ conversation_inactivity_timeout: 5, conversation_ended_webhook_url: HOOK, ...overrides }));
  const assistant = sim.db.assistants.get(created.body.data.id)!;
  const started = await request(sim, 'POST', '/conversations', { assistant_id: assistant.uuid }, null);
  return { assistant, uuid: started.body.conversation_id as string };
}

describe('webhook events', () => {
  it('reports the queued delivery and every attempt with its status, the state and the next retry time', async () => {
    const { sim, of } = rig([500, 503, 200]);
    const { uuid } = await widgetConversation(sim);
    await sim.clock.advance('5m');
    expect(of('webhook.')).toStrictEqual([
      { event: 'webhook.queued', at: T0 + 300_000, account_id: 1, delivery_id: 1, kind: 'conversation_ended', url: HOOK },
      {
        event: 'webhook.attempt',
        at: T0 + 300_000,
        account_id: 1,
        delivery_id: 1,
        kind: 'conversation_ended',
        url: HOOK,
        attempt: 1,
        status: 500,
        error: null,
        duration_ms: 3,
        state: 'pending',
        next_attempt_at: '2026-03-02T09:05:30Z',
      },
    ]);
    await sim.clock.advance('2m');
    const attempts = of('webhook.attempt');
    expect(attempts.map((a) => [a.at, a.attempt, a.status, a.state, a.next_attempt_at])).toStrictEqual([
      [T0 + 300_000, 1, 500, 'pending', '2026-03-02T09:05:30Z'],
      [T0 + 330_000, 2, 503, 'pending', '2026-03-02T09:06:30Z'],
      [T0 + 390_000, 3, 200, 'delivered', null],
    ]);
    expect(sim.webhooks.deliveries()[0]!.state).toBe('delivered');
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports a forced timeout with its error and the final failed state', async () => {
    const { sim, of } = rig();
    sim.webhooks.failNext({ times: 4, with: 'timeout' });
    await widgetConversation(sim);
    await sim.clock.advance('10m');
    const attempts = of('webhook.attempt');
    expect(attempts.map((a) => [a.attempt, a.status, a.error, a.state])).toStrictEqual([
      [1, null, 'timeout (forced)', 'pending'],
      [2, null, 'timeout (forced)', 'pending'],
      [3, null, 'timeout (forced)', 'pending'],
      [4, null, 'timeout (forced)', 'failed'],
    ]);
    expect(attempts.at(-1)!.next_attempt_at).toBeNull();
  });
});

describe('conversation events', () => {
  it('reports the start, the end by inactivity with its webhook, and a re-opening message', async () => {
    const { sim, of } = rig();
    const { assistant, uuid } = await widgetConversation(sim);
    await sim.clock.advance('5m');
    await request(sim, 'POST', `/conversations/${uuid}/messages`, { message: 'Still there?' }, null);
    await sim.clock.advance('5m');
    expect(of('conversation.')).toStrictEqual([
      { event: 'conversation.started', at: T0, account_id: 1, conversation_id: uuid, assistant_id: assistant.id, type: 'widget' },
      { event: 'conversation.ended', at: T0 + 300_000, account_id: 1, conversation_id: uuid, assistant_id: assistant.id, type: 'widget', message_count: 1, reason: 'inactivity', webhook: true },
      { event: 'conversation.reopened', at: T0 + 300_000, account_id: 1, conversation_id: uuid, assistant_id: assistant.id, type: 'widget' },
      { event: 'conversation.ended', at: T0 + 600_000, account_id: 1, conversation_id: uuid, assistant_id: assistant.id, type: 'widget', message_count: 3, reason: 'inactivity', webhook: false },
    ]);
  });

  it('names the conversation type in the data', async () => {
    const { sim, events } = rig();
    await widgetConversation(sim);
    const started = events.find((e) => e.type === 'conversation.started')!;
    expect(started.data).toStrictEqual({ account_id: 1, conversation_id: expect.stringMatching(/^[0-9a-f-]{36}$/), assistant_id: 1, type: 'widget' });
  });
});

describe('messaging window events', () => {
  it('reports the window opened by a template, reset by a customer message, and closed 24 hours later', async () => {
    const { sim, of } = rig();
    expect((await request(sim, 'POST', '/user/msgapp/send', { sender_id: 1, template_id: 2, recipient_phone: '+14155550177' })).status).toBe(200);
    await sim.clock.advance('1h');
    await request(sim, 'POST', '/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550177', text: 'hello' });
    await sim.clock.advance('25h');
    expect(of('msgapp.window_')).toStrictEqual([
      {
        event: 'msgapp.window_opened',
        at: T0,
        account_id: 1,
        session_id: 1,
        sender_id: 1,
        recipient_phone: '+14155550177',
        expires_at: '2026-03-03T09:00:00Z',
        by: 'template',
        was_open: false,
      },
      {
        event: 'msgapp.window_opened',
        at: T0 + 3_600_000,
        account_id: 1,
        session_id: 1,
        sender_id: 1,
        recipient_phone: '+14155550177',
        expires_at: '2026-03-03T10:00:00Z',
        by: 'customer_message',
        was_open: true,
      },
      { event: 'msgapp.window_closed', at: T0 + 25 * 3_600_000, account_id: 1, session_id: 1, sender_id: 1, recipient_phone: '+14155550177' },
    ]);
    // live-platform H.4: the template's delivery statuses, each on the clock.
    expect(of('msgapp.message_status').map((e) => [e.at - T0, e.status])).toEqual([
      [1_000, 'sent'],
      [3_000, 'delivered'],
      [33_000, 'read'],
    ]);
  });

  it('reports nothing for a refused send', async () => {
    const { sim, of } = rig();
    const refused = await request(sim, 'POST', '/user/msgapp/send-freeform', { sender_id: 1, recipient_phone: '+14155550177', message: 'Hi' });
    expect(refused.status).toBe(403);
    expect(of('msgapp.')).toEqual([]);
    expect(of('conversation.')).toEqual([]);
  });
});

describe('clock events', () => {
  it('reports each move with what moved it, from, to and how many events ran', async () => {
    const { sim, of } = rig();
    await sim.clock.advance('90s');
    await sim.clock.advanceTo(T0 + 3_600_000);
    sim.webhooks.send({ account_id: 1, kind: 'post_call', url: HOOK, payload: {} });
    await sim.clock.runUntilIdle();
    expect(of('clock.')).toStrictEqual([
      { event: 'clock.advanced', at: T0 + 90_000, by: 'advance', from: '2026-03-02T09:00:00Z', to: '2026-03-02T09:01:30Z', ran: 0 },
      { event: 'clock.advanced', at: T0 + 3_600_000, by: 'advance', from: '2026-03-02T09:01:30Z', to: '2026-03-02T10:00:00Z', ran: 0 },
      { event: 'clock.advanced', at: T0 + 3_600_000, by: 'run_until_idle', from: '2026-03-02T10:00:00Z', to: '2026-03-02T10:00:00Z', ran: 1 },
    ]);
  });

  it('reports a mode change with the speed', () => {
    const { sim, of } = rig();
    sim.clock.setMode('realtime', 60);
    sim.clock.setMode('manual');
    sim.dispose();
    expect(of('clock.mode').map((e) => [e.mode, e.speed])).toStrictEqual([
      ['realtime', 60],
      ['manual', 60],
    ]);
  });
});

describe('call events', () => {
  it('names the dialed number when a call is placed and its outcome and cost when it ends', async () => {
    const { sim, of } = rig();
    sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
    await request(sim, 'POST', '/user/assistant', pipelineAssistant({ phone_number_id: 1 }));
    expect((await request(sim, 'POST', '/user/make_call', { assistant_id: 1, phone_number: '+14155550003' })).status).toBe(200);
    await sim.clock.advance('10m');
    const statuses = of('call.status');
    expect(statuses[0]).toStrictEqual({ event: 'call.status', at: T0, account_id: 1, call_id: 1, status: 'initiated', campaign_id: null, lead_id: null, type: 'outbound', phone_number: '+14155550003' });
    expect(statuses.map((e) => e.status)).toEqual(['initiated', 'ringing', 'in-progress', 'ended']);
    const ended = statuses.at(-1)!;
    expect(ended).toMatchObject({ call_id: 1, status: 'ended', ended: true, answered_by: 'machine', total_cost: 0.11 });
    expect(ended.duration).toBeGreaterThan(0);
  });
});

describe('request and reset events', () => {
  it('reports each answered request with the error text of a failure', async () => {
    const { sim, of } = rig();
    await request(sim, 'GET', '/user/me');
    await request(sim, 'POST', '/user/assistant', { name: '' });
    await request(sim, 'GET', '/user/me', undefined, 'nope');
    expect(of('request.')).toStrictEqual([
      { event: 'request.answered', at: T0, method: 'GET', path: '/user/me', status: 200, account_id: 1, error: null },
      { event: 'request.answered', at: T0, method: 'POST', path: '/user/assistant', status: 422, account_id: 1, error: expect.stringMatching(/^The name field is required\. \(and \d+ more errors\)$/) },
      { event: 'request.answered', at: T0, method: 'GET', path: '/user/me', status: 401, account_id: null, error: 'Unauthenticated.' },
    ]);
  });

  it("leaves the watchers' own reads out of the journal and the stream", async () => {
    const { sim, of } = rig();
    await request(sim, 'GET', '/__sim/overview');
    await request(sim, 'GET', '/__sim/requests');
    await request(sim, 'GET', '/__sim/clock');
    expect(of('request.').map((e) => e.path)).toEqual(['/__sim/clock']);
    expect(sim.requests().data.map((e) => e.path)).toEqual(['/__sim/clock']);
  });

  it('reports a reset, and seq goes on from where it was', async () => {
    const { sim } = rig();
    await request(sim, 'GET', '/user/me');
    const before = sim.events.count;
    sim.reset({ seed: 9 });
    expect(sim.events.history()).toStrictEqual([{ type: 'sim.reset', at: T0, seq: before + 1, data: { seed: 9 } }]);
  });

  it('reports a restore', () => {
    const { sim } = rig();
    const saved = sim.snapshot();
    sim.restore(saved);
    expect(sim.events.history().map((e) => [e.type, e.data])).toStrictEqual([['sim.restored', { seed: 1 }]]);
  });
});
