/**
 * The messaging-application channel: senders, templates, session status, the 24-hour
 * window on the clock, both sends, their rate limit, customer messages through the
 * control API and the msgapp conversation-ended webhook (spec: Messaging-application
 * channel; Other shapes: session_status; States > Messaging session; Errors: Send
 * template / Send freeform; Limits: Request rate, freeform message, recipient_name,
 * Session window; decisions: Messaging senders, Messaging templates, Session status,
 * Rate limit failures, Messaging prices, Session status while closed, Fixtures for every
 * account, Messaging rate limit, Rate limit window, Template variables, Validation
 * outside the Errors table, Ids that point elsewhere; ARCHITECTURE §4 Messaging
 * sessions, §6 /__sim/msgapp).
 */
import { beforeEach, expect, it } from 'vitest';
import { DEFAULT_REPLY } from '../../src/engine/replies.js';
import { MSGAPP_MESSAGES } from '../../src/domain/msgapp/service.js';
import type { DeliverRequest } from '../../src/engine/webhooks.js';
import { contract, type Api, type ApiResponse } from '../support/api.js';
import { createAssistant } from '../support/records.js';

const CUSTOMER = '+14155550123';
const OTHER_CUSTOMER = '+14155550124';
const SECOND_KEY = 'sim_second_key';
const HOOK_URL = 'https://hooks.example.test/conversation-ended';

/** The fixture senders of the default account (fixtures/msgapp.json). */
const ONLINE_SENDER = {
  id: 1,
  phone_number: '+14155550150',
  display_name: 'Voxsim Test Account Support',
  status: 'online',
  quality_rating: 'high',
  messaging_limit: 1000,
  messaging_limit_formatted: '1K',
};
const OFFLINE_SENDER = {
  id: 2,
  phone_number: '+14155550151',
  display_name: 'Voxsim Test Account Sales',
  status: 'offline',
  quality_rating: 'medium',
  messaging_limit: 250,
  messaging_limit_formatted: '250',
};

/** The fixture templates of the online sender (fixtures/msgapp.json). */
const REMINDER_BODY = 'Hi {{customer_name}}, this is a reminder of your appointment on {{appointment_time}}. Reply to this message to reschedule.';
const TEMPLATES = [
  { id: 1, name: 'appointment_reminder', language: 'en_US', category: 'UTILITY', status: 'approved', body_text: REMINDER_BODY, variables: ['customer_name', 'appointment_time'], has_variables: true },
  { id: 2, name: 'welcome_message', language: 'en_US', category: 'MARKETING', status: 'approved', body_text: 'Welcome! Thanks for getting in touch. How can we help you today?', variables: [], has_variables: false },
  { id: 3, name: 'order_update', language: 'en_US', category: 'UTILITY', status: 'pending', body_text: 'Your order {{order_number}} has shipped.', variables: ['order_number'], has_variables: true },
  { id: 4, name: 'spring_promotion', language: 'en_US', category: 'MARKETING', status: 'rejected', body_text: 'Spring sale: 50% off everything this weekend only!', variables: [], has_variables: false },
];
const REMINDER_VARIABLES = { customer_name: 'Ann', appointment_time: 'Monday 10:00' };
const REMINDER_TEXT = 'Hi Ann, this is a reminder of your appointment on Monday 10:00. Reply to this message to reschedule.';
const VARIABLES_ERROR = MSGAPP_MESSAGES.variables(['customer_name', 'appointment_time']);

const OPEN_FULL_DAY = {
  is_open: true,
  can_send_freeform: true,
  requires_template: false,
  message: 'The session is open for 24 h 0 min: freeform messages can be sent.',
  minutes_remaining: 1440,
};
const NEVER_OPENED = {
  is_open: false,
  can_send_freeform: false,
  requires_template: true,
  message: 'There is no open session with this recipient. Send a template message to start the conversation.',
  minutes_remaining: 0,
  expires_at: null,
};
/** The SESSION_EXPIRED body: exactly four keys in session_status (decisions: Session status while closed). */
const SESSION_EXPIRED = {
  success: false,
  error: 'The 24-hour session window has expired. Send a template message to re-open the conversation.',
  error_code: 'SESSION_EXPIRED',
  session_status: { is_open: false, can_send_freeform: false, requires_template: true, message: 'The 24-hour session window has expired. Send a template message to re-open the conversation.' },
};
const RATE_LIMITED = { success: false, error: 'Too many requests.', error_code: 'RATE_LIMITED' };
const MESSAGE_SID = /^SM[0-9a-f]{32}$/;

/** Every webhook body the simulator delivered, parsed (cleared before each test). */
const captured: any[] = [];
beforeEach(() => {
  captured.length = 0;
});
const captureDeliveries = {
  deliver: async (req: DeliverRequest) => {
    captured.push(JSON.parse(req.body));
    return { status: 200, body: '', duration_ms: 0 };
  },
};

function sendTemplate(api: Api, overrides: Record<string, unknown> = {}, key?: string) {
  return api.post('/user/msgapp/send', { sender_id: 1, template_id: 2, recipient_phone: CUSTOMER, ...overrides }, key === undefined ? {} : { key });
}

function sendFreeform(api: Api, overrides: Record<string, unknown> = {}, key?: string) {
  return api.post('/user/msgapp/send-freeform', { sender_id: 1, recipient_phone: CUSTOMER, message: 'Your table is ready.', ...overrides }, key === undefined ? {} : { key });
}

