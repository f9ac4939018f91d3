/**
 * Call records and starting one call (spec: Call, Calls endpoints, Errors, Limits;
 * decisions: Start one call, make_call checks in order, Balance and dialing, Billing
 * defaults, Ids that point elsewhere, Dates in filters, Timestamps, Assistant activation).
 * Records are inserted through `POST /__sim/calls`.
 */
import { expect, it } from 'vitest';
import { CALL_MESSAGES } from '../../src/domain/calls/service.js';
import { contract, KEY, type Api } from '../support/api.js';
import { multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';

const SECOND_KEY = 'sim_second_key';
const CALL_NOT_FOUND = { message: 'Call not found.' };
const ASSISTANT_NOT_FOUND = { message: 'Assistant not found.' };
const INSUFFICIENT = { message: 'Insufficient balance to make call. Please top up your account.' };
const OUTBOUND_NUMBER = '+14155550100';
const INBOUND_NUMBER = '+14155550101';
const CALL_FIELDS = [
  'answered_by',
  'assistant_id',
  'assistant_name',
  'assistant_phone_number',
  'campaign_id',
  'campaign_name',
  'carrier_cost',
  'client_phone_number',
  'created_at',
  'duration',
  'evaluation',
  'id',
  'recording_url',
  'status',
  'total_cost',
  'transcript',
  'type',
  'updated_at',
  'variables',
  'webhook_response',
];

interface Setup {
  outbound: number;
  inbound: number;
  campaign: number;
}

/** Two numbers, an outbound assistant (1) with a campaign (1) and an inbound assistant (2). */
async function setup(api: Api): Promise<Setup> {
  const outboundNumber = api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: OUTBOUND_NUMBER }).id;
  const inboundNumber = api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: INBOUND_NUMBER }).id;
  const outbound = await api.post('/user/assistant', pipelineAssistant({ phone_number_id: outboundNumber }));
  const inbound = await api.post('/user/assistant', multimodalAssistant({ phone_number_id: inboundNumber }));
  const campaign = await api.post('/user/campaign', { name: 'Spring', assistant_id: outbound.body.data.id });
  expect([outbound.status, inbound.status, campaign.status]).toEqual([201, 201, 201]);
  return { outbound: outbound.body.data.id, inbound: inbound.body.data.id, campaign: campaign.body.data.id };
}

async function insert(api: Api, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await api.post('/__sim/calls', body);
  expect(res.status).toBe(201);
  return res.body;
}

async function ids(api: Api, query: Record<string, string | number> = {}): Promise<number[]> {
  const res = await api.get('/user/calls', { query });
  expect(res.status).toBe(200);
  return res.body.data.map((c: { id: number }) => c.id);
}

/** Five calls in the order of their times (ids 1-5). */
async function history(api: Api): Promise<Setup> {
  const s = await setup(api);
  await insert(api, { assistant_id: s.outbound, campaign_id: s.campaign, type: 'outbound', status: 'completed', client_phone_number: '+14155550111', created_at: '2026-02-20T10:00:00Z' });
  await insert(api, { assistant_id: s.outbound, type: 'outbound', status: 'no-answer', client_phone_number: '+14155550222', created_at: '2026-02-25T10:00:00Z' });
  await insert(api, { assistant_id: s.inbound, type: 'inbound', status: 'completed', client_phone_number: '+442071838750', created_at: '2026-02-27T10:00:00Z' });
  await insert(api, { assistant_id: s.inbound, type: 'web', status: 'failed', client_phone_number: '+14155550333', created_at: '2026-03-01T10:00:00Z' });
  await insert(api, { assistant_id: s.outbound, campaign_id: s.campaign, type: 'outbound', status: 'completed', client_phone_number: '+16175550444', created_at: '2026-03-02T08:00:00Z' });
  return s;
}

async function insertMany(api: Api, count: number): Promise<void> {
  const { outbound } = await setup(api);
  for (let i = 0; i < count; i++) {
    await insert(api, { assistant_id: outbound, client_phone_number: `+1415555${String(1000 + i)}` });
    await api.sim.clock.advance('1m');
  }
}

