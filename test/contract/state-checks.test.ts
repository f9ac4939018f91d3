/**
 * What `PUT /__sim/state` checks before it restores anything (issue 13: a snapshot is an
 * input like any other; docs/state.md: Snapshots): the clock's values get the control API's bounds,
 * each pending event a type this simulator handles and a payload its handler reads, each
 * row its table's record (required fields, JSON types, safe integers, times within the
 * range, enums in their vocabulary, ids ascending, id sequences past them; the settings
 * the clock and the balance are computed from within the API's ranges). A refusal is
 * 422 shape B on the damaged path, naming rows, events and rules by their id, and
 * changes nothing; what was accepted before answers as before.
 */
import { expect, it } from 'vitest';
import { LATEST_STATE_TIME } from '../../src/core/time.js';
import { contract, type Api } from '../support/api.js';
import { damagedSnapshot, stateOf } from '../support/expect.js';
import { pipelineAssistant } from '../support/fixtures.js';

type Snapshot = Record<string, any>;


const TIME = 'must be a time in whole milliseconds from 0 (1970-01-01T00:00:00Z) to 253402300799999 (9999-12-31T23:59:59.999Z)';
const CLOCK_TIME = 'must be a time in whole milliseconds from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z (0 to 253370764800000)';
const SPEED = 'must be a number from 0.001 to 1000000';
const SAFE_INT = 'must be a whole number from -9007199254740991 to 9007199254740991';
const ID = 'must be a whole number from 1 to 9007199254740991';
const EVENT_TYPES =
  'must be a clock event type of this simulator (webhook.attempt, phone_number.period_end, campaign.dial, lead.retry, call.start, call.ring, call.connect, call.end, call.tool, conversation.inactive, msgapp.session_close, msgapp.message_status, knowledgebase.document_processed)';

/**
 * A state with a row in most tables: a purchased number (its renewal pending), an
 * assistant, a campaign with a lead, a finished call, a messaging window.
 */
