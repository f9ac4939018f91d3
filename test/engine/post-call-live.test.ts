/** The live wire's post-call body where a call has no numbers (live-platform H.2). */
import { describe, expect, it } from 'vitest';
import { accountCtx } from '../../src/domain/context.js';
import { callPromptText, postCallPayload } from '../../src/domain/calls/lifecycle.js';
import { createSimulator } from '../../src/simulator.js';
import { pipelineAssistant } from '../support/fixtures.js';

const AUTH = { authorization: 'Bearer sim_test_key' };

async function simWithCall(wire: 'spec' | 'live') {
  const sim = createSimulator({ seed: 1, startAt: '2026-06-15T12:30:00Z', wire });
  const res = await sim.handle({
    method: 'POST',
    path: '/user/assistant',
    headers: AUTH,
    body: JSON.stringify(pipelineAssistant({ system_prompt: 'Du bist {{assistant_name}}; heute ist {{current_date}}, {{current_time}}. Kunde: {customer_name} ({{customer_phone}}).' }, wire)),
  });
  expect(res.status).toBe(201);
  sim.control.calls.insert({ assistant_id: 1, client_phone_number: '+14155550123', duration: 30, variables: { booked: true } });
  const ctx = accountCtx(sim.db.accounts.get(1)!, sim);
  return { sim, ctx, assistant: ctx.assistants.get(1)!, call: ctx.calls.get(1)! };
}

describe('the live post-call body', () => {
  it('gives null for the numbers a call does not have, and UTC times ending in Z', async () => {
    const { ctx, assistant, call } = await simWithCall('live');
    const web = ctx.calls.update(call.id, { client_phone_number: '', assistant_phone_number: '' });
    const payload = postCallPayload(ctx, web, assistant) as Record<string, unknown>;
    expect(payload).toMatchObject({ customer_phone: null, assistant_phone: null, created_at: '2026-06-15T12:30:00Z', finished_at: '2026-06-15T12:30:30Z', lead: null, campaign: null });
    expect(payload.extracted_variables).toStrictEqual({ status: true, summary: 'The customer answered and the goal was met after 30 s.', booked: true });
    expect(payload).not.toHaveProperty('total_cost');
  });

  it('keeps the spec body on the default wire', async () => {
    const { ctx, assistant, call } = await simWithCall('spec');
    const payload = postCallPayload(ctx, call, assistant) as Record<string, unknown>;
    expect(payload).toMatchObject({ customer_phone: '+14155550123', assistant_phone: '', created_at: '2026-06-15T14:30:00+02:00', total_cost: 0 });
    expect(payload.extracted_variables).toStrictEqual({ booked: true });
  });
});

describe('callPromptText', () => {
  it("fills the assistant's system prompt for a call as its greeting is filled", async () => {
    const { ctx, assistant, call } = await simWithCall('spec');
    const withVariables = ctx.calls.update(call.id, { input_variables: { customer_name: 'Max' } });
    expect(callPromptText(ctx, withVariables, assistant, assistant.system_prompt)).toBe('Du bist Sales Assistant; heute ist 2026-06-15, 14:30. Kunde: Max (+14155550123).');
    expect(callPromptText(ctx, call, assistant, 'No placeholder.')).toBe('No placeholder.');
  });
});