function inbound(api: Api, overrides: Record<string, unknown> = {}) {
  return api.post('/__sim/msgapp/inbound', { sender_id: 1, from: CUSTOMER, text: 'Hi', name: 'Ann', ...overrides });
}

function sessionStatus(api: Api, senderId: number | string = 1, phone: string = CUSTOMER, key?: string) {
  return api.get('/user/msgapp/session-status', { query: { sender_id: senderId, recipient_phone: phone }, ...(key === undefined ? {} : { key }) });
}

async function balance(api: Api, key?: string): Promise<number> {
  return (await api.get('/user/me', key === undefined ? {} : { key })).body.total_balance as number;
}

async function setBalance(api: Api, usd: number): Promise<void> {
  expect((await api.patch('/__sim/accounts/1', { balance: usd })).status).toBe(200);
}

/** Account 2 (key sim_second_key): senders 3 (online) and 4, templates 5-8. */
async function secondAccount(api: Api): Promise<void> {
  expect((await api.post('/__sim/accounts', { name: 'Second Co', api_key: SECOND_KEY })).status).toBe(201);
}

async function msgappConversations(api: Api): Promise<any[]> {
  const res = await api.get('/user/conversations', { query: { type: 'msgapp' } });
  expect(res.status).toBe(200);
  return res.body.data;
}

async function history(api: Api, uuid: string): Promise<unknown[]> {
  return (await api.get(`/conversations/${uuid}`)).body.history;
}

function expectD(res: ApiResponse, status: number, errorCode: string, error?: string) {
  expect(res.status).toBe(status);
  expect(res.body).toStrictEqual({ success: false, error: error ?? expect.any(String), error_code: errorCode });
}

function expectOk(res: ApiResponse) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

contract('msgapp: senders', (api) => {
  it('lists only the online sender by default', async () => {
    const res = await api().get('/user/msgapp/senders');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [ONLINE_SENDER] });
  });

  it('lists the online and the offline sender with status=all', async () => {
    const res = await api().get('/user/msgapp/senders', { query: { status: 'all' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [ONLINE_SENDER, OFFLINE_SENDER] });
  });

  it('accepts status=online explicitly', async () => {
    const res = await api().get('/user/msgapp/senders', { query: { status: 'online' } });
    expect(res.body).toStrictEqual({ data: [ONLINE_SENDER] });
  });

  it('rejects an unknown status with 422 shape B on status', async () => {
    const res = await api().get('/user/msgapp/senders', { query: { status: 'offline' } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: 'The selected status is invalid.', errors: { status: ['The selected status is invalid.'] } });
  });

  it('lists a sender set online through the control API by default', async () => {
    await api().patch('/__sim/msgapp/senders/2', { online: true });
    const res = await api().get('/user/msgapp/senders');
    expect(res.body.data).toStrictEqual([ONLINE_SENDER, { ...OFFLINE_SENDER, status: 'online' }]);
  });

  it('shows another account only its own senders', async () => {
    await secondAccount(api());
    const res = await api().get('/user/msgapp/senders', { query: { status: 'all' }, key: SECOND_KEY });
    expect(res.body).toStrictEqual({
      data: [
        { ...ONLINE_SENDER, id: 3, display_name: 'Second Co Support' },
        { ...OFFLINE_SENDER, id: 4, display_name: 'Second Co Sales' },
      ],
    });
  });
});

contract('msgapp: templates', (api) => {
  it('lists only the approved templates by default', async () => {
    const res = await api().get('/user/msgapp/senders/1/templates');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [TEMPLATES[0], TEMPLATES[1]] });
  });

  it('lists all four templates with status=all', async () => {
    const res = await api().get('/user/msgapp/senders/1/templates', { query: { status: 'all' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: TEMPLATES });
  });

  it('lists no templates for the offline sender', async () => {
    const res = await api().get('/user/msgapp/senders/2/templates', { query: { status: 'all' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [] });
  });

  it('gives another account its own templates under its own ids', async () => {
    await secondAccount(api());
    const res = await api().get('/user/msgapp/senders/3/templates', { query: { status: 'all' }, key: SECOND_KEY });
    expect(res.body).toStrictEqual({ data: TEMPLATES.map((t) => ({ ...t, id: t.id + 4 })) });
  });

  it('answers 404 SENDER_NOT_FOUND for a missing sender', async () => {
    expectD(await api().get('/user/msgapp/senders/99/templates'), 404, 'SENDER_NOT_FOUND', 'Sender not found or does not belong to you.');
  });

  it('rejects an unknown status with 422 VALIDATION_ERROR', async () => {
    const res = await api().get('/user/msgapp/senders/1/templates', { query: { status: 'pending' } });
    expectD(res, 422, 'VALIDATION_ERROR', 'The selected status is invalid.');
  });
});

