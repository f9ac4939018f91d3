/**
 * Leads: POST /user/lead, GET /user/leads, PUT /user/leads/{id}, DELETE /user/leads/{id}
 * (spec: Lead, States > Lead, Leads, Errors, Limits; decisions: Create lead, Delete lead,
 * Lead transitions, Dates in filters, Ids that point elsewhere, Timestamps).
 */
import { expect, it } from 'vitest';
import { LEAD_MESSAGES } from '../../src/domain/leads/service.js';
import { contract, type Api, type ApiResponse } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';

const SECOND_KEY = 'sim_second_key';
const NOW = '2026-03-02 09:00:00';
const INVALID_NUMBER = 'The phone number is not a valid phone number.';
const NOT_SETTABLE = 'The status may only be set to created, completed or reached-max-retries.';

function expectInvalid(res: ApiResponse, errors: Record<string, string[]>) {
  expect(res.status).toBe(422);
  expect(res.body.errors).toEqual(errors);
  const all = Object.values(errors).flat();
  const more = all.length - 1;
  expect(res.body.message).toBe(more === 0 ? all[0] : `${all[0]} (and ${more} more error${more === 1 ? '' : 's'})`);
}

function opts(key?: string) {
  return key === undefined ? {} : { key };
}

async function addNumber(api: Api, phone: string, accountId = 1): Promise<number> {
  return api.sim.control.phoneNumbers.add({ account_id: accountId, type: 'sip', phone_number: phone }).id;
}

