/**
 * The live platform's extra routes on the default (spec) wire (live-platform.md Rule,
 * A, A.1, A.2, B, B.1): the aliases answer exactly as the spec operation they name, the
 * body-carried assistant switches, the cursor form and new filters of the conversation
 * list, the bare assistant list, the inbound and post-call webhook switches, phone
 * number nicknames and the legacy number list, and AI reply generation with its sliding
 * 5-per-minute limit.
 *
 * Generic 401, path-id 404 and malformed-JSON answers of these routes are in
 * routes.test.ts. Expected bodies are literal texts, never the source's constants.
 * Engines run on the virtual clock; webhook attempts go to a `deliver` stub, never to
 * the network, and are read back through `sim.webhooks.deliveries()`.
 */
import { expect, it, vi } from 'vitest';
import { contract, MSW_BASE, type Api, type ApiResponse } from '../support/api.js';
import { multimodalAssistant } from '../support/fixtures.js';
import { buy, campaignId, createAssistant, search, startConversation } from '../support/records.js';

type Body = Record<string, unknown>;

const OTHER_KEY = 'sim_other_key';
const CUSTOMER = '+14155550123';
const OTHER_CUSTOMER = '+14155550124';
/** The fixture senders of the default account: 1 online, 2 offline (fixtures/msgapp.json). */
const ONLINE_SENDER_PHONE = '+14155550150';
const OFFLINE_SENDER_PHONE = '+14155550151';
const GREETING = 'Hello, this is Ava from Acme. Do you have a minute?';
const DEFAULT_REPLY = 'Thank you for your message. How else can I help you today?';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

const ASSISTANT_NOT_FOUND = { message: 'Assistant not found.' };
const ASSISTANT_REQUIRED = { message: 'The assistant id field is required.', errors: { assistant_id: ['The assistant id field is required.'] } };
const ASSISTANT_NOT_A_REF = { message: 'The assistant id must be an assistant id or uuid.', errors: { assistant_id: ['The assistant id must be an assistant id or uuid.'] } };
const URL_REQUIRED = { message: 'The webhook url field is required.', errors: { webhook_url: ['The webhook url field is required.'] } };
const URL_INVALID = { message: 'The webhook url format is invalid.', errors: { webhook_url: ['The webhook url format is invalid.'] } };
const MSGAPP_RATE_LIMITED = { success: false, error: 'Too many requests.', error_code: 'RATE_LIMITED' };
const REPLY_ASSISTANT_NOT_FOUND = { success: false, error: 'Assistant not found or does not belong to you', error_code: 'ASSISTANT_NOT_FOUND' };
const REPLY_NO_BALANCE = { success: false, error: 'Insufficient balance. Please top up your account.', error_code: 'INSUFFICIENT_BALANCE' };
const TOO_MANY = (seconds: number) => ({ message: 'Too Many Attempts.', retry_after: seconds });
const CURSOR_KEYS = ['data', 'path', 'per_page', 'next_cursor', 'prev_cursor'];
const PAGE_KEYS = ['data', 'current_page', 'per_page', 'total', 'last_page'];
const PHONE_NUMBER_KEYS = ['id', 'phone_number', 'country_code', 'type', 'type_label', 'sms_capable', 'region', 'has_active_subscription', 'created_at'];

/** Webhook attempts answered 200 without any network. */
const quietReceiver = { deliver: async () => ({ status: 200, body: '', duration_ms: 0 }) };

/** The tables (every record, the account rows with their rate-limit times included). */
const dbState = (api: Api) => JSON.stringify(api.sim.snapshot().db);

function expectAnswer(res: ApiResponse, status: number, body: unknown) {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toStrictEqual(body);
}

function otherAccount(api: Api): void {
  api.sim.control.accounts.create({ api_key: OTHER_KEY });
}

/**
 * Runs the same request on two spellings from the same state: both get the same status,
 * body and Retry-After, and leave the same state behind (one operation, live-platform
 * Rule 4 and A). Answers the first spelling's response; the state is the second's.
 */
async function sameOperation(api: Api, method: string, paths: [string, string], body?: unknown, query?: Record<string, string | number>): Promise<ApiResponse> {
  const options = query ? { query } : {};
  const start = api.sim.snapshot();
  const first = await api.call(method, paths[0], body, options);
  const afterFirst = JSON.stringify(api.sim.snapshot());
  api.sim.restore(start);
  const second = await api.call(method, paths[1], body, options);
  const afterSecond = JSON.stringify(api.sim.snapshot());
  const view = (res: ApiResponse) => ({ status: res.status, body: res.body, retryAfter: res.headers.get('retry-after') });
  expect(view(second), `${method} ${paths[1]}`).toStrictEqual(view(first));
  expect(afterSecond, `state after ${method} ${paths[1]}`).toBe(afterFirst);
  return first;
}

const whatsapp = (path: string): [string, string] => [path, path.replace('/msgapp/', '/whatsapp/')];

/** Opens the 24-hour window of `from` on sender 1 (a customer wrote). */
async function inbound(api: Api, body: Body = {}) {
  const res = await api.post('/__sim/msgapp/inbound', { sender_id: 1, from: CUSTOMER, text: 'Hi', ...body });
  expect(res.status, res.text).toBe(201);
  return res;
}

/** A GET whose exact request URL is read off `fetch` (the harness's base URL plus path and query). */
async function getWithUrl(api: Api, path: string, query: Record<string, string | number>): Promise<{ res: ApiResponse; url: string }> {
  const spy = vi.spyOn(globalThis, 'fetch');
  try {
    const res = await api.get(path, { query });
    return { res, url: String(spy.mock.calls[0]![0]) };
  } finally {
    spy.mockRestore();
  }
}

// ---------------------------------------------------------------------------------------------
// A: aliases
// ---------------------------------------------------------------------------------------------

