/**
 * Message statuses on the clock and the signed read-receipts webhook (live-platform H.4):
 * queued -> sent -> delivered -> read with H.4's default timing, scripted outcomes per
 * recipient, one signed POST per status change to the sender's URL, the secret made and
 * rotated through the control API, the read receipts' own retry rule, the test event.
 */
import { createHmac } from 'node:crypto';
import { beforeEach, expect, it } from 'vitest';
import type { DeliverRequest } from '../../src/engine/webhooks.js';
import { contract, type Api } from '../support/api.js';

const RECIPIENT = '+1234567890';
const RECEIPTS_URL = 'https://hooks.example.test/read-receipts';
/** The read-receipts body's keys, in the reference's order (live-platform H.4). */
const RECEIPT_KEYS = [
  'event',
  'whatsapp_message_id',
  'message_sid',
  'meta_message_id',
  'conversation_id',
  'assistant_id',
  'sender',
  'to',
  'from',
  'direction',
  'status',
  'error_code',
  'error_message',
  'error_description',
  'timestamp',
  'provider_timestamp',
];

interface Received {
  body: string;
  headers: Record<string, string>;
}
const received: Received[] = [];
/** What the attempts of the `sent` receipt answer, in order (200 once they run out, and for every other delivery). */
const answers: number[] = [];
beforeEach(() => {
  received.length = 0;
  answers.length = 0;
});
const deliver = async (req: DeliverRequest) => {
  received.push({ body: req.body, headers: req.headers });
  const sent = req.headers['x-voxsim-event'] === 'read_receipt' && JSON.parse(req.body).status === 'sent';
  return { status: (sent ? answers.shift() : undefined) ?? 200, body: '', duration_ms: 0 };
};

const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const receipts = () => received.filter((r) => r.headers['x-voxsim-event'] === 'read_receipt');
const statuses = () => receipts().map((r) => JSON.parse(r.body).status);

/** Sets the sender's read-receipts URL; answers its secret. */
async function receiptsTo(api: Api, url: string = RECEIPTS_URL): Promise<string> {
  const res = await api.patch('/__sim/msgapp/senders/1', { read_receipts_webhook_url: url });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.read_receipts_webhook_url).toBe(url);
  expect(res.body.read_receipts_signing_secret).toMatch(/^[0-9a-f]{64}$/);
  return res.body.read_receipts_signing_secret;
}

/** Opens the window with a customer message, then sends a freeform message; answers its whatsapp_message_id. */
async function freeform(api: Api, to = RECIPIENT): Promise<number> {
  expect((await api.post('/__sim/msgapp/inbound', { sender_id: 1, from: to, text: 'Hi' })).status).toBe(201);
  const sent = await api.post('/user/whatsapp/send-freeform', { sender_id: 1, recipient_phone: to, message: 'Your table is ready.' });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  return sent.body.whatsapp_message_id;
}