async function assistant(api: Api, overrides: Record<string, unknown> = {}, key?: string): Promise<number> {
  const res = await api.post('/user/assistant', pipelineAssistant(overrides), opts(key));
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function campaign(api: Api, overrides: Record<string, unknown> = {}, key?: string): Promise<number> {
  const assistantId = (overrides.assistant_id as number | undefined) ?? (await assistant(api, {}, key));
  const res = await api.post('/user/campaign', { name: 'Spring Outreach', ...overrides, assistant_id: assistantId }, opts(key));
  expect(res.status).toBe(201);
  return res.body.data.id;
}

function createLead(api: Api, body: Record<string, unknown>, key?: string) {
  return api.post('/user/lead', body, opts(key));
}

async function lead(api: Api, campaignId: number, phone: string, extra: Record<string, unknown> = {}, key?: string): Promise<number> {
  const res = await createLead(api, { campaign_id: campaignId, phone_number: phone, ...extra }, key);
  expect(res.status).toBe(200);
  return res.body.data.id;
}

/** `count` leads with distinct valid US numbers (+14155550100, +14155550101, ...). */
async function leads(api: Api, campaignId: number, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push(await lead(api, campaignId, `+1415555${String(100 + i).padStart(4, '0')}`));
  return ids;
}

function list(api: Api, query: Record<string, string | number> = {}, key?: string) {
  return api.get('/user/leads', { query, ...opts(key) });
}

async function listedIds(api: Api, query: Record<string, string | number> = {}): Promise<number[]> {
  const res = await list(api, { per_page: 100, ...query });
  expect(res.status).toBe(200);
  return res.body.data.map((l: { id: number }) => l.id);
}

/** A lead as the list shows it (there is no single-lead read route). */
async function read(api: Api, id: number, key?: string) {
  const res = await list(api, { per_page: 100 }, key);
  return res.body.data.find((l: { id: number }) => l.id === id);
}

contract('create lead: success', (api) => {
  it('answers 200 with the lead, its campaign and its secondary contacts', async () => {
    const c = await campaign(api());
    const res = await createLead(api(), {
      campaign_id: c,
      phone_number: '+14155550123',
      variables: { first_name: 'Ann', plan: 'pro' },
      secondary_contacts: [{ phone_number: '+14155550124', variables: { relation: 'office' } }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      message: 'Lead created successfully.',
      data: {
        id: 1,
        campaign_id: c,
        phone_number: '+14155550123',
        variables: { first_name: 'Ann', plan: 'pro' },
        status: 'created',
        created_at: NOW,
        updated_at: NOW,
        campaign: { id: c, name: 'Spring Outreach' },
        secondary_contacts: [{ id: 1, phone_number: '+14155550124', variables: { relation: 'office' }, status: 'created', created_at: NOW, updated_at: NOW }],
      },
    });
  });

  it('answers empty variables and no secondary contacts when none are sent', async () => {
    const c = await campaign(api());
    const res = await createLead(api(), { campaign_id: c, phone_number: '+14155550123' });
    expect(res.body.data).toMatchObject({ variables: {}, secondary_contacts: [] });
  });

  it('stamps created_at and updated_at with the clock time as YYYY-MM-DD HH:MM:SS in UTC', async () => {
    api().sim.control.accounts.patch(1, { timezone: 'America/New_York' });
    const c = await campaign(api());
    await api().sim.clock.advance('15h30m5s');
    const res = await createLead(api(), { campaign_id: c, phone_number: '+14155550123' });
    expect(res.body.data).toMatchObject({ created_at: '2026-03-03 00:30:05', updated_at: '2026-03-03 00:30:05' });
  });

  it.each(['(415) 555-0123', '415.555.0123', '+1 415 555 0123', ' 4155550123 ', '415-555-0123', '+14155550123'])(
    'normalises %j to E.164',
    async (input) => {
      const res = await createLead(api(), { campaign_id: await campaign(api()), phone_number: input });
      expect(res.status).toBe(200);
      expect(res.body.data.phone_number).toBe('+14155550123');
    },
  );

  it('reads a national number in the country of the campaign\'s first caller number', async () => {
    const gb = await addNumber(api(), '+442079460123');
    const c = await campaign(api(), { phone_number_ids: [gb] });
    const res = await createLead(api(), { campaign_id: c, phone_number: '020 7946 0958' });
    expect(res.status).toBe(200);
    expect(res.body.data.phone_number).toBe('+442079460958');
  });

  it('uses the first caller number\'s country, not a later one\'s', async () => {
    const us = await addNumber(api(), '+14155550100');
    const gb = await addNumber(api(), '+442079460123');
    const c = await campaign(api(), { phone_number_ids: [us, gb] });
    expectInvalid(await createLead(api(), { campaign_id: c, phone_number: '020 7946 0958' }), { phone_number: [INVALID_NUMBER] });
    expect((await createLead(api(), { campaign_id: c, phone_number: '(415) 555-0123' })).body.data.phone_number).toBe('+14155550123');
  });

  it('reads a national number in the country of the assistant\'s number when the campaign has none', async () => {
    const au = await addNumber(api(), '+61293744001');
    const c = await campaign(api(), { assistant_id: await assistant(api(), { phone_number_id: au }) });
    const res = await createLead(api(), { campaign_id: c, phone_number: '02 9374 4000' });
    expect(res.status).toBe(200);
    expect(res.body.data.phone_number).toBe('+61293744000');
  });

  it('prefers the campaign\'s caller number over the assistant\'s number', async () => {
    const au = await addNumber(api(), '+61293744001');
    const gb = await addNumber(api(), '+442079460123');
    const c = await campaign(api(), { assistant_id: await assistant(api(), { phone_number_id: au }), phone_number_ids: [gb] });
    expect((await createLead(api(), { campaign_id: c, phone_number: '020 7946 0958' })).body.data.phone_number).toBe('+442079460958');
  });

  it('reads a national number as a US number when neither campaign nor assistant has a number', async () => {
    const c = await campaign(api());
    expectInvalid(await createLead(api(), { campaign_id: c, phone_number: '020 7946 0958' }), { phone_number: [INVALID_NUMBER] });
    expect((await createLead(api(), { campaign_id: c, phone_number: '212 555 0199' })).body.data.phone_number).toBe('+12125550199');
  });

  it('accepts an international number whatever the campaign\'s country', async () => {
    const gb = await addNumber(api(), '+442079460123');
    const c = await campaign(api(), { phone_number_ids: [gb] });
    expect((await createLead(api(), { campaign_id: c, phone_number: '+1 (415) 555-0123' })).body.data.phone_number).toBe('+14155550123');
  });

  it('normalises secondary contacts and gives them their own ids in order', async () => {
    const c = await campaign(api());
    const first = await createLead(api(), {
      campaign_id: c,
      phone_number: '+14155550123',
      secondary_contacts: [{ phone_number: '(415) 555-0124' }, { phone_number: '415.555.0125', variables: { n: 2 } }],
    });
    expect(first.body.data.secondary_contacts.map((s: { id: number; phone_number: string; variables: object }) => [s.id, s.phone_number, s.variables])).toEqual([
      [1, '+14155550124', {}],
      [2, '+14155550125', { n: 2 }],
    ]);
    const second = await createLead(api(), { campaign_id: c, phone_number: '+14155550126', secondary_contacts: [{ phone_number: '+14155550127' }] });
    expect(second.body.data.id).toBe(2);
    expect(second.body.data.secondary_contacts.map((s: { id: number }) => s.id)).toEqual([3]);
  });

  it('stores variables with a __proto__ key as plain data', async () => {
    const c = await campaign(api());
    const res = await api().post('/user/lead', undefined, {
      raw: `{"campaign_id":${c},"phone_number":"+14155550123","variables":{"__proto__":{"polluted":true},"constructor":"x","name":"Ann"}}`,
    });
    expect(res.status).toBe(200);
    const stored = await read(api(), res.body.data.id);
    expect(Object.keys(stored.variables).sort()).toEqual(['__proto__', 'constructor', 'name']);
    expect(stored.variables.name).toBe('Ann');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(api().sim.db.leads.get(1)!.variables).sort()).toEqual(['__proto__', 'constructor', 'name']);
  });
});

contract('create lead: rules', (api) => {
  it.each(['12345', 'not a number', '+1 415 555 012', '415 555 01234 5', '+99 123'])('rejects %j as not a valid phone number', async (input) => {
    const c = await campaign(api());
    expectInvalid(await createLead(api(), { campaign_id: c, phone_number: input }), { phone_number: [INVALID_NUMBER] });
    expect(api().sim.db.leads.size).toBe(0);
  });

  it('requires campaign_id and phone_number', async () => {
    expectInvalid(await createLead(api(), {}), {
      campaign_id: ['The campaign id field is required.'],
      phone_number: ['The phone number field is required.'],
    });
  });

  it('rejects a duplicate number in the same campaign on phone_number', async () => {
    const c = await campaign(api());
    await lead(api(), c, '+14155550123');
    expectInvalid(await createLead(api(), { campaign_id: c, phone_number: '+14155550123' }), { phone_number: [LEAD_MESSAGES.duplicate] });
    expect(LEAD_MESSAGES.duplicate).toBe('The phone number has already been added to this campaign.');
  });

  it('compares numbers after normalisation when looking for a duplicate', async () => {
    const c = await campaign(api());
    await lead(api(), c, '+14155550123');
    expectInvalid(await createLead(api(), { campaign_id: c, phone_number: '(415) 555-0123' }), {
      phone_number: ['The phone number has already been added to this campaign.'],
    });
  });

  it('accepts a duplicate number in the same campaign with allow_dupplicate true', async () => {
    const c = await campaign(api());
    const first = await lead(api(), c, '+14155550123');
    const res = await createLead(api(), { campaign_id: c, phone_number: '+14155550123', allow_dupplicate: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: first + 1, phone_number: '+14155550123' });
    expect((await list(api(), { campaign_id: c })).body.total).toBe(2);
  });

  it('rejects a duplicate with allow_dupplicate false', async () => {
    const c = await campaign(api());
    await lead(api(), c, '+14155550123');
    expectInvalid(await createLead(api(), { campaign_id: c, phone_number: '+14155550123', allow_dupplicate: false }), {
      phone_number: ['The phone number has already been added to this campaign.'],
    });
  });

  it('accepts the same number in another campaign', async () => {
    const a = await assistant(api());
    const first = await campaign(api(), { assistant_id: a });
    const second = await campaign(api(), { assistant_id: a });
    await lead(api(), first, '+14155550123');
    const res = await createLead(api(), { campaign_id: second, phone_number: '+14155550123' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ campaign_id: second, phone_number: '+14155550123' });
  });

  it('rejects an invalid secondary contact number at its index and creates nothing', async () => {
    const c = await campaign(api());
    const res = await createLead(api(), { campaign_id: c, phone_number: '+14155550123', secondary_contacts: [{ phone_number: '+14155550124' }, { phone_number: '12345' }] });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['secondary_contacts.1.phone_number']);
    expect(res.body.errors['secondary_contacts.1.phone_number']).toHaveLength(1);
    expect(res.body.errors['secondary_contacts.1.phone_number']).toEqual(['The secondary contacts.1.phone number is not a valid phone number.']);
    expect(api().sim.db.leads.size).toBe(0);
    expect(api().sim.db.secondaryContacts.size).toBe(0);
  });

  it('rejects a missing campaign', async () => {
    expectInvalid(await createLead(api(), { campaign_id: 42, phone_number: '+14155550123' }), { campaign_id: ['The selected campaign id is invalid.'] });
  });

  it('rejects another account\'s campaign and adds nothing to it', async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    const foreign = await campaign(api(), {}, SECOND_KEY);
    expectInvalid(await createLead(api(), { campaign_id: foreign, phone_number: '+14155550123' }), { campaign_id: ['The selected campaign id is invalid.'] });
    expect((await list(api(), {}, SECOND_KEY)).body.total).toBe(0);
  });

  it.each([
    ['variables', ['a'], 'The variables must be an object.'],
    ['allow_dupplicate', 'true', 'The allow dupplicate field must be true or false.'],
    ['secondary_contacts', { phone_number: '+14155550124' }, 'The secondary contacts must be an array.'],
  ])('rejects %s = %j', async (field, value, message) => {
    const c = await campaign(api());
    expectInvalid(await createLead(api(), { campaign_id: c, phone_number: '+14155550123', [field]: value }), { [field]: [message] });
  });

  it('consumes no lead id on a rejected create', async () => {
    const c = await campaign(api());
    await createLead(api(), { campaign_id: c, phone_number: 'nope', secondary_contacts: [{ phone_number: '+14155550124' }] });
    const res = await createLead(api(), { campaign_id: c, phone_number: '+14155550123', secondary_contacts: [{ phone_number: '+14155550124' }] });
    expect(res.body.data.id).toBe(1);
    expect(res.body.data.secondary_contacts[0].id).toBe(1);
  });
});

