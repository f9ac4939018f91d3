/**
 * Outcome rule details: each rule counts its own attempts per number, rule numbers are
 * read as E.164, and a voicemail cut at max_duration still ends `ended`.
 */
import { describe, expect, it } from 'vitest';
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
});
