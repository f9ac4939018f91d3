/**
 * Campaigns: POST /user/campaign, GET /user/campaigns, DELETE /user/campaign/{id},
 * POST /user/campaigns/update-status (spec: Campaign, States > Campaign, Campaigns,
 * Errors, Limits; decisions: List campaigns, Delete campaign, Campaign states, Plan,
 * Balance and dialing, Ids that point elsewhere, Timestamps).
 */
import { expect, it } from 'vitest';
import { CAMPAIGN_MESSAGES } from '../../src/domain/campaigns/service.js';
import { DIAL_EVENT } from '../../src/domain/campaigns/dialer.js';
import { contract, type Api, type ApiResponse } from '../support/api.js';
import { multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';
import { campaignId } from '../support/records.js';

const SECOND_KEY = 'sim_second_key';
const CREATED_AT = '2026-03-02T09:00:00.000000Z';
const ALL_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

function expectInvalid(res: ApiResponse, errors: Record<string, string[]>) {
  expect(res.status).toBe(422);
  expect(res.body.errors).toEqual(errors);
  const all = Object.values(errors).flat();
  const more = all.length - 1;
  expect(res.body.message).toBe(more === 0 ? all[0] : `${all[0]} (and ${more} more error${more === 1 ? '' : 's'})`);
}

async function addNumber(api: Api, phone: string, accountId = 1, type: 'sip' | 'caller_id' = 'sip'): Promise<number> {
  return api.sim.control.phoneNumbers.add({ account_id: accountId, type, phone_number: phone }).id;
}

/** Creates an assistant (outbound pipeline unless told otherwise) and answers its id. */
async function assistant(api: Api, overrides: Record<string, unknown> = {}, key?: string): Promise<number> {
  const res = await api.post('/user/assistant', pipelineAssistant(overrides), key === undefined ? {} : { key });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

function campaignBody(assistantId: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Spring Outreach', assistant_id: assistantId, ...overrides };
}

async function createCampaign(api: Api, body: Record<string, unknown>, key?: string) {
  return api.post('/user/campaign', body, key === undefined ? {} : { key });
}

async function addLead(api: Api, campaign: number, phone = '+14155550123', key?: string): Promise<number> {
  const res = await api.post('/user/lead', { campaign_id: campaign, phone_number: phone }, key === undefined ? {} : { key });
  expect(res.status).toBe(200);
  return res.body.data.id;
}

/** A draft campaign that start accepts: its assistant has a number and it has one lead. */
async function readyCampaign(api: Api): Promise<{ campaign: number; assistant: number; lead: number }> {
  const number = await addNumber(api, '+14155550100');
  const assistantId = await assistant(api, { phone_number_id: number });
  const campaign = await campaignId(api, assistantId);
  const lead = await addLead(api, campaign);
  return { campaign, assistant: assistantId, lead };
}

function updateStatus(api: Api, body: Record<string, unknown>, key?: string) {
  return api.post('/user/campaigns/update-status', body, key === undefined ? {} : { key });
}

function dialEvents(api: Api) {
  return api.sim.clock.pendingEvents().filter((e) => e.type === DIAL_EVENT);
}

async function statusOf(api: Api, id: number): Promise<string | undefined> {
  const list = (await api.get('/user/campaigns')).body as { id: number; status: string }[];
  return list.find((c) => c.id === id)?.status;
}

contract('create campaign: success', (api) => {
  it('answers 201 with every create-response field and its exact value', async () => {
    const a = await assistant(api());
    const res = await createCampaign(
      api(),
      campaignBody(a, {
        max_calls_in_parallel: 5,
        allowed_hours_start_time: '09:30',
        allowed_hours_end_time: '17:45',
        allowed_days: ['monday', 'wednesday', 'friday'],
        max_retries: 2,
        retry_interval: 120,
        mark_complete_when_no_leads: false,
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({
      message: 'Campaign created successfully.',
      data: {
        id: 1,
        name: 'Spring Outreach',
        status: 'draft',
        max_calls_in_parallel: 5,
        mark_complete_when_no_leads: false,
        allowed_hours_start_time: '09:30:00',
        allowed_hours_end_time: '17:45:00',
        allowed_days: ['monday', 'wednesday', 'friday'],
        max_retries: 2,
        retry_interval: 120,
        created_at: CREATED_AT,
        updated_at: CREATED_AT,
      },
    });
  });

  it('applies the defaults of the Campaign table when only name and assistant are sent', async () => {
    const res = await createCampaign(api(), campaignBody(await assistant(api())));
    expect(res.body.data).toStrictEqual({
      id: 1,
      name: 'Spring Outreach',
      status: 'draft',
      max_calls_in_parallel: 3,
      mark_complete_when_no_leads: true,
      allowed_hours_start_time: '00:00:00',
      allowed_hours_end_time: '23:59:00',
      allowed_days: ALL_DAYS,
      max_retries: 3,
      retry_interval: 60,
      created_at: CREATED_AT,
      updated_at: CREATED_AT,
    });
  });

  it('takes the account timezone when none is sent', async () => {
    api().sim.control.accounts.patch(1, { timezone: 'America/New_York' });
    const id = await campaignId(api(), await assistant(api()));
    expect(api().sim.db.campaigns.get(id)?.timezone).toBe('America/New_York');
  });

  it('stores a timezone that is sent instead of the account timezone', async () => {
    const id = await campaignId(api(), await assistant(api()), { timezone: 'Europe/Berlin' });
    expect(api().sim.db.campaigns.get(id)?.timezone).toBe('Europe/Berlin');
  });

  it('rejects a timezone that is not a zone', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { timezone: 'Mars/Olympus' })), {
      timezone: ['The timezone must be a valid zone.'],
    });
  });

  it('stores the input-only fields, the assistant and the caller numbers', async () => {
    const number = await addNumber(api(), '+14155550101');
    const a = await assistant(api(), { post_call_schema: [{ name: 'demo_booked', type: 'bool', description: 'Whether a demo was booked' }] });
    const id = await campaignId(api(), a, {
      retry_on_voicemail: true,
      retry_on_goal_incomplete: true,
      goal_completion_variable: 'demo_booked',
      phone_number_ids: [number],
    });
    expect(api().sim.db.campaigns.get(id)).toMatchObject({
      assistant_id: a,
      retry_on_voicemail: true,
      retry_on_goal_incomplete: true,
      goal_completion_variable: 'demo_booked',
      phone_number_ids: [number],
      status: 'draft',
    });
  });

  it('returns allowed hours sent as H:i with seconds', async () => {
    const res = await createCampaign(api(), campaignBody(await assistant(api()), { allowed_hours_start_time: '00:00', allowed_hours_end_time: '23:59' }));
    expect(res.body.data).toMatchObject({ allowed_hours_start_time: '00:00:00', allowed_hours_end_time: '23:59:00' });
  });

  it('stores allowed days in week order whatever order they are sent in', async () => {
    const res = await createCampaign(api(), campaignBody(await assistant(api()), { allowed_days: ['sunday', 'friday', 'monday', 'tuesday'] }));
    expect(res.body.data.allowed_days).toEqual(['monday', 'tuesday', 'friday', 'sunday']);
  });

  it('gives campaign ids from 1 in sequence', async () => {
    const a = await assistant(api());
    expect([await campaignId(api(), a), await campaignId(api(), a), await campaignId(api(), a)]).toEqual([1, 2, 3]);
  });

  it('stamps created_at and updated_at with the clock time', async () => {
    await api().sim.clock.advance('1h30m');
    const res = await createCampaign(api(), campaignBody(await assistant(api())));
    expect(res.body.data).toMatchObject({ created_at: '2026-03-02T10:30:00.000000Z', updated_at: '2026-03-02T10:30:00.000000Z' });
  });
});

contract('create campaign: limits at both edges', (api) => {
  it.each([
    ['name', 'n'.repeat(255)],
    ['max_retries', 1],
    ['max_retries', 5],
    ['retry_interval', 10],
    ['retry_interval', 4320],
    ['max_calls_in_parallel', 1],
    ['max_calls_in_parallel', 10],
  ])('accepts %s = %j', async (field, value) => {
    const res = await createCampaign(api(), campaignBody(await assistant(api()), { [field]: value }));
    expect(res.status).toBe(201);
    expect(res.body.data[field]).toBe(value);
  });

  it.each([
    ['name', 'n'.repeat(256), 'The name may not be greater than 255 characters.'],
    ['name', '', 'The name field is required.'],
    ['max_retries', 0, 'The max retries must be between 1 and 5.'],
    ['max_retries', 6, 'The max retries must be between 1 and 5.'],
    ['retry_interval', 9, 'The retry interval must be between 10 and 4320.'],
    ['retry_interval', 4321, 'The retry interval must be between 10 and 4320.'],
    ['max_calls_in_parallel', 0, 'The max calls in parallel must be at least 1.'],
    ['max_calls_in_parallel', 11, 'The max calls in parallel may not be greater than 10.'],
    ['goal_completion_variable', 'g'.repeat(256), 'The goal completion variable may not be greater than 255 characters.'],
  ])('rejects %s = %j', async (field, value, message) => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { [field]: value })), { [field]: [message] });
  });

  it('checks a 255-character goal_completion_variable against the post-call schema, not the length rule', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { goal_completion_variable: 'g'.repeat(255) })), {
      goal_completion_variable: [CAMPAIGN_MESSAGES.goalVariable],
    });
  });

  it('bounds max_calls_in_parallel by a patched plan limit', async () => {
    api().sim.control.accounts.patch(1, { plan: { max_calls_in_parallel: 4 } });
    const a = await assistant(api());
    expect((await createCampaign(api(), campaignBody(a, { max_calls_in_parallel: 4 }))).status).toBe(201);
    expectInvalid(await createCampaign(api(), campaignBody(a, { max_calls_in_parallel: 5 })), {
      max_calls_in_parallel: ['The max calls in parallel may not be greater than 4.'],
    });
  });

  it.each(['max_retries', 'retry_interval', 'max_calls_in_parallel'])('rejects a string for the integer %s', async (field) => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { [field]: '3' })), {
      [field]: [`The ${field.replace(/_/g, ' ')} must be an integer.`],
    });
  });

  it('requires name and assistant_id', async () => {
    expectInvalid(await createCampaign(api(), {}), {
      name: ['The name field is required.'],
      assistant_id: ['The assistant id field is required.'],
    });
  });
});

