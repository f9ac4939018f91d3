/**
 * The live wire for phone numbers, knowledge bases, the messaging channel and chat
 * conversations (live-platform.md Rule 5, A.2, B.1, D.4, D.5, E), over both transports,
 * and the same requests on the default (spec) wire, unchanged. Every expected value is
 * written out here, never read from the sources.
 *
 * Webhook attempts go to the `deliver` option: `captured` holds every payload of the test.
 */
import { beforeEach, expect, it } from 'vitest';
import type { DeliverRequest } from '../../src/engine/webhooks.js';
import { contract, type Api } from '../support/api.js';
import { createAssistant, startConversation } from '../support/records.js';

const LIVE = { wire: 'live' } as const;
const CUSTOMER = '+14155550123';
const HOOK_URL = 'https://hooks.example.test/conversation-ended';
const CREATED_AT = '2026-03-02T09:00:00.000000Z';

/** Every webhook body delivered in the current test, parsed. */
const captured: any[] = [];
beforeEach(() => {
  captured.length = 0;
});
const capture = {
  deliver: async (req: DeliverRequest) => {
    captured.push(JSON.parse(req.body));
    return { status: 200, body: '', duration_ms: 0 };
  },
};

/** The list URL as received (live-platform A.2 `path`, built as D.1's): literal on MSW, the ephemeral port on Express. */
function expectListPath(api: Api, path: string): void {
  if (api.transport === 'msw') expect(path).toBe('http://api.voxsim.test/api/user/conversations');
  else expect(path).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/user\/conversations$/);
}

async function buyFirst(api: Api, query: Record<string, string> = {}): Promise<{ id: number; phone_number: string }> {
  const [offer] = (await api.get('/user/phone-numbers/search', { query })).body.data;
  const res = await api.post('/user/phone-numbers/purchase', { phone_number: offer.phone_number });
  expect(res.status).toBe(201);
  return res.body.data;
}

/** Searches, takes the payment method away, then buys the first offer. */
async function purchaseWithoutPaymentMethod(api: Api) {
  const [offer] = (await api.get('/user/phone-numbers/search')).body.data;
  api.sim.control.accounts.patch(1, { has_payment_method: false });
  return api.post('/user/phone-numbers/purchase', { phone_number: offer.phone_number });
}

function addNumber(api: Api, type: 'sip' | 'caller_id', phone_number: string) {
  return api.post('/__sim/phone-numbers', { account_id: 1, type, phone_number });
}

/** Replaces fields of the default account's first sender through a snapshot (a limit or a rating no fixture has). */
function patchSenderRow(api: Api, patch: Record<string, unknown>): void {
  const snapshot = api.sim.snapshot() as any;
  Object.assign(snapshot.db.msgapp_senders.rows[0], patch);
  api.sim.restore(snapshot);
}

function sendTemplate(api: Api, overrides: Record<string, unknown> = {}) {
  return api.post('/user/whatsapp/send', { sender_id: 1, template_id: 2, recipient_phone: CUSTOMER, ...overrides });
}

function sendFreeform(api: Api, overrides: Record<string, unknown> = {}) {
  return api.post('/user/whatsapp/send-freeform', { sender_id: 1, recipient_phone: CUSTOMER, message: 'Your table is ready.', ...overrides });
}

function sessionStatus(api: Api, senderId: number = 1) {
  return api.get('/user/whatsapp/session-status', { query: { sender_id: senderId, recipient_phone: CUSTOMER } });
}

// ---------------------------------------------------------------------------------------
// Phone numbers (live-platform D.4, D.5, E)

const DE_FIRST_OFFER = {
  phone_number: '+49698453811',
  phone_number_formatted: '+49 69 8453811',
  country_code: 'DE',
  price: 1.5,
  billing_price_id: 'price_de_local_monthly',
  stripe_price_id: 'price_de_local_monthly',
  address_requirements: 'local',
  sms_capable: false,
};

