/**
 * `sim.snapshot()` / `sim.restore()` in-process (issue 6, item 4 and its Must-show line:
 * "run half a campaign, snapshot, restore into a new simulator, finish both; histories
 * identical"; ARCHITECTURE §2 Clock: events are data so a snapshot includes the queue).
 *
 * The original runs a campaign with scripted outcome sequences and a post-call webhook
 * whose first attempts fail, a widget conversation with an inactivity timeout and a
 * messaging window; part way through, its snapshot goes through JSON into a simulator
 * created with another seed and start, and both run to the end. Time moves only through
 * the virtual clock.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClockEvent } from '../../src/core/clock.js';
import { REPLY_MESSAGES } from '../../src/engine/replies.js';
import type { DeliverFn, DeliverRequest } from '../../src/engine/webhooks.js';
import { SNAPSHOT_FORMAT, createSimulator, type Simulator, type SimulatorSnapshot } from '../../src/simulator.js';
import { SnapshotError } from '../../src/state/snapshot.js';
import { Database } from '../../src/domain/db.js';
import { callRow } from '../../src/domain/calls/row.js';
import { VERSION } from '../../src/version.js';
import { pipelineAssistant } from '../support/fixtures.js';

const START = '2026-03-02T09:00:00Z';
const AUTH = { authorization: 'Bearer sim_test_key' };
const CALLER = '+14155550100';
const POST_CALL_HOOK = 'https://hooks.example.test/post-call';
const ENDED_HOOK = 'https://hooks.example.test/conversation-ended';
const CUSTOMER = '+14155550123';
/** Magic suffixes (busy, no-answer, voicemail) and two human ones, in turn. */
const SUFFIXES = ['0001', '0002', '0003', '5555', '7777'];
/** 20 lead numbers: +1 415 3xx with the suffixes above in turn. */
const LEAD_NUMBERS = Array.from({ length: 20 }, (_, i) => `+1415${300 + i}${SUFFIXES[i % SUFFIXES.length]}`);

interface Rig {
  sim: Simulator;
  /** Every webhook request this simulator's `deliver` received, in order. */
  sent: DeliverRequest[];
  campaignId: number;
  assistantId: number;
  conversationId: string;
}

/** A simulator whose webhook receiver records each request and answers 200 with JSON naming the delivery. */
function simulator(seed: number, startAt: string): { sim: Simulator; sent: DeliverRequest[] } {
  const sent: DeliverRequest[] = [];
  const deliver: DeliverFn = async (request) => {
    sent.push(request);
    return { status: 200, body: JSON.stringify({ received: true, delivery: request.headers['x-voxsim-delivery'] }), duration_ms: 0 };
  };
  return { sim: createSimulator({ seed, startAt, deliver }), sent };
}

async function request(sim: Simulator, method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) {
  return sim.handle({ method, path, headers, body: body === undefined ? null : JSON.stringify(body) });
}