contract('list leads: pagination', (api) => {
  it('answers the paginator shape with 15 leads per page by default, in id order', async () => {
    const ids = await leads(api(), await campaign(api()), 16);
    const res = await list(api());
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['current_page', 'data', 'last_page', 'per_page', 'total']);
    expect(res.body).toMatchObject({ current_page: 1, per_page: 15, total: 16, last_page: 2 });
    expect(res.body.data.map((l: { id: number }) => l.id)).toEqual(ids.slice(0, 15));
  });

  it('shows each listed lead in the create shape', async () => {
    const c = await campaign(api());
    const created = await createLead(api(), { campaign_id: c, phone_number: '+14155550123', variables: { a: 1 }, secondary_contacts: [{ phone_number: '+14155550124' }] });
    expect((await list(api())).body.data).toStrictEqual([created.body.data]);
  });

  it('answers the second page', async () => {
    const ids = await leads(api(), await campaign(api()), 16);
    const res = await list(api(), { page: 2 });
    expect(res.body).toMatchObject({ current_page: 2, per_page: 15, total: 16, last_page: 2 });
    expect(res.body.data.map((l: { id: number }) => l.id)).toEqual([ids[15]]);
  });

  it('answers an empty first page with last_page 1 when there are no leads', async () => {
    expect((await list(api())).body).toStrictEqual({ data: [], current_page: 1, per_page: 15, total: 0, last_page: 1 });
  });

  it('accepts per_page 1', async () => {
    const ids = await leads(api(), await campaign(api()), 3);
    const res = await list(api(), { per_page: 1, page: 2 });
    expect(res.body).toMatchObject({ current_page: 2, per_page: 1, total: 3, last_page: 3 });
    expect(res.body.data.map((l: { id: number }) => l.id)).toEqual([ids[1]]);
  });

  it('accepts per_page 100', async () => {
    await leads(api(), await campaign(api()), 3);
    expect((await list(api(), { per_page: 100 })).body).toMatchObject({ per_page: 100, total: 3, last_page: 1 });
  });

  it.each([0, 101])('rejects per_page %i', async (perPage) => {
    expectInvalid(await list(api(), { per_page: perPage }), { per_page: ['The per page must be between 1 and 100.'] });
  });

  it('rejects page 0', async () => {
    expectInvalid(await list(api(), { page: 0 }), { page: ['The page must be at least 1.'] });
  });

  it('answers an empty page past the end with the real total and last page', async () => {
    await leads(api(), await campaign(api()), 16);
    expect((await list(api(), { page: 3 })).body).toStrictEqual({ data: [], current_page: 3, per_page: 15, total: 16, last_page: 2 });
  });

  it('lists only the caller\'s leads', async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    const own = await lead(api(), await campaign(api()), '+14155550123');
    const foreignCampaign = await campaign(api(), {}, SECOND_KEY);
    const foreign = await lead(api(), foreignCampaign, '+14155550124', {}, SECOND_KEY);
    expect(await listedIds(api())).toEqual([own]);
    expect((await list(api(), {}, SECOND_KEY)).body.data.map((l: { id: number }) => l.id)).toEqual([foreign]);
  });
});

