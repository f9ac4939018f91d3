import { expect } from 'vitest';
import type { Campaign } from 'voxsim';
import { test } from 'voxsim/vitest';

// Each test gets a fresh simulator (`sim`), its MSW server (`server`) and a client (`api`).
test('a new campaign starts as a draft', async ({ sim, api }) => {
  sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  await api.post('/user/assistant', {
    name: 'Sales', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin',
    initial_message: 'Hello!', system_prompt: 'You sell.', llm_model_id: 1, phone_number_id: 1,
  });
  const created = await api.post<{ data: Campaign }>('/user/campaign', { name: 'Spring', assistant_id: 1 });
  expect(created.status).toBe(201);
  expect(created.body.data.status).toBe('draft');
});

test('starts from an empty state again', async ({ api }) => {
  expect((await api.get<Campaign[]>('/user/campaigns')).body).toEqual([]);
});