contract('create campaign: allowed hours and days', (api) => {
  it.each(['9:00', '24:00', '09:00:00', '12:60', 'noon'])('rejects allowed_hours_start_time %j as not H:i', async (value) => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { allowed_hours_start_time: value })), {
      allowed_hours_start_time: ['The allowed hours start time does not match the format H:i.'],
    });
  });

  it('rejects an allowed_hours_end_time that is not H:i', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { allowed_hours_end_time: '18:00:00' })), {
      allowed_hours_end_time: ['The allowed hours end time does not match the format H:i.'],
    });
  });

  it('rejects an end time before the start time on allowed_hours_end_time', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { allowed_hours_start_time: '17:00', allowed_hours_end_time: '09:00' })), {
      allowed_hours_end_time: [CAMPAIGN_MESSAGES.endBeforeStart],
    });
  });

  it('rejects an end time equal to the start time', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { allowed_hours_start_time: '09:00', allowed_hours_end_time: '09:00' })), {
      allowed_hours_end_time: [CAMPAIGN_MESSAGES.endBeforeStart],
    });
  });

  it('accepts an end time one minute after the start time', async () => {
    const res = await createCampaign(api(), campaignBody(await assistant(api()), { allowed_hours_start_time: '09:00', allowed_hours_end_time: '09:01' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ allowed_hours_start_time: '09:00:00', allowed_hours_end_time: '09:01:00' });
  });

  it('rejects an unknown day at its index', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { allowed_days: ['monday', 'funday'] })), {
      'allowed_days.1': ['The selected allowed days.1 is invalid.'],
    });
  });

  it('rejects an empty allowed_days', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { allowed_days: [] })), {
      allowed_days: ['The allowed days must have at least 1 items.'],
    });
  });

  it('rejects a repeated day at the index of the repeat', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { allowed_days: ['monday', 'tuesday', 'monday'] })), {
      'allowed_days.2': ['The allowed days.2 field has a duplicate value.'],
    });
  });
});

