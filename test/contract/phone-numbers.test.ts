/**
 * Phone numbers: search, purchase, list, release and the monthly subscription on the
 * clock (spec: Phone number, Available number, Phone numbers endpoints, Phone number
 * release behaviour, Errors, Limits; decisions: Release of a normal number, Billing
 * period, Finer points).
 */
import parsePhoneNumber from 'libphonenumber-js/max';
import { expect, it } from 'vitest';
import countries from '../../fixtures/number-countries.json' with { type: 'json' };
import { PHONE_MESSAGES } from '../../src/domain/phone-numbers/service.js';
import { createSimulator } from '../../src/simulator.js';
import { contract, KEY, START, type Api } from '../support/api.js';
import { multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';
import { buy, search, type Offer } from '../support/records.js';

const SECOND_KEY = 'sim_second_key';
const CREATED_AT = '2026-03-02T09:00:00.000000Z';
const NOT_FOUND = { error: 'Phone number not found.' };
const NOT_OFFERED = { error: 'This phone number is not available for purchase. Please search for available numbers first.' };
const CALLING_CODES: Record<string, string> = { US: '1', CA: '1', GB: '44', AU: '61', IL: '972', PL: '48', FI: '358', NL: '31', DK: '45', IT: '39' };
const AVAILABLE_FIELDS = ['address_requirements', 'billing_price_id', 'country_code', 'phone_number', 'phone_number_formatted', 'price', 'sms_capable'];

async function listed(api: Api, key: string = KEY): Promise<Array<Record<string, unknown>>> {
  const res = await api.get('/user/phone-numbers/all', { key });
  expect(res.status).toBe(200);
  return res.body.data;
}

function secondAccount(api: Api): number {
  return api.sim.control.accounts.create({ api_key: SECOND_KEY }).id;
}

async function createAssistant(api: Api, body: Record<string, unknown>): Promise<number> {
  const res = await api.post('/user/assistant', body);
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function assistantNumber(api: Api, id: number): Promise<number | null> {
  return (await api.get(`/user/assistant/${id}`)).body.data.phone_number_id;
}

contract('search numbers', (api) => {
  it('searches US numbers when no country is given', async () => {
    const offers = await search(api());
    expect(offers.length).toBeGreaterThan(0);
    for (const offer of offers) {
      expect(offer.country_code).toBe('US');
      expect(parsePhoneNumber(offer.phone_number)?.country).toBe('US');
    }
  });

  it.each(countries.map((c) => [c.country_code, c] as const))('answers valid %s numbers with the fields and values of the country', async (cc, plan) => {
    const offers = await search(api(), { country_code: cc });
    expect(offers.length).toBeGreaterThan(0);
    expect(new Set(offers.map((o) => o.phone_number)).size).toBe(offers.length);
    for (const offer of offers) {
      expect(Object.keys(offer).sort()).toEqual(AVAILABLE_FIELDS);
      expect(offer).toStrictEqual({
        phone_number: expect.stringMatching(/^\+[1-9]\d{6,14}$/),
        phone_number_formatted: expect.any(String),
        country_code: cc,
        price: plan.price,
        billing_price_id: `price_${cc.toLowerCase()}_local_monthly`,
        address_requirements: plan.address_requirements,
        sms_capable: plan.sms_capable,
      });
      const parsed = parsePhoneNumber(offer.phone_number);
      expect(parsed?.isValid()).toBe(true);
      expect(parsed?.country).toBe(cc);
    }
  });

  it.each(Object.keys(CALLING_CODES))('formats each %s number for display with the calling code and the same digits', async (cc) => {
    for (const offer of await search(api(), { country_code: cc })) {
      expect(offer.phone_number_formatted.startsWith(`+${CALLING_CODES[cc]} `)).toBe(true);
      expect(offer.phone_number_formatted.replace(/\D/g, '')).toBe(offer.phone_number.slice(1));
    }
  });

  it.each([
    ['US', '555'],
    ['US', '42'],
    ['GB', '7777'],
    ['IT', '0'],
  ])('answers only %s numbers whose digits contain %s', async (cc, contains) => {
    const offers = await search(api(), { country_code: cc, contains });
    expect(offers.length).toBeGreaterThan(0);
    for (const offer of offers) {
      expect(offer.phone_number.slice(1)).toContain(contains);
      expect(offer.country_code).toBe(cc);
    }
  });

  it('accepts contains of 10 digits', async () => {
    const offers = await search(api(), { contains: '4155551234' });
    expect(offers.map((o) => o.phone_number)).toEqual(['+14155551234']);
  });

  it('rejects contains of 11 digits with 422 shape B', async () => {
    const res = await api().get('/user/phone-numbers/search', { query: { contains: '41555512345' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The contains may not be greater than 10 characters.',
      errors: { contains: ['The contains may not be greater than 10 characters.'] },
    });
  });

  it('rejects contains with letters with 422 shape B', async () => {
    const res = await api().get('/user/phone-numbers/search', { query: { contains: '415abc' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The contains must only contain digits.', errors: { contains: ['The contains must only contain digits.'] } });
  });

  it.each(['DE', 'XX'])('rejects the unsupported country code %s with 422 shape B', async (cc) => {
    const res = await api().get('/user/phone-numbers/search', { query: { country_code: cc } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected country code is invalid.', errors: { country_code: ['The selected country code is invalid.'] } });
  });

  it('answers the same numbers to the same search twice', async () => {
    const first = await search(api(), { country_code: 'NL' });
    const second = await search(api(), { country_code: 'NL' });
    expect(second).toStrictEqual(first);
  });

  it('answers the same numbers as another simulator with the same seed', async () => {
    const res = await api().get('/user/phone-numbers/search', { query: { country_code: 'GB', contains: '20' } });
    const other = createSimulator({ seed: 1, startAt: START });
    const reference = await other.handle({ method: 'GET', path: '/user/phone-numbers/search', query: { country_code: 'GB', contains: '20' }, headers: { authorization: `Bearer ${KEY}` } });
    expect(reference.body).toStrictEqual(res.body);
  });

  it('answers other numbers under another seed', async () => {
    const res = await api().get('/user/phone-numbers/search');
    const other = createSimulator({ seed: 2, startAt: START });
    const reference = await other.handle({ method: 'GET', path: '/user/phone-numbers/search', headers: { authorization: `Bearer ${KEY}` } });
    const numbers = (reference.body as { data: Offer[] }).data.map((o) => o.phone_number);
    expect(numbers.length).toBeGreaterThan(0);
    expect(numbers).not.toEqual(res.body.data.map((o: Offer) => o.phone_number));
  });

  it('no longer offers a purchased number', async () => {
    const before = await search(api());
    const bought = await buy(api());
    const after = await search(api());
    expect(bought.phone_number).toBe(before[0]!.phone_number);
    expect(after.map((o) => o.phone_number)).not.toContain(bought.phone_number);
    expect(after.length).toBeGreaterThan(0);
  });

  it('no longer offers a number another account bought', async () => {
    secondAccount(api());
    const bought = await buy(api(), { key: SECOND_KEY });
    expect((await search(api())).map((o) => o.phone_number)).not.toContain(bought.phone_number);
  });
});

contract('purchase number', (api) => {
  it('answers 201 with the purchased number as a normal number', async () => {
    const [offer] = await search(api());
    const res = await api().post('/user/phone-numbers/purchase', { phone_number: offer!.phone_number });
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({
      message: 'Phone number purchased successfully.',
      data: { id: 1, phone_number: offer!.phone_number, country_code: 'US', type: 'normal', sms_capable: true },
    });
  });

  it('lists the purchased number as a dedicated number with an active subscription', async () => {
    const bought = await buy(api());
    expect(await listed(api())).toStrictEqual([
      {
        id: bought.id,
        phone_number: bought.phone_number,
        country_code: 'US',
        type: 'normal',
        type_label: 'Dedicated number',
        sms_capable: true,
        region: 'us1',
        has_active_subscription: true,
        created_at: CREATED_AT,
      },
    ]);
  });

  it('buys a GB number with its country, SMS capability and region', async () => {
    const bought = await buy(api(), { country: 'GB' });
    expect(bought).toMatchObject({ country_code: 'GB', type: 'normal', sms_capable: false });
    expect(await listed(api())).toMatchObject([{ id: bought.id, country_code: 'GB', region: 'ie1', sms_capable: false, has_active_subscription: true }]);
  });

  it('buys an AU number in the au1 region', async () => {
    const bought = await buy(api(), { country: 'AU' });
    expect(await listed(api())).toMatchObject([{ id: bought.id, country_code: 'AU', region: 'au1' }]);
  });

  it('charges the price for one calendar month from the purchase', async () => {
    const bought = await buy(api());
    expect(api().sim.control.charges.list()).toStrictEqual({
      data: [
        {
          id: 1,
          account_id: 1,
          phone_number_id: bought.id,
          phone_number: bought.phone_number,
          amount: 1.15,
          billing_price_id: 'price_us_local_monthly',
          period_start: CREATED_AT,
          period_end: '2026-04-02T09:00:00.000000Z',
          created_at: CREATED_AT,
        },
      ],
    });
  });

  it("charges a GB number at the GB price and price id", async () => {
    await buy(api(), { country: 'GB' });
    expect(api().sim.control.charges.list().data).toMatchObject([{ amount: 1.25, billing_price_id: 'price_gb_local_monthly' }]);
  });

  it('refuses a purchase without a payment method with 402 shape C and creates nothing', async () => {
    const [offer] = await search(api());
    api().sim.control.accounts.patch(1, { has_payment_method: false });
    const res = await api().post('/user/phone-numbers/purchase', { phone_number: offer!.phone_number });
    expect(res.status).toBe(402);
    expect(res.body).toStrictEqual({ error: 'A payment method is required to purchase a phone number. Please add a payment method to your account.' });
    expect(await listed(api())).toEqual([]);
    expect(api().sim.control.charges.list()).toStrictEqual({ data: [] });
    expect((await search(api())).map((o) => o.phone_number)).toContain(offer!.phone_number);
  });

  it('refuses a number this account already owns with 400 shape C', async () => {
    const bought = await buy(api());
    const res = await api().post('/user/phone-numbers/purchase', { phone_number: bought.phone_number });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ error: 'This phone number is already in use.' });
    expect(await listed(api())).toHaveLength(1);
    expect(api().sim.control.charges.list().data).toHaveLength(1);
  });

  it('refuses a number another account bought after this account was offered it with 400 shape C', async () => {
    const [offer] = await search(api());
    secondAccount(api());
    await search(api(), {}, SECOND_KEY);
    expect((await api().post('/user/phone-numbers/purchase', { phone_number: offer!.phone_number }, { key: SECOND_KEY })).status).toBe(201);
    const res = await api().post('/user/phone-numbers/purchase', { phone_number: offer!.phone_number });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ error: 'This phone number is already in use.' });
    expect(await listed(api())).toEqual([]);
  });

  it('refuses a number held as a sip number by another account with 400 shape C', async () => {
    secondAccount(api());
    await api().post('/__sim/phone-numbers', { account_id: 2, type: 'sip', phone_number: '+14155550123' });
    const res = await api().post('/user/phone-numbers/purchase', { phone_number: '+14155550123' });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ error: 'This phone number is already in use.' });
  });

  it('refuses a number this account holds as a caller ID with 400 shape C', async () => {
    await api().post('/__sim/phone-numbers', { account_id: 1, type: 'caller_id', phone_number: '+14155550123' });
    const res = await api().post('/user/phone-numbers/purchase', { phone_number: '+14155550123' });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ error: 'This phone number is already in use.' });
  });

  it('refuses a valid number no search offered with 400 shape C', async () => {
    const res = await api().post('/user/phone-numbers/purchase', { phone_number: '+14155550123' });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual(NOT_OFFERED);
    expect(await listed(api())).toEqual([]);
  });

  it('refuses a number offered only to another account with 400 shape C', async () => {
    secondAccount(api());
    const [offer] = await search(api(), {}, SECOND_KEY);
    const res = await api().post('/user/phone-numbers/purchase', { phone_number: offer!.phone_number });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual(NOT_OFFERED);
    expect(api().sim.control.charges.list()).toStrictEqual({ data: [] });
  });

  it.each(['4047269413', '+1 404 726 9413', '+0123456789', 'call me'])('rejects %j, not E.164, with 422 shape B on phone_number', async (phone) => {
    const res = await api().post('/user/phone-numbers/purchase', { phone_number: phone });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body)).toEqual(['message', 'errors']);
    expect(Object.keys(res.body.errors)).toEqual(['phone_number']);
    expect(res.body.message).toBe(res.body.errors.phone_number[0]);
  });

  it('rejects a missing phone number with 422 shape B', async () => {
    const res = await api().post('/user/phone-numbers/purchase', {});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The phone number field is required.', errors: { phone_number: ['The phone number field is required.'] } });
  });
});