contract('list leads: filters', (api) => {
  /** Two campaigns; lead 2 completed. Numbers: 1 +14155550123 (c1), 2 +12125550199 (c1), 3 +14152370100 (c2), 4 +14155550124 (c2). */
  async function fixture(a: Api) {
    const assistantId = await assistant(a);
    const c1 = await campaign(a, { assistant_id: assistantId });
    const c2 = await campaign(a, { assistant_id: assistantId, name: 'Autumn' });
    const l1 = await lead(a, c1, '+14155550123');
    const l2 = await lead(a, c1, '+12125550199');
    const l3 = await lead(a, c2, '+14152370100');
    const l4 = await lead(a, c2, '+14155550124');
    expect((await a.put(`/user/leads/${l2}`, { status: 'completed' })).status).toBe(200);
    expect((await a.put(`/user/leads/${l4}`, { status: 'completed' })).status).toBe(200);
    return { c1, c2, l1, l2, l3, l4 };
  }

  it('filters by status', async () => {
    const f = await fixture(api());
    expect(await listedIds(api(), { status: 'completed' })).toEqual([f.l2, f.l4]);
    expect(await listedIds(api(), { status: 'created' })).toEqual([f.l1, f.l3]);
    expect(await listedIds(api(), { status: 'blacklisted' })).toEqual([]);
  });

  it('filters by campaign_id', async () => {
    const f = await fixture(api());
    expect(await listedIds(api(), { campaign_id: f.c2 })).toEqual([f.l3, f.l4]);
  });

  it('filters by a partial phone number', async () => {
    const f = await fixture(api());
    expect(await listedIds(api(), { phone_number: '555' })).toEqual([f.l1, f.l2, f.l4]);
    expect(await listedIds(api(), { phone_number: '0124' })).toEqual([f.l4]);
    expect(await listedIds(api(), { phone_number: '+1212' })).toEqual([f.l2]);
  });

  it('matches a formatted partial number by its digits', async () => {
    const f = await fixture(api());
    expect(await listedIds(api(), { phone_number: '(415) 237' })).toEqual([f.l3]);
  });

  it('combines status, campaign_id and phone_number', async () => {
    const f = await fixture(api());
    expect(await listedIds(api(), { status: 'completed', campaign_id: f.c1 })).toEqual([f.l2]);
    expect(await listedIds(api(), { status: 'created', phone_number: '415' })).toEqual([f.l1, f.l3]);
    expect(await listedIds(api(), { status: 'completed', campaign_id: f.c2, phone_number: '555' })).toEqual([f.l4]);
    expect(await listedIds(api(), { status: 'created', campaign_id: f.c2, phone_number: '555' })).toEqual([]);
  });

  it('counts only the filtered leads in total and last_page', async () => {
    const f = await fixture(api());
    expect((await list(api(), { campaign_id: f.c1, per_page: 1 })).body).toMatchObject({ total: 2, last_page: 2, per_page: 1 });
  });

  it('rejects an unknown status', async () => {
    expectInvalid(await list(api(), { status: 'paused' }), { status: ['The selected status is invalid.'] });
  });

  it('rejects a missing campaign_id', async () => {
    expectInvalid(await list(api(), { campaign_id: 42 }), { campaign_id: ['The selected campaign id is invalid.'] });
  });

  it('rejects another account\'s campaign_id', async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    const foreign = await campaign(api(), {}, SECOND_KEY);
    await lead(api(), foreign, '+14155550123', {}, SECOND_KEY);
    expectInvalid(await list(api(), { campaign_id: foreign }), { campaign_id: ['The selected campaign id is invalid.'] });
  });

  it('rejects a campaign_id that is not an integer', async () => {
    expectInvalid(await list(api(), { campaign_id: 'one' }), { campaign_id: ['The campaign id must be an integer.'] });
  });
});