contract('create campaign: phone_number_ids', (api) => {
  it('accepts the account\'s own sip and caller-ID numbers', async () => {
    const sip = await addNumber(api(), '+14155550101');
    const callerId = await addNumber(api(), '+14155550102', 1, 'caller_id');
    const id = await campaignId(api(), await assistant(api()), { phone_number_ids: [sip, callerId] });
    expect(api().sim.db.campaigns.get(id)?.phone_number_ids).toEqual([sip, callerId]);
  });

  it('rejects another account\'s number at its index', async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    const own = await addNumber(api(), '+14155550101');
    const foreign = await addNumber(api(), '+14155550102', 2);
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { phone_number_ids: [own, foreign] })), {
      'phone_number_ids.1': ['The selected phone number ids.1 is invalid.'],
    });
  });

  it('rejects a missing number at its index', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { phone_number_ids: [99] })), {
      'phone_number_ids.0': ['The selected phone number ids.0 is invalid.'],
    });
  });

  it('rejects a repeated number as not distinct', async () => {
    const own = await addNumber(api(), '+14155550101');
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api()), { phone_number_ids: [own, own] })), {
      'phone_number_ids.1': ['The phone number ids.1 field has a duplicate value.'],
    });
  });

  it('rejects a released normal number whose billing period has not ended', async () => {
    const offer = (await api().get('/user/phone-numbers/search', { query: { country_code: 'US' } })).body.data[0].phone_number as string;
    const purchased = await api().post('/user/phone-numbers/purchase', { phone_number: offer });
    expect(purchased.status).toBe(201);
    const id = purchased.body.data.id as number;
    const a = await assistant(api());
    expect((await createCampaign(api(), campaignBody(a, { phone_number_ids: [id] }))).status).toBe(201);
    expect((await api().del(`/user/phone-numbers/${id}`)).status).toBe(200);
    expectInvalid(await createCampaign(api(), campaignBody(a, { phone_number_ids: [id] })), {
      'phone_number_ids.0': ['The selected phone number ids.0 is invalid.'],
    });
  });
});