contract(
  'read receipts (live wire)',
  (api) => {
    it('posts sent, delivered and read in order, each signed with the secret the control API gave, keys in the reference order', async () => {
      expect((await api().patch('/__sim/accounts/1', { timezone: 'Europe/Berlin' })).status).toBe(200);
      const secret = await receiptsTo(api());
      const id = await freeform(api());
      await api().sim.clock.advance('1s');
      expect(statuses()).toEqual(['sent']);
      await api().sim.clock.advance('2s');
      expect(statuses()).toEqual(['sent', 'delivered']);
      await api().sim.clock.advance('29s');
      expect(statuses()).toEqual(['sent', 'delivered']);
      await api().sim.clock.advance('1s');
      expect(statuses()).toEqual(['sent', 'delivered', 'read']);
      for (const receipt of receipts()) {
        expect(receipt.headers['x-signature-256']).toBe(sign(secret, receipt.body));
        expect(Object.keys(JSON.parse(receipt.body))).toEqual(RECEIPT_KEYS);
      }
      const first = JSON.parse(receipts()[0]!.body);
      const conversation = (await api().get('/user/conversations', { query: { type: 'whatsapp' } })).body.data[0];
      expect(first).toStrictEqual({
        event: 'message_status',
        whatsapp_message_id: id,
        message_sid: expect.stringMatching(/^SM[0-9a-f]{32}$/),
        meta_message_id: null,
        conversation_id: conversation.id,
        assistant_id: null,
        sender: { id: 1, phone_number: '+14155550150', display_name: 'Voxsim Test Account Support' },
        to: RECIPIENT,
        from: '+14155550150',
        direction: 'outbound',
        status: 'sent',
        error_code: null,
        error_message: null,
        error_description: null,
        // The account's timezone, with its offset.
        timestamp: '2026-03-02T10:00:01+01:00',
        provider_timestamp: null,
      });
      // Nothing more happens: a status never goes backward or repeats.
      await api().sim.clock.advance('1h');
      expect(statuses()).toEqual(['sent', 'delivered', 'read']);
    });

    it('shows each message with its status history in GET /__sim/msgapp/messages', async () => {
      const id = await freeform(api());
      await api().sim.clock.advance('1m');
      const res = await api().get('/__sim/msgapp/messages', { query: { sender_id: 1, recipient_phone: RECIPIENT } });
      expect(res.status).toBe(200);
      const sent = res.body.data.find((m: { whatsapp_message_id: number }) => m.whatsapp_message_id === id);
      expect(sent).toMatchObject({
        direction: 'outbound',
        kind: 'freeform',
        to: RECIPIENT,
        from: '+14155550150',
        status: 'read',
        status_history: [
          { status: 'queued', at: '2026-03-02T09:00:00Z' },
          { status: 'sent', at: '2026-03-02T09:00:01Z' },
          { status: 'delivered', at: '2026-03-02T09:00:03Z' },
          { status: 'read', at: '2026-03-02T09:00:33Z' },
        ],
        error_code: null,
      });
      expect(res.body.data[0]).toMatchObject({ direction: 'inbound', kind: 'customer', status: 'received', body: 'Hi', status_history: [] });
    });

    it('a rotated secret signs the next receipts, and the old one no longer verifies them', async () => {
      const old = await receiptsTo(api());
      const rotated = await api().patch('/__sim/msgapp/senders/1', { regenerate_signing_secret: true });
      const secret = rotated.body.read_receipts_signing_secret;
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(secret).not.toBe(old);
      // Setting the URL again keeps the secret.
      expect((await api().patch('/__sim/msgapp/senders/1', { read_receipts_webhook_url: RECEIPTS_URL })).body.read_receipts_signing_secret).toBe(secret);
      await freeform(api());
      await api().sim.clock.advance('1m');
      expect(receipts()).toHaveLength(3);
      for (const receipt of receipts()) {
        expect(receipt.headers['x-signature-256']).toBe(sign(secret, receipt.body));
        expect(receipt.headers['x-signature-256']).not.toBe(sign(old, receipt.body));
      }
    });

    it('a scripted failure gives sent then failed with 63016 and the reference texts, and no delivered or read', async () => {
      await receiptsTo(api());
      const put = await api().put('/__sim/msgapp/outcomes', { rules: [{ match: { recipient_phone: RECIPIENT }, outcomes: ['failed'] }] });
      expect(put.body).toStrictEqual({ rules: [{ match: { recipient_phone: RECIPIENT }, outcomes: ['failed'] }] });
      await freeform(api());
      await api().sim.clock.advance('1h');
      expect(statuses()).toEqual(['sent', 'failed']);
      const failed = JSON.parse(receipts()[1]!.body);
      expect(failed).toMatchObject({
        status: 'failed',
        error_code: 63016,
        error_message: 'Template message 24h window expired',
        error_description: 'Template message 24h window expired - customer must reply first',
        timestamp: '2026-03-02T09:00:03Z',
      });
      const listed = (await api().get('/__sim/msgapp/messages', { query: { recipient_phone: RECIPIENT } })).body.data.at(-1);
      expect(listed.status_history.map((h: { status: string }) => h.status)).toEqual(['queued', 'sent', 'failed']);
      expect(listed).toMatchObject({ error_code: 63016, error_message: 'Template message 24h window expired' });
    });

    it('scripts outcome objects per recipient as a sequence whose last repeats: undelivered with a code after a delay, delivered without a read', async () => {
      await receiptsTo(api());
      await api().put('/__sim/msgapp/outcomes', { rules: [{ match: { recipient_phone: RECIPIENT }, outcomes: [{ kind: 'undelivered', error_code: 30008, after: 10 }, 'delivered'] }] });
      await freeform(api());
      await api().sim.clock.advance('10s');
      expect(statuses()).toEqual(['sent']);
      await api().sim.clock.advance('1s');
      expect(statuses()).toEqual(['sent', 'undelivered']);
      expect(JSON.parse(receipts()[1]!.body)).toMatchObject({ error_code: 30008, error_message: 'Provider error 30008', error_description: 'Provider error 30008' });
      for (let i = 0; i < 2; i++) {
        await api().post('/user/whatsapp/send-freeform', { sender_id: 1, recipient_phone: RECIPIENT, message: `again ${i}` });
        await api().sim.clock.advance('1h');
      }
      expect(statuses()).toEqual(['sent', 'undelivered', 'sent', 'delivered', 'sent', 'delivered']);
    });

    it('undelivered defaults to code 30003', async () => {
      await receiptsTo(api());
      api().sim.control.msgapp.outcomes.forRecipient(RECIPIENT, ['undelivered']);
      await freeform(api());
      await api().sim.clock.advance('1m');
      expect(JSON.parse(receipts()[1]!.body)).toMatchObject({ status: 'undelivered', error_code: 30003, error_message: 'Provider error 30003' });
    });

    it('a receiver answering 400 gets one attempt: a 4xx is not retried', async () => {
      await receiptsTo(api());
      answers.push(400);
      await freeform(api());
      await api().sim.clock.advance('1s');
      await api().sim.clock.advance('10m');
      const deliveries = (await api().get('/__sim/webhooks/deliveries', { query: { kind: 'read_receipt' } })).body.data;
      expect(deliveries[0]).toMatchObject({ kind: 'read_receipt', state: 'failed', next_attempt_at: null });
      expect(deliveries[0].attempts).toEqual([{ at: '2026-03-02T09:00:01Z', status: 400, error: null, duration_ms: 0 }]);
      expect(deliveries[0].headers['x-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    });

    it('a receiver answering 500 gets attempts at 0, 30, 90 and 210 s; 429 is retried too', async () => {
      await receiptsTo(api());
      answers.push(500, 500, 500, 500);
      await freeform(api());
      await api().sim.clock.advance('1s');
      await api().sim.clock.advance('10m');
      const [first] = (await api().get('/__sim/webhooks/deliveries', { query: { kind: 'read_receipt' } })).body.data;
      expect(first.attempts.map((a: { at: string }) => a.at)).toEqual(['2026-03-02T09:00:01Z', '2026-03-02T09:00:31Z', '2026-03-02T09:01:31Z', '2026-03-02T09:03:31Z']);
      expect(first.state).toBe('failed');
      answers.push(429);
      api().sim.control.webhooks.resend(first.id);
      await api().sim.clock.advance('1m');
      const resent = (await api().get('/__sim/webhooks/deliveries', { query: { kind: 'read_receipt' } })).body.data.at(-1);
      expect(resent).toMatchObject({ resent_from: first.id, state: 'delivered' });
      expect(resent.attempts.map((a: { status: number }) => a.status)).toEqual([429, 200]);
    });

    it('forced failures by kind read_receipt follow the same rule: 410 once, timeout retried', async () => {
      await receiptsTo(api());
      expect((await api().post('/__sim/webhooks/failures', { kind: 'read_receipt', times: 1, with: 410 })).status).toBe(201);
      expect((await api().post('/__sim/webhooks/failures', { kind: 'read_receipt', times: 1, with: 'timeout' })).status).toBe(201);
      await freeform(api());
      await api().sim.clock.advance('1h');
      const deliveries = (await api().get('/__sim/webhooks/deliveries', { query: { kind: 'read_receipt' } })).body.data;
      expect(deliveries.map((d: { state: string; attempts: unknown[] }) => [d.state, d.attempts.length])).toEqual([
        ['failed', 1],
        ['delivered', 2],
        ['delivered', 1],
      ]);
    });

    it('a post-call style kind keeps retrying a 4xx: only the read receipts spare it', async () => {
      const { KIND_RULES } = await import('../../src/engine/webhooks.js');
      expect([400, 404, 410].map((s) => KIND_RULES.conversation_ended.retries(s))).toEqual([true, true, true]);
      expect([400, 404, 410, 429, 500, 503, null].map((s) => KIND_RULES.read_receipt.retries(s))).toEqual([false, false, false, true, true, true, true]);
    });

    it('sends no receipt for a sender without a URL, and none after the URL is removed', async () => {
      await freeform(api());
      await api().sim.clock.advance('1m');
      expect(receipts()).toEqual([]);
      await receiptsTo(api());
      await api().patch('/__sim/msgapp/senders/1', { read_receipts_webhook_url: null });
      await api().post('/user/whatsapp/send-freeform', { sender_id: 1, recipient_phone: RECIPIENT, message: 'again' });
      await api().sim.clock.advance('1m');
      expect(receipts()).toEqual([]);
    });

    it('the test event carries the reference example values, the sender own, and test: true, signed', async () => {
      const secret = await receiptsTo(api());
      const res = await api().post('/__sim/msgapp/senders/1/test-receipt', {});
      expect(res.status).toBe(201);
      expect(res.body).toStrictEqual({ delivery_id: expect.any(Number) });
      await api().sim.clock.advance(0);
      const [test] = receipts();
      const body = JSON.parse(test!.body);
      expect(body).toMatchObject({ event: 'message_status', whatsapp_message_id: 12345, status: 'delivered', to: RECIPIENT, from: '+14155550150', sender: { id: 1 }, test: true });
      expect(Object.keys(body)).toEqual([...RECEIPT_KEYS, 'test']);
      expect(test!.headers['x-signature-256']).toBe(sign(secret, test!.body));
    });

    it('refuses a bad URL, a regenerate that is not true, and a test event without a URL, changing nothing', async () => {
      const bad = await api().patch('/__sim/msgapp/senders/1', { read_receipts_webhook_url: 'ftp://x' });
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toHaveProperty('read_receipts_webhook_url');
      const notTrue = await api().patch('/__sim/msgapp/senders/1', { regenerate_signing_secret: false });
      expect(notTrue.status).toBe(422);
      expect(notTrue.body.errors.regenerate_signing_secret).toEqual(['The regenerate signing secret must be true.']);
      const test = await api().post('/__sim/msgapp/senders/1/test-receipt', {});
      expect(test.status).toBe(422);
      expect(test.body.errors).toHaveProperty('read_receipts_webhook_url');
      const sender = (await api().get('/__sim/msgapp/senders', { query: { account_id: 1 } })).body.data[0];
      expect(sender).toMatchObject({ id: 1, read_receipts_webhook_url: null, read_receipts_signing_secret: null });
      expect((await api().post('/__sim/msgapp/senders/99/test-receipt', {})).status).toBe(404);
    });
  },
  { wire: 'live', deliver },
);

contract(
  'message statuses (spec wire)',
  (api) => {
    it('template sends move on the clock too, and the spec wire signs the same way', async () => {
      const secret = (await api().patch('/__sim/msgapp/senders/1', { read_receipts_webhook_url: RECEIPTS_URL })).body.read_receipts_signing_secret;
      const sent = await api().post('/user/msgapp/send', { sender_id: 1, template_id: 2, recipient_phone: '+14155550123' });
      expect(sent.body.status).toBe('queued');
      await api().sim.clock.advance('1m');
      expect(statuses()).toEqual(['sent', 'delivered', 'read']);
      expect(receipts().every((r) => r.headers['x-signature-256'] === sign(secret, r.body))).toBe(true);
    });

    it('the same seed, requests and clock moves give byte-identical deliveries', async () => {
      const run = async () => {
        received.length = 0;
        api().sim.reset();
        await api().patch('/__sim/msgapp/senders/1', { read_receipts_webhook_url: RECEIPTS_URL });
        await api().post('/user/msgapp/send', { sender_id: 1, template_id: 2, recipient_phone: '+14155550123' });
        await api().sim.clock.advance('1m');
        return received.map((r) => `${r.headers['x-signature-256']} ${r.body}`);
      };
      const first = await run();
      expect(first).toHaveLength(3);
      expect(await run()).toEqual(first);
    });
  },
  { deliver },
);