contract('list leads: dates in the account timezone', (api) => {
  /**
   * New York is UTC-5 in early March 2026. Leads at (UTC -> New York):
   * 1 03-02 09:00 -> 03-02 04:00; 2 03-03 04:59:59 -> 03-02 23:59:59;
   * 3 03-03 05:00:00 -> 03-03 00:00:00; 4 03-04 12:00 -> 03-04 07:00.
   */
  async function fixture(a: Api, timezone = 'America/New_York') {
    a.sim.control.accounts.patch(1, { timezone });
    const c = await campaign(a);
    const ids = [await lead(a, c, '+14155550101')];
    await a.sim.clock.advanceTo('2026-03-03T04:59:59Z');
    ids.push(await lead(a, c, '+14155550102'));
    await a.sim.clock.advanceTo('2026-03-03T05:00:00Z');
    ids.push(await lead(a, c, '+14155550103'));
    await a.sim.clock.advanceTo('2026-03-04T12:00:00Z');
    ids.push(await lead(a, c, '+14155550104'));
    return ids as [number, number, number, number];
  }

  it('reads date_from and date_to as New York calendar days, both inclusive', async () => {
    const [l1, l2] = await fixture(api());
    expect(await listedIds(api(), { date_from: '2026-03-02', date_to: '2026-03-02' })).toEqual([l1, l2]);
  });

  it('puts a lead created at New York midnight on the new day', async () => {
    const [, , l3] = await fixture(api());
    expect(await listedIds(api(), { date_from: '2026-03-03', date_to: '2026-03-03' })).toEqual([l3]);
  });

  it('filters with date_from alone', async () => {
    const [, , l3, l4] = await fixture(api());
    expect(await listedIds(api(), { date_from: '2026-03-03' })).toEqual([l3, l4]);
  });

  it('filters with date_to alone', async () => {
    const [l1, l2, l3] = await fixture(api());
    expect(await listedIds(api(), { date_to: '2026-03-03' })).toEqual([l1, l2, l3]);
  });

  it('answers nothing for a day without leads', async () => {
    await fixture(api());
    expect(await listedIds(api(), { date_from: '2026-03-05' })).toEqual([]);
  });

  it('reads the same dates as UTC days for a UTC account', async () => {
    const [l1, l2, l3] = await fixture(api(), 'UTC');
    expect(await listedIds(api(), { date_from: '2026-03-02', date_to: '2026-03-02' })).toEqual([l1]);
    expect(await listedIds(api(), { date_from: '2026-03-03', date_to: '2026-03-03' })).toEqual([l2, l3]);
  });

  it('combines dates with the other filters', async () => {
    const [, l2] = await fixture(api());
    await api().put(`/user/leads/${l2}`, { status: 'completed' });
    expect(await listedIds(api(), { date_to: '2026-03-02', status: 'completed', phone_number: '0102', campaign_id: 1 })).toEqual([l2]);
    expect(await listedIds(api(), { date_from: '2026-03-03', status: 'completed' })).toEqual([]);
  });

  it('rejects a date_to before date_from on date_to', async () => {
    expectInvalid(await list(api(), { date_from: '2026-03-03', date_to: '2026-03-02' }), {
      date_to: ['The date to must be a date after or equal to date from.'],
    });
  });

  it.each(['2026-3-2', '2026-02-30', 'yesterday'])('rejects date_from %j as not Y-m-d', async (value) => {
    expectInvalid(await list(api(), { date_from: value }), { date_from: ['The date from does not match the format Y-m-d.'] });
  });
});