contract(
  'live wire: phone numbers',
  (api) => {
    it('searches Germany by default, with the DE fixture of section E', async () => {
      const res = await api().get('/user/phone-numbers/search');
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(10);
      expect(res.body.data[0]).toStrictEqual(DE_FIRST_OFFER);
      for (const offer of res.body.data) {
        expect(offer.phone_number).toMatch(/^\+49(30|40|69|89|211|221)\d{7}$/);
        expect(offer.phone_number_formatted.replace(/\D/g, '')).toBe(offer.phone_number.slice(1));
        expect([offer.country_code, offer.price, offer.address_requirements, offer.sms_capable]).toEqual(['DE', 1.5, 'local', false]);
      }
    });

    it('answers country_code=DE as the default search', async () => {
      const explicit = await api().get('/user/phone-numbers/search', { query: { country_code: 'DE' } });
      expect(explicit.status).toBe(200);
      expect(explicit.body.data[0]).toStrictEqual(DE_FIRST_OFFER);
    });

    it('puts stripe_price_id right after billing_price_id, with the same value', async () => {
      const res = await api().get('/user/phone-numbers/search', { query: { country_code: 'US', contains: '415' } });
      expect(Object.keys(res.body.data[0])).toEqual([
        'phone_number',
        'phone_number_formatted',
        'country_code',
        'price',
        'billing_price_id',
        'stripe_price_id',
        'address_requirements',
        'sms_capable',
      ]);
      expect(res.body.data[0]).toMatchObject({ billing_price_id: 'price_us_local_monthly', stripe_price_id: 'price_us_local_monthly' });
    });

    it('still refuses a country neither wire serves', async () => {
      const res = await api().get('/user/phone-numbers/search', { query: { country_code: 'XX' } });
      expect(res.status).toBe(422);
      expect(res.body).toStrictEqual({ message: 'The selected country code is invalid.', errors: { country_code: ['The selected country code is invalid.'] } });
    });

    it('sells a German number and lists it with the nickname after phone_number and the live type label', async () => {
      const bought = await buyFirst(api());
      expect(bought).toStrictEqual({ id: 1, phone_number: '+49698453811', country_code: 'DE', type: 'normal', sms_capable: false });
      const res = await api().get('/user/phone-numbers/all');
      expect(res.body.data).toStrictEqual([
        {
          id: 1,
          phone_number: '+49698453811',
          nickname: null,
          country_code: 'DE',
          type: 'normal',
          type_label: 'Dedicated Number',
          sms_capable: false,
          region: 'ie1',
          has_active_subscription: true,
          created_at: CREATED_AT,
        },
      ]);
      expect(Object.keys(res.body.data[0]).slice(0, 3)).toEqual(['id', 'phone_number', 'nickname']);
    });

    it('labels SIP trunks "SIP Trunk" and caller IDs "Caller ID", and shows a set nickname', async () => {
      await addNumber(api(), 'sip', '+14155550100');
      await addNumber(api(), 'caller_id', '+14155550101');
      expect((await api().put('/user/phone-numbers/1', { nickname: 'Front desk' })).status).toBe(200);
      const res = await api().get('/user/phone-numbers/all');
      expect(res.body.data.map((n: any) => [n.phone_number, n.nickname, n.type_label])).toEqual([
        ['+14155550100', 'Front desk', 'SIP Trunk'],
        ['+14155550101', null, 'Caller ID'],
      ]);
    });

    it('answers the legacy GET /user/phone-numbers in the same live item form', async () => {
      await buyFirst(api(), { country_code: 'US' });
      await addNumber(api(), 'sip', '+14155550100');
      const res = await api().get('/user/phone-numbers');
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.data[0]).toMatchObject({ id: 1, nickname: null, country_code: 'US', type: 'normal', type_label: 'Dedicated Number', sms_capable: true, region: 'us1' });
      expect(Object.keys(res.body.data[0])).toEqual(['id', 'phone_number', 'nickname', 'country_code', 'type', 'type_label', 'sms_capable', 'region', 'has_active_subscription', 'created_at']);
    });

    it('gives the numbers eligible for an assistant the live type labels too (section E)', async () => {
      await addNumber(api(), 'sip', '+14155550100');
      await addNumber(api(), 'caller_id', '+14155550101');
      const res = await api().get('/user/assistants/phone-numbers');
      expect(res.body).toStrictEqual([
        { id: 1, phone_number: '+14155550100', country_code: 'US', type_label: 'SIP Trunk', is_available: true },
        { id: 2, phone_number: '+14155550101', country_code: 'US', type_label: 'Caller ID', is_available: true },
      ]);
    });

    it('releases a purchased number with the live text, and refuses a second release with the live text', async () => {
      await buyFirst(api());
      const first = await api().del('/user/phone-numbers/1');
      expect(first.status).toBe(200);
      expect(first.body).toStrictEqual({ message: 'Phone number released successfully. It will be removed at the end of the billing period.' });
      const second = await api().del('/user/phone-numbers/1');
      expect(second.status).toBe(400);
      expect(second.body).toStrictEqual({ error: 'Phone number is already scheduled for release.' });
    });

    it.each([
      ['sip', '+14155550100'],
      ['caller_id', '+14155550101'],
    ] as const)('deletes a %s number with "Phone number deleted successfully."', async (type, number) => {
      await addNumber(api(), type, number);
      const res = await api().del('/user/phone-numbers/1');
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({ message: 'Phone number deleted successfully.' });
    });

    it('refuses a purchase without a payment method with the live 402 text', async () => {
      const res = await purchaseWithoutPaymentMethod(api());
      expect(res.status).toBe(402);
      expect(res.body).toStrictEqual({ error: 'No payment method found. Please add a payment method to your account.' });
    });

    it('keeps the family 404 of phone numbers', async () => {
      const res = await api().del('/user/phone-numbers/99');
      expect(res.status).toBe(404);
      expect(res.body).toStrictEqual({ error: 'Phone number not found.' });
    });
  },
  LIVE,
);