contract('create campaign: goal_completion_variable', (api) => {
  const schema = [
    { name: 'demo_booked', type: 'bool', description: 'Whether a demo was booked' },
    { name: 'notes', type: 'string', description: 'Notes on the call' },
  ];

  it('accepts the name of a bool item of the assistant\'s post-call schema', async () => {
    const id = await campaignId(api(), await assistant(api(), { post_call_schema: schema }), { goal_completion_variable: 'demo_booked' });
    expect(api().sim.db.campaigns.get(id)?.goal_completion_variable).toBe('demo_booked');
  });

  it('rejects the name of a string-typed item', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api(), { post_call_schema: schema }), { goal_completion_variable: 'notes' })), {
      goal_completion_variable: [CAMPAIGN_MESSAGES.goalVariable],
    });
  });

  it('rejects a name the post-call schema does not have', async () => {
    expectInvalid(await createCampaign(api(), campaignBody(await assistant(api(), { post_call_schema: schema }), { goal_completion_variable: 'budget' })), {
      goal_completion_variable: [CAMPAIGN_MESSAGES.goalVariable],
    });
  });

  it('rejects a bool name of another assistant\'s schema', async () => {
    await assistant(api(), { post_call_schema: schema });
    const plain = await assistant(api());
    expectInvalid(await createCampaign(api(), campaignBody(plain, { goal_completion_variable: 'demo_booked' })), {
      goal_completion_variable: [CAMPAIGN_MESSAGES.goalVariable],
    });
  });

  it('accepts null and stores no goal', async () => {
    const id = await campaignId(api(), await assistant(api()), { goal_completion_variable: null });
    expect(api().sim.db.campaigns.get(id)?.goal_completion_variable).toBeNull();
  });
});