contract('update lead', (api) => {
  async function oneLead(a: Api, extra: Record<string, unknown> = {}) {
    const c = await campaign(a);
    return { campaign: c, lead: await lead(a, c, '+14155550123', extra) };
  }

  it('answers 200 with the updated message', async () => {
    const { lead: id } = await oneLead(api());
    const res = await api().put(`/user/leads/${id}`, { variables: { a: 1 } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Lead updated successfully.' });
  });

  it('merges variables: existing keys updated, new keys added, others kept', async () => {
    const { lead: id } = await oneLead(api(), { variables: { first_name: 'Ann', plan: 'basic', nested: { x: 1 } } });
    await api().put(`/user/leads/${id}`, { variables: { plan: 'pro', city: 'Austin' } });
    expect((await read(api(), id)).variables).toEqual({ first_name: 'Ann', plan: 'pro', nested: { x: 1 }, city: 'Austin' });
  });

  it('keeps every field that is not sent', async () => {
    const { lead: id } = await oneLead(api(), { variables: { a: 1 } });
    const before = await read(api(), id);
    await api().put(`/user/leads/${id}`, {});
    expect(await read(api(), id)).toEqual(before);
  });

  it('moves updated_at to the clock time and keeps created_at', async () => {
    const { lead: id } = await oneLead(api());
    await api().sim.clock.advance('1h');
    await api().put(`/user/leads/${id}`, { variables: { a: 1 } });
    expect(await read(api(), id)).toMatchObject({ created_at: NOW, updated_at: '2026-03-02 10:00:00' });
  });

  it.each(['completed', 'reached-max-retries', 'created'])('accepts status %s', async (status) => {
    const { lead: id } = await oneLead(api());
    await api().put(`/user/leads/${id}`, { status: status === 'created' ? 'completed' : 'created' });
    const res = await api().put(`/user/leads/${id}`, { status });
    expect(res.status).toBe(200);
    expect((await read(api(), id)).status).toBe(status);
  });

  it.each(['scheduled', 'processing', 'rescheduled', 'blacklisted'])('rejects status %s on field status', async (status) => {
    const { lead: id } = await oneLead(api());
    expectInvalid(await api().put(`/user/leads/${id}`, { status }), { status: [NOT_SETTABLE] });
    expect(LEAD_MESSAGES.statusNotSettable).toBe(NOT_SETTABLE);
    expect((await read(api(), id)).status).toBe('created');
  });

  it('rejects an unknown status as invalid', async () => {
    const { lead: id } = await oneLead(api());
    expectInvalid(await api().put(`/user/leads/${id}`, { status: 'paused' }), { status: ['The selected status is invalid.'] });
  });

  it('moves the lead to another campaign of the account', async () => {
    const a = await assistant(api());
    const from = await campaign(api(), { assistant_id: a });
    const to = await campaign(api(), { assistant_id: a, name: 'Autumn' });
    const id = await lead(api(), from, '+14155550123');
    expect((await api().put(`/user/leads/${id}`, { campaign_id: to })).status).toBe(200);
    expect(await read(api(), id)).toMatchObject({ campaign_id: to, campaign: { id: to, name: 'Autumn' } });
    expect(await listedIds(api(), { campaign_id: from })).toEqual([]);
    expect(await listedIds(api(), { campaign_id: to })).toEqual([id]);
  });

  it('rejects a move to another account\'s campaign', async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    const foreign = await campaign(api(), {}, SECOND_KEY);
    const { lead: id, campaign: own } = await oneLead(api());
    expectInvalid(await api().put(`/user/leads/${id}`, { campaign_id: foreign }), { campaign_id: ['The selected campaign id is invalid.'] });
    expect((await read(api(), id)).campaign_id).toBe(own);
  });

  it('rejects a move to a missing campaign', async () => {
    const { lead: id } = await oneLead(api());
    expectInvalid(await api().put(`/user/leads/${id}`, { campaign_id: 42 }), { campaign_id: ['The selected campaign id is invalid.'] });
  });

  it('normalises a new phone number to E.164', async () => {
    const { lead: id } = await oneLead(api());
    await api().put(`/user/leads/${id}`, { phone_number: '(212) 555-0199' });
    expect((await read(api(), id)).phone_number).toBe('+12125550199');
  });

  it('accepts the lead\'s own number again', async () => {
    const { lead: id } = await oneLead(api());
    expect((await api().put(`/user/leads/${id}`, { phone_number: '415.555.0123' })).status).toBe(200);
    expect((await read(api(), id)).phone_number).toBe('+14155550123');
  });

  it('rejects an invalid phone number', async () => {
    const { lead: id } = await oneLead(api());
    expectInvalid(await api().put(`/user/leads/${id}`, { phone_number: '12345' }), { phone_number: [INVALID_NUMBER] });
  });

  it('rejects a number another lead of the campaign has', async () => {
    const { campaign: c, lead: id } = await oneLead(api());
    await lead(api(), c, '+14155550124');
    expectInvalid(await api().put(`/user/leads/${id}`, { phone_number: '(415) 555-0124' }), { phone_number: [LEAD_MESSAGES.duplicate] });
  });

  it('rejects a move to a campaign that already has the lead\'s number, on phone_number', async () => {
    const a = await assistant(api());
    const from = await campaign(api(), { assistant_id: a });
    const to = await campaign(api(), { assistant_id: a });
    const id = await lead(api(), from, '+14155550123');
    await lead(api(), to, '+14155550123');
    expectInvalid(await api().put(`/user/leads/${id}`, { campaign_id: to }), { phone_number: [LEAD_MESSAGES.duplicate] });
  });

  it('reads a new national number in the target campaign\'s country', async () => {
    const gb = await addNumber(api(), '+442079460123');
    const a = await assistant(api());
    const to = await campaign(api(), { assistant_id: a, phone_number_ids: [gb] });
    const { lead: id } = await oneLead(api());
    expect((await api().put(`/user/leads/${id}`, { campaign_id: to, phone_number: '020 7946 0958' })).status).toBe(200);
    expect(await read(api(), id)).toMatchObject({ campaign_id: to, phone_number: '+442079460958' });
  });

  it('answers 404 shape A for a missing lead', async () => {
    const res = await api().put('/user/leads/42', { status: 'completed' });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ message: 'Lead not found.' });
  });

  it('changes nothing when the update is rejected', async () => {
    const { lead: id } = await oneLead(api(), { variables: { a: 1 } });
    await api().sim.clock.advance('1h');
    const before = await list(api());
    const res = await api().put(`/user/leads/${id}`, { variables: { a: 2, b: 3 }, phone_number: '+14155550199', status: 'processing' });
    expect(res.status).toBe(422);
    expect((await list(api())).body).toEqual(before.body);
  });
});