contract('live A: POST /user/campaigns', (api) => {
  it('creates a campaign with 201 and the same body and state as POST /user/campaign', async () => {
    const assistant = await createAssistant(api());
    const body = { name: 'Plural Outreach', assistant_id: assistant.id, max_retries: 2, allowed_days: ['monday', 'friday'] };
    const res = await sameOperation(api(), 'POST', ['/user/campaign', '/user/campaigns'], body);
    expectAnswer(res, 201, {
      message: 'Campaign created successfully.',
      data: {
        id: 1,
        name: 'Plural Outreach',
        status: 'draft',
        max_calls_in_parallel: 3,
        mark_complete_when_no_leads: true,
        allowed_hours_start_time: '00:00:00',
        allowed_hours_end_time: '23:59:00',
        allowed_days: ['monday', 'friday'],
        max_retries: 2,
        retry_interval: 60,
        created_at: '2026-03-02T09:00:00.000000Z',
        updated_at: '2026-03-02T09:00:00.000000Z',
      },
    });
  });

  it('lists a campaign made through the plural path in GET /user/campaigns after one made through the singular', async () => {
    const assistant = await createAssistant(api());
    const singular = await api().post('/user/campaign', { name: 'One', assistant_id: assistant.id });
    const plural = await api().post('/user/campaigns', { name: 'Two', assistant_id: assistant.id });
    expect(plural.status).toBe(201);
    expect(plural.body.data.id).toBe(2);
    expect((await api().get('/user/campaigns')).body).toStrictEqual([singular.body.data, plural.body.data]);
  });

  it('refuses a missing name with the same 422 as the singular path', async () => {
    const assistant = await createAssistant(api());
    const res = await sameOperation(api(), 'POST', ['/user/campaign', '/user/campaigns'], { assistant_id: assistant.id });
    expectAnswer(res, 422, { message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
  });

  it('refuses an unknown assistant with the same 404 as the singular path', async () => {
    const res = await sameOperation(api(), 'POST', ['/user/campaign', '/user/campaigns'], { name: 'X', assistant_id: 99 });
    expectAnswer(res, 404, { message: 'Assistant not found or not an outbound assistant.' });
  });

  it('refuses an inbound assistant with the same 404 as the singular path', async () => {
    const inboundAssistant = await createAssistant(api(), { type: 'inbound' });
    const res = await sameOperation(api(), 'POST', ['/user/campaign', '/user/campaigns'], { name: 'X', assistant_id: inboundAssistant.id });
    expectAnswer(res, 404, { message: 'Assistant not found or not an outbound assistant.' });
  });

  it('counts campaigns of both spellings against one plan maximum, and refuses with the same 403', async () => {
    api().sim.control.accounts.patch(1, { plan: { max_campaigns: 2 } });
    const assistant = await createAssistant(api());
    expect((await api().post('/user/campaign', { name: 'One', assistant_id: assistant.id })).status).toBe(201);
    expect((await api().post('/user/campaigns', { name: 'Two', assistant_id: assistant.id })).status).toBe(201);
    const res = await sameOperation(api(), 'POST', ['/user/campaign', '/user/campaigns'], { name: 'Three', assistant_id: assistant.id });
    expectAnswer(res, 403, { message: 'You have reached the maximum number of campaigns allowed by your plan (2).' });
  });
});

contract('live A: PUT /leads/{id} and PATCH /user/leads/{id}', (api) => {
  async function lead(variables: Body = { first_name: 'Ann', plan: 'basic' }): Promise<{ id: number; campaign: number }> {
    const assistant = await createAssistant(api());
    const campaign = await campaignId(api(), assistant.id);
    const res = await api().post('/user/lead', { campaign_id: campaign, phone_number: CUSTOMER, variables });
    expect(res.status).toBe(200);
    return { id: res.body.data.id, campaign };
  }

  async function read(id: number) {
    const res = await api().get('/user/leads', { query: { per_page: 100 } });
    return (res.body.data as { id: number }[]).find((l) => l.id === id)!;
  }

  it.each([
    ['PUT', '/leads/:id'],
    ['PATCH', '/user/leads/:id'],
  ])('%s %s answers 200 with the same message and state as PUT /user/leads/{id}', async (method, path) => {
    const { id } = await lead();
    const body = { variables: { plan: 'pro', city: 'Austin' }, status: 'completed' };
    const start = api().sim.snapshot();
    const spec = await api().put(`/user/leads/${id}`, body);
    const afterSpec = JSON.stringify(api().sim.snapshot());
    api().sim.restore(start);
    const alias = await api().call(method, path.replace(':id', String(id)), body);
    expectAnswer(alias, 200, { message: 'Lead updated successfully.' });
    expect(alias.body).toStrictEqual(spec.body);
    expect(JSON.stringify(api().sim.snapshot())).toBe(afterSpec);
  });

  it.each([
    ['PUT', '/leads/:id'],
    ['PATCH', '/user/leads/:id'],
  ])('%s %s merges variables: existing keys updated, new keys added, others kept', async (method, path) => {
    const { id } = await lead({ first_name: 'Ann', plan: 'basic', nested: { x: 1 } });
    expect((await api().call(method, path.replace(':id', String(id)), { variables: { plan: 'pro', city: 'Austin' } })).status).toBe(200);
    expect(((await read(id)) as { variables?: unknown }).variables).toStrictEqual({ first_name: 'Ann', plan: 'pro', nested: { x: 1 }, city: 'Austin' });
  });

  it.each([
    ['PUT', '/leads/:id'],
    ['PATCH', '/user/leads/:id'],
  ])('%s %s keeps every field that is not sent (partial update)', async (method, path) => {
    const { id } = await lead();
    const before = await read(id);
    await api().sim.clock.advance('1h');
    expect((await api().call(method, path.replace(':id', String(id)), { status: 'completed' })).status).toBe(200);
    expect(await read(id)).toStrictEqual({ ...before, status: 'completed', updated_at: '2026-03-02 10:00:00' });
  });

  it.each([
    ['PUT', '/leads/:id'],
    ['PATCH', '/user/leads/:id'],
  ])('%s %s refuses an automatic status with the same 422 as PUT /user/leads/{id} and changes nothing', async (method, path) => {
    const { id } = await lead();
    const before = dbState(api());
    const res = await api().call(method, path.replace(':id', String(id)), { status: 'processing' });
    const message = 'The status may only be set to created, completed or reached-max-retries.';
    expectAnswer(res, 422, { message, errors: { status: [message] } });
    expect(res.body).toStrictEqual((await api().put(`/user/leads/${id}`, { status: 'processing' })).body);
    expect(dbState(api())).toBe(before);
  });
});

contract('live A: /user/whatsapp/* answers as /user/msgapp/*', (api) => {
  it('GET /user/whatsapp/senders answers as /user/msgapp/senders, with and without status', async () => {
    const online = await sameOperation(api(), 'GET', whatsapp('/user/msgapp/senders'));
    expect(online.status).toBe(200);
    expect((online.body.data as { id: number }[]).map((s) => s.id)).toStrictEqual([1]);
    const all = await sameOperation(api(), 'GET', whatsapp('/user/msgapp/senders'), undefined, { status: 'all' });
    expect((all.body.data as { id: number }[]).map((s) => s.id)).toStrictEqual([1, 2]);
    const bad = await sameOperation(api(), 'GET', whatsapp('/user/msgapp/senders'), undefined, { status: 'offline' });
    expectAnswer(bad, 422, { message: 'The selected status is invalid.', errors: { status: ['The selected status is invalid.'] } });
  });

  it('GET /user/whatsapp/senders/{id}/templates answers as the msgapp path, including the unknown sender', async () => {
    const approved = await sameOperation(api(), 'GET', whatsapp('/user/msgapp/senders/1/templates'));
    expect((approved.body.data as { id: number }[]).map((t) => t.id)).toStrictEqual([1, 2]);
    const all = await sameOperation(api(), 'GET', whatsapp('/user/msgapp/senders/1/templates'), undefined, { status: 'all' });
    expect((all.body.data as { id: number }[]).map((t) => t.id)).toStrictEqual([1, 2, 3, 4]);
    const missing = await sameOperation(api(), 'GET', whatsapp('/user/msgapp/senders/99/templates'));
    expectAnswer(missing, 404, { success: false, error: 'Sender not found or does not belong to you.', error_code: 'SENDER_NOT_FOUND' });
  });

  it('GET /user/whatsapp/session-status answers as the msgapp path, closed, open and invalid', async () => {
    const query = { sender_id: 1, recipient_phone: CUSTOMER };
    const closed = await sameOperation(api(), 'GET', whatsapp('/user/msgapp/session-status'), undefined, query);
    expect(closed.status).toBe(200);
    expect(closed.body.session_status.is_open).toBe(false);
    await inbound(api());
    const open = await sameOperation(api(), 'GET', whatsapp('/user/msgapp/session-status'), undefined, query);
    expect(open.body.session_status).toMatchObject({ is_open: true, minutes_remaining: 1440 });
    const invalid = await sameOperation(api(), 'GET', whatsapp('/user/msgapp/session-status'), undefined, { sender_id: 1 });
    expect(invalid.status).toBe(422);
  });

  it('POST /user/whatsapp/send answers and changes the state as the msgapp path, accepted and refused', async () => {
    const sent = await sameOperation(api(), 'POST', whatsapp('/user/msgapp/send'), { sender_id: 1, template_id: 2, recipient_phone: CUSTOMER });
    expect(sent.status).toBe(200);
    expect(sent.body.success).toBe(true);
    const withVariables = { sender_id: 1, template_id: 1, recipient_phone: OTHER_CUSTOMER, variables: { customer_name: 'Ann', appointment_time: 'Monday 10:00' } };
    expect((await sameOperation(api(), 'POST', whatsapp('/user/msgapp/send'), withVariables)).status).toBe(200);
    const rejected = await sameOperation(api(), 'POST', whatsapp('/user/msgapp/send'), { sender_id: 1, template_id: 4, recipient_phone: CUSTOMER });
    expect([rejected.status, rejected.body.error_code]).toStrictEqual([422, 'TEMPLATE_NOT_APPROVED']);
    const unknown = await sameOperation(api(), 'POST', whatsapp('/user/msgapp/send'), { sender_id: 99, template_id: 2, recipient_phone: CUSTOMER });
    expect([unknown.status, unknown.body.error_code]).toStrictEqual([404, 'SENDER_NOT_FOUND']);
  });

  it('POST /user/whatsapp/send-freeform answers and changes the state as the msgapp path, closed, open and too long', async () => {
    const body = { sender_id: 1, recipient_phone: CUSTOMER, message: 'Your table is ready.' };
    const closed = await sameOperation(api(), 'POST', whatsapp('/user/msgapp/send-freeform'), body);
    expect([closed.status, closed.body.error_code]).toStrictEqual([403, 'SESSION_EXPIRED']);
    await inbound(api());
    const open = await sameOperation(api(), 'POST', whatsapp('/user/msgapp/send-freeform'), body);
    expect(open.status).toBe(200);
    expect(open.body.success).toBe(true);
    const tooLong = await sameOperation(api(), 'POST', whatsapp('/user/msgapp/send-freeform'), { ...body, message: 'm'.repeat(4097) });
    expect([tooLong.status, tooLong.body.error_code]).toStrictEqual([422, 'VALIDATION_ERROR']);
  });

  it('charges a whatsapp template send as a msgapp one', async () => {
    expect((await api().post('/user/whatsapp/send', { sender_id: 1, template_id: 2, recipient_phone: CUSTOMER })).status).toBe(200);
    expect((await api().get('/user/me')).body.total_balance).toBe(99.95);
  });

  it('accepts five sends across the two words in one second and refuses the sixth on either word with the msgapp 429 and Retry-After 1', async () => {
    await inbound(api());
    const freeform = { sender_id: 1, recipient_phone: CUSTOMER, message: 'Your table is ready.' };
    const statuses: number[] = [];
    for (const word of ['msgapp', 'whatsapp', 'msgapp', 'whatsapp', 'msgapp']) statuses.push((await api().post(`/user/${word}/send-freeform`, freeform)).status);
    expect(statuses).toStrictEqual([200, 200, 200, 200, 200]);
    for (const word of ['whatsapp', 'msgapp']) {
      const res = await api().post(`/user/${word}/send-freeform`, freeform);
      expectAnswer(res, 429, MSGAPP_RATE_LIMITED);
      expect(res.headers.get('retry-after')).toBe('1');
    }
  });

  it('counts template and freeform sends of both words in one bucket', async () => {
    await inbound(api());
    const template = { sender_id: 1, template_id: 2, recipient_phone: CUSTOMER };
    const freeform = { sender_id: 1, recipient_phone: CUSTOMER, message: 'Hello again.' };
    expect((await api().post('/user/whatsapp/send', template)).status).toBe(200);
    expect((await api().post('/user/msgapp/send', template)).status).toBe(200);
    expect((await api().post('/user/whatsapp/send-freeform', freeform)).status).toBe(200);
    expect((await api().post('/user/msgapp/send-freeform', freeform)).status).toBe(200);
    expect((await api().post('/user/whatsapp/send', template)).status).toBe(200);
    const before = dbState(api());
    const sixth = await api().post('/user/whatsapp/send', template);
    expectAnswer(sixth, 429, MSGAPP_RATE_LIMITED);
    expect(sixth.headers.get('retry-after')).toBe('1');
    expect(dbState(api())).toBe(before);
  });

  it('does not count a refused whatsapp send and frees both words after one second of clock time', async () => {
    await inbound(api());
    const freeform = { sender_id: 1, recipient_phone: CUSTOMER, message: 'Hi' };
    for (let i = 0; i < 4; i++) expect((await api().post('/user/whatsapp/send-freeform', freeform)).status).toBe(200);
    expect((await api().post('/user/whatsapp/send', { sender_id: 99, template_id: 2, recipient_phone: CUSTOMER })).status).toBe(404);
    expect((await api().post('/user/whatsapp/send-freeform', { ...freeform, recipient_phone: OTHER_CUSTOMER })).status).toBe(403);
    expect((await api().post('/user/msgapp/send-freeform', freeform)).status).toBe(200);
    expect((await api().post('/user/whatsapp/send-freeform', freeform)).status).toBe(429);
    await api().sim.clock.advance('1s');
    expect((await api().post('/user/msgapp/send-freeform', freeform)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
// A.1 and B: the switches that name their assistant in the body
// ---------------------------------------------------------------------------------------------

interface Switch {
  path: string;
  /** Whether the route takes (and requires) `webhook_url`. */
  url: boolean;
  text: string;
}

const SWITCHES: Switch[] = [
  { path: '/user/assistants/enable-conversation-ended-webhook', url: true, text: 'Conversation ended webhook enabled.' },
  { path: '/user/assistants/disable-conversation-ended-webhook', url: false, text: 'Conversation ended webhook disabled.' },
  { path: '/user/assistants/enable-inbound-webhook', url: true, text: 'Webhook enabled successfully' },
  { path: '/user/assistants/disable-inbound-webhook', url: false, text: 'Inbound webhook disabled successfully' },
  { path: '/user/assistants/enable-webhook', url: true, text: 'Webhook enabled successfully' },
  { path: '/user/assistants/disable-webhook', url: false, text: 'Webhook disabled successfully' },
];
const switchCases = SWITCHES.map((s) => [s.path, s] as const);
const urlSwitchCases = switchCases.filter(([, s]) => s.url);
const HOOK = 'https://hooks.example.test/switched';
const switchBody = (s: Switch, assistantId: unknown): Body => (s.url ? { assistant_id: assistantId, webhook_url: HOOK } : { assistant_id: assistantId });

contract('live A.1 and B: assistant switches with the id in the body', (api) => {
  it.each(switchCases)('POST %s answers 422 shape B on assistant_id when it is missing, and changes nothing', async (_path, s) => {
    await createAssistant(api());
    const before = dbState(api());
    const body = switchBody(s, 1);
    delete body.assistant_id;
    expectAnswer(await api().post(s.path, body), 422, ASSISTANT_REQUIRED);
    expect(dbState(api())).toBe(before);
  });

  it.each(switchCases)('POST %s answers 422 shape B on assistant_id when it is true or 1.5, and changes nothing', async (_path, s) => {
    await createAssistant(api());
    const before = dbState(api());
    for (const value of [true, 1.5]) {
      expectAnswer(await api().post(s.path, switchBody(s, value)), 422, ASSISTANT_NOT_A_REF);
    }
    expect(dbState(api())).toBe(before);
  });

  it.each(urlSwitchCases)('POST %s answers 422 shape B on webhook_url when it is missing or not a URL, and changes nothing', async (_path, s) => {
    await createAssistant(api());
    const before = dbState(api());
    expectAnswer(await api().post(s.path, { assistant_id: 1 }), 422, URL_REQUIRED);
    expectAnswer(await api().post(s.path, { assistant_id: 1, webhook_url: 'not a url' }), 422, URL_INVALID);
    expect(dbState(api())).toBe(before);
  });

  it.each(urlSwitchCases)('POST %s names both fields when both are missing', async (_path, s) => {
    expectAnswer(await api().post(s.path, {}), 422, {
      message: 'The assistant id field is required. (and 1 more error)',
      errors: { assistant_id: ['The assistant id field is required.'], webhook_url: ['The webhook url field is required.'] },
    });
  });

  it.each(urlSwitchCases)('POST %s validates the body before looking up the assistant', async (_path, s) => {
    expectAnswer(await api().post(s.path, { assistant_id: 999, webhook_url: 'not a url' }), 422, URL_INVALID);
  });

  it.each(switchCases)('POST %s accepts the integer id, the digit string and the uuid with 200 {message, data: []}', async (_path, s) => {
    const assistant = await createAssistant(api());
    for (const value of [assistant.id, String(assistant.id), assistant.uuid]) {
      expectAnswer(await api().post(s.path, switchBody(s, value)), 200, { message: s.text, data: [] });
    }
  });

  it.each(switchCases)('POST %s answers an unknown assistant with 404 {message: "Assistant not found."} and changes nothing', async (_path, s) => {
    await createAssistant(api());
    const before = dbState(api());
    for (const value of [999, '999', UNKNOWN_UUID]) {
      expectAnswer(await api().post(s.path, switchBody(s, value)), 404, ASSISTANT_NOT_FOUND);
    }
    expect(dbState(api())).toBe(before);
  });

  it.each(switchCases)("POST %s answers another account's assistant with 404 by id and uuid and changes nothing", async (_path, s) => {
    await createAssistant(api());
    otherAccount(api());
    const theirs = await createAssistant(api(), {}, OTHER_KEY);
    const before = dbState(api());
    for (const value of [theirs.id, theirs.uuid]) {
      expectAnswer(await api().post(s.path, switchBody(s, value)), 404, ASSISTANT_NOT_FOUND);
    }
    expect(dbState(api())).toBe(before);
    expectAnswer(await api().post(s.path, switchBody(s, theirs.id), { key: OTHER_KEY }), 200, { message: s.text, data: [] });
  });
});

contract(
  'live A.1: the conversation-ended webhook switches with the id in the body',
  (api) => {
    const NEW_HOOK = 'https://hooks.example.test/new-ended';
    const OLD_HOOK = 'https://hooks.example.test/old-ended';

    async function read(id: number) {
      return (await api().get(`/user/assistant/${id}`)).body.data;
    }

    it('stores the URL, shown as conversation_ended_webhook_url in GET /user/assistant/{id}', async () => {
      const assistant = await createAssistant(api());
      expect((await read(assistant.id)).conversation_ended_webhook_url).toBeNull();
      const res = await api().post('/user/assistants/enable-conversation-ended-webhook', { assistant_id: assistant.id, webhook_url: NEW_HOOK });
      expectAnswer(res, 200, { message: 'Conversation ended webhook enabled.', data: [] });
      expect((await read(assistant.id)).conversation_ended_webhook_url).toBe(NEW_HOOK);
    });

    it('replaces an existing URL, by uuid', async () => {
      const assistant = await createAssistant(api(), { conversation_ended_webhook_url: OLD_HOOK });
      await api().post('/user/assistants/enable-conversation-ended-webhook', { assistant_id: assistant.uuid, webhook_url: NEW_HOOK });
      expect((await read(assistant.id)).conversation_ended_webhook_url).toBe(NEW_HOOK);
    });

    it('clears the URL with the disable switch, shown as null', async () => {
      const assistant = await createAssistant(api(), { conversation_ended_webhook_url: OLD_HOOK });
      const res = await api().post('/user/assistants/disable-conversation-ended-webhook', { assistant_id: String(assistant.id) });
      expectAnswer(res, 200, { message: 'Conversation ended webhook disabled.', data: [] });
      expect((await read(assistant.id)).conversation_ended_webhook_url).toBeNull();
    });

    it('sets the same assistant state as the path form of the switch', async () => {
      const assistant = await createAssistant(api());
      const start = api().sim.snapshot();
      await api().post(`/assistants/${assistant.id}/enable-conversation-ended-webhook`, { webhook_url: NEW_HOOK });
      const viaPath = JSON.stringify(api().sim.snapshot().db);
      api().sim.restore(start);
      await api().post('/user/assistants/enable-conversation-ended-webhook', { assistant_id: assistant.id, webhook_url: NEW_HOOK });
      expect(JSON.stringify(api().sim.snapshot().db)).toBe(viaPath);
    });

    it('sends the webhook of a widget conversation that ended by inactivity to the URL set through the body switch', async () => {
      const assistant = await createAssistant(api(), { conversation_ended_webhook_url: OLD_HOOK, conversation_inactivity_timeout: 10 });
      await api().post('/user/assistants/enable-conversation-ended-webhook', { assistant_id: assistant.id, webhook_url: NEW_HOOK });
      const conversation = await startConversation(api(), assistant.uuid);
      expect((await api().post(`/conversations/${conversation}/messages`, { message: 'Hello?' }, { key: null })).status).toBe(200);
      await api().sim.clock.advance('9m59s');
      expect(api().sim.webhooks.deliveries({ kind: 'conversation_ended' })).toStrictEqual([]);
      await api().sim.clock.advance('1s');
      const deliveries = api().sim.webhooks.deliveries({ kind: 'conversation_ended' });
      expect(deliveries.map((d) => [d.url, d.state])).toStrictEqual([[NEW_HOOK, 'delivered']]);
      expect((deliveries[0]!.payload as { conversation_id: string }).conversation_id).toBe(conversation);
    });

    it('sends nothing after the body switch disabled the webhook', async () => {
      const assistant = await createAssistant(api(), { conversation_ended_webhook_url: OLD_HOOK, conversation_inactivity_timeout: 10 });
      await api().post('/user/assistants/disable-conversation-ended-webhook', { assistant_id: assistant.uuid });
      await startConversation(api(), assistant.uuid);
      await api().sim.clock.advance('1h');
      expect(api().sim.webhooks.deliveries()).toStrictEqual([]);
    });
  },
  quietReceiver,
);

// ---------------------------------------------------------------------------------------------
// B: assistants
// ---------------------------------------------------------------------------------------------

contract('live B: GET /user/assistants', (api) => {
  it('answers an empty bare array without assistants', async () => {
    expectAnswer(await api().get('/user/assistants'), 200, []);
  });

  it("answers a bare array equal to the data of /user/assistants/get, in id order, with only the caller's assistants", async () => {
    otherAccount(api());
    await createAssistant(api(), { name: 'First' });
    await createAssistant(api(), { name: 'Foreign' }, OTHER_KEY);
    expect((await api().post('/user/assistant', multimodalAssistant())).status).toBe(201);
    await api().sim.clock.advance('1h');
    await createAssistant(api(), { name: 'Third', variables: { agent: 'Ava' } });
    const res = await api().get('/user/assistants');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect((res.body as { id: number; name: string }[]).map((a) => [a.id, a.name])).toStrictEqual([
      [1, 'First'],
      [3, 'Support Assistant'],
      [4, 'Third'],
    ]);
    expect(res.body).toStrictEqual((await api().get('/user/assistants/get', { query: { per_page: 100 } })).body.data);
  });

  it('ignores the query: page and per_page do not page it', async () => {
    for (let i = 0; i < 3; i++) await createAssistant(api());
    const res = await api().get('/user/assistants', { query: { page: 2, per_page: 1 } });
    expect(res.status).toBe(200);
    expect((res.body as { id: number }[]).map((a) => a.id)).toStrictEqual([1, 2, 3]);
  });
});

contract('live B: inbound webhook switches', (api) => {
  const INBOUND = 'https://hooks.example.test/inbound';

  it('stores inbound_webhook_url with enable-inbound-webhook', async () => {
    const assistant = await createAssistant(api());
    expect(api().sim.db.assistants.get(assistant.id)!.inbound_webhook_url).toBeNull();
    const res = await api().post('/user/assistants/enable-inbound-webhook', { assistant_id: assistant.id, webhook_url: INBOUND });
    expectAnswer(res, 200, { message: 'Webhook enabled successfully', data: [] });
    expect(api().sim.db.assistants.get(assistant.id)!.inbound_webhook_url).toBe(INBOUND);
  });

  it('clears inbound_webhook_url with disable-inbound-webhook', async () => {
    const assistant = await createAssistant(api());
    await api().post('/user/assistants/enable-inbound-webhook', { assistant_id: assistant.uuid, webhook_url: INBOUND });
    const res = await api().post('/user/assistants/disable-inbound-webhook', { assistant_id: assistant.uuid });
    expectAnswer(res, 200, { message: 'Inbound webhook disabled successfully', data: [] });
    expect(api().sim.db.assistants.get(assistant.id)!.inbound_webhook_url).toBeNull();
  });

  it('does not show inbound_webhook_url in the read records on the spec wire', async () => {
    const assistant = await createAssistant(api());
    const before = (await api().get(`/user/assistant/${assistant.id}`)).body.data;
    await api().post('/user/assistants/enable-inbound-webhook', { assistant_id: assistant.id, webhook_url: INBOUND });
    const after = (await api().get(`/user/assistant/${assistant.id}`)).body.data;
    expect(Object.keys(after)).toStrictEqual(Object.keys(before));
    expect(after).not.toHaveProperty('inbound_webhook_url');
    expect((await api().get('/user/assistants')).body[0]).not.toHaveProperty('inbound_webhook_url');
    expect((await api().get('/user/assistants/get')).body.data[0]).not.toHaveProperty('inbound_webhook_url');
  });

  it('leaves the post-call and conversation-ended settings alone', async () => {
    const assistant = await createAssistant(api());
    const before = (await api().get(`/user/assistant/${assistant.id}`)).body.data;
    await api().post('/user/assistants/enable-inbound-webhook', { assistant_id: assistant.id, webhook_url: INBOUND });
    const after = (await api().get(`/user/assistant/${assistant.id}`)).body.data;
    expect({ ...after, updated_at: null }).toStrictEqual({ ...before, updated_at: null });
  });
});

contract(
  'live B: post-call webhook switches',
  (api) => {
    const CALLS_HOOK = 'https://hooks.example.test/calls';
    const OLD_HOOK = 'https://hooks.example.test/old-calls';

    async function outboundWithNumber(overrides: Body = {}) {
      const number = await buy(api());
      return createAssistant(api(), { phone_number_id: number.id, ...overrides });
    }

    async function callAndFinish(assistantId: number) {
      const res = await api().post('/user/make_call', { assistant_id: assistantId, phone_number: CUSTOMER });
      expect(res.status, res.text).toBe(200);
      await api().sim.clock.advance('1h');
      return res.body.call_id as number;
    }

    it('enable-webhook sets is_webhook_active true and webhook_url in the read record', async () => {
      const assistant = await outboundWithNumber();
      const res = await api().post('/user/assistants/enable-webhook', { assistant_id: assistant.id, webhook_url: CALLS_HOOK });
      expectAnswer(res, 200, { message: 'Webhook enabled successfully', data: [] });
      expect((await api().get(`/user/assistant/${assistant.id}`)).body.data).toMatchObject({ is_webhook_active: true, webhook_url: CALLS_HOOK });
    });

    it('sends the post-call webhook of a make_call to the URL set by enable-webhook once the clock has run the call', async () => {
      const assistant = await outboundWithNumber({ is_webhook_active: true, webhook_url: OLD_HOOK });
      await api().post('/user/assistants/enable-webhook', { assistant_id: assistant.uuid, webhook_url: CALLS_HOOK });
      const callId = await callAndFinish(assistant.id);
      const deliveries = api().sim.webhooks.deliveries({ kind: 'post_call' });
      expect(deliveries.map((d) => [d.url, d.state])).toStrictEqual([[CALLS_HOOK, 'delivered']]);
      expect((deliveries[0]!.payload as { id: number }).id).toBe(callId);
    });

    it('sends no post-call webhook without enable-webhook', async () => {
      const assistant = await outboundWithNumber();
      await callAndFinish(assistant.id);
      expect(api().sim.webhooks.deliveries()).toStrictEqual([]);
    });

    it('disable-webhook sets is_webhook_active false and webhook_url null in the read record', async () => {
      const assistant = await outboundWithNumber({ is_webhook_active: true, webhook_url: OLD_HOOK });
      const res = await api().post('/user/assistants/disable-webhook', { assistant_id: String(assistant.id) });
      expectAnswer(res, 200, { message: 'Webhook disabled successfully', data: [] });
      expect((await api().get(`/user/assistant/${assistant.id}`)).body.data).toMatchObject({ is_webhook_active: false, webhook_url: null });
    });

    it('sends nothing to the inbound webhook URL: an inbound call delivers only the post-call webhook', async () => {
      const number = await buy(api());
      const assistant = await createAssistant(api(), { type: 'inbound', phone_number_id: number.id, is_webhook_active: true, webhook_url: CALLS_HOOK });
      expect((await api().post('/user/assistants/enable-inbound-webhook', { assistant_id: assistant.id, webhook_url: 'https://hooks.example.test/inbound' })).status).toBe(200);
      expect((await api().post('/__sim/calls/inbound', { to: number.phone_number, from: CUSTOMER })).status).toBe(201);
      await api().sim.clock.advance('1h');
      expect(api().sim.webhooks.deliveries().map((d) => [d.kind, d.url])).toStrictEqual([['post_call', CALLS_HOOK]]);
    });

    it('disable-webhook stops the post-call deliveries', async () => {
      const assistant = await outboundWithNumber({ is_webhook_active: true, webhook_url: OLD_HOOK });
      await callAndFinish(assistant.id);
      expect(api().sim.webhooks.deliveries({ kind: 'post_call' }).map((d) => d.url)).toStrictEqual([OLD_HOOK]);
      await api().post('/user/assistants/disable-webhook', { assistant_id: assistant.id });
      await callAndFinish(assistant.id);
      expect(api().sim.webhooks.deliveries({ kind: 'post_call' }).map((d) => d.url)).toStrictEqual([OLD_HOOK]);
    });
  },
  quietReceiver,
);

// ---------------------------------------------------------------------------------------------
// B: phone numbers
// ---------------------------------------------------------------------------------------------

contract('live B: PUT /user/phone-numbers/{id} (nickname)', (api) => {
  const nickname = (id: number, value: unknown) => api().put(`/user/phone-numbers/${id}`, value === undefined ? {} : { nickname: value });
  const answer = (n: { id: number; phone_number: string }, value: string | null, country = 'US', type = 'normal') => ({
    message: 'Phone number updated successfully.',
    data: { id: n.id, phone_number: n.phone_number, nickname: value, country_code: country, type },
  });

  it('sets the nickname and answers 200 with id, phone_number, nickname, country_code and type', async () => {
    const number = await buy(api());
    expectAnswer(await nickname(number.id, 'Front desk'), 200, answer(number, 'Front desk'));
  });

  it('accepts a nickname of 50 characters', async () => {
    const number = await buy(api());
    expectAnswer(await nickname(number.id, 'n'.repeat(50)), 200, answer(number, 'n'.repeat(50)));
  });

  it('refuses a nickname of 51 characters with 422 shape B and keeps the stored one', async () => {
    const number = await buy(api());
    await nickname(number.id, 'Front desk');
    const before = dbState(api());
    expectAnswer(await nickname(number.id, 'n'.repeat(51)), 422, {
      message: 'The nickname may not be greater than 50 characters.',
      errors: { nickname: ['The nickname may not be greater than 50 characters.'] },
    });
    expect(dbState(api())).toBe(before);
    expectAnswer(await nickname(number.id, undefined), 200, answer(number, 'Front desk'));
  });

  it('refuses a nickname that is not a string with 422 shape B', async () => {
    const number = await buy(api());
    const before = dbState(api());
    expectAnswer(await nickname(number.id, 5), 422, { message: 'The nickname must be a string.', errors: { nickname: ['The nickname must be a string.'] } });
    expect(dbState(api())).toBe(before);
  });

  it('clears the nickname with an empty string and with null', async () => {
    const number = await buy(api());
    for (const clear of ['', null]) {
      await nickname(number.id, 'Front desk');
      expectAnswer(await nickname(number.id, clear), 200, answer(number, null));
      expectAnswer(await nickname(number.id, undefined), 200, answer(number, null));
    }
  });

  it('keeps the nickname when the field is omitted', async () => {
    const number = await buy(api());
    await nickname(number.id, 'Front desk');
    expectAnswer(await nickname(number.id, undefined), 200, answer(number, 'Front desk'));
  });

  it('answers a nickname of null on a number that never had one', async () => {
    const number = await buy(api());
    expectAnswer(await nickname(number.id, undefined), 200, answer(number, null));
  });

  it('renames a released normal number before its period ends, and answers 404 shape C once it is gone', async () => {
    const number = await buy(api());
    expect((await api().del(`/user/phone-numbers/${number.id}`)).status).toBe(200);
    await api().sim.clock.advanceTo('2026-04-02T08:59:59Z');
    expectAnswer(await nickname(number.id, 'Old line'), 200, answer(number, 'Old line'));
    await api().sim.clock.advance('1s');
    expectAnswer(await nickname(number.id, 'Gone'), 404, { error: 'Phone number not found.' });
  });

  it('renames a SIP and a caller-ID number', async () => {
    const sip = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550123' });
    const callerId = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'caller_id', phone_number: '+442071838750' });
    expectAnswer(await nickname(sip.body.id, 'Trunk'), 200, answer(sip.body, 'Trunk', 'US', 'sip'));
    expectAnswer(await nickname(callerId.body.id, 'London'), 200, answer(callerId.body, 'London', 'GB', 'caller_id'));
  });

  it('does not show the nickname in /user/phone-numbers/all on the spec wire', async () => {
    const number = await buy(api());
    const before = (await api().get('/user/phone-numbers/all')).body;
    await nickname(number.id, 'Front desk');
    const after = (await api().get('/user/phone-numbers/all')).body;
    expect(after).toStrictEqual(before);
    expect(Object.keys(after.data[0])).toStrictEqual(PHONE_NUMBER_KEYS);
  });
});

contract('live B: GET /user/phone-numbers (legacy list)', (api) => {
  it('answers {data: []} without numbers', async () => {
    expectAnswer(await api().get('/user/phone-numbers'), 200, { data: [] });
  });

  it('lists only SMS-capable numbers with an active subscription, as /user/phone-numbers/all shows them', async () => {
    const first = await buy(api());
    await buy(api(), { country: 'GB' });
    await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550123' });
    const offers = await search(api());
    const released = await api().post('/user/phone-numbers/purchase', { phone_number: offers[0]!.phone_number });
    expect(released.status).toBe(201);
    expect((await api().del(`/user/phone-numbers/${released.body.data.id}`)).status).toBe(200);
    const last = await buy(api());
    const all = (await api().get('/user/phone-numbers/all')).body.data as { id: number; sms_capable: boolean; has_active_subscription: boolean }[];
    expect(all.map((n) => [n.id, n.sms_capable, n.has_active_subscription])).toStrictEqual([
      [1, true, true],
      [2, false, true],
      [3, false, false],
      [4, true, false],
      [5, true, true],
    ]);
    const res = await api().get('/user/phone-numbers');
    expectAnswer(res, 200, { data: [all[0], all[4]] });
    expect([first.id, last.id]).toStrictEqual([1, 5]);
  });

  it("lists only the caller's numbers", async () => {
    otherAccount(api());
    await buy(api(), { key: OTHER_KEY });
    const mine = await buy(api());
    expect(((await api().get('/user/phone-numbers')).body.data as { id: number }[]).map((n) => n.id)).toStrictEqual([mine.id]);
  });
});

// ---------------------------------------------------------------------------------------------
// A.2: the conversation list, cursor form and filters
// ---------------------------------------------------------------------------------------------

const decode = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
const BASE64URL = /^[A-Za-z0-9_-]+$/;

contract('live A.2: GET /user/conversations, cursor form', (api) => {
  /** `n` widget conversations of one assistant, oldest first; their uuids. */
  async function conversations(n: number): Promise<string[]> {
    const assistant = await createAssistant(api());
    const uuids: string[] = [];
    for (let i = 0; i < n; i++) uuids.push(await startConversation(api(), assistant.uuid));
    return uuids;
  }

  async function list(query: Record<string, string | number>) {
    const res = await api().get('/user/conversations', { query });
    expect(res.status, res.text).toBe(200);
    return res.body as { data: { id: string }[]; path: string; per_page: number; next_cursor: string | null; prev_cursor: string | null };
  }
  const ids = (page: { data: { id: string }[] }) => page.data.map((c) => c.id);

  it('answers exactly data, path, per_page, next_cursor and prev_cursor, in this order, to an empty cursor', async () => {
    await conversations(2);
    const res = await api().get('/user/conversations', { query: { cursor: '' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toStrictEqual(CURSOR_KEYS);
    expect(res.body).toMatchObject({ per_page: 15, next_cursor: null, prev_cursor: null });
  });

  it('answers an empty data list with both cursors null when there are no conversations', async () => {
    const page = await list({ cursor: '' });
    expect({ ...page, path: null }).toStrictEqual({ data: [], path: null, per_page: 15, next_cursor: null, prev_cursor: null });
  });

  it('lists the same items, ascending, as the page form', async () => {
    const uuids = await conversations(5);
    const cursorForm = await list({ cursor: '', per_page: 100 });
    const pageForm = (await api().get('/user/conversations', { query: { per_page: 100 } })).body;
    expect(ids(cursorForm)).toStrictEqual(uuids);
    expect(cursorForm.data).toStrictEqual(pageForm.data);
  });

  it('walks 20 conversations forward with per_page 7 in pages of 7, 7 and 6, then next_cursor is null', async () => {
    const uuids = await conversations(20);
    const first = await list({ cursor: '', per_page: 7 });
    const second = await list({ cursor: first.next_cursor!, per_page: 7 });
    const third = await list({ cursor: second.next_cursor!, per_page: 7 });
    expect([ids(first), ids(second), ids(third)]).toStrictEqual([uuids.slice(0, 7), uuids.slice(7, 14), uuids.slice(14, 20)]);
    expect([first.per_page, second.per_page, third.per_page]).toStrictEqual([7, 7, 7]);
    expect(third.next_cursor).toBeNull();
  });

  it('encodes each cursor as base64url without padding of {"id":N,"_pointsToNextItems":true|false}', async () => {
    await conversations(20);
    const first = await list({ cursor: '', per_page: 7 });
    const second = await list({ cursor: first.next_cursor!, per_page: 7 });
    for (const cursor of [first.next_cursor!, second.next_cursor!, second.prev_cursor!]) expect(cursor).toMatch(BASE64URL);
    expect(Buffer.from(first.next_cursor!, 'base64url').toString('utf8')).toBe('{"id":7,"_pointsToNextItems":true}');
    expect(decode(second.next_cursor!)).toStrictEqual({ id: 14, _pointsToNextItems: true });
    expect(Buffer.from(second.prev_cursor!, 'base64url').toString('utf8')).toBe('{"id":8,"_pointsToNextItems":false}');
  });

  it("answers the specification's example next_cursor for the first 15 of 20 conversations at the default per_page", async () => {
    await conversations(20);
    const page = await list({ cursor: '' });
    expect(page.data).toHaveLength(15);
    expect(page.next_cursor).toBe('eyJpZCI6MTUsIl9wb2ludHNUb05leHRJdGVtcyI6dHJ1ZX0');
    expect(page.prev_cursor).toBeNull();
  });

  it('answers prev_cursor null on the first page and the backward cursor of the first item on later pages', async () => {
    await conversations(20);
    const first = await list({ cursor: '', per_page: 7 });
    const second = await list({ cursor: first.next_cursor!, per_page: 7 });
    const third = await list({ cursor: second.next_cursor!, per_page: 7 });
    expect(first.prev_cursor).toBeNull();
    expect(decode(second.prev_cursor!)).toStrictEqual({ id: 8, _pointsToNextItems: false });
    expect(decode(third.prev_cursor!)).toStrictEqual({ id: 15, _pointsToNextItems: false });
  });

  it('goes back with prev_cursor to the previous items, still in ascending order', async () => {
    const uuids = await conversations(20);
    const first = await list({ cursor: '', per_page: 7 });
    const second = await list({ cursor: first.next_cursor!, per_page: 7 });
    const third = await list({ cursor: second.next_cursor!, per_page: 7 });
    const back = await list({ cursor: third.prev_cursor!, per_page: 7 });
    expect(ids(back)).toStrictEqual(uuids.slice(7, 14));
    expect(back.data).toStrictEqual(second.data);
    expect(decode(back.next_cursor!)).toStrictEqual({ id: 14, _pointsToNextItems: true });
    expect(decode(back.prev_cursor!)).toStrictEqual({ id: 8, _pointsToNextItems: false });
  });

  it('comes back to the first page with prev_cursor null and the forward cursor of its last item', async () => {
    const uuids = await conversations(20);
    const first = await list({ cursor: '', per_page: 7 });
    const second = await list({ cursor: first.next_cursor!, per_page: 7 });
    const back = await list({ cursor: second.prev_cursor!, per_page: 7 });
    expect(ids(back)).toStrictEqual(uuids.slice(0, 7));
    expect(back.prev_cursor).toBeNull();
    expect(back.next_cursor).toBe(first.next_cursor);
  });

  it('answers a page that reaches the last item with next_cursor null', async () => {
    await conversations(14);
    const first = await list({ cursor: '', per_page: 7 });
    const second = await list({ cursor: first.next_cursor!, per_page: 7 });
    expect(second.data).toHaveLength(7);
    expect(second.next_cursor).toBeNull();
    expect(decode(second.prev_cursor!)).toStrictEqual({ id: 8, _pointsToNextItems: false });
  });

  it('answers an empty page with both cursors null past the last item', async () => {
    await conversations(3);
    const cursor = Buffer.from('{"id":3,"_pointsToNextItems":true}').toString('base64url');
    const page = await list({ cursor, per_page: 7 });
    expect([page.data, page.next_cursor, page.prev_cursor]).toStrictEqual([[], null, null]);
  });

  it('treats an undecodable cursor as no cursor: the first page with prev_cursor null', async () => {
    const uuids = await conversations(4);
    const undecodable = [
      '!!!',
      'not-a-cursor',
      Buffer.from('{"id":"2","_pointsToNextItems":true}').toString('base64url'),
      Buffer.from('{"id":2}').toString('base64url'),
      Buffer.from('null').toString('base64url'),
      Buffer.from('[2,true]').toString('base64url'),
    ];
    for (const cursor of undecodable) {
      const page = await list({ cursor, per_page: 2 });
      expect([ids(page), page.prev_cursor], cursor).toStrictEqual([uuids.slice(0, 2), null]);
      expect(decode(page.next_cursor!)).toStrictEqual({ id: 2, _pointsToNextItems: true });
    }
  });

  it('ignores page in the cursor form, even page=2, page=0 and page=abc', async () => {
    const uuids = await conversations(4);
    for (const page of [2, 0, 'abc']) {
      const res = await api().get('/user/conversations', { query: { cursor: '', per_page: 2, page } });
      expect(res.status, `page=${page}`).toBe(200);
      expect(Object.keys(res.body)).toStrictEqual(CURSOR_KEYS);
      expect(ids(res.body)).toStrictEqual(uuids.slice(0, 2));
    }
  });

  it('accepts per_page 1 and 100 in the cursor form', async () => {
    const uuids = await conversations(3);
    const one = await list({ cursor: '', per_page: 1 });
    expect([ids(one), one.per_page]).toStrictEqual([uuids.slice(0, 1), 1]);
    const hundred = await list({ cursor: '', per_page: 100 });
    expect([ids(hundred), hundred.per_page, hundred.next_cursor]).toStrictEqual([uuids, 100, null]);
  });

  it('rejects per_page 0 and 101 in the cursor form with 422 shape B on per_page', async () => {
    for (const perPage of [0, 101]) {
      expectAnswer(await api().get('/user/conversations', { query: { cursor: '', per_page: perPage } }), 422, {
        message: 'The per page must be between 1 and 100.',
        errors: { per_page: ['The per page must be between 1 and 100.'] },
      });
    }
  });

  it('answers path as the request URL without its query', async () => {
    await conversations(1);
    const { res, url } = await getWithUrl(api(), '/user/conversations', { cursor: '', per_page: 5, type: 'widget' });
    expect(res.status).toBe(200);
    expect(url).toContain('?');
    expect(res.body.path).toBe(url.slice(0, url.indexOf('?')));
    if (api().transport === 'msw') expect(res.body.path).toBe(`${MSW_BASE}/user/conversations`);
    else expect(res.body.path).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/user\/conversations$/);
  });

  it('answers the page form, unchanged, without a cursor parameter', async () => {
    const uuids = await conversations(5);
    const res = await api().get('/user/conversations', { query: { per_page: 2, page: 2 } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toStrictEqual(PAGE_KEYS);
    expect(res.body).toMatchObject({ current_page: 2, per_page: 2, total: 5, last_page: 3 });
    expect(ids(res.body)).toStrictEqual(uuids.slice(2, 4));
    expect(Object.keys((await api().get('/user/conversations')).body)).toStrictEqual(PAGE_KEYS);
  });

  it('still filters by type, assistant_id and the dates in the cursor form, and pages the filtered list', async () => {
    const a = await createAssistant(api(), { name: 'A' });
    const b = await createAssistant(api(), { name: 'B' });
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) {
      mine.push(await startConversation(api(), a.uuid));
      await startConversation(api(), b.uuid);
    }
    await api().sim.clock.advance('1d');
    const later = await startConversation(api(), a.uuid, { type: 'test' });
    const first = await list({ cursor: '', per_page: 2, assistant_id: a.id, type: 'widget' });
    expect(ids(first)).toStrictEqual(mine.slice(0, 2));
    const second = await list({ cursor: first.next_cursor!, per_page: 2, assistant_id: a.id, type: 'widget' });
    expect([ids(second), second.next_cursor]).toStrictEqual([mine.slice(2), null]);
    expect(ids(await list({ cursor: '', date_from: '2026-03-03', date_to: '2026-03-03' }))).toStrictEqual([later]);
  });
});

contract('live A.2: conversation list filters on both forms', (api) => {
  /**
   * A: msgapp, sender 1, CUSTOMER; B: msgapp, sender 2, OTHER_CUSTOMER; C: msgapp,
   * sender 1, OTHER_CUSTOMER; D, E: AI reply generation for crm-42 and crm-43; F: widget.
   */
  async function setup(): Promise<Record<'A' | 'B' | 'C' | 'D' | 'E' | 'F', string>> {
    const assistant = await createAssistant(api());
    await inbound(api(), { from: CUSTOMER });
    await inbound(api(), { sender_id: 2, from: OTHER_CUSTOMER });
    await inbound(api(), { from: OTHER_CUSTOMER });
    for (const who of ['crm-42', 'crm-43']) {
      expect((await api().post('/user/ai/generate-reply', { assistant_id: assistant.id, customer_identifier: who, message: 'Hi' })).status).toBe(200);
    }
    await startConversation(api(), assistant.uuid);
    const all = (await api().get('/user/conversations')).body.data as { id: string; type: string }[];
    expect(all.map((c) => c.type)).toStrictEqual(['msgapp', 'msgapp', 'msgapp', 'api', 'api', 'widget']);
    const [A, B, C, D, E, F] = all.map((c) => c.id) as [string, string, string, string, string, string];
    return { A, B, C, D, E, F };
  }

  /** The ids both forms list for `query`; the two forms must agree. */
  async function filtered(query: Record<string, string>): Promise<string[]> {
    const pageForm = await api().get('/user/conversations', { query });
    const cursorForm = await api().get('/user/conversations', { query: { ...query, cursor: '' } });
    expect([pageForm.status, cursorForm.status], JSON.stringify(query)).toStrictEqual([200, 200]);
    expect(cursorForm.body.data).toStrictEqual(pageForm.body.data);
    expect(pageForm.body.total).toBe(pageForm.body.data.length);
    return (pageForm.body.data as { id: string }[]).map((c) => c.id);
  }

  it('filters by customer_phone, exactly, on both forms', async () => {
    const c = await setup();
    expect(await filtered({ customer_phone: CUSTOMER })).toStrictEqual([c.A]);
    expect(await filtered({ customer_phone: OTHER_CUSTOMER })).toStrictEqual([c.B, c.C]);
    expect(await filtered({ customer_phone: '+1415555012' })).toStrictEqual([]);
  });

  it('filters by external_identifier, exactly, on both forms', async () => {
    const c = await setup();
    expect(await filtered({ external_identifier: 'crm-42' })).toStrictEqual([c.D]);
    expect(await filtered({ external_identifier: 'crm-43' })).toStrictEqual([c.E]);
    expect(await filtered({ external_identifier: 'CRM-42' })).toStrictEqual([]);
    expect(await filtered({ external_identifier: 'crm-4' })).toStrictEqual([]);
  });

  it("filters by whatsapp_sender_phone, the sender's number, on both forms", async () => {
    const c = await setup();
    expect(await filtered({ whatsapp_sender_phone: ONLINE_SENDER_PHONE })).toStrictEqual([c.A, c.C]);
    expect(await filtered({ whatsapp_sender_phone: OFFLINE_SENDER_PHONE })).toStrictEqual([c.B]);
    expect(await filtered({ whatsapp_sender_phone: CUSTOMER })).toStrictEqual([]);
  });

  it('accepts msgapp_sender_phone as the same filter', async () => {
    const c = await setup();
    expect(await filtered({ msgapp_sender_phone: ONLINE_SENDER_PHONE })).toStrictEqual([c.A, c.C]);
    expect(await filtered({ msgapp_sender_phone: OFFLINE_SENDER_PHONE })).toStrictEqual([c.B]);
  });

  it('combines the new filters with each other and with type', async () => {
    const c = await setup();
    expect(await filtered({ customer_phone: OTHER_CUSTOMER, whatsapp_sender_phone: ONLINE_SENDER_PHONE })).toStrictEqual([c.C]);
    expect(await filtered({ external_identifier: 'crm-42', type: 'api' })).toStrictEqual([c.D]);
    expect(await filtered({ external_identifier: 'crm-42', type: 'msgapp' })).toStrictEqual([]);
    expect(await filtered({})).toStrictEqual([c.A, c.B, c.C, c.D, c.E, c.F]);
  });

  it("does not show another account's conversations through the new filters", async () => {
    await setup();
    otherAccount(api());
    expect((await api().get('/user/conversations', { key: OTHER_KEY, query: { customer_phone: CUSTOMER } })).body.data).toStrictEqual([]);
    expect((await api().get('/user/conversations', { key: OTHER_KEY, query: { external_identifier: 'crm-42', cursor: '' } })).body.data).toStrictEqual([]);
    expect((await api().get('/user/conversations', { key: OTHER_KEY, query: { whatsapp_sender_phone: ONLINE_SENDER_PHONE } })).body.data).toStrictEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// B.1: AI reply generation
// ---------------------------------------------------------------------------------------------

const REPLY_PATHS = ['/user/ai/generate-reply', '/ai/generate-reply'] as const;

contract('live B.1: AI reply generation', (api) => {
  const generate = (body: Body, path: string = REPLY_PATHS[0], key?: string) => api().post(path, body, key === undefined ? {} : { key });

  async function conversationOf(uuid: string) {
    const res = await api().get(`/conversations/${uuid}`);
    expect(res.status).toBe(200);
    return res.body as { history: { role: string; content: string }[]; variables: Body };
  }

  it.each(REPLY_PATHS)('POST %s answers 200 {success, conversation_id, customer_identifier, reply, function_calls, ai_disabled}', async (path) => {
    const assistant = await createAssistant(api());
    const res = await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Hello?' }, path);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toStrictEqual(['success', 'conversation_id', 'customer_identifier', 'reply', 'function_calls', 'ai_disabled']);
    expect(res.body).toStrictEqual({ success: true, conversation_id: res.body.conversation_id, customer_identifier: 'crm-42', reply: DEFAULT_REPLY, function_calls: [], ai_disabled: false });
    expect(res.body.conversation_id).toMatch(UUID);
  });

  it.each(REPLY_PATHS)('POST %s opens an api conversation whose history starts with the greeting', async (path) => {
    const assistant = await createAssistant(api());
    const res = await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Hello?' }, path);
    expect((await conversationOf(res.body.conversation_id)).history).toStrictEqual([
      { role: 'assistant', content: GREETING },
      { role: 'user', content: 'Hello?' },
      { role: 'assistant', content: DEFAULT_REPLY },
    ]);
    const listed = (await api().get('/user/conversations')).body.data;
    expect(listed).toStrictEqual([
      {
        id: res.body.conversation_id,
        assistant_id: assistant.uuid,
        assistant_name: 'Sales Assistant',
        type: 'api',
        message_count: 3,
        total_cost: 0,
        ai_enabled: true,
        created_at: '2026-03-02 09:00:00',
        updated_at: '2026-03-02 09:00:00',
      },
    ]);
  });

  it('reuses the conversation of the same assistant and customer_identifier on both paths, and appends to it', async () => {
    const assistant = await createAssistant(api());
    const first = await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'One' }, REPLY_PATHS[0]);
    await api().sim.clock.advance('1m');
    const second = await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Two' }, REPLY_PATHS[1]);
    expect(second.body.conversation_id).toBe(first.body.conversation_id);
    expect((await conversationOf(first.body.conversation_id)).history.map((m) => m.content)).toStrictEqual([GREETING, 'One', DEFAULT_REPLY, 'Two', DEFAULT_REPLY]);
    expect((await api().get('/user/conversations')).body.data).toMatchObject([{ message_count: 5, updated_at: '2026-03-02 09:01:00' }]);
  });

  it('names the assistant by integer, digit string or uuid as the same pair', async () => {
    const assistant = await createAssistant(api());
    const answers = [];
    for (const ref of [assistant.id, String(assistant.id), assistant.uuid]) {
      const res = await generate({ assistant_id: ref, customer_identifier: 'crm-42', message: 'Hi' });
      expect(res.status, res.text).toBe(200);
      answers.push(res.body.conversation_id);
    }
    expect(new Set(answers).size).toBe(1);
  });

  it('opens another conversation for another customer_identifier, compared exactly, and for another assistant', async () => {
    const assistant = await createAssistant(api());
    const other = await createAssistant(api(), { name: 'Other' });
    const ids = [];
    for (const [a, who] of [
      [assistant.id, 'crm-42'],
      [assistant.id, 'CRM-42'],
      [assistant.id, 'crm-42 '],
      [other.id, 'crm-42'],
    ] as const) {
      ids.push((await generate({ assistant_id: a, customer_identifier: who, message: 'Hi' })).body.conversation_id);
    }
    expect(new Set(ids).size).toBe(4);
    expect((await api().get('/user/conversations', { query: { external_identifier: 'crm-42' } })).body.data.map((c: { id: string }) => c.id)).toStrictEqual([ids[0], ids[3]]);
  });

  it('uses the start variables in the greeting and merges later variables into them', async () => {
    const assistant = await createAssistant(api(), { initial_message: 'Hi {{name}}, how can I help?' });
    const first = await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'One', variables: { name: 'Ann', plan: 'basic' } });
    expect((await conversationOf(first.body.conversation_id)).history[0]).toStrictEqual({ role: 'assistant', content: 'Hi Ann, how can I help?' });
    expect((await conversationOf(first.body.conversation_id)).variables).toStrictEqual({ name: 'Ann', plan: 'basic' });
    await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Two', variables: { plan: 'pro', city: 'Austin' } });
    await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Three' });
    expect((await conversationOf(first.body.conversation_id)).variables).toStrictEqual({ name: 'Ann', plan: 'pro', city: 'Austin' });
  });

  it('answers the scripted reply and its function calls', async () => {
    const assistant = await createAssistant(api());
    const calls = [{ name: 'book_demo', arguments: { day: 'friday' }, result: { booked: true } }];
    const rules = [
      { when: 'hours', reply: 'We are open 9 to 5.' },
      { assistant_id: assistant.id, when: 'demo', reply: 'Booked.', function_calls: calls },
    ];
    expect((await api().put('/__sim/replies', { rules }, { key: null })).status).toBe(200);
    const hours = await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'What are your hours?' });
    expect([hours.body.reply, hours.body.function_calls]).toStrictEqual(['We are open 9 to 5.', []]);
    const demo = await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Book a demo' }, REPLY_PATHS[1]);
    expect(demo.body).toStrictEqual({ success: true, conversation_id: hours.body.conversation_id, customer_identifier: 'crm-42', reply: 'Booked.', function_calls: calls, ai_disabled: false });
  });

  it('stores the message and answers reply "" with ai_disabled true while AI is off', async () => {
    const assistant = await createAssistant(api());
    const first = await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'One' });
    const uuid = first.body.conversation_id;
    expectAnswer(await api().post(`/automate/conversations/${uuid}/disable-ai`), 200, { status: true, ai_enabled: false });
    const res = await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Anyone there?' }, REPLY_PATHS[1]);
    expectAnswer(res, 200, { success: true, conversation_id: uuid, customer_identifier: 'crm-42', reply: '', function_calls: [], ai_disabled: true });
    expect((await conversationOf(uuid)).history).toStrictEqual([
      { role: 'assistant', content: GREETING },
      { role: 'user', content: 'One' },
      { role: 'assistant', content: DEFAULT_REPLY },
      { role: 'user', content: 'Anyone there?' },
    ]);
    await api().post(`/automate/conversations/${uuid}/enable-ai`);
    expect((await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Back?' })).body).toMatchObject({ reply: DEFAULT_REPLY, ai_disabled: false });
  });

  it('charges nothing: the balance and the total cost stay unchanged', async () => {
    const assistant = await createAssistant(api());
    for (let i = 0; i < 3; i++) expect((await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: `M${i}` })).status).toBe(200);
    expect((await api().get('/user/me')).body.total_balance).toBe(100);
    expect((await api().get('/user/conversations')).body.data[0].total_cost).toBe(0);
  });

  it('accepts a message of 2000 characters and a customer_identifier of 255', async () => {
    const assistant = await createAssistant(api());
    const res = await generate({ assistant_id: assistant.id, customer_identifier: 'c'.repeat(255), message: 'm'.repeat(2000) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.customer_identifier).toBe('c'.repeat(255));
  });

  it('rejects a message of 2001 characters with 422 shape B and changes nothing', async () => {
    const assistant = await createAssistant(api());
    const before = dbState(api());
    expectAnswer(await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'm'.repeat(2001) }), 422, {
      message: 'The message may not be greater than 2000 characters.',
      errors: { message: ['The message may not be greater than 2000 characters.'] },
    });
    expect(dbState(api())).toBe(before);
  });

  it('rejects a customer_identifier of 256 characters with 422 shape B and changes nothing', async () => {
    const assistant = await createAssistant(api());
    const before = dbState(api());
    expectAnswer(await generate({ assistant_id: assistant.id, customer_identifier: 'c'.repeat(256), message: 'Hi' }), 422, {
      message: 'The customer identifier may not be greater than 255 characters.',
      errors: { customer_identifier: ['The customer identifier may not be greater than 255 characters.'] },
    });
    expect(dbState(api())).toBe(before);
  });

  it.each(REPLY_PATHS)('POST %s rejects missing fields with 422 shape B naming each', async (path) => {
    const before = dbState(api());
    expectAnswer(await generate({}, path), 422, {
      message: 'The assistant id field is required. (and 2 more errors)',
      errors: {
        assistant_id: ['The assistant id field is required.'],
        customer_identifier: ['The customer identifier field is required.'],
        message: ['The message field is required.'],
      },
    });
    expect(dbState(api())).toBe(before);
  });

  it('rejects an empty message and an empty customer_identifier as missing', async () => {
    const assistant = await createAssistant(api());
    expectAnswer(await generate({ assistant_id: assistant.id, customer_identifier: '', message: '' }), 422, {
      message: 'The customer identifier field is required. (and 1 more error)',
      errors: { customer_identifier: ['The customer identifier field is required.'], message: ['The message field is required.'] },
    });
  });

  it('rejects variables that are not an object with 422 shape B', async () => {
    const assistant = await createAssistant(api());
    expectAnswer(await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Hi', variables: 'x' }), 422, {
      message: 'The variables must be an object.',
      errors: { variables: ['The variables must be an object.'] },
    });
  });

  it('rejects a customer_identifier and a message that are not strings with 422 shape B', async () => {
    const assistant = await createAssistant(api());
    expectAnswer(await generate({ assistant_id: assistant.id, customer_identifier: 42, message: 43 }), 422, {
      message: 'The customer identifier must be a string. (and 1 more error)',
      errors: { customer_identifier: ['The customer identifier must be a string.'], message: ['The message must be a string.'] },
    });
  });

  it('rejects an assistant_id that is true or 1.5 with 422 shape B, as the switches do', async () => {
    await createAssistant(api());
    for (const ref of [true, 1.5]) {
      expectAnswer(await generate({ assistant_id: ref, customer_identifier: 'crm-42', message: 'Hi' }), 422, ASSISTANT_NOT_A_REF);
    }
  });

  it('validates before looking up the assistant', async () => {
    expect((await generate({ assistant_id: 999, customer_identifier: 'crm-42', message: 'm'.repeat(2001) })).status).toBe(422);
  });

  it.each(REPLY_PATHS)('POST %s answers an unknown assistant with 404 shape D ASSISTANT_NOT_FOUND and changes nothing', async (path) => {
    await createAssistant(api());
    const before = dbState(api());
    for (const ref of [999, '999', UNKNOWN_UUID]) {
      expectAnswer(await generate({ assistant_id: ref, customer_identifier: 'crm-42', message: 'Hi' }, path), 404, REPLY_ASSISTANT_NOT_FOUND);
    }
    expect(dbState(api())).toBe(before);
  });

  it("answers another account's assistant with 404 shape D ASSISTANT_NOT_FOUND and changes nothing", async () => {
    otherAccount(api());
    const theirs = await createAssistant(api(), {}, OTHER_KEY);
    const before = dbState(api());
    for (const ref of [theirs.id, theirs.uuid]) {
      expectAnswer(await generate({ assistant_id: ref, customer_identifier: 'crm-42', message: 'Hi' }), 404, REPLY_ASSISTANT_NOT_FOUND);
    }
    expect(dbState(api())).toBe(before);
    expect((await generate({ assistant_id: theirs.id, customer_identifier: 'crm-42', message: 'Hi' }, REPLY_PATHS[0], OTHER_KEY)).status).toBe(200);
  });

  it.each(REPLY_PATHS)('POST %s answers a zero balance with 402 shape D INSUFFICIENT_BALANCE and changes nothing', async (path) => {
    const assistant = await createAssistant(api());
    api().sim.control.accounts.patch(1, { balance: 0 });
    const before = dbState(api());
    expectAnswer(await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Hi' }, path), 402, REPLY_NO_BALANCE);
    expect(dbState(api())).toBe(before);
  });

  it('answers 402 on an existing conversation too, and the conversation gets no message', async () => {
    const assistant = await createAssistant(api());
    const first = await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'One' });
    api().sim.control.accounts.patch(1, { balance: 0 });
    expectAnswer(await generate({ assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Two' }), 402, REPLY_NO_BALANCE);
    expect((await conversationOf(first.body.conversation_id)).history).toHaveLength(3);
  });

  it('checks the assistant before the balance', async () => {
    api().sim.control.accounts.patch(1, { balance: 0 });
    expectAnswer(await generate({ assistant_id: 999, customer_identifier: 'crm-42', message: 'Hi' }), 404, REPLY_ASSISTANT_NOT_FOUND);
  });
});

contract('live B.1: the AI reply rate limit', (api) => {
  let assistant: { id: number; uuid: string };
  const ok = (i: number, path: string = REPLY_PATHS[0], key?: string) =>
    api().post(path, { assistant_id: assistant.id, customer_identifier: `crm-${i}`, message: 'Hi' }, key === undefined ? {} : { key });

  async function fiveAccepted(stepSeconds = 0) {
    for (let i = 0; i < 5; i++) {
      if (i > 0 && stepSeconds > 0) await api().sim.clock.advance(`${stepSeconds}s`);
      const res = await ok(i, REPLY_PATHS[i % 2]);
      expect(res.status, res.text).toBe(200);
    }
  }

  function expectTooMany(res: ApiResponse, seconds: number) {
    expectAnswer(res, 429, TOO_MANY(seconds));
    expect(res.headers.get('retry-after')).toBe(String(seconds));
  }

  const setup = async () => {
    assistant = await createAssistant(api());
  };

  it('accepts five requests within 60 s and refuses the sixth with 429 {message, retry_after} and Retry-After 60', async () => {
    await setup();
    await fiveAccepted();
    expectTooMany(await ok(6), 60);
  });

  it('computes retry_after from the clock: the seconds until the oldest counted request leaves the window', async () => {
    await setup();
    await fiveAccepted(10);
    // accepted at 0, 10, 20, 30, 40 s; now 40 s
    await api().sim.clock.advance('5s');
    expectTooMany(await ok(6), 15);
    await api().sim.clock.advance('14s');
    expectTooMany(await ok(6), 1);
  });

  it('answers retry_after at least 1 when the oldest request leaves the window in under a second', async () => {
    await setup();
    await fiveAccepted();
    await api().sim.clock.advance(59_500);
    expectTooMany(await ok(6), 1);
  });

  it('accepts a request again once the clock has passed the window, and the window slides', async () => {
    await setup();
    await fiveAccepted(10);
    // accepted at 0, 10, 20, 30, 40 s; now 40 s
    await api().sim.clock.advance('21s');
    expect((await ok(6)).status).toBe(200);
    // counted: 10, 20, 30, 40, 61 s; the next one may pass at 70 s
    expectTooMany(await ok(7), 9);
    await api().sim.clock.advance('9s');
    expect((await ok(7)).status).toBe(200);
  });

  it('shares one bucket between /user/ai/generate-reply and /ai/generate-reply', async () => {
    await setup();
    for (let i = 0; i < 3; i++) expect((await ok(i, REPLY_PATHS[0])).status).toBe(200);
    for (let i = 3; i < 5; i++) expect((await ok(i, REPLY_PATHS[1])).status).toBe(200);
    expectTooMany(await ok(6, REPLY_PATHS[0]), 60);
    expectTooMany(await ok(6, REPLY_PATHS[1]), 60);
  });

  it('does not count refusals: 422, 404, 402 and 429 answers leave room for five accepted requests', async () => {
    await setup();
    expect((await api().post(REPLY_PATHS[0], {})).status).toBe(422);
    expect((await api().post(REPLY_PATHS[1], { assistant_id: 999, customer_identifier: 'x', message: 'Hi' })).status).toBe(404);
    api().sim.control.accounts.patch(1, { balance: 0 });
    expect((await ok(0)).status).toBe(402);
    api().sim.control.accounts.patch(1, { balance: 100 });
    await api().sim.clock.advance('30s');
    await fiveAccepted();
    for (let i = 0; i < 3; i++) expect((await ok(9)).status).toBe(429);
    await api().sim.clock.advance('59s');
    expectTooMany(await ok(9), 1);
    await api().sim.clock.advance('1s');
    expect((await ok(9)).status).toBe(200);
  });

  it('checks the limit before validation: a sixth request with an invalid body, an unknown assistant or no balance gets 429', async () => {
    await setup();
    await fiveAccepted();
    expectTooMany(await api().post(REPLY_PATHS[0], {}), 60);
    expectTooMany(await api().post(REPLY_PATHS[1], { assistant_id: true, customer_identifier: 'c'.repeat(256), message: 'm'.repeat(2001) }), 60);
    expectTooMany(await api().post(REPLY_PATHS[0], { assistant_id: 999, customer_identifier: 'x', message: 'Hi' }), 60);
    api().sim.control.accounts.patch(1, { balance: 0 });
    expectTooMany(await ok(6), 60);
  });

  it('changes nothing with a 429', async () => {
    await setup();
    await fiveAccepted();
    const before = dbState(api());
    expectTooMany(await ok(0), 60);
    expectTooMany(await ok(6, REPLY_PATHS[1]), 60);
    expect(dbState(api())).toBe(before);
  });

  it('gives another account its own bucket', async () => {
    await setup();
    otherAccount(api());
    const theirs = await createAssistant(api(), {}, OTHER_KEY);
    await fiveAccepted();
    const other = await api().post(REPLY_PATHS[0], { assistant_id: theirs.id, customer_identifier: 'crm-1', message: 'Hi' }, { key: OTHER_KEY });
    expect(other.status, other.text).toBe(200);
    expectTooMany(await ok(6), 60);
  });

  it('is not shared with the messaging sends', async () => {
    await setup();
    await fiveAccepted();
    expect((await api().post('/user/msgapp/send', { sender_id: 1, template_id: 2, recipient_phone: CUSTOMER })).status).toBe(200);
  });
});