contract('msgapp: session status', (api) => {
  it('reports no conversation and a closed window before any contact', async () => {
    const res = await sessionStatus(api());
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ success: true, has_conversation: false, session_status: NEVER_OPENED });
  });

  it('reports the conversation and an open window after a customer message', async () => {
    await inbound(api());
    const res = await sessionStatus(api());
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      success: true,
      has_conversation: true,
      conversation_id: 1,
      customer_name: 'Ann',
      last_customer_message_at: '2026-03-02T09:00:00Z',
      session_status: { ...OPEN_FULL_DAY, expires_at: '2026-03-03T09:00:00Z' },
    });
  });

  it('reports the conversation after a template send, with no customer message yet', async () => {
    expectOk(await sendTemplate(api(), { recipient_name: 'Bob' }));
    const res = await sessionStatus(api());
    expect(res.body).toStrictEqual({
      success: true,
      has_conversation: true,
      conversation_id: 1,
      customer_name: 'Bob',
      last_customer_message_at: null,
      session_status: { ...OPEN_FULL_DAY, expires_at: '2026-03-03T09:00:00Z' },
    });
  });

  it('keeps windows apart per recipient', async () => {
    await inbound(api());
    const res = await sessionStatus(api(), 1, OTHER_CUSTOMER);
    expect(res.body).toStrictEqual({ success: true, has_conversation: false, session_status: NEVER_OPENED });
  });

  it('reports the expired window with its past expiry once 24 hours passed', async () => {
    await inbound(api());
    await api().sim.clock.advance('24h');
    const res = await sessionStatus(api());
    expect(res.body.has_conversation).toBe(true);
    expect(res.body.session_status).toStrictEqual({
      is_open: false,
      can_send_freeform: false,
      requires_template: true,
      message: 'The 24-hour session window has expired. Send a template message to re-open the conversation.',
      minutes_remaining: 0,
      expires_at: '2026-03-03T09:00:00Z',
    });
  });

  it('answers 422 INVALID_PHONE for a recipient that is not a phone number', async () => {
    expectD(await sessionStatus(api(), 1, 'not-a-phone'), 422, 'INVALID_PHONE', 'The recipient phone must be a valid phone number in international format, for example +14155550123.');
  });

  it('answers 404 SENDER_NOT_FOUND for a sender of another account', async () => {
    await secondAccount(api());
    expectD(await sessionStatus(api(), 3), 404, 'SENDER_NOT_FOUND', 'Sender not found or does not belong to you.');
  });

  it('answers 422 VALIDATION_ERROR without a sender_id', async () => {
    const res = await api().get('/user/msgapp/session-status', { query: { recipient_phone: CUSTOMER } });
    expectD(res, 422, 'VALIDATION_ERROR', 'The sender id field is required.');
  });
});

contract('msgapp: the 24-hour window on the clock', (api) => {
  it('answers the inbound control call with 201, the conversation and the opened window', async () => {
    const res = await inbound(api());
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({ conversation_id: 1, session_status: { ...OPEN_FULL_DAY, expires_at: '2026-03-03T09:00:00Z' } });
  });

  it('keeps the window open at 23:59:59 with minutes_remaining rounded down to 0', async () => {
    await inbound(api());
    await api().sim.clock.advance('23h59m59s');
    const res = await sendFreeform(api());
    expectOk(res);
    expect(res.body.session_status).toStrictEqual({
      is_open: true,
      can_send_freeform: true,
      requires_template: false,
      message: 'The session is open for 0 h 0 min: freeform messages can be sent.',
      minutes_remaining: 0,
      expires_at: '2026-03-03T09:00:00Z',
    });
  });

  it('closes the window at exactly 24:00:00', async () => {
    await inbound(api());
    await api().sim.clock.advance('24h');
    const res = await sendFreeform(api());
    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual(SESSION_EXPIRED);
  });

  it('counts minutes_remaining down, rounding partial minutes down', async () => {
    await inbound(api());
    const seen: number[] = [];
    for (const step of ['30s', '30s', '1ms', '10h59m59s', '12h', '59m58s']) {
      await api().sim.clock.advance(step);
      seen.push((await sessionStatus(api())).body.session_status.minutes_remaining);
    }
    // at +30s, +1m, +1m0.001s, +11h1m0s, +23h1m0s, +23h59m58s
    expect(seen).toStrictEqual([1439, 1439, 1438, 779, 59, 0]);
  });

  it('moves the expiry to hour 44 when the customer writes again at hour 20', async () => {
    await inbound(api());
    await api().sim.clock.advance('20h');
    const res = await inbound(api(), { text: 'Still there?' });
    expect(res.status).toBe(201);
    expect(res.body.session_status).toStrictEqual({ ...OPEN_FULL_DAY, expires_at: '2026-03-04T05:00:00Z' });
  });

  it('reports the reset window through session status, with the new last customer message time', async () => {
    await inbound(api());
    await api().sim.clock.advance('20h');
    await inbound(api(), { text: 'Still there?' });
    await api().sim.clock.advance('10h');
    const res = await sessionStatus(api());
    expect(res.body.last_customer_message_at).toBe('2026-03-03T05:00:00Z');
    expect(res.body.session_status).toStrictEqual({
      is_open: true,
      can_send_freeform: true,
      requires_template: false,
      message: 'The session is open for 14 h 0 min: freeform messages can be sent.',
      minutes_remaining: 840,
      expires_at: '2026-03-04T05:00:00Z',
    });
  });

  it('keeps the reset window open past the first expiry and closes it at hour 44', async () => {
    await inbound(api());
    await api().sim.clock.advance('20h');
    await inbound(api(), { text: 'Still there?' });
    await api().sim.clock.advance('23h59m59s');
    expectOk(await sendFreeform(api()));
    await api().sim.clock.advance('1s');
    expect((await sendFreeform(api())).status).toBe(403);
  });

  it('re-opens a closed window with a template send', async () => {
    await inbound(api());
    await api().sim.clock.advance('25h');
    expectOk(await sendTemplate(api()));
    const res = await sessionStatus(api());
    expect(res.body.session_status).toStrictEqual({ ...OPEN_FULL_DAY, expires_at: '2026-03-04T10:00:00Z' });
    expectOk(await sendFreeform(api()));
  });

  it('does not extend the window with freeform sends', async () => {
    await inbound(api());
    await api().sim.clock.advance('10h');
    const sent = await sendFreeform(api());
    expect(sent.body.session_status.expires_at).toBe('2026-03-03T09:00:00Z');
    expect(sent.body.session_status.minutes_remaining).toBe(840);
    await api().sim.clock.advance('14h');
    expect((await sendFreeform(api())).status).toBe(403);
  });

  it('keeps the last customer message time when a template is sent', async () => {
    await inbound(api());
    await api().sim.clock.advance('2h');
    await sendTemplate(api());
    const res = await sessionStatus(api());
    expect(res.body.last_customer_message_at).toBe('2026-03-02T09:00:00Z');
    expect(res.body.session_status.expires_at).toBe('2026-03-03T11:00:00Z');
  });
});