function expectInvalid(res: { status: number; body: any }, field: string, message: string) {
  expect(res.status).toBe(422);
  expect(res.body).toEqual({ message, errors: { [field]: [message] } });
}

async function secondAccountWithCall(api: Api): Promise<{ assistant: number; campaign: number; call: number }> {
  api.sim.control.accounts.create({ api_key: SECOND_KEY });
  const assistant = await api.post('/user/assistant', pipelineAssistant(), { key: SECOND_KEY });
  const campaign = await api.post('/user/campaign', { name: 'Foreign', assistant_id: assistant.body.data.id }, { key: SECOND_KEY });
  const call = await insert(api, { account_id: 2, assistant_id: assistant.body.data.id, client_phone_number: '+14155550999' });
  return { assistant: assistant.body.data.id, campaign: campaign.body.data.id, call: call.id };
}

contract('list calls: pagination', (api) => {
  it('answers an empty first page with the paginator shape', async () => {
    const res = await api().get('/user/calls');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [], current_page: 1, per_page: 15, total: 0, last_page: 1 });
  });

  it('pages by 15 by default, newest first', async () => {
    await insertMany(api(), 16);
    const res = await api().get('/user/calls');
    expect(res.body).toMatchObject({ current_page: 1, per_page: 15, total: 16, last_page: 2 });
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  });

  it('answers the oldest call on the second page', async () => {
    await insertMany(api(), 16);
    const res = await api().get('/user/calls', { query: { page: 2 } });
    expect(res.body).toMatchObject({ current_page: 2, per_page: 15, total: 16, last_page: 2 });
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([1]);
  });

  it('lists each call as GET /user/calls/{id} shows it', async () => {
    await insertMany(api(), 2);
    const res = await api().get('/user/calls');
    expect(res.body.data[1]).toStrictEqual((await api().get('/user/calls/1')).body);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(CALL_FIELDS);
  });

  it('accepts per_page 1', async () => {
    await insertMany(api(), 3);
    const res = await api().get('/user/calls', { query: { per_page: 1, page: 2 } });
    expect(res.body).toMatchObject({ current_page: 2, per_page: 1, total: 3, last_page: 3 });
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([2]);
  });

  it('accepts per_page 100', async () => {
    await insertMany(api(), 3);
    const res = await api().get('/user/calls', { query: { per_page: 100 } });
    expect(res.body).toMatchObject({ current_page: 1, per_page: 100, total: 3, last_page: 1 });
    expect(res.body.data).toHaveLength(3);
  });

  it.each([
    [{ per_page: 0 }, 'per_page', 'The per page must be between 1 and 100.'],
    [{ per_page: 101 }, 'per_page', 'The per page must be between 1 and 100.'],
    [{ page: 0 }, 'page', 'The page must be at least 1.'],
  ])('rejects %j with 422 shape B', async (query, field, message) => {
    expectInvalid(await api().get('/user/calls', { query }), field, message);
  });

  it('answers a page past the end with no data and the real totals', async () => {
    await insertMany(api(), 3);
    const res = await api().get('/user/calls', { query: { page: 3, per_page: 2 } });
    expect(res.body).toStrictEqual({ data: [], current_page: 3, per_page: 2, total: 3, last_page: 2 });
  });

  it("lists only the caller's calls", async () => {
    await insertMany(api(), 1);
    await secondAccountWithCall(api());
    expect(await ids(api())).toEqual([1]);
    const res = await api().get('/user/calls', { key: SECOND_KEY });
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([2]);
  });
});