/** A request that must succeed; answers its body. */
async function ok(sim: Simulator, method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH): Promise<any> {
  const res = await request(sim, method, path, body, headers);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Every row of a paginated list, page by page, as JSON text (byte comparison). */
async function allPages(sim: Simulator, path: string): Promise<string> {
  const pages: unknown[] = [];
  for (let page = 1; ; page++) {
    const body = await ok(sim, 'GET', `${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
    pages.push(body);
    if (page >= body.last_page) break;
  }
  return JSON.stringify(pages);
}

/**
 * The original, stopped 10 minutes into its run (09:10): a campaign of 20 leads with outcome
 * sequences, a post-call webhook whose three attempts after 09:08 answer 500, a widget
 * conversation that ends after 5 idle minutes, and an open messaging window.
 */
async function original(): Promise<Rig> {
  const { sim, sent } = simulator(11, START);
  const number = sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: CALLER });
  const assistant = await ok(
    sim,
    'POST',
    '/user/assistant',
    pipelineAssistant({
      phone_number_id: number.id,
      is_webhook_active: true,
      webhook_url: POST_CALL_HOOK,
      send_webhook_only_on_completed: false,
      conversation_inactivity_timeout: 5,
      conversation_ended_webhook_url: ENDED_HOOK,
    }),
  );
  const assistantId = assistant.data.id as number;
  const uuid = (await ok(sim, 'GET', `/user/assistant/${assistantId}`)).data.uuid as string;
  const campaign = await ok(sim, 'POST', '/user/campaign', {
    name: 'Spring',
    assistant_id: assistantId,
    max_calls_in_parallel: 2,
    retry_interval: 10,
    max_retries: 3,
    retry_on_voicemail: true,
  });
  const campaignId = campaign.data.id as number;
  for (const [i, phone] of LEAD_NUMBERS.entries()) {
    await ok(sim, 'POST', '/user/lead', { campaign_id: campaignId, phone_number: phone, variables: { name: `Lead ${i}` } });
  }
  sim.control.outcomes.set({
    rules: [
      { match: { phone_number: LEAD_NUMBERS[5]! }, outcomes: ['busy', 'no-answer', 'human'] },
      { match: { phone_number: LEAD_NUMBERS[6]! }, outcomes: ['voicemail', 'human'] },
      { match: { lead_variables: { name: 'Lead 8' } }, outcomes: ['no-answer', 'no-answer', 'no-answer', 'busy'] },
    ],
  });
  sim.control.replies.set({ rules: [{ when: 'price', reply: 'Plans start at 10 USD.' }] });
  await ok(sim, 'POST', '/user/campaigns/update-status', { campaign_id: campaignId, action: 'start' });
  const conversation = await ok(sim, 'POST', '/conversations', { assistant_id: uuid }, {});
  const conversationId = conversation.conversation_id as string;
  sim.control.msgapp.inbound({ sender_id: 1, from: CUSTOMER, text: 'Hi', name: 'Ann' });
  await sim.clock.advance('8m');
  await ok(sim, 'POST', `/conversations/${conversationId}/messages`, { message: 'What is the price?' }, {});
  // The receiver "goes down" shortly before the snapshot, so retries are waiting at 09:10.
  sim.webhooks.failNext({ times: 3, with: 500 });
  await sim.clock.advance('2m');
  return { sim, sent, campaignId, assistantId, conversationId };
}

/** The snapshot after a JSON round trip, as a state file or `PUT /__sim/state` carries it. */
function viaJson(snapshot: SimulatorSnapshot): SimulatorSnapshot {
  return JSON.parse(JSON.stringify(snapshot)) as SimulatorSnapshot;
}

/** A simulator with another seed and start than the original, restored from `snapshot`. */
function restoredFrom(snapshot: SimulatorSnapshot): { sim: Simulator; sent: DeliverRequest[] } {
  const target = simulator(97, '2030-01-01T00:00:00Z');
  target.sim.restore(viaJson(snapshot));
  return target;
}

/** What the account sees, each as the exact JSON text of its answer. */
async function histories(rig: Pick<Rig, 'sim' | 'campaignId' | 'conversationId'>) {
  const { sim } = rig;
  return {
    calls: await allPages(sim, '/user/calls'),
    leads: await allPages(sim, `/user/leads?campaign_id=${rig.campaignId}`),
    conversations: await allPages(sim, '/user/conversations'),
    msgapp: await allPages(sim, '/user/conversations?type=msgapp'),
    conversation: JSON.stringify(await ok(sim, 'GET', `/conversations/${rig.conversationId}`, undefined, {})),
    deliveries: JSON.stringify(await ok(sim, 'GET', '/__sim/webhooks/deliveries')),
    session: JSON.stringify(await ok(sim, 'GET', `/user/msgapp/session-status?sender_id=1&recipient_phone=${encodeURIComponent(CUSTOMER)}`)),
    me: JSON.stringify(await ok(sim, 'GET', '/user/me')),
    now: sim.clock.now(),
  };
}

function summary(events: ClockEvent[]): string[] {
  return events.map((e) => `${e.type}@${new Date(e.at).toISOString()}`);
}

describe('the state at snapshot time', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await original();
  });

  it('holds a post-call webhook delivery that failed and waits for its retry', () => {
    const waiting = rig.sim.webhooks.deliveries({ kind: 'post_call', state: 'pending' }).filter((d) => d.attempts.length > 0);
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting[0]!.attempts.every((a) => a.status === 500)).toBe(true);
    expect(waiting[0]!.next_attempt_at).toBeGreaterThan(rig.sim.clock.now());
  });

  it('holds rescheduled leads with their retries on the clock', async () => {
    const leads = (await ok(rig.sim, 'GET', `/user/leads?campaign_id=${rig.campaignId}&per_page=100`)).data as { status: string }[];
    expect(leads.filter((l) => l.status === 'rescheduled').length).toBeGreaterThan(0);
    expect(summary(rig.sim.clock.pendingEvents()).some((e) => e.startsWith('lead.retry@'))).toBe(true);
  });

  it('holds the widget conversation open with its inactivity end 5 minutes after the last message', () => {
    expect(summary(rig.sim.clock.pendingEvents())).toContain('conversation.inactive@2026-03-02T09:13:00.000Z');
  });

  it('holds the messaging window open until 24 hours after the customer message', async () => {
    const status = await ok(rig.sim, 'GET', `/user/msgapp/session-status?sender_id=1&recipient_phone=${encodeURIComponent(CUSTOMER)}`);
    expect(status.session_status).toMatchObject({ is_open: true, expires_at: '2026-03-03T09:00:00Z' });
    expect(summary(rig.sim.clock.pendingEvents())).toContain('msgapp.session_close@2026-03-03T09:00:00.000Z');
  });
});

describe('a snapshot', () => {
  it('names its format, version, seed and clock time', async () => {
    const rig = await original();
    const snapshot = rig.sim.snapshot();
    expect(snapshot).toMatchObject({ format: SNAPSHOT_FORMAT, version: VERSION, seed: 11, start: Date.parse(START) });
    expect(snapshot.format).toBe('voxsim-snapshot/1');
    expect(snapshot.clock.now).toBe(Date.parse('2026-03-02T09:10:00Z'));
  });

  it('is plain JSON: a JSON round trip gives an equal value', async () => {
    const rig = await original();
    const snapshot = rig.sim.snapshot();
    expect(viaJson(snapshot)).toStrictEqual(snapshot);
  });

  it('does not change when the simulator moves on', async () => {
    const rig = await original();
    const snapshot = rig.sim.snapshot();
    const saved = JSON.stringify(snapshot);
    await rig.sim.clock.runUntilIdle();
    expect(JSON.stringify(snapshot)).toBe(saved);
  });
});

describe('restore into a new simulator with another seed and start', () => {
  let source: Rig;
  let target: { sim: Simulator; sent: DeliverRequest[] };
  let pendingAtSnapshot: ClockEvent[];
  let pendingAfterRestore: ClockEvent[];
  let nowAfterRestore: number;
  let sentBeforeSnapshot: number;
  let finishedSource: Awaited<ReturnType<typeof histories>>;
  let finishedTarget: Awaited<ReturnType<typeof histories>>;

  beforeAll(async () => {
    source = await original();
    const snapshot = source.sim.snapshot();
    pendingAtSnapshot = source.sim.clock.pendingEvents();
    sentBeforeSnapshot = source.sent.length;
    target = restoredFrom(snapshot);
    pendingAfterRestore = target.sim.clock.pendingEvents();
    nowAfterRestore = target.sim.clock.now();
    await source.sim.clock.runUntilIdle();
    await target.sim.clock.runUntilIdle();
    finishedSource = await histories(source);
    finishedTarget = await histories({ ...source, sim: target.sim });
  });

  it("continues at the original's clock time", () => {
    expect(nowAfterRestore).toBe(Date.parse('2026-03-02T09:10:00Z'));
  });

  it("holds exactly the original's pending events, in the same order", () => {
    expect(pendingAfterRestore.length).toBeGreaterThan(3);
    expect(pendingAfterRestore).toStrictEqual(pendingAtSnapshot);
  });

  it('finishes with byte-identical calls', () => {
    const calls = JSON.parse(finishedSource.calls) as { total: number }[];
    expect(calls[0]!.total).toBeGreaterThan(LEAD_NUMBERS.length);
    expect(finishedTarget.calls).toBe(finishedSource.calls);
  });

  it('finishes with byte-identical leads, none left scheduled or rescheduled', () => {
    const leads = (JSON.parse(finishedSource.leads) as { data: { status: string }[] }[]).flatMap((p) => p.data);
    expect(leads).toHaveLength(LEAD_NUMBERS.length);
    expect(leads.filter((l) => l.status === 'scheduled' || l.status === 'rescheduled')).toEqual([]);
    expect(finishedTarget.leads).toBe(finishedSource.leads);
  });

  it('finishes with byte-identical widget conversations, the open one ended by inactivity', () => {
    const ended = source.sim.webhooks.deliveries({ kind: 'conversation_ended' }).map((d) => d.payload as { conversation_id: string; status: string });
    expect(ended).toEqual([expect.objectContaining({ conversation_id: source.conversationId, status: 'ended' })]);
    expect(finishedTarget.conversations).toBe(finishedSource.conversations);
    expect(finishedTarget.conversation).toBe(finishedSource.conversation);
  });

  it('finishes with byte-identical messaging conversations', () => {
    expect(JSON.parse(finishedSource.msgapp)[0].total).toBe(1);
    expect(finishedTarget.msgapp).toBe(finishedSource.msgapp);
  });

  it('finishes with byte-identical webhook deliveries: ids, states and attempts', () => {
    const deliveries = (JSON.parse(finishedSource.deliveries) as { data: { id: number; state: string; attempts: unknown[] }[] }).data;
    expect(deliveries.some((d) => d.attempts.length > 1 && d.state === 'delivered')).toBe(true);
    expect(deliveries.some((d) => d.state === 'pending')).toBe(false);
    expect(finishedTarget.deliveries).toBe(finishedSource.deliveries);
  });

  it('sends the receiver the same webhook requests the original sends after the snapshot', () => {
    const sourceAfter = source.sent.slice(sentBeforeSnapshot);
    expect(sourceAfter.length).toBeGreaterThan(0);
    expect(target.sent).toStrictEqual(sourceAfter);
  });

  it('finishes with the same messaging session status, the window closed', () => {
    expect(JSON.parse(finishedSource.session).session_status.is_open).toBe(false);
    expect(finishedTarget.session).toBe(finishedSource.session);
  });

  it('finishes with the same account (GET /user/me), balance included', () => {
    expect(finishedTarget.me).toBe(finishedSource.me);
  });

  it('finishes at the same clock time', () => {
    expect(finishedTarget.now).toBeGreaterThanOrEqual(Date.parse('2026-03-03T09:00:00Z'));
    expect(finishedTarget.now).toBe(finishedSource.now);
  });
});

describe('restore, further', () => {
  it("continues the original's random stream: the next uuid is the same on both", async () => {
    const source = await original();
    const target = restoredFrom(source.sim.snapshot());
    const uuid = (await ok(source.sim, 'GET', `/user/assistant/${source.assistantId}`)).data.uuid as string;
    const a = await ok(source.sim, 'POST', '/conversations', { assistant_id: uuid }, {});
    const b = await ok(target.sim, 'POST', '/conversations', { assistant_id: uuid }, {});
    expect(b.conversation_id).toBe(a.conversation_id);
    expect(b.conversation_id).not.toBe(source.conversationId);
  });

  it('answers a list of calls by status as its first request, as the original does (the calls are made on first use)', async () => {
    const source = await original();
    const snapshot = source.sim.snapshot();
    for (const query of ['status=completed', `status=busy&campaign_id=${source.campaignId}`, `type=outbound&assistant_id=${source.assistantId}&status=no-answer`]) {
      // A fresh restore per query: each list is the first thing the restored simulator reads.
      const target = restoredFrom(snapshot);
      const expected = await allPages(source.sim, `/user/calls?${query}`);
      expect(JSON.parse(expected)[0].total, query).toBeGreaterThan(0);
      expect(await allPages(target.sim, `/user/calls?${query}`), query).toBe(expected);
    }
  });

  it("gives the groups of a restored database's calls before anything has read the calls", async () => {
    const source = await original();
    const db = new Database();
    db.restore(viaJson(source.sim.snapshot()).db as unknown as Parameters<Database['restore']>[0], true);
    expect(db.callGroupsOf(1)).toEqual([{ id: expect.any(Number), account_id: 1, type: 'outbound', campaign_id: source.campaignId, assistant_id: source.assistantId }]);
  });

  it('gives the group of a call just inserted, before anything has read the calls (its key is noted, made on the next read)', () => {
    const { sim } = simulator(97, START);
    sim.accountScope(1)!.calls.insertRow((id, accountId) =>
      callRow(id, { account_id: accountId, assistant_id: null, assistant_name: 'A', campaign_id: null, type: 'inbound', assistant_phone_number: CALLER, client_phone_number: CUSTOMER, status: 'completed', created_at: Date.parse(START) }),
    );
    expect(sim.db.callGroupsOf(1)).toEqual([{ id: expect.any(Number), account_id: 1, type: 'inbound', campaign_id: null, assistant_id: null }]);
  });

  it('replaces everything the target held: its own assistant and account are gone', async () => {
    const source = await original();
    const target = simulator(97, '2030-01-01T00:00:00Z').sim;
    await ok(target, 'POST', '/user/assistant', pipelineAssistant({ name: 'Target Only' }));
    target.control.accounts.create({ api_key: 'sim_target_key' });
    target.restore(viaJson(source.sim.snapshot()));
    const names = (await ok(target, 'GET', '/user/assistants/get')).data.map((a: { name: string }) => a.name);
    expect(names).toEqual(['Sales Assistant']);
    expect((await request(target, 'GET', '/user/me', undefined, { authorization: 'Bearer sim_target_key' })).status).toBe(401);
    expect(target.control.accounts.list().data.map((a) => a.api_key)).toEqual(['sim_test_key']);
  });

  it.each([
    ['an empty object', {}],
    ['null', null],
    ['another format', { format: 'voxsim-snapshot/2' }],
  ])('refuses %s with a TypeError naming the format', (_name, value) => {
    const { sim } = simulator(97, START);
    expect(() => sim.restore(value as unknown as SimulatorSnapshot)).toThrow(new TypeError('Not a voxsim snapshot (expected format "voxsim-snapshot/1").'));
  });

  it('restores a snapshot 128 levels deep and refuses 129 with a TypeError naming the path, changing nothing', () => {
    const { sim } = simulator(97, START);
    // An account row is level 5 (snapshot, db, accounts, rows, row): `n` arrays in a field of it reach level n + 5.
    const withField = (levels: number) => {
      const snapshot = sim.snapshot();
      (snapshot.db.accounts!.rows[0] as unknown as Record<string, unknown>).deep = JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
      return snapshot;
    };
    sim.restore(withField(123));
    const before = JSON.stringify(sim.snapshot());
    expect(() => sim.restore(withField(124))).toThrow(new SnapshotError('db.accounts.rows.0.deep.0.0.0.…', 'The snapshot may not nest more than 128 levels deep'));
    expect(() => sim.restore(withField(124))).toThrow('The snapshot is damaged at db.accounts.rows.0.deep.0.0.0.…: The snapshot may not nest more than 128 levels deep.');
    expect(JSON.stringify(sim.snapshot())).toBe(before);
  });

  it('refuses a snapshot whose reply rule can backtrack catastrophically, naming the field', () => {
    const { sim } = simulator(97, START);
    const snapshot = { ...sim.snapshot(), replies: [{ assistant_id: null, when: { regex: '^(a+)+$' }, reply: 'x', function_calls: [], set_variables: {} }] };
    expect(() => sim.restore(snapshot)).toThrow(new SnapshotError('replies[0].when.regex', REPLY_MESSAGES.catastrophicRegex.replace(':attribute', 'replies.0.when.regex').replace(/\.$/, '')));
    expect(() => sim.restore(snapshot)).toThrow(`The snapshot is damaged at replies[0].when.regex: ${REPLY_MESSAGES.catastrophicRegex.replace(':attribute', 'replies.0.when.regex')}`);
  });

  it('leaves the target unchanged when it refuses a non-snapshot', async () => {
    const { sim } = simulator(97, START);
    await ok(sim, 'POST', '/user/assistant', pipelineAssistant({ name: 'Kept' }));
    const before = JSON.stringify(sim.snapshot());
    expect(() => sim.restore({ db: {} } as unknown as SimulatorSnapshot)).toThrow(TypeError);
    expect(JSON.stringify(sim.snapshot())).toBe(before);
  });
});