contract('msgapp: send template', (api) => {
  it('answers 200 with the conversation, the message ids, a message sid and status queued', async () => {
    const res = await sendTemplate(api());
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      success: true,
      conversation_id: 1,
      message_id: 1,
      whatsapp_message_id: 1,
      message_sid: expect.stringMatching(MESSAGE_SID),
      status: 'queued',
    });
  });

  it('reuses the conversation of the same recipient and gives each message new ids', async () => {
    const first = await sendTemplate(api());
    const second = await sendTemplate(api());
    expect(second.body.conversation_id).toBe(first.body.conversation_id);
    expect(second.body.message_id).toBe(first.body.message_id + 1);
    expect(second.body.whatsapp_message_id).toBe(first.body.whatsapp_message_id + 1);
    expect(second.body.message_sid).not.toBe(first.body.message_sid);
  });

  it('opens a msgapp conversation per recipient', async () => {
    await sendTemplate(api());
    const other = await sendTemplate(api(), { recipient_phone: OTHER_CUSTOMER });
    expect(other.body.conversation_id).toBe(2);
    const list = await msgappConversations(api());
    expect(list.map((c) => [c.type, c.message_count, c.total_cost])).toStrictEqual([
      ['msgapp', 1, 0.05],
      ['msgapp', 1, 0.05],
    ]);
  });

  it('fills the template variables given by name', async () => {
    expectOk(await sendTemplate(api(), { template_id: 1, variables: REMINDER_VARIABLES }));
    const [conversation] = await msgappConversations(api());
    expect(await history(api(), conversation.id)).toStrictEqual([{ role: 'assistant', content: REMINDER_TEXT }]);
  });

  it('fills the template variables given by the positional keys "1" and "2"', async () => {
    expectOk(await sendTemplate(api(), { template_id: 1, variables: { 1: 'Ann', 2: 'Monday 10:00' } }));
    const [conversation] = await msgappConversations(api());
    expect(await history(api(), conversation.id)).toStrictEqual([{ role: 'assistant', content: REMINDER_TEXT }]);
  });

  it('rejects a missing variable with 422 VALIDATION_ERROR', async () => {
    const res = await sendTemplate(api(), { template_id: 1, variables: { customer_name: 'Ann' } });
    expectD(res, 422, 'VALIDATION_ERROR', VARIABLES_ERROR);
  });

  it('rejects a template with variables sent without any with 422 VALIDATION_ERROR', async () => {
    expectD(await sendTemplate(api(), { template_id: 1 }), 422, 'VALIDATION_ERROR', VARIABLES_ERROR);
  });

  it('rejects an extra variable with 422 VALIDATION_ERROR', async () => {
    const res = await sendTemplate(api(), { template_id: 1, variables: { ...REMINDER_VARIABLES, coupon: 'SPRING' } });
    expectD(res, 422, 'VALIDATION_ERROR', VARIABLES_ERROR);
  });

  it('rejects a non-string variable value with 422 VALIDATION_ERROR', async () => {
    const res = await sendTemplate(api(), { template_id: 1, variables: { customer_name: 'Ann', appointment_time: 10 } });
    expectD(res, 422, 'VALIDATION_ERROR', VARIABLES_ERROR);
  });

  it('rejects names and positions mixed with 422 VALIDATION_ERROR', async () => {
    const res = await sendTemplate(api(), { template_id: 1, variables: { customer_name: 'Ann', 2: 'Monday 10:00' } });
    expectD(res, 422, 'VALIDATION_ERROR', VARIABLES_ERROR);
  });

  it('rejects variables for a template that has none with 422 VALIDATION_ERROR', async () => {
    const res = await sendTemplate(api(), { template_id: 2, variables: { customer_name: 'Ann' } });
    expectD(res, 422, 'VALIDATION_ERROR', 'This template takes no variables.');
  });

  it('accepts an empty variables object for a template without variables', async () => {
    expectOk(await sendTemplate(api(), { template_id: 2, variables: {} }));
  });

  it('refuses the pending template with 422 TEMPLATE_NOT_APPROVED', async () => {
    const res = await sendTemplate(api(), { template_id: 3, variables: { order_number: 'A-1' } });
    expectD(res, 422, 'TEMPLATE_NOT_APPROVED', 'The template is not approved and cannot be sent.');
  });

  it('refuses the rejected template with 422 TEMPLATE_NOT_APPROVED', async () => {
    expectD(await sendTemplate(api(), { template_id: 4 }), 422, 'TEMPLATE_NOT_APPROVED', 'The template is not approved and cannot be sent.');
  });

  it('answers 404 TEMPLATE_NOT_FOUND for a template of another sender of the account', async () => {
    await api().patch('/__sim/msgapp/senders/2', { online: true });
    expectD(await sendTemplate(api(), { sender_id: 2, template_id: 2 }), 404, 'TEMPLATE_NOT_FOUND', 'Template not found for this sender.');
  });

  it('answers 404 TEMPLATE_NOT_FOUND for a template of another account', async () => {
    await secondAccount(api());
    expectD(await sendTemplate(api(), { template_id: 6 }), 404, 'TEMPLATE_NOT_FOUND', 'Template not found for this sender.');
  });

  it('answers 404 TEMPLATE_NOT_FOUND for a missing template', async () => {
    expectD(await sendTemplate(api(), { template_id: 99 }), 404, 'TEMPLATE_NOT_FOUND', 'Template not found for this sender.');
  });

  it('answers 404 SENDER_NOT_FOUND for a sender of another account', async () => {
    await secondAccount(api());
    expectD(await sendTemplate(api(), { sender_id: 3, template_id: 6 }), 404, 'SENDER_NOT_FOUND', 'Sender not found or does not belong to you.');
  });

  it('answers 404 SENDER_NOT_FOUND for a missing sender', async () => {
    expectD(await sendTemplate(api(), { sender_id: 99 }), 404, 'SENDER_NOT_FOUND', 'Sender not found or does not belong to you.');
  });

  it('answers 422 SENDER_OFFLINE for the offline sender', async () => {
    expectD(await sendTemplate(api(), { sender_id: 2 }), 422, 'SENDER_OFFLINE', 'The sender is offline and cannot send messages.');
  });

  it('answers 422 INVALID_PHONE for a recipient that is not a phone number', async () => {
    expectD(await sendTemplate(api(), { recipient_phone: '12345' }), 422, 'INVALID_PHONE', 'The recipient phone must be a valid phone number in international format, for example +14155550123.');
  });

  it('accepts a recipient_name of 255 characters and stores it as the customer name', async () => {
    const name = 'n'.repeat(255);
    expectOk(await sendTemplate(api(), { recipient_name: name }));
    expect((await sessionStatus(api())).body.customer_name).toBe(name);
  });

  it('rejects a recipient_name of 256 characters with 422 VALIDATION_ERROR', async () => {
    const res = await sendTemplate(api(), { recipient_name: 'n'.repeat(256) });
    expectD(res, 422, 'VALIDATION_ERROR', 'The recipient name may not be greater than 255 characters.');
  });

  it('rejects a missing template_id with 422 VALIDATION_ERROR', async () => {
    const res = await api().post('/user/msgapp/send', { sender_id: 1, recipient_phone: CUSTOMER });
    expectD(res, 422, 'VALIDATION_ERROR', 'The template id field is required.');
  });

  it('charges exactly 0.05 USD for a template message', async () => {
    expectOk(await sendTemplate(api()));
    expect(await balance(api())).toBe(99.95);
  });

  it('sends with a balance of exactly 0.05 USD, leaving 0', async () => {
    await setBalance(api(), 0.05);
    expectOk(await sendTemplate(api()));
    expect(await balance(api())).toBe(0);
  });

  it('refuses with 402 INSUFFICIENT_BALANCE at 0.049999 USD and charges nothing', async () => {
    await setBalance(api(), 0.049999);
    expectD(await sendTemplate(api()), 402, 'INSUFFICIENT_BALANCE', 'Insufficient balance to send this message. Please top up your account.');
    expect(await balance(api())).toBe(0.049999);
  });

  it('opens no window and creates no conversation when the send is refused', async () => {
    await setBalance(api(), 0.049999);
    await sendTemplate(api());
    expect((await sessionStatus(api())).body).toStrictEqual({ success: true, has_conversation: false, session_status: NEVER_OPENED });
    expect(await msgappConversations(api())).toStrictEqual([]);
  });
});