contract('create campaign: assistant and plan', (api) => {
  const notFound = { message: 'Assistant not found or not an outbound assistant.' };

  it('answers 404 shape A for a missing assistant', async () => {
    const res = await createCampaign(api(), campaignBody(42));
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(notFound);
  });

  it('answers 404 shape A for another account\'s assistant', async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    const foreign = await assistant(api(), {}, SECOND_KEY);
    const res = await createCampaign(api(), campaignBody(foreign));
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(notFound);
  });

  it('answers 404 shape A for an inbound assistant', async () => {
    const inbound = (await api().post('/user/assistant', multimodalAssistant())).body.data.id as number;
    const res = await createCampaign(api(), campaignBody(inbound));
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual(notFound);
  });

  it('answers 403 shape A when the campaign count reaches a patched plan maximum', async () => {
    api().sim.control.accounts.patch(1, { plan: { max_campaigns: 2 } });
    const a = await assistant(api());
    await campaignId(api(), a);
    await campaignId(api(), a);
    const res = await createCampaign(api(), campaignBody(a));
    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual({ message: CAMPAIGN_MESSAGES.planLimit(2).spec });
    expect(CAMPAIGN_MESSAGES.planLimit(2).spec).toBe('You have reached the maximum number of campaigns allowed by your plan (2).');
  });

  it('answers 403 at the default plan maximum of 10 campaigns', async () => {
    const a = await assistant(api());
    for (let i = 0; i < 10; i++) await campaignId(api(), a);
    const res = await createCampaign(api(), campaignBody(a));
    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual({ message: CAMPAIGN_MESSAGES.planLimit(10).spec });
  });

  it('counts only the caller\'s campaigns against the plan maximum', async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY, plan: { max_campaigns: 1 } });
    const own = await assistant(api());
    await campaignId(api(), own);
    await campaignId(api(), own);
    const foreign = await assistant(api(), {}, SECOND_KEY);
    expect((await createCampaign(api(), campaignBody(foreign), SECOND_KEY)).status).toBe(201);
  });

  it('frees a plan slot when a campaign is deleted', async () => {
    api().sim.control.accounts.patch(1, { plan: { max_campaigns: 1 } });
    const a = await assistant(api());
    const first = await campaignId(api(), a);
    expect((await createCampaign(api(), campaignBody(a))).status).toBe(403);
    await api().del(`/user/campaign/${first}`);
    expect((await createCampaign(api(), campaignBody(a))).status).toBe(201);
  });

  it.each([
    ['a validation failure', async (api: Api, a: number) => createCampaign(api, campaignBody(a, { max_retries: 9 })), 422],
    ['a missing assistant', async (api: Api) => createCampaign(api, campaignBody(42)), 404],
    [
      'the plan maximum',
      async (api: Api, a: number) => {
        api.sim.control.accounts.patch(1, { plan: { max_campaigns: 0 } });
        const res = await createCampaign(api, campaignBody(a));
        api.sim.control.accounts.patch(1, { plan: { max_campaigns: 10 } });
        return res;
      },
      403,
    ],
  ] as const)('leaves no campaign and consumes no id after %s', async (_, reject, status) => {
    const a = await assistant(api());
    expect((await reject(api(), a)).status).toBe(status);
    expect(api().sim.db.campaigns.size).toBe(0);
    expect((await api().get('/user/campaigns')).body).toEqual([]);
    expect(await campaignId(api(), a)).toBe(1);
  });
});

contract('list campaigns', (api) => {
  it('answers an empty bare array when the account has no campaign', async () => {
    const res = await api().get('/user/campaigns');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual([]);
  });

  it('answers a bare array of the create-response fields in id order', async () => {
    const a = await assistant(api());
    const first = (await createCampaign(api(), campaignBody(a, { name: 'First', max_retries: 5 }))).body.data;
    await api().sim.clock.advance('10m');
    const second = (await createCampaign(api(), campaignBody(a, { name: 'Second', allowed_days: ['saturday'] }))).body.data;
    const res = await api().get('/user/campaigns');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual([first, second]);
    expect(res.body.map((c: { id: number }) => c.id)).toEqual([1, 2]);
  });

  it('shows the current status of each campaign', async () => {
    const { campaign } = await readyCampaign(api());
    await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    expect((await api().get('/user/campaigns')).body[0]).toMatchObject({ id: campaign, status: 'in-progress' });
  });

  it('lists only the caller\'s campaigns', async () => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    const own = await assistant(api());
    const foreign = await assistant(api(), {}, SECOND_KEY);
    await campaignId(api(), own, { name: 'Mine' });
    await campaignId(api(), foreign, { name: 'Theirs' }, SECOND_KEY);
    await campaignId(api(), own, { name: 'Mine too' });
    expect((await api().get('/user/campaigns')).body.map((c: { id: number; name: string }) => [c.id, c.name])).toEqual([
      [1, 'Mine'],
      [3, 'Mine too'],
    ]);
    expect((await api().get('/user/campaigns', { key: SECOND_KEY })).body.map((c: { id: number; name: string }) => [c.id, c.name])).toEqual([[2, 'Theirs']]);
  });
});