contract('list calls: filters', (api) => {
  it('answers every call without a filter, newest first', async () => {
    await history(api());
    expect(await ids(api())).toEqual([5, 4, 3, 2, 1]);
  });

  it.each([
    ['completed', [5, 3, 1]],
    ['no-answer', [2]],
    ['failed', [4]],
    ['initiated', []],
  ])('filters by status %s', async (status, expected) => {
    await history(api());
    expect(await ids(api(), { status })).toEqual(expected);
  });

  it.each([
    ['inbound', [3]],
    ['outbound', [5, 2, 1]],
    ['web', [4]],
  ])('filters by type %s', async (type, expected) => {
    await history(api());
    expect(await ids(api(), { type })).toEqual(expected);
  });

  it.each([
    ['4155550', [4, 2, 1]],
    ['+1 415 555 0222', [2]],
    ['2071838', [3]],
    ['+16175550444', [5]],
  ])('filters by part of the client number %j', async (phone, expected) => {
    await history(api());
    expect(await ids(api(), { phone_number: phone })).toEqual(expected);
  });

  it('pages a number filter newest first across several numbers, with the total of all their calls', async () => {
    const { outbound } = await setup(api());
    // Calls to three numbers, interleaved, and one to a number the filter does not match.
    const numbers = ['+14155550111', '+14155550222', '+14155550111', '+16175550444', '+14155550333', '+14155550222', '+14155550111'];
    for (const number of numbers) {
      await insert(api(), { assistant_id: outbound, client_phone_number: number });
      await api().sim.clock.advance('1m');
    }
    const page = async (p: number) => (await api().get('/user/calls', { query: { phone_number: '415555', per_page: 2, page: p } })).body;
    const pages = [await page(1), await page(2), await page(3), await page(4)];
    expect(pages.map((b) => b.data.map((c: { id: number }) => c.id))).toEqual([[7, 6], [5, 3], [2, 1], []]);
    expect(pages.map((b) => [b.total, b.last_page])).toEqual([[6, 3], [6, 3], [6, 3], [6, 3]]);
  });

  it("matches the client's number, not the assistant's", async () => {
    await history(api());
    expect(await ids(api(), { phone_number: '0100' })).toEqual([]);
  });

  it('filters by assistant', async () => {
    const s = await history(api());
    expect(await ids(api(), { assistant_id: s.inbound })).toEqual([4, 3]);
  });

  it('filters by campaign and names it on each call', async () => {
    const s = await history(api());
    const res = await api().get('/user/calls', { query: { campaign_id: s.campaign } });
    expect(res.body.data.map((c: { id: number; campaign_id: number; campaign_name: string }) => [c.id, c.campaign_id, c.campaign_name])).toEqual([
      [5, s.campaign, 'Spring'],
      [1, s.campaign, 'Spring'],
    ]);
    expect(res.body).toMatchObject({ total: 2, last_page: 1 });
  });

  it('filters from a day on, that day included', async () => {
    await history(api());
    expect(await ids(api(), { date_from: '2026-02-25' })).toEqual([5, 4, 3, 2]);
  });

  it('filters up to a day, that day included', async () => {
    await history(api());
    expect(await ids(api(), { date_to: '2026-02-25' })).toEqual([2, 1]);
  });

  it('filters one day when date_from equals date_to', async () => {
    await history(api());
    expect(await ids(api(), { date_from: '2026-02-27', date_to: '2026-02-27' })).toEqual([3]);
  });

  it('combines status and assistant', async () => {
    const s = await history(api());
    expect(await ids(api(), { status: 'completed', assistant_id: s.outbound })).toEqual([5, 1]);
  });

  it('combines type, number and a start day', async () => {
    await history(api());
    expect(await ids(api(), { type: 'outbound', phone_number: '4155', date_from: '2026-02-21' })).toEqual([2]);
  });

  it('combines campaign and an end day', async () => {
    const s = await history(api());
    expect(await ids(api(), { campaign_id: s.campaign, date_to: '2026-03-01' })).toEqual([1]);
  });

  it('combines campaign and status into an empty result', async () => {
    const s = await history(api());
    const res = await api().get('/user/calls', { query: { campaign_id: s.campaign, status: 'no-answer' } });
    expect(res.body).toStrictEqual({ data: [], current_page: 1, per_page: 15, total: 0, last_page: 1 });
  });

  it('counts only the filtered calls in total and last_page', async () => {
    await history(api());
    const res = await api().get('/user/calls', { query: { status: 'completed', per_page: 2 } });
    expect(res.body).toMatchObject({ current_page: 1, per_page: 2, total: 3, last_page: 2 });
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([5, 3]);
  });
});