contract('msgapp: send freeform', (api) => {
  it('refuses with 403 SESSION_EXPIRED when no window was ever opened', async () => {
    const res = await sendFreeform(api());
    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual(SESSION_EXPIRED);
    expect(Object.keys(res.body.session_status).sort()).toStrictEqual(['can_send_freeform', 'is_open', 'message', 'requires_template']);
  });

  it('answers 200 inside an open window with the ids and the six-key session status', async () => {
    await inbound(api());
    const res = await sendFreeform(api());
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      success: true,
      conversation_id: 1,
      message_id: 2,
      whatsapp_message_id: 2,
      message_sid: expect.stringMatching(MESSAGE_SID),
      session_status: { ...OPEN_FULL_DAY, expires_at: '2026-03-03T09:00:00Z' },
    });
  });

  it('adds the message to the conversation after the customer message', async () => {
    await inbound(api());
    await sendFreeform(api());
    const [conversation] = await msgappConversations(api());
    expect(await history(api(), conversation.id)).toStrictEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Your table is ready.' },
    ]);
  });

  it('answers 503 SENDER_OFFLINE when the sender went offline', async () => {
    await inbound(api());
    const patched = await api().patch('/__sim/msgapp/senders/1', { online: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toStrictEqual({ ...ONLINE_SENDER, status: 'offline', assistant_id: null, read_receipts_webhook_url: null, read_receipts_signing_secret: null });
    expectD(await sendFreeform(api()), 503, 'SENDER_OFFLINE', 'The sender is offline and cannot send messages.');
  });

  it('sends again once the sender is back online', async () => {
    await inbound(api());
    await api().patch('/__sim/msgapp/senders/1', { online: false });
    await api().patch('/__sim/msgapp/senders/1', { online: true });
    expectOk(await sendFreeform(api()));
  });

  it('answers 404 SENDER_NOT_FOUND for a sender of another account', async () => {
    await secondAccount(api());
    expectD(await sendFreeform(api(), { sender_id: 3 }), 404, 'SENDER_NOT_FOUND', 'Sender not found or does not belong to you.');
  });

  it('answers 422 INVALID_PHONE for a recipient that is not a phone number', async () => {
    expectD(await sendFreeform(api(), { recipient_phone: 'call me' }), 422, 'INVALID_PHONE', 'The recipient phone must be a valid phone number in international format, for example +14155550123.');
  });

  it('accepts a message of 4096 characters', async () => {
    await inbound(api());
    expectOk(await sendFreeform(api(), { message: 'm'.repeat(4096) }));
  });

  it('rejects a message of 4097 characters with 422 VALIDATION_ERROR', async () => {
    await inbound(api());
    const res = await sendFreeform(api(), { message: 'm'.repeat(4097) });
    expectD(res, 422, 'VALIDATION_ERROR', 'The message may not be greater than 4096 characters.');
  });

  it('charges exactly 0.01 USD for a freeform message', async () => {
    await inbound(api());
    expectOk(await sendFreeform(api()));
    expect(await balance(api())).toBe(99.99);
  });

  it('sends with a balance of exactly 0.01 USD, leaving 0', async () => {
    await inbound(api());
    await setBalance(api(), 0.01);
    expectOk(await sendFreeform(api()));
    expect(await balance(api())).toBe(0);
  });

  it('refuses with 402 INSUFFICIENT_BALANCE at 0.009999 USD and charges nothing', async () => {
    await inbound(api());
    await setBalance(api(), 0.009999);
    expectD(await sendFreeform(api()), 402, 'INSUFFICIENT_BALANCE', 'Insufficient balance to send this message. Please top up your account.');
    expect(await balance(api())).toBe(0.009999);
  });

  it('charges nothing for a send refused on a closed window', async () => {
    await sendFreeform(api());
    expect(await balance(api())).toBe(100);
  });
});

