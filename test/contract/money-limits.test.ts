/**
 * Money inputs are bounded so what is stored stays exact (issue 13: every input works or
 * gets one clear error; docs/control-api.md): a balance and a call's costs from 0 to
 * 1,000,000,000 USD, prices from 0 to 1000 USD, kept as whole micro-dollars (at most
 * 1e15, below 2^53). Both edges of each; a refusal is 422 shape B on the field and
 * changes nothing. (No platform route takes an amount: these are the control API's.)
 */
import { expect, it } from 'vitest';
import { contract, type Api } from '../support/api.js';
import { expectRefused, invalidField } from '../support/expect.js';
import { pipelineAssistant } from '../support/fixtures.js';

const MAX = 1_000_000_000;

async function createAssistant(api: Api): Promise<number> {
  return (await api.post('/user/assistant', pipelineAssistant())).body.data.id as number;
}

contract('control: POST /__sim/calls bounds the costs', (api) => {
  it.each(['carrier_cost', 'total_cost'])('stores a %s of 0 and of 1000000000 exactly', async (field) => {
    const assistant = await createAssistant(api());
    for (const amount of [0, MAX]) {
      const res = await api().post('/__sim/calls', { assistant_id: assistant, client_phone_number: '+14155550123', [field]: amount });
      expect(res.status).toBe(201);
      expect(res.body[field]).toBe(amount);
      expect((await api().get(`/user/calls/${res.body.id}`)).body[field]).toBe(amount);
    }
  });

  it.each([
    ['total_cost', 1e308, 'The total cost may not be greater than 1000000000.'],
    ['total_cost', MAX + 0.01, 'The total cost may not be greater than 1000000000.'],
    ['carrier_cost', 9007199254740993, 'The carrier cost may not be greater than 1000000000.'],
    ['carrier_cost', -0.01, 'The carrier cost must be at least 0.'],
  ])('refuses a %s of %s with 422 shape B and changes nothing', async (field, amount, message) => {
    const assistant = await createAssistant(api());
    await expectRefused(api(), () => api().post('/__sim/calls', { assistant_id: assistant, client_phone_number: '+14155550123', [field]: amount }), 422, invalidField(field, message));
  });
});

contract('control: accounts bound the balance and the prices', (api) => {
  it('takes a balance of 1000000000, and of 0', async () => {
    expect((await api().patch('/__sim/accounts/1', { balance: MAX })).body.balance).toBe(MAX);
    expect((await api().get('/user/me')).body.total_balance).toBe(MAX);
    expect((await api().post('/__sim/accounts', { api_key: 'sim_zero_balance', balance: 0 })).body.balance).toBe(0);
  });

  it.each([1e308, MAX + 0.01])('refuses a balance of %s with 422 shape B and changes nothing', async (balance) => {
    await expectRefused(api(), () => api().patch('/__sim/accounts/1', { balance }), 422, invalidField('balance', 'The balance may not be greater than 1000000000.'));
    await expectRefused(api(), () => api().post('/__sim/accounts', { api_key: 'sim_rich_key', balance }), 422, invalidField('balance', 'The balance may not be greater than 1000000000.'));
  });

  it('takes a price of 1000 and of 0', async () => {
    const res = await api().patch('/__sim/accounts/1', { rates: { ai_per_minute: 1000, sms_segment: 0 } });
    expect(res.status).toBe(200);
    expect(res.body.rates).toMatchObject({ ai_per_minute: 1000, sms_segment: 0 });
  });

  it.each([
    [1000.01, 'The rates.ai per minute may not be greater than 1000.'],
    [1e308, 'The rates.ai per minute may not be greater than 1000.'],
    [-1, 'The rates.ai per minute must be at least 0.'],
  ])('refuses a price of %s with 422 shape B on the rate and changes nothing', async (price, message) => {
    await expectRefused(api(), () => api().patch('/__sim/accounts/1', { rates: { ai_per_minute: price } }), 422, invalidField('rates.ai_per_minute', message));
  });
});