contract('spec wire: the same phone number requests, unchanged', (api) => {
  it('searches the US by default, without stripe_price_id', async () => {
    const res = await api().get('/user/phone-numbers/search');
    expect(res.body.data[0].country_code).toBe('US');
    expect(Object.keys(res.body.data[0])).toEqual(['phone_number', 'phone_number_formatted', 'country_code', 'price', 'billing_price_id', 'address_requirements', 'sms_capable']);
  });

  it("refuses DE with today's 422", async () => {
    const res = await api().get('/user/phone-numbers/search', { query: { country_code: 'DE' } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: 'The selected country code is invalid.', errors: { country_code: ['The selected country code is invalid.'] } });
  });

  it("refuses DE together with a bad contains in one 422, as today", async () => {
    const res = await api().get('/user/phone-numbers/search', { query: { country_code: 'DE', contains: '4x' } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({
      message: 'The selected country code is invalid. (and 1 more error)',
      errors: { country_code: ['The selected country code is invalid.'], contains: ['The contains must only contain digits.'] },
    });
  });

  it('lists numbers without a nickname and with the spec labels', async () => {
    await addNumber(api(), 'sip', '+14155550100');
    await addNumber(api(), 'caller_id', '+14155550101');
    await api().put('/user/phone-numbers/1', { nickname: 'Front desk' });
    const res = await api().get('/user/phone-numbers/all');
    expect(res.body.data[0]).toStrictEqual({
      id: 1,
      phone_number: '+14155550100',
      country_code: 'US',
      type: 'sip',
      type_label: 'SIP trunk',
      sms_capable: false,
      region: 'us1',
      has_active_subscription: false,
      created_at: CREATED_AT,
    });
    expect(res.body.data[1].type_label).toBe('Caller ID');
    expect((await api().get('/user/assistants/phone-numbers')).body.map((n: any) => n.type_label)).toEqual(['SIP trunk', 'Caller ID']);
  });

  it('labels a purchased number "Dedicated number"', async () => {
    await buyFirst(api());
    expect((await api().get('/user/phone-numbers/all')).body.data[0].type_label).toBe('Dedicated number');
  });

  it('answers the releases with the spec texts', async () => {
    await buyFirst(api());
    await addNumber(api(), 'caller_id', '+14155550101');
    expect((await api().del('/user/phone-numbers/1')).body).toStrictEqual({
      message: 'Subscription cancelled. The phone number stays active until 2026-04-02 09:00:00 UTC, then it is released.',
    });
    expect((await api().del('/user/phone-numbers/1')).body).toStrictEqual({ error: 'The subscription of this phone number is already cancelled.' });
    expect((await api().del('/user/phone-numbers/2')).body).toStrictEqual({ message: 'Caller ID deleted and removed from the telephony provider.' });
  });

  it('refuses a purchase without a payment method with the spec text', async () => {
    const res = await purchaseWithoutPaymentMethod(api());
    expect(res.body).toStrictEqual({ error: 'A payment method is required to purchase a phone number. Please add a payment method to your account.' });
  });
});

// ---------------------------------------------------------------------------------------
// Knowledge bases and tools (live-platform C.1, D.4, E; Rule 2)

contract(
  'live wire: knowledge bases',
  (api) => {
    it('writes ready as active with the label Active, and processing with Processing, label after status', async () => {
      const res = await api().get('/user/knowledgebases');
      expect(res.body.data.map((kb: any) => [kb.status, kb.status_label])).toEqual([
        ['active', 'Active'],
        ['active', 'Active'],
        ['processing', 'Processing'],
      ]);
      expect(res.body.data[0]).toStrictEqual({
        id: 1,
        name: 'Product FAQ',
        description: 'Frequently asked questions about our products, pricing and shipping.',
        status: 'active',
        status_label: 'Active',
        documents_count: 12,
        assistants_count: 0,
        created_at: CREATED_AT,
        updated_at: CREATED_AT,
      });
      expect(Object.keys(res.body.data[0])).toEqual(['id', 'name', 'description', 'status', 'status_label', 'documents_count', 'assistants_count', 'created_at', 'updated_at']);
    });

    it('answers one knowledge base in the live form', async () => {
      const res = await api().get('/user/knowledgebases/3');
      expect(res.body.data).toMatchObject({ id: 3, status: 'processing', status_label: 'Processing' });
    });

    it('answers a missing knowledge base with the live 404 in shape C', async () => {
      const res = await api().get('/user/knowledgebases/99');
      expect(res.status).toBe(404);
      expect(res.body).toStrictEqual({ error: 'Knowledgebase not found.' });
    });

    it('answers a missing tool with the live 404 text', async () => {
      const res = await api().get('/user/tools/99');
      expect(res.status).toBe(404);
      expect(res.body).toStrictEqual({ message: 'Tool not found' });
    });
  },
  LIVE,
);

contract('spec wire: the same knowledge base requests, unchanged', (api) => {
  it('keeps ready and processing, without status_label', async () => {
    const res = await api().get('/user/knowledgebases');
    expect(res.body.data.map((kb: any) => kb.status)).toEqual(['ready', 'ready', 'processing']);
    expect(Object.keys(res.body.data[0])).toEqual(['id', 'name', 'description', 'status', 'documents_count', 'assistants_count', 'created_at', 'updated_at']);
  });

  it('keeps the 404s of knowledge bases and tools', async () => {
    expect((await api().get('/user/knowledgebases/99')).body).toStrictEqual({ message: 'Knowledge base not found.' });
    expect((await api().get('/user/tools/99')).body).toStrictEqual({ message: 'Tool not found.' });
  });
});

// ---------------------------------------------------------------------------------------
// Messaging channel: senders, templates, texts and the session (live-platform D.4, D.5, E)

contract(
  'live wire: senders and templates',
  (api) => {
    it('rates senders GREEN and YELLOW and formats their limits per 24 hours', async () => {
      const res = await api().get('/user/whatsapp/senders', { query: { status: 'all' } });
      expect(res.body.data).toStrictEqual([
        {
          id: 1,
          phone_number: '+14155550150',
          display_name: 'Voxsim Test Account Support',
          status: 'online',
          quality_rating: 'GREEN',
          messaging_limit: 1000,
          messaging_limit_formatted: '1,000 / 24hr',
        },
        {
          id: 2,
          phone_number: '+14155550151',
          display_name: 'Voxsim Test Account Sales',
          status: 'offline',
          quality_rating: 'YELLOW',
          messaging_limit: 250,
          messaging_limit_formatted: '250 / 24hr',
        },
      ]);
    });

    it('rates a low-quality sender RED and writes a large limit with thousands commas', async () => {
      patchSenderRow(api(), { quality_rating: 'low', messaging_limit: 100000 });
      const [sender] = (await api().get('/user/msgapp/senders')).body.data;
      expect([sender.quality_rating, sender.messaging_limit, sender.messaging_limit_formatted]).toEqual(['RED', 100000, '100,000 / 24hr']);
    });

    it('writes a sender without a limit as Unlimited', async () => {
      patchSenderRow(api(), { messaging_limit: null });
      const [sender] = (await api().get('/user/msgapp/senders')).body.data;
      expect([sender.messaging_limit, sender.messaging_limit_formatted]).toEqual([null, 'Unlimited']);
    });

    it('writes template categories in lowercase', async () => {
      const res = await api().get('/user/whatsapp/senders/1/templates', { query: { status: 'all' } });
      expect(res.body.data.map((t: any) => [t.name, t.category])).toEqual([
        ['appointment_reminder', 'utility'],
        ['welcome_message', 'marketing'],
        ['order_update', 'utility'],
        ['spring_promotion', 'marketing'],
      ]);
    });
  },
  LIVE,
);

contract('spec wire: the same sender and template requests, unchanged', (api) => {
  it('keeps the spec ratings, limits and categories', async () => {
    const senders = (await api().get('/user/whatsapp/senders', { query: { status: 'all' } })).body.data;
    expect(senders.map((s: any) => [s.quality_rating, s.messaging_limit_formatted])).toEqual([
      ['high', '1K'],
      ['medium', '250'],
    ]);
    const templates = (await api().get('/user/msgapp/senders/1/templates', { query: { status: 'all' } })).body.data;
    expect(templates.map((t: any) => t.category)).toEqual(['UTILITY', 'MARKETING', 'UTILITY', 'MARKETING']);
  });
});

/** A shape-D refusal of the messaging channel. */
function refusal(status: number, error: string, error_code: string) {
  return { status, body: { success: false, error, error_code } };
}

function answer(res: { status: number; body: unknown }) {
  return { status: res.status, body: res.body };
}

contract(
  'live wire: messaging texts by error code',
  (api) => {
    it('SENDER_NOT_FOUND: the templates route says "Sender not found"', async () => {
      expect(answer(await api().get('/user/whatsapp/senders/99/templates'))).toStrictEqual(refusal(404, 'Sender not found', 'SENDER_NOT_FOUND'));
    });

    it('SENDER_NOT_FOUND: the sends and session-status say "Sender not found or does not belong to you"', async () => {
      const expected = refusal(404, 'Sender not found or does not belong to you', 'SENDER_NOT_FOUND');
      expect(answer(await sendTemplate(api(), { sender_id: 99 }))).toStrictEqual(expected);
      expect(answer(await sendFreeform(api(), { sender_id: 99 }))).toStrictEqual(expected);
      expect(answer(await sessionStatus(api(), 99))).toStrictEqual(expected);
    });

    it('TEMPLATE_NOT_FOUND', async () => {
      expect(answer(await sendTemplate(api(), { template_id: 99 }))).toStrictEqual(refusal(404, 'Template not found or does not belong to this sender', 'TEMPLATE_NOT_FOUND'));
    });

    it.each([
      [3, 'pending'],
      [4, 'rejected'],
    ])('TEMPLATE_NOT_APPROVED names the status of template %i (%s)', async (id, status) => {
      const res = await sendTemplate(api(), { template_id: id, variables: id === 3 ? { order_number: 'A1' } : {} });
      expect(answer(res)).toStrictEqual(refusal(422, `Template is not approved. Current status: ${status}`, 'TEMPLATE_NOT_APPROVED'));
    });

    it('INVALID_PHONE', async () => {
      const expected = refusal(422, 'Invalid phone number format. Use E.164 format (e.g., +14155551234).', 'INVALID_PHONE');
      expect(answer(await sendTemplate(api(), { recipient_phone: '12345' }))).toStrictEqual(expected);
      expect(answer(await sendFreeform(api(), { recipient_phone: 'call me' }))).toStrictEqual(expected);
    });

    it('SENDER_OFFLINE on both sends (422 template, 503 freeform)', async () => {
      expect(answer(await sendTemplate(api(), { sender_id: 2 }))).toStrictEqual(refusal(422, 'Sender is not online. Current status: Offline', 'SENDER_OFFLINE'));
      expect(answer(await sendFreeform(api(), { sender_id: 2 }))).toStrictEqual(refusal(503, 'Sender is not online. Current status: Offline', 'SENDER_OFFLINE'));
    });

    it('INSUFFICIENT_BALANCE', async () => {
      api().sim.control.accounts.patch(1, { balance: 0 });
      expect(answer(await sendTemplate(api()))).toStrictEqual(refusal(402, 'Insufficient balance. Please top up your account.', 'INSUFFICIENT_BALANCE'));
    });

    it('SESSION_EXPIRED with no window yet: the never-opened message and no expired_at', async () => {
      const res = await sendFreeform(api());
      expect(res.status).toBe(403);
      expect(res.body).toStrictEqual({
        success: false,
        error: 'The 24-hour messaging window is closed. Customer must reply first, or use a template message.',
        error_code: 'SESSION_EXPIRED',
        session_status: {
          is_open: false,
          can_send_freeform: false,
          requires_template: true,
          message: 'No conversation exists with this recipient. Send a template message first.',
        },
      });
    });

    it('SESSION_EXPIRED once the window has closed: the expired message and expired_at', async () => {
      expect((await sendTemplate(api())).status).toBe(200);
      await api().sim.clock.advance('24h');
      const res = await sendFreeform(api());
      expect(res.status).toBe(403);
      expect(res.body).toStrictEqual({
        success: false,
        error: 'The 24-hour messaging window is closed. Customer must reply first, or use a template message.',
        error_code: 'SESSION_EXPIRED',
        session_status: {
          is_open: false,
          can_send_freeform: false,
          requires_template: true,
          message: 'Session expired. Send a template or wait for customer to reply.',
          expired_at: '2026-03-03T09:00:00Z',
        },
      });
    });
  },
  LIVE,
);

contract(
  'live wire: session status',
  (api) => {
    it('says "No conversation exists …" before any message, without expired_at', async () => {
      const res = await sessionStatus(api());
      expect(res.body).toStrictEqual({
        success: true,
        has_conversation: false,
        session_status: {
          is_open: false,
          can_send_freeform: false,
          requires_template: true,
          message: 'No conversation exists with this recipient. Send a template message first.',
          minutes_remaining: 0,
          expires_at: null,
        },
      });
    });

    it('counts the open window in hours and minutes', async () => {
      await sendTemplate(api());
      expect((await sessionStatus(api())).body.session_status).toStrictEqual({
        is_open: true,
        can_send_freeform: true,
        requires_template: false,
        message: 'Session open (24 hr 0 min remaining). Unlimited free-form messages allowed.',
        minutes_remaining: 1440,
        expires_at: '2026-03-03T09:00:00Z',
      });
      await api().sim.clock.advance('90m30s');
      expect((await sessionStatus(api())).body.session_status.message).toBe('Session open (22 hr 29 min remaining). Unlimited free-form messages allowed.');
      await api().sim.clock.advance('1349m');
      expect((await sessionStatus(api())).body.session_status.message).toBe('Session open (0 hr 0 min remaining). Unlimited free-form messages allowed.');
    });

    it('adds expired_at once the open window has closed', async () => {
      await sendTemplate(api());
      await api().sim.clock.advance('24h');
      const res = await sessionStatus(api());
      expect(res.body.session_status).toStrictEqual({
        is_open: false,
        can_send_freeform: false,
        requires_template: true,
        message: 'Session expired. Send a template or wait for customer to reply.',
        minutes_remaining: 0,
        expires_at: '2026-03-03T09:00:00Z',
        expired_at: '2026-03-03T09:00:00Z',
      });
    });
  },
  LIVE,
);

contract('spec wire: the same messaging requests, unchanged', (api) => {
  it('keeps the spec texts of every error code', async () => {
    expect(answer(await api().get('/user/whatsapp/senders/99/templates'))).toStrictEqual(refusal(404, 'Sender not found or does not belong to you.', 'SENDER_NOT_FOUND'));
    expect(answer(await sendTemplate(api(), { template_id: 99 }))).toStrictEqual(refusal(404, 'Template not found for this sender.', 'TEMPLATE_NOT_FOUND'));
    expect(answer(await sendTemplate(api(), { template_id: 4 }))).toStrictEqual(refusal(422, 'The template is not approved and cannot be sent.', 'TEMPLATE_NOT_APPROVED'));
    expect(answer(await sendTemplate(api(), { sender_id: 2 }))).toStrictEqual(refusal(422, 'The sender is offline and cannot send messages.', 'SENDER_OFFLINE'));
    expect(answer(await sendTemplate(api(), { recipient_phone: '12345' }))).toStrictEqual(
      refusal(422, 'The recipient phone must be a valid phone number in international format, for example +14155550123.', 'INVALID_PHONE'),
    );
    api().sim.control.accounts.patch(1, { balance: 0 });
    expect(answer(await sendTemplate(api()))).toStrictEqual(refusal(402, 'Insufficient balance to send this message. Please top up your account.', 'INSUFFICIENT_BALANCE'));
  });

  it('keeps the four-key session_status of SESSION_EXPIRED, without expired_at, after a window closed', async () => {
    await sendTemplate(api());
    await api().sim.clock.advance('24h');
    const expired = 'The 24-hour session window has expired. Send a template message to re-open the conversation.';
    expect((await sendFreeform(api())).body).toStrictEqual({
      success: false,
      error: expired,
      error_code: 'SESSION_EXPIRED',
      session_status: { is_open: false, can_send_freeform: false, requires_template: true, message: expired },
    });
    expect((await sessionStatus(api())).body.session_status).toStrictEqual({
      is_open: false,
      can_send_freeform: false,
      requires_template: true,
      message: expired,
      minutes_remaining: 0,
      expires_at: '2026-03-03T09:00:00Z',
    });
  });

  it('keeps the spec wording of an open window', async () => {
    await sendTemplate(api());
    expect((await sessionStatus(api())).body.session_status.message).toBe('The session is open for 24 h 0 min: freeform messages can be sent.');
  });
});

// ---------------------------------------------------------------------------------------
// Chat routes and the conversation-ended switches (live-platform A.1, D.5)

contract(
  'live wire: chat route texts (shape E)',
  (api) => {
    it('answers an unknown conversation with "Conversation not found"', async () => {
      const expected = { status: false, error: 'Conversation not found' };
      const unknown = '00000000-0000-4000-8000-000000000000';
      expect(answer(await api().get(`/conversations/${unknown}`, { key: null }))).toStrictEqual({ status: 404, body: expected });
      expect(answer(await api().post(`/conversations/${unknown}/messages`, { message: 'Hi' }, { key: null }))).toStrictEqual({ status: 404, body: expected });
      expect(answer(await api().post(`/automate/conversations/${unknown}/disable-ai`))).toStrictEqual({ status: 404, body: expected });
    });

    it('answers a create for an unknown assistant with "Assistant not found"', async () => {
      const res = await api().post('/conversations', { assistant_id: '00000000-0000-4000-8000-000000000000' }, { key: null });
      expect(answer(res)).toStrictEqual({ status: 404, body: { status: false, error: 'Assistant not found' } });
    });

    it('answers a widget without balance with the live 400 text, on create and on a message', async () => {
      const assistant = await createAssistant(api());
      const id = await startConversation(api(), assistant.uuid);
      api().sim.control.accounts.patch(1, { balance: 0 });
      const expected = { status: 400, body: { status: false, error: 'Insufficient balance. Please top up your account.' } };
      expect(answer(await api().post(`/conversations/${id}/messages`, { message: 'Hi' }, { key: null }))).toStrictEqual(expected);
      expect(answer(await api().post('/conversations', { assistant_id: assistant.uuid }, { key: null }))).toStrictEqual(expected);
    });

    it('answers both spellings of the conversation-ended switches with the live texts', async () => {
      const assistant = await createAssistant(api());
      const enabled = { message: 'Conversation ended webhook enabled successfully', data: [] };
      const disabled = { message: 'Conversation ended webhook disabled successfully', data: [] };
      expect((await api().post(`/assistants/${assistant.id}/enable-conversation-ended-webhook`, { webhook_url: HOOK_URL })).body).toStrictEqual(enabled);
      expect((await api().post(`/assistants/${assistant.uuid}/disable-conversation-ended-webhook`)).body).toStrictEqual(disabled);
      expect((await api().post('/user/assistants/enable-conversation-ended-webhook', { assistant_id: assistant.id, webhook_url: HOOK_URL })).body).toStrictEqual(enabled);
      expect((await api().post('/user/assistants/disable-conversation-ended-webhook', { assistant_id: assistant.uuid })).body).toStrictEqual(disabled);
    });
  },
  LIVE,
);

contract('spec wire: the same chat and switch requests, unchanged', (api) => {
  it('keeps the spec texts', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await api().get(`/conversations/${unknown}`, { key: null })).body).toStrictEqual({ status: false, error: 'Conversation not found.' });
    expect((await api().post('/conversations', { assistant_id: unknown }, { key: null })).body).toStrictEqual({ status: false, error: 'Assistant not found.' });
    const assistant = await createAssistant(api());
    api().sim.control.accounts.patch(1, { balance: 0 });
    expect((await api().post('/conversations', { assistant_id: assistant.uuid }, { key: null })).body).toStrictEqual({
      status: false,
      error: 'Insufficient balance. Please top up your account to continue the conversation.',
    });
    expect((await api().post(`/assistants/${assistant.id}/enable-conversation-ended-webhook`, { webhook_url: HOOK_URL })).body).toStrictEqual({
      message: 'Conversation ended webhook enabled.',
      data: [],
    });
    expect((await api().post('/user/assistants/disable-conversation-ended-webhook', { assistant_id: assistant.id })).body).toStrictEqual({
      message: 'Conversation ended webhook disabled.',
      data: [],
    });
  });
});