contract('msgapp: rate limit', (api) => {
  /** Opens the window of CUSTOMER so freeform sends are accepted. */
  async function openWindow() {
    expect((await inbound(api())).status).toBe(201);
  }

  it('accepts five sends in one virtual second', async () => {
    await openWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await sendFreeform(api())).status);
    expect(statuses).toStrictEqual([200, 200, 200, 200, 200]);
  });

  it('refuses the sixth send in the same second with 429 RATE_LIMITED and Retry-After 1', async () => {
    await openWindow();
    for (let i = 0; i < 5; i++) expectOk(await sendFreeform(api()));
    const res = await sendFreeform(api());
    expect(res.status).toBe(429);
    expect(res.body).toStrictEqual(RATE_LIMITED);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('charges nothing for a rate-limited send', async () => {
    await openWindow();
    for (let i = 0; i < 5; i++) await sendFreeform(api());
    await sendFreeform(api());
    expect(await balance(api())).toBe(99.95);
  });

  it('accepts sends again after one second of clock time', async () => {
    await openWindow();
    for (let i = 0; i < 5; i++) await sendFreeform(api());
    await api().sim.clock.advance('1s');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await sendFreeform(api())).status);
    expect(statuses).toStrictEqual([200, 200, 200, 200, 200]);
    expect((await sendFreeform(api())).status).toBe(429);
  });

  it('shares one bucket between template and freeform sends', async () => {
    for (let i = 0; i < 3; i++) expectOk(await sendTemplate(api()));
    for (let i = 0; i < 2; i++) expectOk(await sendFreeform(api()));
    const template = await sendTemplate(api());
    const freeform = await sendFreeform(api());
    expect([template.status, template.body]).toStrictEqual([429, RATE_LIMITED]);
    expect([freeform.status, freeform.body]).toStrictEqual([429, RATE_LIMITED]);
  });

  it('does not count refused requests', async () => {
    await openWindow();
    for (let i = 0; i < 4; i++) expectOk(await sendFreeform(api()));
    expect((await sendFreeform(api(), { recipient_phone: OTHER_CUSTOMER })).status).toBe(403);
    expect((await sendFreeform(api(), { recipient_phone: 'bad' })).status).toBe(422);
    expect((await sendTemplate(api(), { template_id: 4 })).status).toBe(422);
    expect((await sendTemplate(api(), { sender_id: 99 })).status).toBe(404);
    expect((await sendFreeform(api(), { message: 'm'.repeat(4097) })).status).toBe(422);
    expectOk(await sendFreeform(api()));
    expect((await sendFreeform(api())).status).toBe(429);
  });

  it('does not count a rate-limited request', async () => {
    await openWindow();
    for (let i = 0; i < 5; i++) await sendFreeform(api());
    for (let i = 0; i < 3; i++) expect((await sendFreeform(api())).status).toBe(429);
    await api().sim.clock.advance('1s');
    for (let i = 0; i < 5; i++) expectOk(await sendFreeform(api()));
  });

  it('gives another account its own bucket', async () => {
    await secondAccount(api());
    for (let i = 0; i < 5; i++) expectOk(await sendTemplate(api()));
    expect((await sendTemplate(api())).status).toBe(429);
    const other = await sendTemplate(api(), { sender_id: 3, template_id: 6 }, SECOND_KEY);
    expectOk(other);
    expect(other.body.success).toBe(true);
  });

  it('slides: the sixth send is refused 999 ms after the first and accepted at 1000 ms', async () => {
    await openWindow();
    for (let i = 0; i < 5; i++) {
      if (i > 0) await api().sim.clock.advance('200ms');
      expectOk(await sendFreeform(api()));
    }
    // sends at t, t+200, t+400, t+600, t+800; now t+800
    await api().sim.clock.advance('199ms');
    const refused = await sendFreeform(api());
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    await api().sim.clock.advance('1ms');
    expectOk(await sendFreeform(api()));
  });

  it('slides: after the sixth at t+1000, the next is allowed only at t+1200', async () => {
    await openWindow();
    for (let i = 0; i < 5; i++) {
      if (i > 0) await api().sim.clock.advance('200ms');
      expectOk(await sendFreeform(api()));
    }
    await api().sim.clock.advance('200ms');
    expectOk(await sendFreeform(api()));
    expect((await sendFreeform(api())).status).toBe(429);
    await api().sim.clock.advance('199ms');
    expect((await sendFreeform(api())).status).toBe(429);
    await api().sim.clock.advance('1ms');
    expectOk(await sendFreeform(api()));
  });
});