contract('purchase number: billing period at a month end', (api) => {
  it('ends the first period of a number bought on January 31 on February 28', async () => {
    await buy(api());
    expect(api().sim.control.charges.list().data).toMatchObject([
      { period_start: '2026-01-31T10:00:00.000000Z', period_end: '2026-02-28T10:00:00.000000Z', amount: 1.15 },
    ]);
  });

  it('renews the number on February 28', async () => {
    await buy(api());
    await api().sim.clock.advanceTo('2026-02-28T09:59:59Z');
    expect(api().sim.control.charges.list().data).toHaveLength(1);
    await api().sim.clock.advanceTo('2026-02-28T10:00:00Z');
    const charges = api().sim.control.charges.list().data;
    expect(charges).toHaveLength(2);
    expect(charges[1]).toMatchObject({ period_start: '2026-02-28T10:00:00.000000Z', created_at: '2026-02-28T10:00:00.000000Z' });
  });
}, { startAt: '2026-01-31T10:00:00Z' });

contract('number subscription renewal', (api) => {
  it('does not renew before the period ends', async () => {
    await buy(api());
    await api().sim.clock.advanceTo('2026-04-02T08:59:59Z');
    expect(api().sim.control.charges.list().data).toHaveLength(1);
  });

  it('records a second charge for the next month when the period ends', async () => {
    const bought = await buy(api());
    await api().sim.clock.advanceTo('2026-04-02T09:00:00Z');
    expect(api().sim.control.charges.list().data[1]).toStrictEqual({
      id: 2,
      account_id: 1,
      phone_number_id: bought.id,
      phone_number: bought.phone_number,
      amount: 1.15,
      billing_price_id: 'price_us_local_monthly',
      period_start: '2026-04-02T09:00:00.000000Z',
      period_end: '2026-05-02T09:00:00.000000Z',
      created_at: '2026-04-02T09:00:00.000000Z',
    });
  });

  it('keeps the renewed number listed with an active subscription', async () => {
    const bought = await buy(api());
    await api().sim.clock.advance('31d');
    expect(await listed(api())).toMatchObject([{ id: bought.id, type: 'normal', has_active_subscription: true }]);
  });

  it('renews every month', async () => {
    await buy(api());
    await api().sim.clock.advanceTo('2026-06-02T09:00:00Z');
    expect(api().sim.control.charges.list().data.map((c) => c.period_start)).toEqual([
      '2026-03-02T09:00:00.000000Z',
      '2026-04-02T09:00:00.000000Z',
      '2026-05-02T09:00:00.000000Z',
      '2026-06-02T09:00:00.000000Z',
    ]);
  });
});