contract('delete lead', (api) => {
  it('answers 200 with the deleted message and removes the lead', async () => {
    const c = await campaign(api());
    const keep = await lead(api(), c, '+14155550124');
    const id = await lead(api(), c, '+14155550123');
    const res = await api().del(`/user/leads/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Lead deleted successfully.' });
    expect(await listedIds(api())).toEqual([keep]);
  });

  it('removes the lead\'s secondary contacts and keeps other leads\' contacts', async () => {
    const c = await campaign(api());
    const id = await lead(api(), c, '+14155550123', { secondary_contacts: [{ phone_number: '+14155550124' }, { phone_number: '+14155550125' }] });
    await lead(api(), c, '+14155550126', { secondary_contacts: [{ phone_number: '+14155550127' }] });
    await api().del(`/user/leads/${id}`);
    expect(api().sim.db.secondaryContacts.all().map((s) => [s.id, s.phone_number])).toEqual([[3, '+14155550127']]);
  });

  it('answers 404 shape A once the lead is deleted', async () => {
    const id = await lead(api(), await campaign(api()), '+14155550123');
    await api().del(`/user/leads/${id}`);
    const res = await api().del(`/user/leads/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ message: 'Lead not found.' });
    expect((await api().put(`/user/leads/${id}`, { status: 'completed' })).status).toBe(404);
  });

  it('frees the number for a new lead in the same campaign', async () => {
    const c = await campaign(api());
    const id = await lead(api(), c, '+14155550123');
    await api().del(`/user/leads/${id}`);
    expect((await createLead(api(), { campaign_id: c, phone_number: '+14155550123' })).status).toBe(200);
  });
});