contract('msgapp: customer messages and the assistant', (api) => {
  async function attachAssistant() {
    const assistant = await createAssistant(api());
    const patched = await api().patch('/__sim/msgapp/senders/1', { assistant_id: assistant.id });
    expect(patched.status).toBe(200);
    return assistant;
  }

  it('answers the sender patch with the sender and its assistant', async () => {
    await createAssistant(api());
    const res = await api().patch('/__sim/msgapp/senders/1', { assistant_id: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ...ONLINE_SENDER, assistant_id: 1, read_receipts_webhook_url: null, read_receipts_signing_secret: null });
  });

  it('answers a customer message with the scripted reply when the sender has an assistant', async () => {
    const assistant = await attachAssistant();
    await api().put('/__sim/replies', { rules: [{ when: 'price', reply: 'Our price is 10 USD.' }] });
    expect((await inbound(api(), { text: 'What is the price?' })).status).toBe(201);
    const [conversation, ...rest] = await msgappConversations(api());
    expect(rest).toStrictEqual([]);
    expect(conversation).toMatchObject({ type: 'msgapp', assistant_id: assistant.uuid, assistant_name: 'Sales Assistant', message_count: 2, total_cost: 0, ai_enabled: true });
    expect(await history(api(), conversation.id)).toStrictEqual([
      { role: 'user', content: 'What is the price?' },
      { role: 'assistant', content: 'Our price is 10 USD.' },
    ]);
  });

  it('answers with the default reply when no rule matches', async () => {
    await attachAssistant();
    await inbound(api(), { text: 'Hello there' });
    const [conversation] = await msgappConversations(api());
    expect(await history(api(), conversation.id)).toStrictEqual([
      { role: 'user', content: 'Hello there' },
      { role: 'assistant', content: DEFAULT_REPLY },
    ]);
  });

  it('stores a customer message with no reply when the sender has no assistant', async () => {
    await api().put('/__sim/replies', { rules: [{ when: 'price', reply: 'Our price is 10 USD.' }] });
    await inbound(api(), { text: 'What is the price?' });
    const [conversation] = await msgappConversations(api());
    expect(conversation).toMatchObject({ type: 'msgapp', assistant_id: null, message_count: 1 });
    expect(await history(api(), conversation.id)).toStrictEqual([{ role: 'user', content: 'What is the price?' }]);
  });

  it('stores a customer message with no reply while AI is off', async () => {
    await attachAssistant();
    await inbound(api(), { text: 'First' });
    const [conversation] = await msgappConversations(api());
    expect((await api().post(`/automate/conversations/${conversation.id}/disable-ai`)).status).toBe(200);
    await inbound(api(), { text: 'Second' });
    expect(await history(api(), conversation.id)).toStrictEqual([
      { role: 'user', content: 'First' },
      { role: 'assistant', content: DEFAULT_REPLY },
      { role: 'user', content: 'Second' },
    ]);
  });

  it('answers a later customer message in the same conversation', async () => {
    await attachAssistant();
    const first = await inbound(api(), { text: 'One' });
    const second = await inbound(api(), { text: 'Two' });
    expect(second.body.conversation_id).toBe(first.body.conversation_id);
    const [conversation] = await msgappConversations(api());
    expect(conversation.message_count).toBe(4);
  });

  it('rejects an unknown sender with 422 on sender_id', async () => {
    const res = await inbound(api(), { sender_id: 99 });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: 'The selected sender id is invalid.', errors: { sender_id: ['The selected sender id is invalid.'] } });
  });

  it('rejects a from that is not a phone number with 422 on from', async () => {
    const res = await inbound(api(), { from: 'someone' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toStrictEqual({ from: ['The from must be a valid phone number in E.164 format.'] });
  });

  it('rejects a customer message without text with 422 on text', async () => {
    const res = await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: CUSTOMER });
    expect(res.status).toBe(422);
    expect(res.body.errors).toStrictEqual({ text: ['The text field is required when neither media nor voice_note is present.'] });
  });

  it('creates nothing when the customer message is rejected', async () => {
    await inbound(api(), { from: 'someone' });
    expect(await msgappConversations(api())).toStrictEqual([]);
  });

  it('answers 404 when patching an unknown sender', async () => {
    const res = await api().patch('/__sim/msgapp/senders/99', { online: false });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ message: 'Sender not found.' });
  });

  it('rejects an assistant of another account with 422 on assistant_id', async () => {
    await secondAccount(api());
    const foreign = await createAssistant(api(), {}, SECOND_KEY);
    const res = await api().patch('/__sim/msgapp/senders/1', { assistant_id: foreign.id });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: 'The selected assistant id is invalid.', errors: { assistant_id: ['The selected assistant id is invalid.'] } });
  });

  it('rejects a missing assistant with 422 on assistant_id', async () => {
    const res = await api().patch('/__sim/msgapp/senders/1', { assistant_id: 99 });
    expect(res.status).toBe(422);
    expect(res.body.errors).toStrictEqual({ assistant_id: ['The selected assistant id is invalid.'] });
  });

  it('detaches the assistant with assistant_id null', async () => {
    await attachAssistant();
    const res = await api().patch('/__sim/msgapp/senders/1', { assistant_id: null });
    expect(res.body).toStrictEqual({ ...ONLINE_SENDER, assistant_id: null, read_receipts_webhook_url: null, read_receipts_signing_secret: null });
    await inbound(api(), { text: 'Anyone?' });
    const [conversation] = await msgappConversations(api());
    expect(await history(api(), conversation.id)).toStrictEqual([{ role: 'user', content: 'Anyone?' }]);
  });
});