contract('list calls: days in the account timezone', (api) => {
  /** Calls at 23:59:59 and 00:00:00 New York time on both sides of March 2 (EST, UTC-5). */
  async function aroundMidnight(): Promise<void> {
    const { outbound } = await setup(api());
    for (const at of ['2026-03-02T04:59:59Z', '2026-03-02T05:00:00Z', '2026-03-03T04:59:59Z', '2026-03-03T05:00:00Z']) {
      await insert(api(), { assistant_id: outbound, client_phone_number: '+14155550123', created_at: at });
    }
  }

  it("counts a day from midnight to midnight in the account's zone", async () => {
    await aroundMidnight();
    api().sim.control.accounts.patch(1, { timezone: 'America/New_York' });
    expect(await ids(api(), { date_from: '2026-03-02', date_to: '2026-03-02' })).toEqual([3, 2]);
  });

  it("ends date_to at midnight in the account's zone", async () => {
    await aroundMidnight();
    api().sim.control.accounts.patch(1, { timezone: 'America/New_York' });
    expect(await ids(api(), { date_to: '2026-03-01' })).toEqual([1]);
  });

  it("starts date_from at midnight in the account's zone", async () => {
    await aroundMidnight();
    api().sim.control.accounts.patch(1, { timezone: 'America/New_York' });
    expect(await ids(api(), { date_from: '2026-03-03' })).toEqual([4]);
  });

  it('counts days in UTC while the account has no timezone set', async () => {
    await aroundMidnight();
    expect(await ids(api(), { date_from: '2026-03-02', date_to: '2026-03-02' })).toEqual([2, 1]);
  });
});

contract('list calls: invalid filters', (api) => {
  it('rejects an unknown status with 422 shape B', async () => {
    expectInvalid(await api().get('/user/calls', { query: { status: 'done' } }), 'status', 'The selected status is invalid.');
  });

  it('rejects an unknown type with 422 shape B', async () => {
    expectInvalid(await api().get('/user/calls', { query: { type: 'sms' } }), 'type', 'The selected type is invalid.');
  });

  it('rejects a missing assistant with 422 shape B', async () => {
    expectInvalid(await api().get('/user/calls', { query: { assistant_id: 99 } }), 'assistant_id', 'The selected assistant id is invalid.');
  });

  it("rejects another account's assistant with 422 shape B", async () => {
    const foreign = await secondAccountWithCall(api());
    expectInvalid(await api().get('/user/calls', { query: { assistant_id: foreign.assistant } }), 'assistant_id', 'The selected assistant id is invalid.');
  });

  it('rejects a missing campaign with 422 shape B', async () => {
    expectInvalid(await api().get('/user/calls', { query: { campaign_id: 99 } }), 'campaign_id', 'The selected campaign id is invalid.');
  });

  it("rejects another account's campaign with 422 shape B", async () => {
    const foreign = await secondAccountWithCall(api());
    expectInvalid(await api().get('/user/calls', { query: { campaign_id: foreign.campaign } }), 'campaign_id', 'The selected campaign id is invalid.');
  });

  it('rejects date_to before date_from with 422 shape B', async () => {
    expectInvalid(
      await api().get('/user/calls', { query: { date_from: '2026-03-02', date_to: '2026-03-01' } }),
      'date_to',
      'The date to must be a date after or equal to date from.',
    );
  });

  it.each(['2026-3-1', '03/01/2026', '2026-02-30', '2026-03-01T00:00:00Z'])('rejects the date_from %j with 422 shape B', async (day) => {
    expectInvalid(await api().get('/user/calls', { query: { date_from: day } }), 'date_from', 'The date from does not match the format Y-m-d.');
  });

  it('rejects a bad date_to format with 422 shape B', async () => {
    expectInvalid(await api().get('/user/calls', { query: { date_to: 'yesterday' } }), 'date_to', 'The date to does not match the format Y-m-d.');
  });
});