contract('list phone numbers', (api) => {
  it('answers an empty list in {data}', async () => {
    const res = await api().get('/user/phone-numbers/all');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [] });
  });

  it('lists numbers of every type in id order with their exact shapes', async () => {
    await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550123' });
    await api().sim.clock.advance('1h');
    const bought = await buy(api());
    await api().post('/__sim/phone-numbers', { account_id: 1, type: 'caller_id', phone_number: '+442071838750' });
    const res = await api().get('/user/phone-numbers/all');
    expect(res.body).toStrictEqual({
      data: [
        {
          id: 1,
          phone_number: '+14155550123',
          country_code: 'US',
          type: 'sip',
          type_label: 'SIP trunk',
          sms_capable: false,
          region: 'us1',
          has_active_subscription: false,
          created_at: CREATED_AT,
        },
        {
          id: 2,
          phone_number: bought.phone_number,
          country_code: 'US',
          type: 'normal',
          type_label: 'Dedicated number',
          sms_capable: true,
          region: 'us1',
          has_active_subscription: true,
          created_at: '2026-03-02T10:00:00.000000Z',
        },
        {
          id: 3,
          phone_number: '+442071838750',
          country_code: 'GB',
          type: 'caller_id',
          type_label: 'Caller ID',
          sms_capable: false,
          region: 'ie1',
          has_active_subscription: false,
          created_at: '2026-03-02T10:00:00.000000Z',
        },
      ],
    });
  });

  it("lists only the caller's numbers", async () => {
    secondAccount(api());
    await api().post('/__sim/phone-numbers', { account_id: 2, type: 'sip', phone_number: '+14155550123' });
    await buy(api(), { key: SECOND_KEY });
    await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550124' });
    expect((await listed(api())).map((n) => n.phone_number)).toEqual(['+14155550124']);
    expect((await listed(api(), SECOND_KEY)).map((n) => n.id)).toEqual([1, 2]);
  });
});