contract('delete campaign', (api) => {
  it('answers 200 with the deleted message and removes the campaign', async () => {
    const id = await campaignId(api(), await assistant(api()));
    const res = await api().del(`/user/campaign/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Campaign deleted successfully.' });
    expect((await api().get('/user/campaigns')).body).toEqual([]);
    expect(api().sim.db.campaigns.get(id)).toBeUndefined();
  });

  it('removes the campaign\'s leads and their secondary contacts and keeps other campaigns\' leads', async () => {
    const a = await assistant(api());
    const doomed = await campaignId(api(), a);
    const kept = await campaignId(api(), a);
    await api().post('/user/lead', { campaign_id: doomed, phone_number: '+14155550123', secondary_contacts: [{ phone_number: '+14155550124' }] });
    await addLead(api(), doomed, '+14155550125');
    const keptLead = await addLead(api(), kept, '+14155550126');
    expect((await api().del(`/user/campaign/${doomed}`)).status).toBe(200);
    const list = await api().get('/user/leads');
    expect(list.body.total).toBe(1);
    expect(list.body.data.map((l: { id: number }) => l.id)).toEqual([keptLead]);
    expect(api().sim.db.leads.all().map((l) => l.id)).toEqual([keptLead]);
    expect(api().sim.db.secondaryContacts.size).toBe(0);
  });

  it('refuses a lead filter on the deleted campaign as an unknown campaign', async () => {
    const id = await campaignId(api(), await assistant(api()));
    await addLead(api(), id);
    await api().del(`/user/campaign/${id}`);
    expectInvalid(await api().get('/user/leads', { query: { campaign_id: id } }), { campaign_id: ['The selected campaign id is invalid.'] });
  });

  it('stops a running campaign first, cancelling its pending dial event', async () => {
    const { campaign } = await readyCampaign(api());
    const before = api().sim.clock.pendingCount;
    await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    expect(api().sim.clock.pendingCount).toBe(before + 1);
    expect((await api().del(`/user/campaign/${campaign}`)).status).toBe(200);
    expect(api().sim.clock.pendingCount).toBe(before);
    expect(dialEvents(api())).toEqual([]);
  });

  it('keeps the calls the campaign made', async () => {
    const { campaign, assistant: a } = await readyCampaign(api());
    const call = api().sim.control.calls.insert({ assistant_id: a, campaign_id: campaign, client_phone_number: '+14155550123' });
    expect((await api().del(`/user/campaign/${campaign}`)).status).toBe(200);
    const res = await api().get(`/user/calls/${call.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: call.id, campaign_id: campaign, campaign_name: 'Spring Outreach', client_phone_number: '+14155550123' });
  });

  it('answers 404 shape A for a missing campaign', async () => {
    const res = await api().del('/user/campaign/42');
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ message: 'Campaign not found.' });
  });

  it('answers 404 for a campaign that was already deleted', async () => {
    const id = await campaignId(api(), await assistant(api()));
    await api().del(`/user/campaign/${id}`);
    const res = await api().del(`/user/campaign/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ message: 'Campaign not found.' });
  });
});

contract('update-status: start and stop', (api) => {
  it('starts a draft campaign and answers in-progress', async () => {
    const { campaign } = await readyCampaign(api());
    const res = await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Campaign started successfully.', success: true, data: { campaign_id: campaign, status: 'in-progress' } });
    expect(await statusOf(api(), campaign)).toBe('in-progress');
  });

  it('schedules one dial event for the started campaign at the current time', async () => {
    const { campaign } = await readyCampaign(api());
    expect(dialEvents(api())).toEqual([]);
    await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    const events = dialEvents(api());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'campaign.dial', at: api().sim.clock.now(), payload: { account_id: 1, campaign_id: campaign } });
  });

  it('stops a running campaign and answers stopped', async () => {
    const { campaign } = await readyCampaign(api());
    await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    const res = await updateStatus(api(), { campaign_id: campaign, action: 'stop' });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ message: 'Campaign stopped successfully.', success: true, data: { campaign_id: campaign, status: 'stopped' } });
    expect(await statusOf(api(), campaign)).toBe('stopped');
  });

  it('cancels the pending dial event on stop', async () => {
    const { campaign } = await readyCampaign(api());
    const before = api().sim.clock.pendingCount;
    await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    await updateStatus(api(), { campaign_id: campaign, action: 'stop' });
    expect(dialEvents(api())).toEqual([]);
    expect(api().sim.clock.pendingCount).toBe(before);
  });

  it('restarts a stopped campaign with exactly one dial event', async () => {
    const { campaign } = await readyCampaign(api());
    await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    await updateStatus(api(), { campaign_id: campaign, action: 'stop' });
    await api().sim.clock.advance('5m');
    const res = await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ campaign_id: campaign, status: 'in-progress' });
    const events = dialEvents(api());
    expect(events).toHaveLength(1);
    expect(events[0]!.at).toBe(Date.parse('2026-03-02T09:05:00Z'));
  });

  it('moves updated_at to the time of the status change', async () => {
    const { campaign } = await readyCampaign(api());
    await api().sim.clock.advance('2h');
    await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    const listed = (await api().get('/user/campaigns')).body[0];
    expect(listed).toMatchObject({ created_at: CREATED_AT, updated_at: '2026-03-02T11:00:00.000000Z' });
  });

  it('re-opens a completed campaign that still has a dialable lead', async () => {
    const { campaign } = await readyCampaign(api());
    await addLead(api(), campaign, '+14155550124');
    api().sim.db.campaigns.update(campaign, { status: 'completed' });
    const res = await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ campaign_id: campaign, status: 'in-progress' });
    expect(dialEvents(api())).toHaveLength(1);
  });

  it('refuses to re-open a completed campaign whose leads are all completed', async () => {
    const { campaign, lead } = await readyCampaign(api());
    expect((await api().put(`/user/leads/${lead}`, { status: 'completed' })).status).toBe(200);
    api().sim.db.campaigns.update(campaign, { status: 'completed' });
    const res = await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ message: 'Campaign has no leads left to dial.', success: false });
    expect(await statusOf(api(), campaign)).toBe('completed');
    expect(dialEvents(api())).toEqual([]);
  });

  it('accepts start with only the campaign\'s phone_number_ids as caller numbers', async () => {
    const number = await addNumber(api(), '+14155550100');
    const campaign = await campaignId(api(), await assistant(api()), { phone_number_ids: [number] });
    await addLead(api(), campaign);
    const res = await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('in-progress');
  });

  it('accepts start with only the assistant\'s phone number', async () => {
    const { campaign } = await readyCampaign(api());
    expect(api().sim.db.campaigns.get(campaign)?.phone_number_ids).toEqual([]);
    expect((await updateStatus(api(), { campaign_id: campaign, action: 'start' })).status).toBe(200);
  });

  it('accepts start with the smallest balance above zero', async () => {
    const { campaign } = await readyCampaign(api());
    api().sim.control.accounts.patch(1, { balance: 0.000001 });
    expect((await updateStatus(api(), { campaign_id: campaign, action: 'start' })).status).toBe(200);
  });
});

contract('update-status: refusals', (api) => {
  async function expectRefused(campaign: number, action: 'start' | 'stop', message: string, status: string) {
    const res = await updateStatus(api(), { campaign_id: campaign, action });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ message, success: false });
    expect(await statusOf(api(), campaign)).toBe(status);
  }

  it('refuses to start a campaign already in progress and keeps its one dial event', async () => {
    const { campaign } = await readyCampaign(api());
    await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    const [event] = dialEvents(api());
    await expectRefused(campaign, 'start', 'Campaign is already in progress.', 'in-progress');
    expect(dialEvents(api())).toEqual([event]);
  });

  it('refuses to stop a draft campaign as not running', async () => {
    const { campaign } = await readyCampaign(api());
    await expectRefused(campaign, 'stop', 'Campaign is not running.', 'draft');
  });

  it('refuses to stop a stopped campaign as not running', async () => {
    const { campaign } = await readyCampaign(api());
    await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    await updateStatus(api(), { campaign_id: campaign, action: 'stop' });
    await expectRefused(campaign, 'stop', 'Campaign is not running.', 'stopped');
  });

  it('refuses to stop a completed campaign as not running', async () => {
    const { campaign } = await readyCampaign(api());
    api().sim.db.campaigns.update(campaign, { status: 'completed' });
    await expectRefused(campaign, 'stop', 'Campaign is not running.', 'completed');
  });

  it('refuses to start a campaign without leads', async () => {
    const number = await addNumber(api(), '+14155550100');
    const campaign = await campaignId(api(), await assistant(api(), { phone_number_id: number }));
    await expectRefused(campaign, 'start', 'Campaign has no leads. Add leads before starting it.', 'draft');
    expect(dialEvents(api())).toEqual([]);
  });

  it('refuses to start a campaign whose only lead was deleted', async () => {
    const { campaign, lead } = await readyCampaign(api());
    await api().del(`/user/leads/${lead}`);
    await expectRefused(campaign, 'start', CAMPAIGN_MESSAGES.noLeads, 'draft');
  });

  it('refuses to start when neither the campaign nor the assistant has a caller number', async () => {
    const campaign = await campaignId(api(), await assistant(api()));
    await addLead(api(), campaign);
    await expectRefused(campaign, 'start', CAMPAIGN_MESSAGES.noCallerNumber, 'draft');
    expect(dialEvents(api())).toEqual([]);
  });

  it('refuses to start when the assistant\'s only number was released (cancelled until the period ends)', async () => {
    const offer = (await api().get('/user/phone-numbers/search', { query: { country_code: 'US' } })).body.data[0].phone_number as string;
    const number = (await api().post('/user/phone-numbers/purchase', { phone_number: offer })).body.data.id as number;
    const campaign = await campaignId(api(), await assistant(api(), { phone_number_id: number }));
    await addLead(api(), campaign);
    expect((await api().del(`/user/phone-numbers/${number}`)).status).toBe(200);
    await expectRefused(campaign, 'start', 'The campaign has no phone number to call from. Add phone_number_ids or assign a phone number to the assistant.', 'draft');
    expect(dialEvents(api())).toEqual([]);
  });

  it('refuses to start with a zero balance and leaves the status unchanged', async () => {
    const { campaign } = await readyCampaign(api());
    api().sim.control.accounts.patch(1, { balance: 0 });
    await expectRefused(campaign, 'start', 'Insufficient balance to start the campaign. Please top up your account.', 'draft');
    expect(dialEvents(api())).toEqual([]);
  });

  it('refuses to restart a stopped campaign with a zero balance and keeps it stopped', async () => {
    const { campaign } = await readyCampaign(api());
    await updateStatus(api(), { campaign_id: campaign, action: 'start' });
    await updateStatus(api(), { campaign_id: campaign, action: 'stop' });
    api().sim.control.accounts.patch(1, { balance: 0 });
    await expectRefused(campaign, 'start', CAMPAIGN_MESSAGES.insufficientBalance, 'stopped');
  });

  it('refuses to start a campaign whose assistant was deleted', async () => {
    const { campaign, assistant: a } = await readyCampaign(api());
    expect((await api().del(`/user/assistant/${a}`)).status).toBe(200);
    await expectRefused(campaign, 'start', "The campaign's assistant no longer exists.", 'draft');
  });

  it.each(['start', 'stop'] as const)('answers 404 {message, success: false} to %s of a missing campaign', async (action) => {
    const res = await updateStatus(api(), { campaign_id: 42, action });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ message: 'Campaign not found.', success: false });
  });

  it.each(['start', 'stop'] as const)('answers 404 to %s of another account\'s campaign and leaves it unchanged', async (action) => {
    api().sim.control.accounts.create({ api_key: SECOND_KEY });
    const number = await addNumber(api(), '+14155550109', 2);
    const foreign = await campaignId(api(), await assistant(api(), { phone_number_id: number }, SECOND_KEY), {}, SECOND_KEY);
    await addLead(api(), foreign, '+14155550123', SECOND_KEY);
    if (action === 'stop') await updateStatus(api(), { campaign_id: foreign, action: 'start' }, SECOND_KEY);
    const before = dialEvents(api());
    const res = await updateStatus(api(), { campaign_id: foreign, action });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ message: 'Campaign not found.', success: false });
    expect(dialEvents(api())).toEqual(before);
    expect((await api().get('/user/campaigns', { key: SECOND_KEY })).body[0].status).toBe(action === 'stop' ? 'in-progress' : 'draft');
  });

  it('answers 422 shape B when action is missing', async () => {
    const { campaign } = await readyCampaign(api());
    expectInvalid(await updateStatus(api(), { campaign_id: campaign }), { action: ['The action field is required.'] });
  });

  it('answers 422 shape B for an unknown action and changes nothing', async () => {
    const { campaign } = await readyCampaign(api());
    expectInvalid(await updateStatus(api(), { campaign_id: campaign, action: 'pause' }), { action: ['The selected action is invalid.'] });
    expect(await statusOf(api(), campaign)).toBe('draft');
    expect(dialEvents(api())).toEqual([]);
  });

  it('answers 422 shape B when campaign_id is missing', async () => {
    expectInvalid(await updateStatus(api(), { action: 'start' }), { campaign_id: ['The campaign id field is required.'] });
  });

  it('answers 422 shape B for a campaign_id that is not an integer', async () => {
    expectInvalid(await updateStatus(api(), { campaign_id: '1', action: 'start' }), { campaign_id: ['The campaign id must be an integer.'] });
  });
});