contract('get call', (api) => {
  const FULL = {
    type: 'outbound',
    status: 'completed',
    client_phone_number: '+14155550111',
    duration: 95,
    transcript: 'Assistant: Hello!\nCustomer: Hi, tell me more.',
    variables: { interested: true, name: 'Ann' },
    evaluation: { goal_met: true, summary: 'Booked a demo.' },
    webhook_response: { status: 200, body: 'ok' },
    carrier_cost: 0.02,
    total_cost: 0.18,
    answered_by: 'human',
    recording_url: 'https://recordings.example.test/1.mp3',
    created_at: '2026-03-01T10:15:30Z',
  };

  it('answers the unwrapped call with every Call field', async () => {
    const s = await setup(api());
    await insert(api(), { ...FULL, assistant_id: s.outbound, campaign_id: s.campaign });
    const res = await api().get('/user/calls/1');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      id: 1,
      assistant_id: s.outbound,
      assistant_name: 'Sales Assistant',
      campaign_id: s.campaign,
      campaign_name: 'Spring',
      type: 'outbound',
      duration: 95,
      assistant_phone_number: OUTBOUND_NUMBER,
      client_phone_number: '+14155550111',
      status: 'completed',
      transcript: 'Assistant: Hello!\nCustomer: Hi, tell me more.',
      variables: { interested: true, name: 'Ann' },
      evaluation: { goal_met: true, summary: 'Booked a demo.' },
      webhook_response: { status: 200, body: 'ok' },
      carrier_cost: 0.02,
      total_cost: 0.18,
      answered_by: 'human',
      recording_url: 'https://recordings.example.test/1.mp3',
      created_at: '2026-03-01 10:15:30',
      updated_at: '2026-03-01 10:15:30',
    });
  });

  it('answers what POST /__sim/calls answered', async () => {
    const s = await setup(api());
    const inserted = await insert(api(), { ...FULL, assistant_id: s.inbound, type: 'inbound', answered_by: 'machine', recording_url: null });
    expect((await api().get(`/user/calls/${inserted.id}`)).body).toStrictEqual(inserted);
  });

  it('shows a call without a campaign or recording with null in those keys', async () => {
    const s = await setup(api());
    await insert(api(), { assistant_id: s.inbound, type: 'inbound', client_phone_number: '+14155550111' });
    const res = await api().get('/user/calls/1');
    expect(res.body).toMatchObject({ campaign_id: null, campaign_name: null, recording_url: null, assistant_phone_number: INBOUND_NUMBER, assistant_name: 'Support Assistant' });
  });

  it('writes created_at and updated_at as YYYY-MM-DD HH:MM:SS in UTC', async () => {
    const s = await setup(api());
    await api().sim.clock.advance('1h2m3s');
    await insert(api(), { assistant_id: s.outbound, client_phone_number: '+14155550111' });
    const res = await api().get('/user/calls/1');
    expect(res.body.created_at).toBe('2026-03-02 10:02:03');
    expect(res.body.updated_at).toBe('2026-03-02 10:02:03');
  });

  it('answers a missing call with 404 shape A', async () => {
    const res = await api().get('/user/calls/99');
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(CALL_NOT_FOUND);
  });
});

contract('delete call', (api) => {
  it('answers 200 with the deleted message', async () => {
    await insertMany(api(), 1);
    const res = await api().del('/user/calls/1');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Call deleted successfully.' });
  });

  it('removes the call: get answers 404 and the list leaves it out', async () => {
    await insertMany(api(), 2);
    await api().del('/user/calls/1');
    expect((await api().get('/user/calls/1')).status).toBe(404);
    expect(await ids(api())).toEqual([2]);
  });

  it('answers a second delete with 404 shape A', async () => {
    await insertMany(api(), 1);
    await api().del('/user/calls/1');
    const res = await api().del('/user/calls/1');
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(CALL_NOT_FOUND);
  });

  it('answers a missing call with 404 shape A', async () => {
    const res = await api().del('/user/calls/99');
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(CALL_NOT_FOUND);
  });
});

