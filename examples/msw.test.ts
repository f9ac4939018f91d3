import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createSimulator } from 'voxsim';
import { handlers } from 'voxsim/msw';

const baseUrl = 'https://api.example.test/api';
const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
const server = setupServer(...handlers(sim, { baseUrl }));
beforeAll(() => server.listen());
beforeEach(() => sim.reset());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

// Your client code would make these calls; fetch stands in for it here.
async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

it('calls a lead again after voicemail and completes it', async () => {
  sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  await api('POST', '/user/assistant', {
    name: 'Sales', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin',
    initial_message: 'Hello!', system_prompt: 'You sell.', llm_model_id: 1, phone_number_id: 1,
  });
  await api('POST', '/user/campaign', { name: 'Spring', assistant_id: 1, retry_on_voicemail: true, retry_interval: 60 });
  await api('POST', '/user/lead', { campaign_id: 1, phone_number: '+15551230042' });
  sim.control.outcomes.forNumber('+15551230042', ['voicemail', 'human']);

  const started = await api('POST', '/user/campaigns/update-status', { campaign_id: 1, action: 'start' });
  expect(started.body.data.status).toBe('in-progress');

  await sim.clock.advance('2h'); // time moves only when you say so
  const calls = await api('GET', '/user/calls');
  expect(calls.body.data.map((c: { answered_by: string }) => c.answered_by)).toEqual(['human', 'machine']);
  const leads = await api('GET', '/user/leads');
  expect(leads.body.data[0].status).toBe('completed');
});