contract('release a normal number', (api) => {
  it('cancels the subscription and names the end of the period', async () => {
    const bought = await buy(api());
    const res = await api().del(`/user/phone-numbers/${bought.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Subscription cancelled. The phone number stays active until 2026-04-02 09:00:00 UTC, then it is released.' });
  });

  it('names the end of the renewed period after a renewal', async () => {
    const bought = await buy(api());
    await api().sim.clock.advance('40d');
    const res = await api().del(`/user/phone-numbers/${bought.id}`);
    expect(res.body).toStrictEqual({ message: 'Subscription cancelled. The phone number stays active until 2026-05-02 09:00:00 UTC, then it is released.' });
  });

  it('keeps the number listed with has_active_subscription false', async () => {
    const bought = await buy(api());
    await api().del(`/user/phone-numbers/${bought.id}`);
    expect(await listed(api())).toStrictEqual([
      {
        id: bought.id,
        phone_number: bought.phone_number,
        country_code: 'US',
        type: 'normal',
        type_label: 'Dedicated number',
        sms_capable: true,
        region: 'us1',
        has_active_subscription: false,
        created_at: CREATED_AT,
      },
    ]);
  });

  it('still lists the number one second before the period ends', async () => {
    const bought = await buy(api());
    await api().del(`/user/phone-numbers/${bought.id}`);
    await api().sim.clock.advanceTo('2026-04-02T08:59:59Z');
    expect((await listed(api())).map((n) => n.id)).toEqual([bought.id]);
  });

  it('removes the number when the period ends', async () => {
    const bought = await buy(api());
    await api().del(`/user/phone-numbers/${bought.id}`);
    await api().sim.clock.advanceTo('2026-04-02T09:00:00Z');
    expect(await listed(api())).toEqual([]);
    const again = await api().del(`/user/phone-numbers/${bought.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toStrictEqual(NOT_FOUND);
  });

  it('does not charge again at the end of a cancelled period', async () => {
    await buy(api());
    await api().del('/user/phone-numbers/1');
    await api().sim.clock.advanceTo('2026-06-02T09:00:00Z');
    expect(api().sim.control.charges.list().data).toHaveLength(1);
  });

  it('refuses to release it again with 400 shape C', async () => {
    const bought = await buy(api());
    await api().del(`/user/phone-numbers/${bought.id}`);
    const res = await api().del(`/user/phone-numbers/${bought.id}`);
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ error: 'The subscription of this phone number is already cancelled.' });
    expect(await listed(api())).toHaveLength(1);
  });

  it('unassigns an inbound assistant at once', async () => {
    const bought = await buy(api());
    const inbound = await createAssistant(api(), multimodalAssistant({ phone_number_id: bought.id }));
    await api().del(`/user/phone-numbers/${bought.id}`);
    expect(await assistantNumber(api(), inbound)).toBeNull();
  });

  it('leaves the number with an outbound assistant until the period ends', async () => {
    const bought = await buy(api());
    const outbound = await createAssistant(api(), pipelineAssistant({ phone_number_id: bought.id }));
    await api().del(`/user/phone-numbers/${bought.id}`);
    expect(await assistantNumber(api(), outbound)).toBe(bought.id);
    await api().sim.clock.advanceTo('2026-04-02T08:59:59Z');
    expect(await assistantNumber(api(), outbound)).toBe(bought.id);
    await api().sim.clock.advanceTo('2026-04-02T09:00:00Z');
    expect(await assistantNumber(api(), outbound)).toBeNull();
  });

  it("drops the number from a campaign's rotation at once", async () => {
    const first = await buy(api());
    const second = await buy(api());
    const assistant = await createAssistant(api(), pipelineAssistant());
    const campaign = await api().post('/user/campaign', { name: 'Spring', assistant_id: assistant, phone_number_ids: [first.id, second.id] });
    expect(campaign.status).toBe(201);
    const id = campaign.body.data.id as number;
    expect(api().sim.db.campaigns.get(id)!.phone_number_ids).toEqual([first.id, second.id]);
    await api().del(`/user/phone-numbers/${first.id}`);
    expect(api().sim.db.campaigns.get(id)!.phone_number_ids).toEqual([second.id]);
  });

  it('keeps the calls that used the number after it is gone', async () => {
    const bought = await buy(api());
    const assistant = await createAssistant(api(), pipelineAssistant({ phone_number_id: bought.id }));
    const inserted = await api().post('/__sim/calls', { assistant_id: assistant, client_phone_number: '+14155550123', duration: 42 });
    expect(inserted.status).toBe(201);
    expect(inserted.body.assistant_phone_number).toBe(bought.phone_number);
    await api().del(`/user/phone-numbers/${bought.id}`);
    await api().sim.clock.advanceTo('2026-04-02T09:00:00Z');
    const res = await api().get(`/user/calls/${inserted.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(inserted.body);
  });

  it('no longer offers the released number to assistants', async () => {
    const kept = await buy(api());
    const released = await buy(api());
    await api().del(`/user/phone-numbers/${released.id}`);
    for (const type of [undefined, 'inbound', 'outbound']) {
      const res = await api().get('/user/assistants/phone-numbers', type ? { query: { type } } : {});
      expect(res.body.map((n: { id: number }) => n.id)).toEqual([kept.id]);
    }
  });

  it('refuses to assign the released number to a new assistant with 422 on phone_number_id', async () => {
    const bought = await buy(api());
    await api().del(`/user/phone-numbers/${bought.id}`);
    const res = await api().post('/user/assistant', pipelineAssistant({ phone_number_id: bought.id }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected phone number id is invalid.', errors: { phone_number_id: ['The selected phone number id is invalid.'] } });
  });

  it('refuses to assign the released number to an existing assistant with 422 on phone_number_id', async () => {
    const bought = await buy(api());
    const assistant = await createAssistant(api(), pipelineAssistant());
    await api().del(`/user/phone-numbers/${bought.id}`);
    const res = await api().put(`/user/assistant/${assistant}`, { phone_number_id: bought.id });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ phone_number_id: ['The selected phone number id is invalid.'] });
    expect(await assistantNumber(api(), assistant)).toBeNull();
  });
});

contract('release sip and caller-ID numbers', (api) => {
  async function add(type: 'sip' | 'caller_id', phone = '+14155550123'): Promise<number> {
    const res = await api().post('/__sim/phone-numbers', { account_id: 1, type, phone_number: phone });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  it('deletes a sip number and answers its message', async () => {
    const id = await add('sip');
    const res = await api().del(`/user/phone-numbers/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Phone number deleted successfully.' });
  });

  it('removes a sip number from the list at once', async () => {
    const id = await add('sip');
    const other = await add('sip', '+14155550124');
    await api().del(`/user/phone-numbers/${id}`);
    expect((await listed(api())).map((n) => n.id)).toEqual([other]);
  });

  it('deletes a caller ID and answers its message', async () => {
    const id = await add('caller_id');
    const res = await api().del(`/user/phone-numbers/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Caller ID deleted and removed from the telephony provider.' });
    expect(await listed(api())).toEqual([]);
  });

  it('unassigns an inbound assistant holding a deleted sip number', async () => {
    const id = await add('sip');
    const inbound = await createAssistant(api(), multimodalAssistant({ phone_number_id: id }));
    await api().del(`/user/phone-numbers/${id}`);
    expect(await assistantNumber(api(), inbound)).toBeNull();
  });

  it("drops a deleted sip number from a campaign's rotation", async () => {
    const id = await add('sip');
    const other = await add('caller_id', '+14155550124');
    const assistant = await createAssistant(api(), pipelineAssistant());
    const campaign = await api().post('/user/campaign', { name: 'Spring', assistant_id: assistant, phone_number_ids: [other, id] });
    await api().del(`/user/phone-numbers/${id}`);
    expect(api().sim.db.campaigns.get(campaign.body.data.id)!.phone_number_ids).toEqual([other]);
  });

  it('keeps the calls that used a deleted caller ID', async () => {
    const id = await add('caller_id');
    const assistant = await createAssistant(api(), pipelineAssistant({ phone_number_id: id }));
    const inserted = await api().post('/__sim/calls', { assistant_id: assistant, client_phone_number: '+14155550199' });
    await api().del(`/user/phone-numbers/${id}`);
    const res = await api().get(`/user/calls/${inserted.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(inserted.body);
    expect(res.body.assistant_phone_number).toBe('+14155550123');
  });
});

contract('release number: not found', (api) => {
  it('answers a missing id with 404 shape C', async () => {
    const res = await api().del('/user/phone-numbers/99');
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(NOT_FOUND);
  });
});