contract('make_call: success', (api) => {
  const BODY = { phone_number: '+14155550123', variables: { name: 'Ann' } };

  it('answers 200 with the call id and status initiated', async () => {
    const { outbound } = await setup(api());
    const res = await api().post('/user/make_call', { ...BODY, assistant_id: outbound });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Call initiated successfully.', call_id: 1, status: 'initiated' });
  });

  it("lists the call as an initiated outbound call from the assistant's number to the client", async () => {
    const { outbound } = await setup(api());
    const made = await api().post('/user/make_call', { ...BODY, assistant_id: outbound });
    const res = await api().get('/user/calls');
    expect(res.body.total).toBe(1);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(CALL_FIELDS);
    expect(res.body.data[0]).toMatchObject({
      id: made.body.call_id,
      assistant_id: outbound,
      assistant_name: 'Sales Assistant',
      campaign_id: null,
      campaign_name: null,
      type: 'outbound',
      status: 'initiated',
      assistant_phone_number: OUTBOUND_NUMBER,
      client_phone_number: '+14155550123',
      duration: 0,
      created_at: '2026-03-02 09:00:00',
    });
  });

  it('shows the same call on GET /user/calls/{id}', async () => {
    const { outbound } = await setup(api());
    const made = await api().post('/user/make_call', { ...BODY, assistant_id: outbound });
    const res = await api().get(`/user/calls/${made.body.call_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual((await api().get('/user/calls')).body.data[0]);
  });

  it('answers every read of the call as it is at that moment, while the clock moves it to the end', async () => {
    const { outbound } = await setup(api());
    const made = await api().post('/user/make_call', { ...BODY, assistant_id: outbound });
    const inProcess = async (path: string) => (await api().sim.handle({ method: 'GET', path, headers: { authorization: `Bearer ${KEY}` } })).body;
    const statuses: string[] = [];
    for (let step = 0; step < 8; step++) {
      const page = await api().get('/user/calls');
      const one = await api().get(`/user/calls/${made.body.call_id}`);
      expect(page.body).toStrictEqual(await inProcess('/user/calls'));
      expect(one.body).toStrictEqual(page.body.data[0]);
      statuses.push(one.body.status);
      await api().sim.clock.advance('30s');
    }
    expect(statuses[0]).toBe('initiated');
    expect(statuses.at(-1)).toBe('completed');
  });

  it('makes the assistant active', async () => {
    const { outbound } = await setup(api());
    expect((await api().get(`/user/assistant/${outbound}`)).body.data.status).toBe('inactive');
    await api().post('/user/make_call', { ...BODY, assistant_id: outbound });
    expect((await api().get(`/user/assistant/${outbound}`)).body.data.status).toBe('active');
  });

  it('refuses a call from an assistant whose number was released, as a campaign start does', async () => {
    const offer = (await api().get('/user/phone-numbers/search', { query: { country_code: 'US' } })).body.data[0].phone_number as string;
    const number = (await api().post('/user/phone-numbers/purchase', { phone_number: offer })).body.data.id as number;
    const assistant = await api().post('/user/assistant', pipelineAssistant({ phone_number_id: number }));
    expect(assistant.status).toBe(201);
    expect((await api().del(`/user/phone-numbers/${number}`)).status).toBe(200);
    const res = await api().post('/user/make_call', { ...BODY, assistant_id: assistant.body.data.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'The assistant has no phone number assigned. Assign a phone number to make calls.' });
    expect(api().sim.db.calls.size).toBe(0);
  });

  it('places the call at once: its ring is the one event scheduled, a second later', async () => {
    const { outbound } = await setup(api());
    const before = api().sim.clock.pendingCount;
    await api().post('/user/make_call', { ...BODY, assistant_id: outbound });
    expect(api().sim.clock.pendingCount).toBe(before + 1);
    const events = api().sim.clock.pendingEvents();
    expect(events[events.length - 1]).toMatchObject({ type: 'call.ring', at: Date.parse('2026-03-02T09:00:01Z'), payload: { account_id: 1, call_id: 1 } });
    expect(api().sim.db.calls.get(1)!.plan).toMatchObject({ kind: 'human', source: 'default' });
  });

  it('accepts a call without variables', async () => {
    const { outbound } = await setup(api());
    const res = await api().post('/user/make_call', { assistant_id: outbound, phone_number: '+442071838750' });
    expect(res.status).toBe(200);
    expect((await api().get('/user/calls/1')).body.client_phone_number).toBe('+442071838750');
  });

  it('numbers successive calls in sequence', async () => {
    const { outbound } = await setup(api());
    await api().post('/user/make_call', { ...BODY, assistant_id: outbound });
    const res = await api().post('/user/make_call', { ...BODY, assistant_id: outbound });
    expect(res.body.call_id).toBe(2);
    expect(await ids(api())).toEqual([2, 1]);
  });
});

contract('make_call: checks in order', (api) => {
  async function nothingStarted(assistant?: number): Promise<void> {
    expect(await ids(api())).toEqual([]);
    expect(api().sim.clock.pendingCount).toBe(0);
    if (assistant !== undefined) expect((await api().get(`/user/assistant/${assistant}`)).body.data.status).toBe('inactive');
  }

  it('rejects a body without assistant_id and phone_number with 422 shape B', async () => {
    const res = await api().post('/user/make_call', {});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The assistant id field is required. (and 1 more error)',
      errors: { assistant_id: ['The assistant id field is required.'], phone_number: ['The phone number field is required.'] },
    });
  });

  it('rejects a non-integer assistant_id with 422 shape B before reading the number', async () => {
    expectInvalid(await api().post('/user/make_call', { assistant_id: 'one', phone_number: 'nope' }), 'assistant_id', 'The assistant id must be an integer.');
  });

  it('rejects variables that are not an object with 422 shape B', async () => {
    const { outbound } = await setup(api());
    expectInvalid(await api().post('/user/make_call', { assistant_id: outbound, phone_number: '+14155550123', variables: 'x' }), 'variables', 'The variables must be an object.');
  });

  it.each(['4155550123', '+1 415 555 0123', '+1999999999999999', '+1415'])('answers the unreadable number %j with 400 shape A', async (phone) => {
    const { outbound } = await setup(api());
    const res = await api().post('/user/make_call', { assistant_id: outbound, phone_number: phone });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ message: 'Invalid phone number. Please provide the number in E.164 format, for example +14155550123.' });
    await nothingStarted(outbound);
  });

  it('checks the number before the assistant: a bad number for a missing assistant is 400', async () => {
    const res = await api().post('/user/make_call', { assistant_id: 99, phone_number: '12345' });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ message: 'Invalid phone number. Please provide the number in E.164 format, for example +14155550123.' });
  });

  it('answers a missing assistant with 404 shape A', async () => {
    const res = await api().post('/user/make_call', { assistant_id: 99, phone_number: '+14155550123' });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(ASSISTANT_NOT_FOUND);
    await nothingStarted();
  });

  it("answers another account's assistant with 404 shape A", async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    const number = api().sim.control.phoneNumbers.add({ account_id: 2, type: 'sip', phone_number: '+14155550188' }).id;
    const foreign = await api().post('/user/assistant', pipelineAssistant({ phone_number_id: number }), { key: SECOND_KEY });
    const res = await api().post('/user/make_call', { assistant_id: foreign.body.data.id, phone_number: '+14155550123' });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(ASSISTANT_NOT_FOUND);
  });

  it('answers an inbound assistant with 404 shape A', async () => {
    const { inbound } = await setup(api());
    const res = await api().post('/user/make_call', { assistant_id: inbound, phone_number: '+14155550123' });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(ASSISTANT_NOT_FOUND);
    await nothingStarted(inbound);
  });

  it('checks the assistant before the balance: an inbound assistant without balance is 404', async () => {
    const { inbound } = await setup(api());
    api().sim.control.accounts.patch(1, { balance: 0 });
    const res = await api().post('/user/make_call', { assistant_id: inbound, phone_number: '+14155550123' });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(ASSISTANT_NOT_FOUND);
  });

  it('answers an outbound assistant without a phone number with 400 shape A', async () => {
    const res0 = await api().post('/user/assistant', pipelineAssistant());
    const res = await api().post('/user/make_call', { assistant_id: res0.body.data.id, phone_number: '+14155550123' });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ message: CALL_MESSAGES.noAssistantNumber });
    await nothingStarted(res0.body.data.id);
  });

  it("checks the assistant's number before the balance: no number and no balance is 400", async () => {
    const created = await api().post('/user/assistant', pipelineAssistant());
    api().sim.control.accounts.patch(1, { balance: 0 });
    const res = await api().post('/user/make_call', { assistant_id: created.body.data.id, phone_number: '+14155550123' });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ message: CALL_MESSAGES.noAssistantNumber });
  });
});

contract('make_call: balance', (api) => {
  async function callWith(balance: number, assistant?: Record<string, unknown>) {
    const number = api().sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: OUTBOUND_NUMBER }).id;
    const created = await api().post('/user/assistant', pipelineAssistant({ phone_number_id: number, ...assistant }));
    expect(created.status).toBe(201);
    api().sim.control.accounts.patch(1, { balance });
    return api().post('/user/make_call', { assistant_id: created.body.data.id, phone_number: '+14155550123' });
  }

  it('starts a call when the balance is exactly the worst case of 1.10 USD (600 s at the default rates)', async () => {
    const res = await callWith(1.1);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Call initiated successfully.', call_id: 1, status: 'initiated' });
  });

  it('refuses a balance of 1.099999 USD with 422 shape A', async () => {
    const res = await callWith(1.099999);
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(INSUFFICIENT);
  });

  it('creates no call, schedules nothing and leaves the assistant inactive when the balance is short', async () => {
    await callWith(1.099999);
    expect(await ids(api())).toEqual([]);
    expect(api().sim.clock.pendingCount).toBe(0);
    expect((await api().get('/user/assistant/1')).body.data.status).toBe('inactive');
  });

  it('refuses a balance of 0 with 422 shape A', async () => {
    const res = await callWith(0);
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(INSUFFICIENT);
  });

  it('bills AI time per second and carrier per started minute: 90 s needs exactly 0.17 USD', async () => {
    const res = await callWith(0.17, { max_duration: 90 });
    expect(res.status).toBe(200);
  });

  it('counts at least the 30 s billing minimum of AI time: 20 s needs 0.06 USD', async () => {
    expect((await callWith(0.06, { max_duration: 20 })).status).toBe(200);
  });

  it('refuses 0.059999 USD for a 20 s assistant', async () => {
    const res = await callWith(0.059999, { max_duration: 20 });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(INSUFFICIENT);
  });

  it('refuses 0.169999 USD for a 90 s assistant', async () => {
    const res = await callWith(0.169999, { max_duration: 90 });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(INSUFFICIENT);
  });

  it('moves the edge with custom rates: 600 s at 0.20 + 0.05 per minute needs exactly 2.50 USD', async () => {
    api().sim.control.accounts.patch(1, { rates: { ai_per_minute: 0.2, carrier_per_minute: 0.05 } });
    const res = await callWith(2.5);
    expect(res.status).toBe(200);
  });

  it('refuses 2.499999 USD at the custom rates', async () => {
    api().sim.control.accounts.patch(1, { rates: { ai_per_minute: 0.2, carrier_per_minute: 0.05 } });
    const res = await callWith(2.499999);
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(INSUFFICIENT);
  });

  it('refuses the default edge of 1.10 USD once the rates are raised', async () => {
    api().sim.control.accounts.patch(1, { rates: { ai_per_minute: 0.2 } });
    const res = await callWith(1.1);
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(INSUFFICIENT);
  });

  it('accepts any balance when both rates are 0', async () => {
    api().sim.control.accounts.patch(1, { rates: { ai_per_minute: 0, carrier_per_minute: 0 } });
    const res = await callWith(0);
    expect(res.status).toBe(200);
  });
});
