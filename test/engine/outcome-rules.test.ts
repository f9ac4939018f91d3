/**
 * Outcome rule details: each rule counts its own attempts per number, rule numbers are
 * read as E.164, and a voicemail cut at max_duration still ends `ended`.
 */
import { describe, expect, it } from 'vitest';
import { SimError } from '../../src/core/errors.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { pipelineAssistant } from '../support/fixtures.js';

const AUTH = { authorization: 'Bearer sim_test_key' };

async function rig(assistant: Record<string, unknown> = {}): Promise<Simulator> {
  const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
  sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  const res = await sim.handle({ method: 'POST', path: '/user/assistant', headers: AUTH, body: JSON.stringify(pipelineAssistant({ phone_number_id: 1, ...assistant })) });
  expect(res.status).toBe(201);
  return sim;
}

async function call(sim: Simulator, phone: string): Promise<Record<string, unknown>> {
  const res = await sim.handle({ method: 'POST', path: '/user/make_call', headers: AUTH, body: JSON.stringify({ assistant_id: 1, phone_number: phone }) });
  expect(res.status).toBe(200);
  await sim.clock.advance('1h');
  const id = (res.body as { call_id: number }).call_id;
  return (await sim.handle({ method: 'GET', path: `/user/calls/${id}`, headers: AUTH })).body as Record<string, unknown>;
}

