/**
 * The call lifecycle on the virtual clock, scripted outcomes and the post-call webhook
 * (spec: Assistant fields ringing_time, max_duration, voice_mail_message, record,
 * is_webhook_active, webhook_url, send_webhook_only_on_completed,
 * include_recording_in_webhook, post_call_evaluation, post_call_schema; Call table and
 * states; decisions: Call transitions, Billing defaults, Costs of unanswered calls,
 * Recording, Post-call webhook payload, Assistant activation, Outcome sequences,
 * make_call; ARCHITECTURE §4 Call lifecycle, Scripted outcomes; §6 PUT /__sim/outcomes,
 * POST /__sim/calls/inbound). Calls are driven in-process with POST /user/make_call and
 * the clock only.
 */
import { describe, expect, it } from 'vitest';
import type { DeliverRequest, DeliverResult } from '../../src/engine/webhooks.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { pipelineAssistant } from '../support/fixtures.js';
import type { OutcomesInput } from '../../src/types.js';

const START = '2026-03-02T09:00:00Z';
const T0 = Date.parse(START);
const KEY = 'sim_test_key';
const ASSISTANT_NUMBER = '+14155550100';
const INBOUND_NUMBER = '+14155550101';
const CUSTOMER = '+14155550123';
const OTHER_CUSTOMER = '+14155550124';
const HOOK = 'https://hooks.example.test/post-call';
const SECOND = 1000;

const SCHEMA = [
  { name: 'booked', type: 'bool', description: 'Whether a demo was booked' },
  { name: 'guests', type: 'number', description: 'How many people attend' },
  { name: 'slot', type: 'string', description: 'The slot agreed on' },
];

interface Res {
  status: number;
  body: any;
}

interface Attempt {
  /** Clock time when the receiver was called. */
  at: number;
  request: DeliverRequest;
  payload: any;
}

interface Rig {
  sim: Simulator;
  /** Every post-call attempt the receiver saw. */
  attempts: Attempt[];
  /** `call.status` events per call id: [clock ms, status]. */
  statuses(callId: number): [number, string][];
  request(method: string, path: string, body?: unknown): Promise<Res>;
  /** Creates an assistant holding ASSISTANT_NUMBER (or INBOUND_NUMBER when inbound); answers its id. */
  assistant(overrides?: Record<string, unknown>): Promise<number>;
  /** POST /user/make_call; answers the call id. */
  makeCall(phone: string, variables?: Record<string, unknown>, assistantId?: number): Promise<number>;
  call(id: number): Promise<any>;
  balance(): Promise<number>;
  /** POST /__sim/reset (numbers and assistants are gone afterwards). */
  reset(): Promise<Res>;
}

/**
 * A fresh simulator whose webhook receiver answers `answer` (default 200 with a JSON
 * body) and records each attempt with the clock time.
 */