// ---------------------------------------------------------------------------------------
// Conversations: the list, one conversation, and the ended payload (live-platform A.2, D.4)

/** A cursor as Laravel writes it: base64url without padding. */
const NEXT_AFTER_2 = 'eyJpZCI6MiwiX3BvaW50c1RvTmV4dEl0ZW1zIjp0cnVlfQ'; // {"id":2,"_pointsToNextItems":true}
const PREV_BEFORE_3 = 'eyJpZCI6MywiX3BvaW50c1RvTmV4dEl0ZW1zIjpmYWxzZX0'; // {"id":3,"_pointsToNextItems":false}

contract(
  'live wire: the conversation list',
  (api) => {
    it('answers the cursor form without a cursor parameter, its path the request URL', async () => {
      const assistant = await createAssistant(api());
      for (let i = 0; i < 3; i++) await startConversation(api(), assistant.uuid, { type: 'test' });
      const res = await api().get('/user/conversations', { query: { per_page: 2 } });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['data', 'path', 'per_page', 'next_cursor', 'prev_cursor']);
      expect(res.body.data).toHaveLength(2);
      expect([res.body.per_page, res.body.next_cursor, res.body.prev_cursor]).toEqual([2, NEXT_AFTER_2, null]);
      expectListPath(api(), res.body.path);
      const next = await api().get('/user/conversations', { query: { per_page: 2, cursor: NEXT_AFTER_2 } });
      expect(next.body.data).toHaveLength(1);
      expect([next.body.next_cursor, next.body.prev_cursor]).toEqual([null, PREV_BEFORE_3]);
    });

    it('ignores page, even one the page form would refuse', async () => {
      const assistant = await createAssistant(api());
      const id = await startConversation(api(), assistant.uuid);
      for (const page of ['2', '0']) {
        const res = await api().get('/user/conversations', { query: { page } });
        expect(res.status).toBe(200);
        expect(res.body.data.map((c: any) => c.id)).toEqual([id]);
        expect(res.body.next_cursor).toBeNull();
      }
    });

    it('writes variables after type (null when empty) and the other keys in their places', async () => {
      const assistant = await createAssistant(api(), { name: 'Chat Bot' });
      const bare = await startConversation(api(), assistant.uuid, { type: 'test' });
      const named = await startConversation(api(), assistant.uuid, { variables: { name: 'Ann' } });
      const res = await api().get('/user/conversations');
      expect(res.body.data).toStrictEqual([
        {
          id: bare,
          assistant_id: assistant.uuid,
          assistant_name: 'Chat Bot',
          type: 'test',
          variables: null,
          message_count: 1,
          total_cost: 0,
          ai_enabled: true,
          created_at: '2026-03-02 09:00:00',
          updated_at: '2026-03-02 09:00:00',
        },
        {
          id: named,
          assistant_id: assistant.uuid,
          assistant_name: 'Chat Bot',
          type: 'widget',
          variables: { name: 'Ann' },
          message_count: 1,
          total_cost: 0,
          ai_enabled: true,
          created_at: '2026-03-02 09:00:00',
          updated_at: '2026-03-02 09:00:00',
        },
      ]);
    });

    it('merges the variables replies set into the start variables', async () => {
      const assistant = await createAssistant(api());
      api().sim.control.replies.set({ rules: [{ when: 'demo', reply: 'Booked.', set_variables: { wants_demo: 'yes' } }] });
      const id = await startConversation(api(), assistant.uuid, { variables: { name: 'Ann' } });
      await api().post(`/conversations/${id}/messages`, { message: 'a demo please' }, { key: null });
      const [item] = (await api().get('/user/conversations')).body.data;
      expect(item.variables).toStrictEqual({ name: 'Ann', wants_demo: 'yes' });
    });

    it('adds external_identifier after variables on an api conversation that has one', async () => {
      const assistant = await createAssistant(api());
      await startConversation(api(), assistant.uuid, { type: 'api' });
      expect((await api().post('/user/ai/generate-reply', { assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Hi' })).status).toBe(200);
      const [plain, identified] = (await api().get('/user/conversations')).body.data;
      expect(Object.keys(plain)).not.toContain('external_identifier');
      expect(Object.keys(identified).slice(3, 6)).toEqual(['type', 'variables', 'external_identifier']);
      expect([identified.type, identified.variables, identified.external_identifier]).toEqual(['api', null, 'crm-42']);
    });

    it('writes a messaging conversation as whatsapp, with its sender and customer after updated_at', async () => {
      await sendTemplate(api(), { recipient_name: 'Dee' });
      const res = await api().get('/user/conversations');
      expect(res.body.data).toHaveLength(1);
      const [item] = res.body.data;
      expect(Object.keys(item)).toEqual([
        'id',
        'assistant_id',
        'assistant_name',
        'type',
        'variables',
        'message_count',
        'total_cost',
        'ai_enabled',
        'created_at',
        'updated_at',
        'whatsapp_sender',
        'customer',
      ]);
      expect(item).toMatchObject({
        assistant_id: null,
        type: 'whatsapp',
        variables: null,
        message_count: 1,
        total_cost: 0.05,
        whatsapp_sender: { name: 'Voxsim Test Account Support', phone: '+14155550150' },
        customer: { name: 'Dee', phone: CUSTOMER },
      });
    });

    it('accepts type=whatsapp as the messaging filter', async () => {
      const assistant = await createAssistant(api());
      await startConversation(api(), assistant.uuid);
      await sendTemplate(api());
      const res = await api().get('/user/conversations', { query: { type: 'whatsapp' } });
      expect(res.status).toBe(200);
      expect(res.body.data.map((c: any) => c.type)).toEqual(['whatsapp']);
    });

    it('reads one conversation with null variables and the same extra keys after them', async () => {
      await sendTemplate(api(), { recipient_name: 'Dee' });
      const [item] = (await api().get('/user/conversations')).body.data;
      const res = await api().get(`/conversations/${item.id}`, { key: null });
      expect(res.body).toStrictEqual({
        status: true,
        history: [{ role: 'assistant', content: 'Welcome! Thanks for getting in touch. How can we help you today?' }],
        variables: null,
        whatsapp_sender: { name: 'Voxsim Test Account Support', phone: '+14155550150' },
        customer: { name: 'Dee', phone: CUSTOMER },
      });
    });

    it('reads an identified api conversation with its external_identifier after the variables', async () => {
      const assistant = await createAssistant(api());
      const reply = await api().post('/user/ai/generate-reply', { assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'Hi', variables: { plan: 'gold' } });
      const res = await api().get(`/conversations/${reply.body.conversation_id}`, { key: null });
      expect(Object.keys(res.body)).toEqual(['status', 'history', 'variables', 'external_identifier']);
      expect([res.body.variables, res.body.external_identifier]).toEqual([{ plan: 'gold' }, 'crm-42']);
    });
  },
  LIVE,
);

contract(
  'live wire: the conversation-ended payload',
  (api) => {
    it('writes type whatsapp for a messaging conversation and changes nothing else', async () => {
      const assistant = await createAssistant(api(), { conversation_ended_webhook_url: HOOK_URL, conversation_inactivity_timeout: 10 });
      await api().patch('/__sim/msgapp/senders/1', { assistant_id: assistant.id });
      await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: CUSTOMER, text: 'Hi', name: 'Ann' });
      await api().sim.clock.advance('10m');
      expect(captured).toHaveLength(1);
      const { conversation_id: _id, transcript: _t, formatted_transcript: _f, ...rest } = captured[0];
      expect(rest).toStrictEqual({
        // live-platform H.3: the conversation's integer id first, and its attachments (none here).
        id: 1,
        assistant_id: assistant.uuid,
        type: 'whatsapp',
        message_count: 2,
        status: 'ended',
        // live-platform H.1: the built-ins, as a call's; the assistant answered the last message.
        extracted_variables: { status: true, summary: 'The customer sent 1 message and the assistant answered the last one.' },
        input_variables: {},
        customer_phone: CUSTOMER,
        customer_name: 'Ann',
        sender: { phone_number: '+14155550150', display_name: 'Voxsim Test Account Support' },
        // live-platform H.3: the account's timezone (UTC here), not the assistant's.
        created_at: '2026-03-02T09:00:00Z',
        ended_at: '2026-03-02T09:10:00Z',
        attachments: [],
      });
    });

    it('keeps widget as widget', async () => {
      const assistant = await createAssistant(api(), { conversation_ended_webhook_url: HOOK_URL, conversation_inactivity_timeout: 5 });
      await startConversation(api(), assistant.uuid);
      await api().sim.clock.advance('5m');
      expect(captured.map((p) => p.type)).toEqual(['widget']);
    });
  },
  { ...LIVE, ...capture },
);

contract(
  'spec wire: the same conversation requests, unchanged',
  (api) => {
    it('answers the page form without a cursor, items without the live keys', async () => {
      await sendTemplate(api(), { recipient_name: 'Dee' });
      const res = await api().get('/user/conversations');
      expect(Object.keys(res.body)).toEqual(['data', 'current_page', 'per_page', 'total', 'last_page']);
      expect(Object.keys(res.body.data[0])).toEqual(['id', 'assistant_id', 'assistant_name', 'type', 'message_count', 'total_cost', 'ai_enabled', 'created_at', 'updated_at']);
      expect(res.body.data[0].type).toBe('msgapp');
    });

    it("refuses type=whatsapp with today's 422, also together with another error", async () => {
      const res = await api().get('/user/conversations', { query: { type: 'whatsapp' } });
      expect(res.status).toBe(422);
      expect(res.body).toStrictEqual({ message: 'The selected type is invalid.', errors: { type: ['The selected type is invalid.'] } });
      const both = await api().get('/user/conversations', { query: { type: 'whatsapp', per_page: 0 } });
      expect(Object.keys(both.body.errors)).toEqual(['per_page', 'type']);
    });

    it('refuses page=0 in the page form', async () => {
      expect((await api().get('/user/conversations', { query: { page: 0 } })).status).toBe(422);
    });

    it('reads one conversation with {} variables and no extra keys', async () => {
      await sendTemplate(api(), { recipient_name: 'Dee' });
      const [item] = (await api().get('/user/conversations')).body.data;
      expect(Object.keys((await api().get(`/conversations/${item.id}`, { key: null })).body)).toEqual(['status', 'history', 'variables']);
      expect((await api().get(`/conversations/${item.id}`, { key: null })).body.variables).toStrictEqual({});
    });

    it('writes type msgapp in the conversation-ended payload', async () => {
      const assistant = await createAssistant(api(), { conversation_ended_webhook_url: HOOK_URL, conversation_inactivity_timeout: 10 });
      await api().patch('/__sim/msgapp/senders/1', { assistant_id: assistant.id });
      await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: CUSTOMER, text: 'Hi', name: 'Ann' });
      await api().sim.clock.advance('10m');
      expect(captured.map((p) => p.type)).toEqual(['msgapp']);
    });
  },
  capture,
);