describe('outcome rules', () => {
  it('keeps no attempt count for a rule with a single outcome', async () => {
    const sim = await rig();
    sim.control.outcomes.set({ rules: [{ match: { phone_number: '+15551230100' }, outcomes: ['busy'] }] });
    expect((await call(sim, '+15551230100')).status).toBe('busy');
    expect((await call(sim, '+15551230100')).status).toBe('busy');
    expect(sim.snapshot().outcomes.attempts).toEqual({});
  });

  it('counts a sequence up to its last outcome, and a restored script goes on repeating it', async () => {
    const sim = await rig();
    sim.control.outcomes.set({ rules: [{ match: { phone_number: '+15551230100' }, outcomes: ['busy', 'no-answer'] }] });
    for (let i = 0; i < 3; i++) await call(sim, '+15551230100');
    const snapshot = sim.snapshot();
    expect(snapshot.outcomes.attempts).toEqual({ '0|+15551230100': 1 });
    const restored = createSimulator({ seed: 1 });
    restored.restore(snapshot);
    expect((await call(restored, '+15551230100')).status).toBe('no-answer');
  });

  it('starts a sequence set after earlier calls to the number at its first outcome', async () => {
    const sim = await rig();
    expect((await call(sim, '+15551230100')).status).toBe('completed');
    expect((await call(sim, '+15551230100')).status).toBe('completed');
    sim.control.outcomes.forNumber('+15551230100', ['busy', 'no-answer']);
    expect((await call(sim, '+15551230100')).status).toBe('busy');
    expect((await call(sim, '+15551230100')).status).toBe('no-answer');
  });

  it('starts every sequence again when the rules are replaced', async () => {
    const sim = await rig();
    sim.control.outcomes.set({ rules: [{ match: { phone_number: '+15551230100' }, outcomes: ['busy', 'failed'] }] });
    expect((await call(sim, '+15551230100')).status).toBe('busy');
    sim.control.outcomes.set({ rules: [{ match: { phone_number: '+15551230100' }, outcomes: ['busy', 'failed'] }] });
    expect((await call(sim, '+15551230100')).status).toBe('busy');
  });

  it('reads a rule number written with spaces and dashes as E.164', async () => {
    const sim = await rig();
    const { rules } = sim.control.outcomes.forNumber('+1 555-123-0100', ['failed']);
    expect(rules[0]!.match.phone_number).toBe('+15551230100');
    expect((await call(sim, '+15551230100')).status).toBe('failed');
  });

  it('ends a voicemail longer than max_duration with status ended, cut at max_duration', async () => {
    const sim = await rig({ max_duration: 20, voice_mail_message: 'Please call us back. '.repeat(15) });
    const voicemail = await call(sim, '+14155550003');
    expect(voicemail).toMatchObject({ status: 'ended', answered_by: 'machine', duration: 20, total_cost: 0.11 });
  });

  it('matches lead variables by deep equality, whatever the key order of nested objects', async () => {
    const sim = await rig();
    sim.control.outcomes.forLeadVariables({ tier: { a: 1, b: [2, { c: 3, d: 4 }] } }, ['busy']);
    const match = (variables: Record<string, unknown>) => sim.outcomes.next({ phone_number: '+15551230100', campaign_id: 1, lead_variables: variables });
    expect(match({ tier: { b: [2, { d: 4, c: 3 }], a: 1 }, other: true })).toEqual({ outcome: 'busy', source: 'rule' });
    expect(match({ tier: { a: 1, b: [{ c: 3, d: 4 }, 2] } })).toEqual({ outcome: 'human', source: 'default' });
    expect(match({ tier: { a: 1, b: [2, { c: 3, d: 4 }], e: 5 } })).toEqual({ outcome: 'human', source: 'default' });
    expect(match({ tier: { a: '1', b: [2, { c: 3, d: 4 }] } })).toEqual({ outcome: 'human', source: 'default' });
  });

  it('validates rules given to sim.outcomes as PUT /__sim/outcomes does, and keeps the old ones on refusal', async () => {
    const sim = await rig();
    sim.outcomes.set([{ match: { phone_number: '+1 555 123 0100' }, outcomes: ['failed'] }]);
    expect(sim.outcomes.list()).toEqual([{ match: { phone_number: '+15551230100' }, outcomes: ['failed'] }]);
    const direct = (() => {
      try {
        sim.outcomes.set([{ match: {}, outcomes: ['sipp'] }]);
      } catch (error) {
        return error;
      }
    })();
    expect(direct).toBeInstanceOf(SimError);
    const viaHttp = await sim.handle({ method: 'PUT', path: '/__sim/outcomes', body: JSON.stringify({ rules: [{ match: {}, outcomes: ['sipp'] }] }) });
    expect(viaHttp.status).toBe(422);
    expect({ status: (direct as SimError).status, body: (direct as SimError).body }).toEqual({ status: viaHttp.status, body: viaHttp.body });
    expect(() => sim.outcomes.add({ match: { campaign_id: 0 }, outcomes: ['busy'] })).toThrow(SimError);
    expect(sim.outcomes.list()).toEqual([{ match: { phone_number: '+15551230100' }, outcomes: ['failed'] }]);
  });

  it('validates rules given to sim.replies as PUT /__sim/replies does', async () => {
    const sim = await rig();
    const viaHttp = await sim.handle({ method: 'PUT', path: '/__sim/replies', body: JSON.stringify({ rules: [{ when: { regex: '(' }, reply: 'x' }] }) });
    expect(viaHttp.status).toBe(422);
    expect(viaHttp.body).toEqual({ message: 'The rules.0.when.regex is not a valid regular expression.', errors: { 'rules.0.when.regex': ['The rules.0.when.regex is not a valid regular expression.'] } });
    expect(() => sim.replies.set([{ when: { regex: '(' }, reply: 'x' }])).toThrow(SimError);
    expect(sim.replies.list()).toEqual([]);
  });

  it('plays on a call that a snapshot of an earlier version left waiting for its call.start event', async () => {
    const sim = await rig();
    const res = await sim.handle({ method: 'POST', path: '/user/make_call', headers: AUTH, body: JSON.stringify({ assistant_id: 1, phone_number: '+15551230100' }) });
    expect(res.status).toBe(200);
    const saved = sim.snapshot();
    // An earlier version answered make_call with the call initiated and a call.start event pending.
    const ring = saved.clock.events.find((e) => e.type === 'call.ring')!;
    ring.type = 'call.start';
    ring.at = saved.clock.now;
    (saved.db.calls!.rows[0] as Record<string, unknown>).plan = null;
    (saved.db.calls!.rows[0] as Record<string, unknown>).event_id = null;
    const later = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
    later.restore(saved);
    await later.clock.advance('1h');
    const callRes = await later.handle({ method: 'GET', path: '/user/calls/1', headers: AUTH });
    expect(callRes.body).toMatchObject({ id: 1, status: 'completed', answered_by: 'human' });
  });
});