contract(
  'msgapp: the conversation-ended webhook',
  (api) => {
    async function attachHookedAssistant() {
      const assistant = await createAssistant(api(), { conversation_ended_webhook_url: HOOK_URL, conversation_inactivity_timeout: 10 });
      expect((await api().patch('/__sim/msgapp/senders/1', { assistant_id: assistant.id })).status).toBe(200);
      return assistant;
    }

    it('sends nothing before the inactivity timeout has passed', async () => {
      await attachHookedAssistant();
      await inbound(api());
      await api().sim.clock.advance('9m59s');
      expect(captured).toStrictEqual([]);
    });

    it('ends the msgapp conversation after 10 minutes of inactivity and sends the payload with the customer and the sender', async () => {
      const assistant = await attachHookedAssistant();
      await inbound(api());
      await api().sim.clock.advance('10m');
      const [conversation] = await msgappConversations(api());
      expect(captured).toStrictEqual([
        {
          conversation_id: conversation.id,
          assistant_id: assistant.uuid,
          type: 'msgapp',
          message_count: 2,
          status: 'ended',
          extracted_variables: {},
          input_variables: {},
          transcript: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: DEFAULT_REPLY },
          ],
          formatted_transcript: `Customer: Hi\nAI: ${DEFAULT_REPLY}`,
          customer_phone: CUSTOMER,
          customer_name: 'Ann',
          sender: { phone_number: '+14155550150', display_name: 'Voxsim Test Account Support' },
          created_at: '2026-03-02T10:00:00+01:00',
          ended_at: '2026-03-02T10:10:00+01:00',
        },
      ]);
    });

    it('counts inactivity from the last customer message', async () => {
      await attachHookedAssistant();
      await inbound(api());
      await api().sim.clock.advance('6m');
      await inbound(api(), { text: 'One more thing' });
      await api().sim.clock.advance('9m59s');
      expect(captured).toStrictEqual([]);
      await api().sim.clock.advance('1s');
      expect(captured).toHaveLength(1);
      expect(captured[0].message_count).toBe(4);
      expect(captured[0].ended_at).toBe('2026-03-02T10:16:00+01:00');
    });

    it('counts inactivity from our last freeform send too', async () => {
      await attachHookedAssistant();
      await inbound(api());
      await api().sim.clock.advance('9m');
      expect((await api().post('/user/msgapp/send-freeform', { sender_id: 1, recipient_phone: CUSTOMER, message: 'Still there?' })).status).toBe(200);
      await api().sim.clock.advance('9m59s');
      expect(captured).toStrictEqual([]);
      await api().sim.clock.advance('1s');
      expect(captured).toHaveLength(1);
      expect(captured[0].ended_at).toBe('2026-03-02T10:19:00+01:00');
    });

    it('ends a conversation opened by a template send when nobody answers', async () => {
      await attachHookedAssistant();
      expect((await api().post('/user/msgapp/send', { sender_id: 1, template_id: 2, recipient_phone: CUSTOMER })).status).toBe(200);
      await api().sim.clock.advance('10m');
      expect(captured).toHaveLength(1);
      expect(captured[0].transcript).toStrictEqual([{ role: 'assistant', content: 'Welcome! Thanks for getting in touch. How can we help you today?' }]);
    });

    it('sends nothing for a msgapp conversation whose sender has no assistant', async () => {
      await inbound(api());
      await api().sim.clock.advance('2h');
      expect(captured).toStrictEqual([]);
    });
  },
  captureDeliveries,
);