function rig(answer: (attempt: number) => Omit<DeliverResult, 'duration_ms'> = () => ({ status: 200, body: '{"received":true}' })): Rig {
  const attempts: Attempt[] = [];
  const events: { call_id: number; at: number; status: string }[] = [];
  const sim: Simulator = createSimulator({
    seed: 1,
    startAt: START,
    deliver: async (request) => {
      attempts.push({ at: sim.clock.now(), request, payload: JSON.parse(request.body) });
      return { ...answer(attempts.length), duration_ms: 1 };
    },
  });
  sim.events.on('call.status', (e) => events.push({ call_id: e.data.call_id as number, at: e.at, status: e.data.status as string }));
  const numbers = new Map<string, number>();
  const numberId = (phone: string) => {
    if (!numbers.has(phone)) numbers.set(phone, sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: phone }).id);
    return numbers.get(phone)!;
  };
  const request = async (method: string, path: string, body?: unknown): Promise<Res> => {
    const res = await sim.handle({ method, path, headers: { authorization: `Bearer ${KEY}` }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    return { status: res.status, body: res.body };
  };
  return {
    sim,
    attempts,
    statuses: (callId) => events.filter((e) => e.call_id === callId).map((e) => [e.at, e.status]),
    request,
    assistant: async (overrides = {}) => {
      const phone = overrides.type === 'inbound' ? INBOUND_NUMBER : ASSISTANT_NUMBER;
      const res = await request('POST', '/user/assistant', pipelineAssistant({ phone_number_id: numberId(phone), ...overrides }));
      expect(res.status).toBe(201);
      return res.body.data.id;
    },
    makeCall: async (phone, variables, assistantId = 1) => {
      const res = await request('POST', '/user/make_call', { assistant_id: assistantId, phone_number: phone, ...(variables && { variables }) });
      expect(res.status).toBe(200);
      return res.body.call_id;
    },
    call: async (id) => {
      const res = await request('GET', `/user/calls/${id}`);
      expect(res.status).toBe(200);
      return res.body;
    },
    balance: async () => (await request('GET', '/user/me')).body.total_balance,
    reset: async () => {
      numbers.clear();
      return request('POST', '/__sim/reset', {});
    },
  };
}

/** One call to CUSTOMER with `outcome`, played to its end; answers the call as GET shows it. */
async function scripted(r: Rig, outcome: OutcomesInput[number], phone = CUSTOMER, variables?: Record<string, unknown>): Promise<any> {
  r.sim.control.outcomes.forNumber(phone, [outcome]);
  const id = await r.makeCall(phone, variables);
  await r.sim.clock.advance('30m');
  return r.call(id);
}

/** A campaign of assistant 1 with these leads; answers the campaign id (not started). */
async function campaign(r: Rig, name = 'Spring'): Promise<number> {
  const res = await r.request('POST', '/user/campaign', { name, assistant_id: 1 });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function lead(r: Rig, campaignId: number, phone: string, variables: Record<string, unknown> = {}): Promise<number> {
  const res = await r.request('POST', '/user/lead', { campaign_id: campaignId, phone_number: phone, variables });
  expect(res.status).toBe(200);
  return res.body.data.id;
}

async function start(r: Rig, campaignId: number): Promise<void> {
  const res = await r.request('POST', '/user/campaigns/update-status', { campaign_id: campaignId, action: 'start' });
  expect(res.body).toStrictEqual({ message: expect.any(String), success: true, data: { campaign_id: campaignId, status: 'in-progress' } });
}

/** The calls to a number, oldest first. */
async function callsTo(r: Rig, phone: string): Promise<any[]> {
  const res = await r.request('GET', '/user/calls');
  return res.body.data.filter((c: any) => c.client_phone_number === phone).reverse();
}

const LINE = /^(Assistant|Customer): /;

describe('call lifecycle: status sequence on the clock', () => {
  it('moves a scripted human call initiated, ringing 1 s later, in-progress after the ring and completed after the talk', async () => {
    const r = rig();
    await r.assistant();
    r.sim.control.outcomes.forNumber(CUSTOMER, [{ kind: 'human', ring_seconds: 4, talk_seconds: 90 }]);
    const id = await r.makeCall(CUSTOMER);
    await r.sim.clock.advance('5m');
    expect(r.statuses(id)).toStrictEqual([
      [T0, 'initiated'],
      [T0 + 1 * SECOND, 'ringing'],
      [T0 + 5 * SECOND, 'in-progress'],
      [T0 + 95 * SECOND, 'completed'],
    ]);
  });

  it('reads the scripted human call back completed with duration 90, answered by a human', async () => {
    const r = rig();
    await r.assistant();
    const call = await scripted(r, { kind: 'human', ring_seconds: 4, talk_seconds: 90 });
    expect(call).toMatchObject({ id: 1, type: 'outbound', status: 'completed', duration: 90, answered_by: 'human', assistant_phone_number: ASSISTANT_NUMBER, client_phone_number: CUSTOMER });
    expect(call.updated_at).toBe('2026-03-02 09:01:35');
  });

  it('times a default human call from the moment it is placed, its talk time equal to its duration', async () => {
    const r = rig();
    await r.assistant();
    await r.sim.clock.advance('7m');
    const t = T0 + 7 * 60 * SECOND;
    const id = await r.makeCall(CUSTOMER);
    await r.sim.clock.advance('10m');
    const call = await r.call(id);
    const seen = r.statuses(id);
    expect(seen.map(([, s]) => s)).toStrictEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    expect(seen[0]![0]).toBe(t);
    expect(seen[1]![0]).toBe(t + SECOND);
    expect(seen[2]![0]).toBeGreaterThan(t + SECOND);
    expect(seen[3]![0] - seen[2]![0]).toBe(call.duration * SECOND);
    expect(call.duration).toBeGreaterThan(0);
  });

  it('shows the call initiated before the clock moves', async () => {
    const r = rig();
    await r.assistant();
    const id = await r.makeCall(CUSTOMER);
    expect(await r.call(id)).toMatchObject({ status: 'initiated', duration: 0, answered_by: 'unknown', transcript: '', total_cost: 0 });
  });

  it('rings a no-answer call for the assistant ringing_time and then ends it no-answer', async () => {
    const r = rig();
    await r.assistant({ ringing_time: 12 });
    const id = await r.makeCall('+14155550002');
    await r.sim.clock.advance('5m');
    expect(r.statuses(id)).toStrictEqual([
      [T0, 'initiated'],
      [T0 + SECOND, 'ringing'],
      [T0 + 13 * SECOND, 'no-answer'],
    ]);
  });

  it.each([
    ['busy', '+14155550001'],
    ['failed', '+14155550004'],
  ])('ends a %s call from ringing without going in-progress', async (status, phone) => {
    const r = rig();
    await r.assistant();
    const id = await r.makeCall(phone);
    await r.sim.clock.advance('5m');
    expect(r.statuses(id).map(([, s]) => s)).toStrictEqual(['initiated', 'ringing', status]);
    expect(await r.call(id)).toMatchObject({ status, answered_by: 'unknown', duration: 0, transcript: '' });
  });

  it('takes a voicemail in-progress, then ended, answered by a machine', async () => {
    const r = rig();
    await r.assistant();
    const id = await r.makeCall('+14155550003');
    await r.sim.clock.advance('5m');
    expect(r.statuses(id).map(([, s]) => s)).toStrictEqual(['initiated', 'ringing', 'in-progress', 'ended']);
    expect(await r.call(id)).toMatchObject({ status: 'ended', answered_by: 'machine' });
  });

  it('leaves voice_mail_message, its variables filled, in the transcript of a voicemail', async () => {
    const r = rig();
    await r.assistant({ voice_mail_message: 'Please call {{company}} back on 555.' });
    const id = await r.makeCall('+14155550003', { company: 'Acme' });
    await r.sim.clock.advance('5m');
    const call = await r.call(id);
    expect(call.transcript.split('\n')).toContain('Assistant: Please call Acme back on 555.');
    expect(call.transcript.split('\n').every((l: string) => LINE.test(l))).toBe(true);
  });

  it('caps talk_seconds above max_duration at max_duration and ends the call ended_by_assistant', async () => {
    const r = rig();
    await r.assistant({ max_duration: 60 });
    r.sim.control.outcomes.forNumber(CUSTOMER, [{ kind: 'human', ring_seconds: 2, talk_seconds: 500 }]);
    const id = await r.makeCall(CUSTOMER);
    await r.sim.clock.advance('15m');
    expect(r.statuses(id).slice(-2)).toStrictEqual([
      [T0 + 3 * SECOND, 'in-progress'],
      [T0 + 63 * SECOND, 'ended_by_assistant'],
    ]);
    expect(await r.call(id)).toMatchObject({ status: 'ended_by_assistant', duration: 60, answered_by: 'human', total_cost: 0.11 });
  });

  it('keeps a talk of exactly max_duration completed', async () => {
    const r = rig();
    await r.assistant({ max_duration: 60 });
    const call = await scripted(r, { kind: 'human', talk_seconds: 60 });
    expect(call).toMatchObject({ status: 'completed', duration: 60 });
  });
});

describe('call lifecycle: costs', () => {
  it('bills 90 s at 0.10/min per second plus two started carrier minutes: total 0.17, carrier 0.02', async () => {
    const r = rig();
    await r.assistant();
    const call = await scripted(r, { kind: 'human', ring_seconds: 4, talk_seconds: 90 });
    expect({ total_cost: call.total_cost, carrier_cost: call.carrier_cost }).toStrictEqual({ total_cost: 0.17, carrier_cost: 0.02 });
  });

  it('debits the balance by exactly the total cost', async () => {
    const r = rig();
    await r.assistant();
    expect(await r.balance()).toBe(100);
    await scripted(r, { kind: 'human', ring_seconds: 4, talk_seconds: 90 });
    expect(await r.balance()).toBe(99.83);
  });

  it.each([
    [20, 0.06, 0.01],
    [30, 0.06, 0.01],
    [31, 0.061667, 0.01],
    [60, 0.11, 0.01],
    [61, 0.121667, 0.02],
  ])('bills a talk of %i s as total %d with carrier %d (30 s minimum, per second, carrier per started minute)', async (talk, total, carrier) => {
    const r = rig();
    await r.assistant();
    const call = await scripted(r, { kind: 'human', talk_seconds: talk });
    expect({ duration: call.duration, total_cost: call.total_cost, carrier_cost: call.carrier_cost }).toStrictEqual({ duration: talk, total_cost: total, carrier_cost: carrier });
  });

  it.each([
    ['busy', '+14155550001'],
    ['no-answer', '+14155550002'],
    ['failed', '+14155550004'],
  ])('charges nothing for a %s call and records duration 0', async (status, phone) => {
    const r = rig();
    await r.assistant();
    const id = await r.makeCall(phone);
    await r.sim.clock.advance('5m');
    expect(await r.call(id)).toMatchObject({ status, duration: 0, total_cost: 0, carrier_cost: 0 });
    expect(await r.balance()).toBe(100);
  });

  it.each([5, 300])('bills a voicemail of %i s as one minute of AI and one of carrier: 0.11', async (talk) => {
    const r = rig();
    await r.assistant();
    const call = await scripted(r, { kind: 'voicemail', talk_seconds: talk });
    expect(call).toMatchObject({ status: 'ended', answered_by: 'machine', duration: talk, total_cost: 0.11, carrier_cost: 0.01 });
    expect(await r.balance()).toBe(99.89);
  });
});

describe('call lifecycle: recording', () => {
  it('gives an answered call of a recording assistant its recording URL', async () => {
    const r = rig();
    await r.assistant({ record: true });
    const call = await scripted(r, 'human');
    // live-platform H.7: the simulator's own link, under its base URL (the server's default here).
    expect(call.recording_url).toMatch(/^http:\/\/127\.0\.0\.1:4010\/api\/files\/sim\/rec-1-[0-9a-f]{32}\/recording\.mp3$/);
  });

  it('gives a voicemail of a recording assistant its recording URL', async () => {
    const r = rig();
    await r.assistant({ record: true });
    await r.makeCall(CUSTOMER);
    const id = await r.makeCall('+14155550003');
    await r.sim.clock.advance('10m');
    expect((await r.call(id)).recording_url).toMatch(/\/files\/sim\/rec-2-[0-9a-f]{32}\/recording\.mp3$/);
  });

  it('keeps recording_url null for a busy call of a recording assistant', async () => {
    const r = rig();
    await r.assistant({ record: true });
    const id = await r.makeCall('+14155550001');
    await r.sim.clock.advance('5m');
    const call = await r.call(id);
    expect(call.status).toBe('busy');
    expect(call).toHaveProperty('recording_url', null);
  });

  it('keeps recording_url null, the key present, when record is false', async () => {
    const r = rig();
    await r.assistant({ record: false });
    const call = await scripted(r, 'human');
    expect(call.status).toBe('completed');
    expect(Object.keys(call)).toContain('recording_url');
    expect(call.recording_url).toBeNull();
  });
});

describe('call lifecycle: transcript, variables and evaluation', () => {
  it('opens the transcript of a human call with the greeting, its variables filled from make_call', async () => {
    const r = rig();
    await r.assistant({ initial_message: 'Hi {{name}}, this is Ava from {{company}}.' });
    const id = await r.makeCall(CUSTOMER, { name: 'Ann', company: 'Acme' });
    await r.sim.clock.advance('10m');
    const call = await r.call(id);
    expect(call.transcript.split('\n')[0]).toBe('Assistant: Hi Ann, this is Ava from Acme.');
  });

  it('fills the greeting from the assistant variables where make_call gives none', async () => {
    const r = rig();
    await r.assistant({ initial_message: 'Hi {{name}}, this is Ava from {{company}}.', variables: { company: 'Acme', name: 'there' } });
    const id = await r.makeCall(CUSTOMER, { name: 'Ann' });
    await r.sim.clock.advance('10m');
    expect((await r.call(id)).transcript.split('\n')[0]).toBe('Assistant: Hi Ann, this is Ava from Acme.');
  });

  it('writes a human call as alternating Assistant / Customer lines', async () => {
    const r = rig();
    await r.assistant();
    const call = await scripted(r, 'human');
    const lines: string[] = call.transcript.split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    lines.forEach((line, i) => expect(line.startsWith(i % 2 === 0 ? 'Assistant: ' : 'Customer: ')).toBe(true));
  });

  it('collects variables typed per post_call_schema for a human call: bool true, a number, a string', async () => {
    const r = rig();
    await r.assistant({ post_call_schema: SCHEMA });
    const call = await scripted(r, 'human');
    expect(Object.keys(call.variables).sort()).toStrictEqual(['booked', 'guests', 'slot']);
    expect(call.variables.booked).toBe(true);
    expect(typeof call.variables.guests).toBe('number');
    expect(typeof call.variables.slot).toBe('string');
  });

  it('evaluates a human call with the same typed values when post_call_evaluation is on (the default)', async () => {
    const r = rig();
    await r.assistant({ post_call_schema: SCHEMA });
    const call = await scripted(r, 'human');
    expect(call.evaluation).toStrictEqual(call.variables);
    expect(call.evaluation.booked).toBe(true);
  });

  it('leaves evaluation empty when post_call_evaluation is false', async () => {
    const r = rig();
    await r.assistant({ post_call_schema: SCHEMA, post_call_evaluation: false });
    const call = await scripted(r, 'human');
    expect(call.evaluation).toStrictEqual({});
    expect(call.variables.booked).toBe(true);
  });

  it('ends a goal-incomplete call ended_by_customer with its bool items false', async () => {
    const r = rig();
    await r.assistant({ post_call_schema: SCHEMA });
    const id = await r.makeCall('+14155550005');
    await r.sim.clock.advance('10m');
    const call = await r.call(id);
    expect(call).toMatchObject({ status: 'ended_by_customer', answered_by: 'human' });
    expect(call.variables.booked).toBe(false);
    expect(call.evaluation.booked).toBe(false);
  });
});

describe('call lifecycle: outcome object fields', () => {
  it('writes scripted transcript lines: strings as given, {role, content} with Assistant / Customer', async () => {
    const r = rig();
    await r.assistant();
    const call = await scripted(r, {
      kind: 'human',
      transcript: ['Assistant: Hello there.', { role: 'customer', content: 'Who is it?' }, { role: 'assistant', content: 'Ava from Acme.' }, { role: 'user', content: 'Bye.' }],
    });
    expect(call.transcript).toBe('Assistant: Hello there.\nCustomer: Who is it?\nAssistant: Ava from Acme.\nCustomer: Bye.');
  });

  it('stores scripted variables as the collected variables', async () => {
    const r = rig();
    await r.assistant({ post_call_schema: SCHEMA });
    const call = await scripted(r, { kind: 'human', variables: { booked: false, slot: 'friday', extra: [1, 2] } });
    expect(call.variables).toStrictEqual({ booked: false, slot: 'friday', extra: [1, 2] });
  });

  it('stores a scripted evaluation as the evaluation', async () => {
    const r = rig();
    await r.assistant({ post_call_schema: SCHEMA });
    const call = await scripted(r, { kind: 'human', evaluation: { score: 9, summary: 'Booked a demo.' } });
    expect(call.evaluation).toStrictEqual({ score: 9, summary: 'Booked a demo.' });
  });

  it('ends the call with a scripted final status', async () => {
    const r = rig();
    await r.assistant();
    const call = await scripted(r, { kind: 'human', status: 'ended_by_customer', talk_seconds: 40 });
    expect(call).toMatchObject({ status: 'ended_by_customer', duration: 40, answered_by: 'human' });
  });

  it('records a scripted answered_by', async () => {
    const r = rig();
    await r.assistant();
    const call = await scripted(r, { kind: 'human', answered_by: 'unknown', talk_seconds: 40 });
    expect(call).toMatchObject({ status: 'completed', answered_by: 'unknown', duration: 40 });
  });

  it('rings for scripted ring_seconds', async () => {
    const r = rig();
    await r.assistant();
    r.sim.control.outcomes.forNumber(CUSTOMER, [{ kind: 'busy', ring_seconds: 25 }]);
    const id = await r.makeCall(CUSTOMER);
    await r.sim.clock.advance('5m');
    expect(r.statuses(id).at(-1)).toStrictEqual([T0 + 26 * SECOND, 'busy']);
  });
});

describe('call lifecycle: assistant activation', () => {
  it('makes the assistant active as soon as make_call initiates a call', async () => {
    const r = rig();
    await r.assistant();
    expect((await r.request('GET', '/user/assistant/1')).body.data.status).toBe('inactive');
    await r.makeCall(CUSTOMER);
    expect((await r.request('GET', '/user/assistant/1')).body.data.status).toBe('active');
  });

  it('keeps the assistant active after a busy call', async () => {
    const r = rig();
    await r.assistant();
    await r.makeCall('+14155550001');
    await r.sim.clock.advance('5m');
    expect((await r.request('GET', '/user/assistant/1')).body.data.status).toBe('active');
  });
});

describe('outcomes: magic numbers', () => {
  it.each([
    ['0001', 'busy', 'unknown'],
    ['0002', 'no-answer', 'unknown'],
    ['0003', 'ended', 'machine'],
    ['0004', 'failed', 'unknown'],
    ['0005', 'ended_by_customer', 'human'],
  ])('ends a call to a number ending %s with no setup as %s, answered by %s', async (suffix, status, answeredBy) => {
    const r = rig();
    await r.assistant();
    const id = await r.makeCall(`+1415555${suffix}`);
    await r.sim.clock.advance('10m');
    expect(await r.call(id)).toMatchObject({ status, answered_by: answeredBy });
  });

  it('answers any other number by a human, completed', async () => {
    const r = rig();
    await r.assistant();
    const id = await r.makeCall('+14155550006');
    await r.sim.clock.advance('10m');
    expect(await r.call(id)).toMatchObject({ status: 'completed', answered_by: 'human' });
  });

  it('lets a rule for the exact number beat its magic suffix', async () => {
    const r = rig();
    await r.assistant();
    const call = await scripted(r, 'human', '+14155550001');
    expect(call).toMatchObject({ status: 'completed', answered_by: 'human' });
  });

  it('lets a catch-all rule beat a magic suffix', async () => {
    const r = rig();
    await r.assistant();
    r.sim.control.outcomes.set({ rules: [{ outcomes: ['failed'] }] });
    const id = await r.makeCall('+14155550003');
    await r.sim.clock.advance('10m');
    expect(await r.call(id)).toMatchObject({ status: 'failed', answered_by: 'unknown' });
  });
});

describe('outcomes: precedence among rules', () => {
  const EXACT = '+14155550131';
  const GOLD = '+14155550132';
  const PLAIN = '+14155550133';
  const OUTSIDE = '+14155550134';

  /**
   * Catch-all voicemail, campaign no-answer, lead variables {tier: gold} busy, exact
   * EXACT failed — set least specific first, so insertion order cannot explain the result.
   * Leads: EXACT (gold), GOLD (gold, plus another variable), PLAIN (none); a make_call to OUTSIDE.
   */
  async function precedence(): Promise<Rig> {
    const r = rig();
    await r.assistant();
    const id = await campaign(r);
    r.sim.control.outcomes.set({
      rules: [
        { match: {}, outcomes: ['voicemail'] },
        { match: { campaign_id: id }, outcomes: ['no-answer'] },
        { match: { lead_variables: { tier: 'gold' } }, outcomes: ['busy'] },
        { match: { phone_number: EXACT }, outcomes: ['failed'] },
      ],
    });
    await lead(r, id, EXACT, { tier: 'gold' });
    await lead(r, id, GOLD, { tier: 'gold', city: 'Berlin' });
    await lead(r, id, PLAIN);
    await start(r, id);
    await r.makeCall(OUTSIDE);
    await r.sim.clock.advance('10m');
    return r;
  }

  it('applies the exact-number rule over the lead-variables, campaign and catch-all rules', async () => {
    const r = await precedence();
    expect((await callsTo(r, EXACT)).map((c) => c.status)).toStrictEqual(['failed']);
  });

  it('applies the lead-variables rule over the campaign and catch-all rules', async () => {
    const r = await precedence();
    expect((await callsTo(r, GOLD)).map((c) => c.status)).toStrictEqual(['busy']);
  });

  it('applies the campaign rule over the catch-all rule', async () => {
    const r = await precedence();
    expect((await callsTo(r, PLAIN)).map((c) => c.status)).toStrictEqual(['no-answer']);
  });

  it('applies the catch-all rule to a make_call no other rule matches', async () => {
    const r = await precedence();
    expect((await callsTo(r, OUTSIDE)).map((c) => [c.status, c.answered_by])).toStrictEqual([['ended', 'machine']]);
  });

  it('does not apply a lead-variables rule to a lead whose value differs', async () => {
    const r = rig();
    await r.assistant();
    const id = await campaign(r);
    r.sim.control.outcomes.forLeadVariables({ tier: 'gold' }, ['busy']);
    await lead(r, id, GOLD, { tier: 'silver' });
    await start(r, id);
    await r.sim.clock.advance('10m');
    expect((await callsTo(r, GOLD)).map((c) => c.status)).toStrictEqual(['completed']);
  });

  it('applies a forCampaign rule to the calls of that campaign only', async () => {
    const r = rig();
    await r.assistant();
    const id = await campaign(r);
    r.sim.control.outcomes.forCampaign(id, ['failed']);
    await lead(r, id, PLAIN);
    await start(r, id);
    await r.makeCall(OUTSIDE);
    await r.sim.clock.advance('10m');
    expect([(await callsTo(r, PLAIN))[0].status, (await callsTo(r, OUTSIDE))[0].status]).toStrictEqual(['failed', 'completed']);
  });
});

describe('outcomes: sequences', () => {
  async function dialTimes(r: Rig, phone: string, times: number): Promise<string[]> {
    const statuses: string[] = [];
    for (let i = 0; i < times; i++) {
      const id = await r.makeCall(phone);
      await r.sim.clock.advance('10m');
      statuses.push((await r.call(id)).status);
    }
    return statuses;
  }

  it('plays busy, no-answer, human on three calls, then human again on a fourth', async () => {
    const r = rig();
    await r.assistant();
    r.sim.control.outcomes.forNumber(CUSTOMER, ['busy', 'no-answer', 'human']);
    expect(await dialTimes(r, CUSTOMER, 4)).toStrictEqual(['busy', 'no-answer', 'completed', 'completed']);
  });

  it('repeats the last outcome once the sequence is used up', async () => {
    const r = rig();
    await r.assistant();
    r.sim.control.outcomes.forNumber(CUSTOMER, ['no-answer', 'busy']);
    expect(await dialTimes(r, CUSTOMER, 4)).toStrictEqual(['no-answer', 'busy', 'busy', 'busy']);
  });

  it('counts attempts per dialed number: a call to another number consumes nothing', async () => {
    const r = rig();
    await r.assistant();
    r.sim.control.outcomes.set({ rules: [{ match: {}, outcomes: ['busy', 'failed'] }] });
    expect([...(await dialTimes(r, CUSTOMER, 1)), ...(await dialTimes(r, OTHER_CUSTOMER, 1)), ...(await dialTimes(r, CUSTOMER, 1))]).toStrictEqual(['busy', 'busy', 'failed']);
  });

  it('continues a number sequence from make_call into a campaign dial', async () => {
    const r = rig();
    await r.assistant();
    r.sim.control.outcomes.forNumber(CUSTOMER, ['busy', 'failed']);
    await dialTimes(r, CUSTOMER, 1);
    const id = await campaign(r);
    await lead(r, id, CUSTOMER);
    await start(r, id);
    await r.sim.clock.advance('10m');
    expect((await callsTo(r, CUSTOMER)).map((c) => [c.campaign_id, c.status])).toStrictEqual([
      [null, 'busy'],
      [id, 'failed'],
    ]);
  });

  it('continues a number sequence from one campaign into another', async () => {
    const r = rig();
    await r.assistant();
    r.sim.control.outcomes.forNumber(CUSTOMER, ['busy', 'voicemail']);
    const first = await campaign(r, 'First');
    await lead(r, first, CUSTOMER);
    await start(r, first);
    await r.sim.clock.advance('10m');
    await r.request('POST', '/user/campaigns/update-status', { campaign_id: first, action: 'stop' });
    const second = await campaign(r, 'Second');
    await lead(r, second, CUSTOMER);
    await start(r, second);
    await r.sim.clock.advance('10m');
    expect((await callsTo(r, CUSTOMER)).map((c) => [c.campaign_id, c.status])).toStrictEqual([
      [first, 'busy'],
      [second, 'ended'],
    ]);
  });
});

describe('outcomes: reset', () => {
  it('forgets every rule on POST /__sim/reset', async () => {
    const r = rig();
    r.sim.control.outcomes.forNumber(CUSTOMER, ['busy']);
    const reset = await r.reset();
    expect(reset).toStrictEqual({ status: 200, body: { ok: true, seed: 1, now: '2026-03-02T09:00:00Z' } });
    expect((await r.request('GET', '/__sim/outcomes')).body).toStrictEqual({ rules: [] });
  });

  it('restarts sequence counts on POST /__sim/reset', async () => {
    const r = rig();
    await r.assistant();
    r.sim.control.outcomes.forNumber(CUSTOMER, ['busy', 'failed']);
    await r.makeCall(CUSTOMER);
    await r.sim.clock.advance('10m');
    await r.reset();
    await r.assistant();
    r.sim.control.outcomes.forNumber(CUSTOMER, ['busy', 'failed']);
    const id = await r.makeCall(CUSTOMER);
    await r.sim.clock.advance('10m');
    expect(await r.call(id)).toMatchObject({ id: 1, status: 'busy' });
  });

  it('plays a magic number again after a reset removed the rule that overrode it', async () => {
    const r = rig();
    r.sim.control.outcomes.forNumber('+14155550001', ['human']);
    await r.reset();
    await r.assistant();
    const id = await r.makeCall('+14155550001');
    await r.sim.clock.advance('10m');
    expect((await r.call(id)).status).toBe('busy');
  });
});

describe('inbound calls', () => {
  async function inbound(r: Rig, from = OTHER_CUSTOMER): Promise<Res> {
    return r.request('POST', '/__sim/calls/inbound', { to: INBOUND_NUMBER, from });
  }

  it('answers 201 with the new call id', async () => {
    const r = rig();
    await r.assistant({ type: 'inbound' });
    const res = await inbound(r);
    expect(res).toStrictEqual({ status: 201, body: { call_id: 1 } });
  });

  it('records an inbound call from the caller to the assistant number', async () => {
    const r = rig();
    await r.assistant({ type: 'inbound', name: 'Front Desk' });
    await inbound(r);
    expect(await r.call(1)).toMatchObject({
      type: 'inbound',
      assistant_id: 1,
      assistant_name: 'Front Desk',
      assistant_phone_number: INBOUND_NUMBER,
      client_phone_number: OTHER_CUSTOMER,
      campaign_id: null,
      status: 'initiated',
    });
  });

  it('plays the inbound call out on the clock: ringing 1 s later, then in-progress and completed', async () => {
    const r = rig();
    await r.assistant({ type: 'inbound' });
    await inbound(r);
    await r.sim.clock.advance('10m');
    const call = await r.call(1);
    const seen = r.statuses(1);
    expect(seen.map(([, s]) => s)).toStrictEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    expect(seen.slice(0, 2)).toStrictEqual([
      [T0, 'initiated'],
      [T0 + SECOND, 'ringing'],
    ]);
    expect(seen[3]![0] - seen[2]![0]).toBe(call.duration * SECOND);
    expect(call).toMatchObject({ status: 'completed', answered_by: 'human' });
  });

  it('makes the inbound assistant active when the call rings in', async () => {
    const r = rig();
    await r.assistant({ type: 'inbound' });
    await inbound(r);
    expect((await r.request('GET', '/user/assistant/1')).body.data.status).toBe('active');
  });

  it('answers 404 shape A for a number held only by an outbound assistant', async () => {
    const r = rig();
    await r.assistant();
    const res = await r.request('POST', '/__sim/calls/inbound', { to: ASSISTANT_NUMBER, from: OTHER_CUSTOMER });
    expect(res).toStrictEqual({ status: 404, body: { message: 'No inbound assistant answers this number.' } });
    expect((await r.request('GET', '/user/calls')).body.total).toBe(0);
  });
});

describe('post-call webhook', () => {
  const hooked = (overrides: Record<string, unknown> = {}) => ({ is_webhook_active: true, webhook_url: HOOK, ...overrides });
  const PAYLOAD_KEYS = [
    'assistant_phone',
    'campaign',
    'created_at',
    'customer_phone',
    'duration',
    'extracted_variables',
    'finished_at',
    'id',
    'input_variables',
    'lead',
    'recording_url',
    'status',
    'total_cost',
    'transcript',
  ];

  it('sends one payload with exactly the documented keys, recording_url included by default', async () => {
    const r = rig();
    await r.assistant(hooked({ record: true }));
    await scripted(r, 'human');
    expect(r.attempts).toHaveLength(1);
    expect(Object.keys(r.attempts[0]!.payload).sort()).toStrictEqual(PAYLOAD_KEYS);
  });

  it('sends the values of a make_call: numbers, duration, status, variables, times in the assistant timezone, no lead or campaign, total cost', async () => {
    const r = rig();
    await r.assistant(hooked({ record: true, post_call_schema: SCHEMA }));
    const call = await scripted(r, { kind: 'human', ring_seconds: 4, talk_seconds: 90, variables: { booked: true, guests: 2, slot: 'monday' } }, CUSTOMER, { name: 'Ann' });
    expect(r.attempts[0]!.payload).toStrictEqual({
      id: 1,
      customer_phone: CUSTOMER,
      assistant_phone: ASSISTANT_NUMBER,
      duration: 90,
      status: 'completed',
      extracted_variables: { booked: true, guests: 2, slot: 'monday' },
      input_variables: { name: 'Ann' },
      transcript: call.transcript,
      recording_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4010\/api\/files\/sim\/rec-1-[0-9a-f]{32}\/recording\.mp3$/),
      created_at: '2026-03-02T10:00:00+01:00',
      finished_at: '2026-03-02T10:01:35+01:00',
      lead: null,
      campaign: null,
      total_cost: 0.17,
    });
  });

  it('sends the transcript as a string of Assistant / Customer lines', async () => {
    const r = rig();
    await r.assistant(hooked());
    await scripted(r, 'human');
    const transcript = r.attempts[0]!.payload.transcript;
    expect(typeof transcript).toBe('string');
    expect(transcript.startsWith('Assistant: ')).toBe(true);
    expect(transcript.split('\n').every((l: string) => LINE.test(l))).toBe(true);
    expect(transcript).toContain('\nCustomer: ');
  });

  it('writes created_at and finished_at with the offset of the assistant timezone', async () => {
    const r = rig();
    await r.assistant(hooked({ timezone: 'America/New_York' }));
    await scripted(r, { kind: 'human', ring_seconds: 4, talk_seconds: 90 });
    const { created_at, finished_at } = r.attempts[0]!.payload;
    expect({ created_at, finished_at }).toStrictEqual({ created_at: '2026-03-02T04:00:00-05:00', finished_at: '2026-03-02T04:01:35-05:00' });
  });

  it('makes the first attempt when the call ends', async () => {
    const r = rig();
    await r.assistant(hooked());
    await scripted(r, { kind: 'human', ring_seconds: 4, talk_seconds: 90 });
    expect(r.attempts.map((a) => a.at)).toStrictEqual([T0 + 95 * SECOND]);
    expect(r.attempts[0]!.request.url).toBe(HOOK);
  });

  it('leaves recording_url out of the payload when include_recording_in_webhook is false', async () => {
    const r = rig();
    await r.assistant(hooked({ record: true, include_recording_in_webhook: false }));
    await scripted(r, 'human');
    expect(r.attempts[0]!.payload).not.toHaveProperty('recording_url');
    expect(Object.keys(r.attempts[0]!.payload)).toHaveLength(PAYLOAD_KEYS.length - 1);
  });

  it('sends recording_url null when the assistant does not record', async () => {
    const r = rig();
    await r.assistant(hooked({ record: false }));
    await scripted(r, 'human');
    expect(r.attempts[0]!.payload).toHaveProperty('recording_url', null);
  });

  it('describes the lead and the campaign of a campaign call as they are once the call has settled them', async () => {
    const r = rig();
    await r.assistant(hooked());
    const id = await campaign(r);
    const leadId = await lead(r, id, CUSTOMER, { first_name: 'Ann' });
    await start(r, id);
    await r.sim.clock.advance('10m');
    const { lead: sentLead, campaign: sentCampaign, input_variables } = r.attempts[0]!.payload;
    expect({ lead: sentLead, campaign: sentCampaign, input_variables }).toStrictEqual({
      lead: { id: leadId, phone_number: CUSTOMER, status: 'completed', variables: { first_name: 'Ann' } },
      campaign: { id, name: 'Spring', status: 'completed' },
      input_variables: { first_name: 'Ann' },
    });
  });

  it('sends the webhook of a completed call when send_webhook_only_on_completed is on (the default)', async () => {
    const r = rig();
    await r.assistant(hooked());
    await scripted(r, 'human');
    expect(r.attempts.map((a) => a.payload.status)).toStrictEqual(['completed']);
  });

  it.each([
    ['busy', '+14155550001'],
    ['voicemail', '+14155550003'],
    ['goal-incomplete', '+14155550005'],
  ])('sends nothing for a %s call when send_webhook_only_on_completed is on', async (_, phone) => {
    const r = rig();
    await r.assistant(hooked());
    await r.makeCall(phone);
    await r.sim.clock.advance('10m');
    expect(r.attempts).toHaveLength(0);
    expect(r.sim.webhooks.deliveries()).toHaveLength(0);
  });

  it.each([
    ['busy', '+14155550001'],
    ['no-answer', '+14155550002'],
    ['ended', '+14155550003'],
    ['failed', '+14155550004'],
    ['ended_by_customer', '+14155550005'],
    ['completed', '+14155550006'],
  ])('sends the webhook of a %s call when send_webhook_only_on_completed is false', async (status, phone) => {
    const r = rig();
    await r.assistant(hooked({ send_webhook_only_on_completed: false }));
    await r.makeCall(phone);
    await r.sim.clock.advance('10m');
    expect(r.attempts.map((a) => [a.payload.status, a.payload.customer_phone])).toStrictEqual([[status, phone]]);
  });

  it('sends an unanswered call with duration 0, an empty transcript and total cost 0', async () => {
    const r = rig();
    await r.assistant(hooked({ send_webhook_only_on_completed: false }));
    await r.makeCall('+14155550001');
    await r.sim.clock.advance('10m');
    expect(r.attempts[0]!.payload).toMatchObject({ status: 'busy', duration: 0, transcript: '', total_cost: 0, extracted_variables: {} });
  });

  it('sends nothing when is_webhook_active is false, even with a webhook_url', async () => {
    const r = rig();
    await r.assistant({ is_webhook_active: false, webhook_url: HOOK, send_webhook_only_on_completed: false });
    await scripted(r, 'human');
    await r.makeCall('+14155550001');
    await r.sim.clock.advance('10m');
    expect(r.attempts).toHaveLength(0);
    expect(r.sim.webhooks.deliveries()).toHaveLength(0);
  });

  it("stores the receiver's status and parsed JSON body as the call's webhook_response once delivered", async () => {
    const r = rig(() => ({ status: 200, body: '{"received":true,"ref":"abc"}' }));
    await r.assistant(hooked());
    const call = await scripted(r, 'human');
    expect(call.webhook_response).toStrictEqual({ status: 200, body: { received: true, ref: 'abc' }, delivery: 'delivered' });
  });

  it('keeps a body that is not JSON as text in webhook_response', async () => {
    const r = rig(() => ({ status: 202, body: 'thanks' }));
    await r.assistant(hooked());
    const call = await scripted(r, 'human');
    expect(call.webhook_response).toStrictEqual({ status: 202, body: 'thanks', delivery: 'delivered' });
  });

  it('keeps webhook_response null while the delivery waits for a retry', async () => {
    const r = rig((n) => (n === 1 ? { status: 500, body: 'down' } : { status: 200, body: '{}' }));
    await r.assistant(hooked());
    r.sim.control.outcomes.forNumber(CUSTOMER, [{ kind: 'human', ring_seconds: 4, talk_seconds: 90 }]);
    await r.makeCall(CUSTOMER);
    await r.sim.clock.advance(95 * SECOND);
    expect(r.attempts).toHaveLength(1);
    expect((await r.call(1)).webhook_response).toBeNull();
    await r.sim.clock.advance('30s');
    expect((await r.call(1)).webhook_response).toStrictEqual({ status: 200, body: {}, delivery: 'delivered' });
  });

  it('stores the last answer as a failed webhook_response after four 500s at t, t+30 s, t+90 s and t+210 s', async () => {
    const r = rig((n) => ({ status: 500, body: `{"error":"down ${n}"}` }));
    await r.assistant(hooked());
    await scripted(r, { kind: 'human', ring_seconds: 4, talk_seconds: 90 });
    const end = T0 + 95 * SECOND;
    expect(r.attempts.map((a) => a.at)).toStrictEqual([end, end + 30 * SECOND, end + 90 * SECOND, end + 210 * SECOND]);
    expect((await r.call(1)).webhook_response).toStrictEqual({ status: 500, body: { error: 'down 4' }, delivery: 'failed' });
  });
});