async function populate(api: Api): Promise<void> {
  const offer = (await api.get('/user/phone-numbers/search', { query: { country_code: 'US' } })).body.data[0].phone_number;
  expect((await api.post('/user/phone-numbers/purchase', { phone_number: offer })).status).toBe(201);
  const assistant = (await api.post('/user/assistant', pipelineAssistant())).body.data.id as number;
  const campaign = (await api.post('/user/campaign', { name: 'Spring', assistant_id: assistant })).body.data.id as number;
  expect((await api.post('/user/lead', { campaign_id: campaign, phone_number: '+14155550123' })).status).toBe(200);
  expect((await api.post('/__sim/calls', { assistant_id: assistant, client_phone_number: '+14155550199' })).status).toBe(201);
  expect((await api.post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', text: 'Hi' })).status).toBe(201);
}

/** The snapshot of a populated state, as `GET /__sim/state` answers it. */
async function saved(api: Api): Promise<Snapshot> {
  await populate(api);
  return (await api.get('/__sim/state')).body;
}

/** PUTs `damage(copy of snapshot)`; expects the refusal and that nothing changed, reads included. */
async function refused(api: Api, snapshot: Snapshot, damage: (s: Snapshot) => void): Promise<unknown> {
  const copy = structuredClone(snapshot);
  damage(copy);
  const before = stateOf(api);
  const history = api.sim.events.history();
  const res = await api.put('/__sim/state', copy);
  expect(res.status).toBe(422);
  expect(stateOf(api)).toBe(before);
  // The event history is kept (a restore would have started it again).
  expect(api.sim.events.history().slice(0, history.length)).toStrictEqual(history);
  for (const path of ['/user/phone-numbers/all', '/user/calls', '/user/leads', '/user/assistants/get']) expect((await api.get(path)).status).toBe(200);
  expect((await api.get('/__sim/accounts')).status).toBe(200);
  return res.body;
}

/** A table's rows in a snapshot. */
const rowsOf = (s: Snapshot, table: string) => s.db[table].rows as Snapshot[];

/** Sets `field` of the first row of `table` to `value` in a saved snapshot and expects the refusal to name that field of that row. */
async function refusesField(api: Api, table: string, field: string, value: unknown, problem: string): Promise<void> {
  const snapshot = await saved(api);
  const id = rowsOf(snapshot, table)[0]!.id as number;
  const body = await refused(api, snapshot, (s) => (rowsOf(s, table)[0]![field] = value));
  expect(body).toStrictEqual(damagedSnapshot(`db.${table}[${id}].${field}`, problem));
}

contract('control: PUT /__sim/state checks the clock as the control API does', (api) => {
  it.each([
    ['a speed beyond PUT /__sim/clock\'s (realtime, 1e308)', (s: Snapshot) => Object.assign(s.clock, { mode: 'realtime', speed: 1e308 }), 'clock.speed', SPEED],
    ['a speed below it (0.0009)', (s: Snapshot) => Object.assign(s.clock, { speed: 0.0009 }), 'clock.speed', SPEED],
    ['a speed of 1e-300', (s: Snapshot) => Object.assign(s.clock, { speed: 1e-300 }), 'clock.speed', SPEED],
    ['an unknown mode', (s: Snapshot) => Object.assign(s.clock, { mode: 'fast' }), 'clock.mode', 'must be one of manual, realtime'],
    ['a clock time before 1970', (s: Snapshot) => Object.assign(s.clock, { now: -1 }), 'clock.now', CLOCK_TIME],
    ['a clock time past 9999-01-01T00:00:00Z', (s: Snapshot) => Object.assign(s.clock, { now: 253370764800001 }), 'clock.now', CLOCK_TIME],
    ['a start past the range', (s: Snapshot) => Object.assign(s, { start: 8.64e15 }), 'start', CLOCK_TIME],
    ['a seed beyond POST /__sim/reset\'s', (s: Snapshot) => Object.assign(s, { seed: 2 ** 31 }), 'seed', 'must be a whole number from 0 to 2147483647'],
    ['a clock sequence below its events\' ids', (s: Snapshot) => Object.assign(s.clock, { seq: 0 }), 'clock.seq', 'must be at least the highest id of its items'],
  ])('refuses %s with 422 on that path and changes nothing', async (_name, damage, path, problem) => {
    expect(await refused(api(), await saved(api()), damage)).toStrictEqual(damagedSnapshot(path, problem));
  });

  it.each([0.001, 1_000_000])('restores a realtime clock at speed %s, an edge of the range', async (speed) => {
    const snapshot = await saved(api());
    const res = await api().put('/__sim/state', { ...snapshot, clock: { ...snapshot.clock, mode: 'realtime', speed } });
    expect(res.status).toBe(200);
    expect(api().sim.control.clock.get()).toMatchObject({ mode: 'realtime', speed });
    api().sim.dispose();
  });

  it.each([
    [0, '1970-01-01T00:00:00Z'],
    [253370764800000, '9999-01-01T00:00:00Z'],
  ])('restores a clock time of %s, an edge of the range', async (now, text) => {
    const snapshot = await saved(api());
    const res = await api().put('/__sim/state', { ...snapshot, clock: { ...snapshot.clock, now } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ok: true, now: text });
  });
});

contract('control: PUT /__sim/state checks each pending event', (api) => {
  /** The snapshot and the id of its pending renewal (a `phone_number.period_end`). */
  async function withRenewal(): Promise<{ snapshot: Snapshot; renewal: Snapshot }> {
    const snapshot = await saved(api());
    return { snapshot, renewal: snapshot.clock.events.find((e: Snapshot) => e.type === 'phone_number.period_end') };
  }

  it('refuses an event of a type no handler takes, naming it by its id', async () => {
    const { snapshot, renewal } = await withRenewal();
    const body = await refused(api(), snapshot, (s) => (s.clock.events.find((e: Snapshot) => e.id === renewal.id).type = 'robot.dance'));
    expect(body).toStrictEqual(damagedSnapshot(`clock.events[${renewal.id}].type`, EVENT_TYPES));
  });

  it.each([
    ['an account id that is text', { account_id: 'x', phone_number_id: 1 }, 'payload.account_id', ID],
    ['no number id', { account_id: 1 }, 'payload.phone_number_id', 'is required'],
    ['a payload that is not an object', 'x', 'payload', 'must be an object'],
  ])('refuses a renewal whose payload has %s', async (_name, payload, field, problem) => {
    const { snapshot, renewal } = await withRenewal();
    const body = await refused(api(), snapshot, (s) => (s.clock.events.find((e: Snapshot) => e.id === renewal.id).payload = payload));
    expect(body).toStrictEqual(damagedSnapshot(`clock.events[${renewal.id}].${field}`, problem));
  });

  it.each([8.6e15, LATEST_STATE_TIME + 1, -1, 1.5])('refuses an event due at %s', async (at) => {
    const { snapshot, renewal } = await withRenewal();
    const body = await refused(api(), snapshot, (s) => (s.clock.events.find((e: Snapshot) => e.id === renewal.id).at = at));
    expect(body).toStrictEqual(damagedSnapshot(`clock.events[${renewal.id}].at`, TIME));
  });

  it('refuses two events with one id', async () => {
    const { snapshot, renewal } = await withRenewal();
    const body = await refused(api(), snapshot, (s) => s.clock.events.push({ ...renewal }));
    expect(body).toStrictEqual(damagedSnapshot(`clock.events[${renewal.id}]`, 'comes twice (ids are unique)'));
  });

  it('restores an event due at the last time the state may hold, and run-until-idle stops at the horizon short of it', async () => {
    const snapshot = await saved(api());
    const far = { id: snapshot.clock.seq + 1, seq: snapshot.clock.seq + 1, type: 'webhook.attempt', payload: { delivery_id: 99 }, at: LATEST_STATE_TIME };
    const res = await api().put('/__sim/state', { ...snapshot, clock: { ...snapshot.clock, seq: far.id, events: [...snapshot.clock.events, far] } });
    expect(res.status).toBe(200);
    const run = await api().post('/__sim/clock/run-until-idle', {});
    expect(run.body).toMatchObject({ now: '2036-02-02T09:00:00Z', pending: 1, periodic_pending: 1 });
  });
});

contract('control: PUT /__sim/state checks each row against its table\'s record', (api) => {

  it.each([
    ['a number created at 2^53 + 1', 'phone_numbers', 'created_at', 9007199254740993, TIME],
    ['a number created at 1e308', 'phone_numbers', 'created_at', 1e308, TIME],
    ['a balance of 1e308', 'accounts', 'balance_micros', 1e308, SAFE_INT],
    ['a balance of "x"', 'accounts', 'balance_micros', 'x', SAFE_INT],
    ['a call status outside the vocabulary', 'calls', 'status', 'dancing', 'must be one of initiated, ringing, busy, in-progress, ended, completed, ended_by_customer, ended_by_assistant, no-answer, failed'],
    ['lead variables that are a list', 'leads', 'variables', [], 'must be an object'],
    ['a campaign time zone nobody knows', 'campaigns', 'timezone', 'Mars/Olympus', 'must be an IANA time zone such as Europe/Berlin'],
    ['a campaign hour that is not a time of day', 'campaigns', 'allowed_hours_start_time', '25:00:00', 'must be a time of day written HH:MM:SS'],
    ['an assistant name that is a number', 'assistants', 'name', 7, 'must be a string'],
    ['a session window end that is text', 'msgapp_sessions', 'expires_at', 'soon', TIME],
  ])('refuses %s, naming the table, the row id and the field', async (_name, table, field, value, problem) => {
    await refusesField(api(), table, field, value, problem);
  });

  it('refuses an account row of nothing but an id: the first field it lacks', async () => {
    const body = await refused(api(), await saved(api()), (s) => (s.db.accounts.rows[0] = { id: 1 }));
    expect(body).toStrictEqual(damagedSnapshot('db.accounts[1].name', 'is required'));
  });

  it('names a nested field: a plan limit below 0', async () => {
    const body = await refused(api(), await saved(api()), (s) => (s.db.accounts.rows[0].plan.max_tools = -1));
    expect(body).toStrictEqual(damagedSnapshot('db.accounts[1].plan.max_tools', 'must be a whole number from 0 to 9007199254740991'));
  });

  it('names an item of a list field: a built-in tool of an unknown type', async () => {
    const body = await refused(api(), await saved(api()), (s) => (s.db.assistants.rows[0].tools = [{ type: 'teleport' }]));
    expect(body).toMatchObject({ errors: { 'db.assistants[1].tools[0].type': [expect.stringMatching(/^The snapshot is damaged at db\.assistants\[1\]\.tools\[0\]\.type: /)] } });
  });

  it('refuses a row without a usable id, naming its position', async () => {
    const body = await refused(api(), await saved(api()), (s) => rowsOf(s, 'leads').unshift({ id: 'one' }));
    expect(body).toStrictEqual(damagedSnapshot('db.leads.rows', 'must hold objects with an id from 1 to 9007199254740991 (item 0, counted from 0, does not)'));
  });

  it('refuses rows out of id order or twice', async () => {
    const body = await refused(api(), await saved(api()), (s) => rowsOf(s, 'accounts').push(rowsOf(s, 'accounts')[0]!));
    expect(body).toStrictEqual(damagedSnapshot('db.accounts[1]', 'comes twice or after a higher id (ids are unique, in ascending order)'));
  });

  it('refuses a table sequence below its rows\' ids (the next row would take an old id)', async () => {
    const body = await refused(api(), await saved(api()), (s) => (s.db.calls.seq = 0));
    expect(body).toStrictEqual(damagedSnapshot('db.calls.seq', 'must be at least the highest id of its items'));
  });

  it('refuses a webhook failure rule whose mode is neither a failing status nor timeout/refused', async () => {
    await api().post('/__sim/webhooks/failures', { with: 500 });
    const body = await refused(api(), await saved(api()), (s) => (s.webhooks.rules[0].with = 'maybe'));
    expect(body).toMatchObject({ errors: { 'webhooks.rules[1].with': [expect.any(String)] } });
  });

  it('restores every row it wrote itself, and answers the same reads after', async () => {
    const snapshot = await saved(api());
    const reads = async () => Promise.all(['/user/phone-numbers/all', '/user/calls', '/user/leads', '/__sim/accounts'].map(async (path) => (await api().get(path)).body));
    const before = await reads();
    expect((await api().put('/__sim/state', snapshot)).status).toBe(200);
    expect(await reads()).toStrictEqual(before);
  });
});

contract('control: PUT /__sim/state checks that rows name rows that are there', (api) => {

  it.each([
    ['a lead of a campaign that is not there', 'leads', 'campaign_id', 999, 'must name a row of campaigns in account 1 (there is no 999)'],
    ['an assistant calling from a number that is not there', 'assistants', 'phone_number_id', 999, 'must name a row of phone_numbers in account 1 (there is no 999)'],
    ['an assistant with a tool that is not there', 'assistants', 'tool_ids', [999], 'must name a row of tools in account 1 (there is no 999)'],
    ['a campaign rotating a number that is not there', 'campaigns', 'phone_number_ids', [999], 'must name a row of phone_numbers in account 1 (there is no 999)'],
    ['a messaging window of a conversation that is not there', 'msgapp_sessions', 'conversation_id', 999, 'must name a row of conversations in account 1 (there is no 999)'],
    ['a call of an account that is not there', 'calls', 'account_id', 2, 'must be the id of an account of the snapshot (there is no account 2)'],
  ])('refuses %s with 422 naming the row and the field, and changes nothing', async (_name, table, field, value, problem) => {
    await refusesField(api(), table, field, value, problem);
  });

  it("refuses a lead of another account's campaign", async () => {
    expect((await api().post('/__sim/accounts', { name: 'Other', api_key: 'sim_other_key' })).status).toBe(201);
    const snapshot = await saved(api());
    const body = await refused(api(), snapshot, (s) => (rowsOf(s, 'campaigns')[0]!.account_id = 2));
    expect(body).toStrictEqual(damagedSnapshot('db.leads[1].campaign_id', "must name a row of campaigns in account 1 (1 is another account's)"));
  });

  it('restores references the simulator leaves behind itself: a campaign and a call of a deleted assistant', async () => {
    await populate(api());
    expect((await api().del('/user/assistant/1')).status).toBe(200);
    const snapshot = (await api().get('/__sim/state')).body as Snapshot;
    expect(rowsOf(snapshot, 'assistants')).toStrictEqual([]);
    expect(rowsOf(snapshot, 'campaigns')[0]!.assistant_id).toBe(1);
    expect(rowsOf(snapshot, 'calls')[0]!.assistant_id).toBe(1);
    const reads = async () => Promise.all(['/user/calls', '/user/leads', '/user/campaigns'].map(async (path) => (await api().get(path)).body));
    const before = await reads();
    expect((await api().put('/__sim/state', snapshot)).status).toBe(200);
    expect(await reads()).toStrictEqual(before);
    expect(await api().post('/user/campaigns/update-status', { campaign_id: 1, action: 'start' })).toMatchObject({ status: 400, body: { message: "The campaign's assistant no longer exists.", success: false } });
  });
});

contract('control: PUT /__sim/state holds the settings the clock and the balance are computed from to the API\'s ranges', (api) => {
  const rangeOf = (min: number, max: number) => `must be a whole number from ${min} to ${max}`;

  /** A saved state with a call placed by make_call, still ringing: its plan is the last call's. */
  async function savedWithPlan(): Promise<Snapshot> {
    await populate(api());
    const number = (await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550100' })).body.id as number;
    const assistant = (await api().post('/user/assistant', pipelineAssistant({ phone_number_id: number }))).body.data.id as number;
    expect((await api().post('/user/make_call', { assistant_id: assistant, phone_number: '+14155550123' })).status).toBe(200);
    const snapshot = (await api().get('/__sim/state')).body as Snapshot;
    expect(rowsOf(snapshot, 'calls').at(-1)!.plan).not.toBeNull();
    return snapshot;
  }

  it.each([
    ['an assistant ringing for 2^53 - 1 seconds (a no-answer call would end after the last time the state may hold)', 'assistants', (r: Snapshot) => (r.ringing_time = 9007199254740991), 'ringing_time', rangeOf(1, 60)],
    ['an assistant ringing for 61 seconds, one past POST /user/assistant\'s', 'assistants', (r: Snapshot) => (r.ringing_time = 61), 'ringing_time', rangeOf(1, 60)],
    ['an assistant ringing for 0 seconds', 'assistants', (r: Snapshot) => (r.ringing_time = 0), 'ringing_time', rangeOf(1, 60)],
    ['a conversation inactivity timeout of 1441 minutes', 'assistants', (r: Snapshot) => (r.conversation_inactivity_timeout = 1441), 'conversation_inactivity_timeout', rangeOf(1, 1440)],
    ['a retry interval of 2^53 - 1 minutes (a retry would fall due after the last time the state may hold)', 'campaigns', (r: Snapshot) => (r.retry_interval = 9007199254740991), 'retry_interval', rangeOf(10, 4320)],
    ['a retry interval of 4321 minutes', 'campaigns', (r: Snapshot) => (r.retry_interval = 4321), 'retry_interval', rangeOf(10, 4320)],
    ['a retry interval of 9 minutes', 'campaigns', (r: Snapshot) => (r.retry_interval = 9), 'retry_interval', rangeOf(10, 4320)],
    ['a rate of 2^53 - 1 micro-dollars a minute (one call would take the balance past 2^53)', 'accounts', (r: Snapshot) => (r.rates.ai_per_minute_micros = 9007199254740991), 'rates.ai_per_minute_micros', rangeOf(0, 1_000_000_000)],
    ['a rate one micro-dollar past 1000 USD', 'accounts', (r: Snapshot) => (r.rates.carrier_per_minute_micros = 1_000_000_001), 'rates.carrier_per_minute_micros', rangeOf(0, 1_000_000_000)],
    ['a negative SMS rate', 'accounts', (r: Snapshot) => (r.rates.sms_segment_micros = -1), 'rates.sms_segment_micros', rangeOf(0, 1_000_000_000)],
    ['a number renewing at 2^53 - 1 micro-dollars', 'phone_numbers', (r: Snapshot) => (r.subscription.price_micros = 9007199254740991), 'subscription.price_micros', rangeOf(0, 1_000_000_000)],
  ])('refuses %s, naming the field', async (_name, table, damage, field, problem) => {
    const snapshot = await saved(api());
    const row = rowsOf(snapshot, table).find((r) => table !== 'phone_numbers' || r.subscription !== null)!;
    const body = await refused(api(), snapshot, (s) => damage(rowsOf(s, table).find((r) => r.id === row.id)!));
    expect(body).toStrictEqual(damagedSnapshot(`db.${table}[${row.id}].${field}`, problem));
  });

  it.each([
    ['ring', 'ring_seconds', rangeOf(0, 600)],
    ['talk', 'talk_seconds', rangeOf(0, 86400)],
  ])('refuses a call planned to %s for 2^53 - 1 seconds, past PUT /__sim/outcomes\' range', async (_name, field, problem) => {
    const snapshot = await savedWithPlan();
    const id = rowsOf(snapshot, 'calls').at(-1)!.id as number;
    const body = await refused(api(), snapshot, (s) => (rowsOf(s, 'calls').at(-1)!.plan[field] = 9007199254740991));
    expect(body).toStrictEqual(damagedSnapshot(`db.calls[${id}].plan.${field}`, problem));
  });

  it('restores every setting at the top of its range, and the simulator\'s next state restores too', async () => {
    const snapshot = await savedWithPlan();
    const edges = structuredClone(snapshot);
    Object.assign(rowsOf(edges, 'assistants')[0]!, { ringing_time: 60, conversation_inactivity_timeout: 1440 });
    rowsOf(edges, 'campaigns')[0]!.retry_interval = 4320;
    Object.assign(rowsOf(edges, 'accounts')[0]!.rates, { ai_per_minute_micros: 1_000_000_000, carrier_per_minute_micros: 1_000_000_000 });
    Object.assign(rowsOf(edges, 'calls').at(-1)!.plan, { ring_seconds: 600, talk_seconds: 86400 });
    expect((await api().put('/__sim/state', edges)).status).toBe(200);
    expect((await api().post('/__sim/clock/advance', { by: '2d' })).status).toBe(200);
    const after = (await api().get('/__sim/state')).body;
    expect((await api().put('/__sim/state', after)).status).toBe(200);
  });
});

contract('control: PUT /__sim/state restores a campaign call whose secondary contact is gone', (api) => {
  it('ends the call and moves its lead on, reading the contact as gone', async () => {
    const number = (await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550100' })).body.id as number;
    const assistant = (await api().post('/user/assistant', pipelineAssistant({ phone_number_id: number }))).body.data.id as number;
    const allDay = { allowed_hours_start_time: '00:00', allowed_hours_end_time: '23:59', allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] };
    const campaign = (await api().post('/user/campaign', { name: 'Spring', assistant_id: assistant, ...allDay })).body.data.id as number;
    const lead = (await api().post('/user/lead', { campaign_id: campaign, phone_number: '+14155550123', secondary_contacts: [{ phone_number: '+14155550124' }] })).body.data.id as number;
    // The primary is busy: the dialer goes on to the secondary contact.
    expect((await api().put('/__sim/outcomes', { rules: [{ match: { phone_number: '+14155550123' }, outcomes: ['busy'] }] })).status).toBe(200);
    expect((await api().post('/user/campaigns/update-status', { campaign_id: campaign, action: 'start' })).status).toBe(200);
    expect((await api().post('/__sim/clock/advance', { by: '10s' })).status).toBe(200);
    const snapshot = (await api().get('/__sim/state')).body as Snapshot;
    const calls = snapshot.db.calls.rows as Snapshot[];
    expect(calls.map((c) => [c.contact_id, c.ended_at === null])).toStrictEqual([[null, false], [1, true]]);
    snapshot.db.secondary_contacts.rows = [];
    expect((await api().put('/__sim/state', snapshot)).status).toBe(200);
    const run = await api().post('/__sim/clock/run-until-idle', {});
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ ran: 2, pending: 0 });
    expect((await api().get(`/user/calls/${calls[1]!.id}`)).body).toMatchObject({ status: 'completed', client_phone_number: '+14155550124' });
    const leads = (await api().get('/user/leads')).body.data as Snapshot[];
    expect(leads.find((l) => l.id === lead)).toMatchObject({ status: 'completed', secondary_contacts: [] });
  });
});

contract('control: PUT /__sim/state checks that a row keeps the id of its own pending event', (api) => {
  const eventOf = (s: Snapshot, type: string) => (s.clock.events as Snapshot[]).find((e) => e.type === type)!;

  it("refuses a campaign whose dial event is a number's renewal (stopping it would cancel the renewal)", async () => {
    const snapshot = await saved(api());
    const renewal = eventOf(snapshot, 'phone_number.period_end');
    const body = await refused(api(), snapshot, (s) => (rowsOf(s, 'campaigns')[0]!.dial_event_id = renewal.id));
    expect(body).toStrictEqual(
      damagedSnapshot(
        'db.campaigns[1].dial_event_id',
        `must name a pending campaign.dial event of this row (campaign_id 1, account_id 1) or none (event ${renewal.id} is phone_number.period_end ${JSON.stringify(renewal.payload)})`,
      ),
    );
  });

  it("refuses a number whose renewal id names another number's renewal", async () => {
    const snapshot = await saved(api());
    const renewal = eventOf(snapshot, 'phone_number.period_end');
    const other = { ...renewal, id: snapshot.clock.seq + 1, seq: snapshot.clock.seq + 1, payload: { account_id: 1, phone_number_id: 999 } };
    const number = rowsOf(snapshot, 'phone_numbers').find((n) => n.subscription !== null)!;
    const body = await refused(api(), snapshot, (s) => {
      s.clock.events.push(other);
      s.clock.seq = other.id;
      rowsOf(s, 'phone_numbers').find((n) => n.id === number.id)!.subscription.event_id = other.id;
    });
    expect(body).toStrictEqual(
      damagedSnapshot(
        `db.phone_numbers[${number.id}].subscription.event_id`,
        `must name a pending phone_number.period_end event of this row (phone_number_id ${number.id}, account_id 1) or none (event ${other.id} is phone_number.period_end {"account_id":1,"phone_number_id":999})`,
      ),
    );
  });

  it("refuses a messaging window whose close event is another account's", async () => {
    expect((await api().post('/__sim/accounts', { name: 'Other', api_key: 'sim_other_key' })).status).toBe(201);
    const snapshot = await saved(api());
    const close = eventOf(snapshot, 'msgapp.session_close');
    const session = rowsOf(snapshot, 'msgapp_sessions')[0]!;
    const body = await refused(api(), snapshot, (s) => (eventOf(s, 'msgapp.session_close').payload.account_id = 2));
    expect(body).toStrictEqual(
      damagedSnapshot(
        `db.msgapp_sessions[${session.id}].close_event_id`,
        `must name a pending msgapp.session_close event of this row (session_id ${session.id}, account_id 1) or none (event ${close.id} is msgapp.session_close {"account_id":2,"session_id":${session.id}})`,
      ),
    );
  });

  it('restores an id of an event that is no longer pending, as a row keeps it after its event fired', async () => {
    await populate(api());
    // The messaging window closes after a day: its event fires.
    expect((await api().post('/__sim/clock/advance', { by: '2d' })).status).toBe(200);
    const snapshot = (await api().get('/__sim/state')).body as Snapshot;
    const pending = new Set((snapshot.clock.events as Snapshot[]).map((e) => e.id));
    const fired = Array.from({ length: snapshot.clock.seq }, (_, i) => i + 1).find((id) => !pending.has(id))!;
    const res = await api().put('/__sim/state', { ...snapshot, db: { ...snapshot.db, campaigns: { ...snapshot.db.campaigns, rows: [{ ...rowsOf(snapshot, 'campaigns')[0], dial_event_id: fired }] } } });
    expect(res.status).toBe(200);
    expect((await api().post('/__sim/clock/run-until-idle', {})).status).toBe(200);
  });
});

contract('control: PUT /__sim/state checks that the catalog fits the assistants, as PUT /__sim/catalog does', (api) => {
  /** A voice of the spec catalog's language 1 and synthesizer 1, not in the wire's catalog. */
  const MINA = { id: 9001, name: 'Mina', language_id: 1, gender: 'female', preview_url: null, accent: null, age: 'young', synthesizer_provider_id: 1 };

  it("refuses a snapshot whose catalog document drops a voice its assistant uses, at the document's table", async () => {
    const snapshot = await saved(api());
    const voice = rowsOf(snapshot, 'assistants')[0]!.voice_id as number;
    const body = await refused(api(), snapshot, (s) => (s.catalog = { merge: 'replace', voices: [MINA] }));
    expect(body).toStrictEqual(damagedSnapshot('catalog.voices', `The voice ${voice} is used by assistant 1 and may not be removed`));
  });

  it("refuses a snapshot whose assistant names a voice the wire's catalog lacks, at the assistants", async () => {
    const snapshot = await saved(api());
    const body = await refused(api(), snapshot, (s) => (rowsOf(s, 'assistants')[0]!.voice_id = 9001));
    expect(body).toStrictEqual(damagedSnapshot('db.assistants', 'The voice 9001 is used by assistant 1 and may not be removed'));
  });

  it('restores the same snapshot when its catalog document has that voice', async () => {
    const snapshot = await saved(api());
    rowsOf(snapshot, 'assistants')[0]!.voice_id = 9001;
    const res = await api().put('/__sim/state', { ...snapshot, catalog: { merge: 'extend', voices: [MINA] } });
    expect(res.status).toBe(200);
    expect((await api().get('/user/assistants/get')).body.data[0]).toMatchObject({ id: 1, voice_id: 9001 });
  });
});
