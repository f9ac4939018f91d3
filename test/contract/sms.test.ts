/**
 * SMS (live-platform C.5, C.6), on both transports and both wires: the send with its
 * checks in the documented order, the recipient's normalisation, the 300-code-point body,
 * GSM and UCS-2 segment counting at every edge, the price per segment from the account's
 * rates, the balance charge, the records behind `GET /__sim/sms` and
 * `sim.control.sms.list`, and the state they live in. Expected bodies are literal texts;
 * a refused request is compared through a snapshot.
 */
import { expect, it } from 'vitest';
import { WIRES } from '../../src/core/wire.js';
import { contract, type Api } from '../support/api.js';
import { buy as buyIn } from '../support/records.js';
import { expectAnswer, expectRefused, invalidField, stateOf as state } from '../support/expect.js';

type Body = Record<string, unknown>;
const OTHER_KEY = 'sim_other_key';
const RECIPIENT = '+4915123456789';
const NOW = '2026-03-02T09:00:00.000000Z';

/** A bought number, US unless told (the live wire searches Germany by default, whose numbers take no SMS). */
const buy = (api: Api, options: { country?: string; key?: string } = {}) => buyIn(api, { country: 'US', ...options });

function refused(api: Api, body: unknown, status: number, expected: unknown, key?: string) {
  return expectRefused(api, () => api.post('/user/sms', body, key === undefined ? {} : { key }), status, expected, JSON.stringify(body));
}

async function balance(api: Api, key?: string): Promise<number> {
  return (await api.get('/user/me', key === undefined ? {} : { key })).body.total_balance;
}

/** Sends `body` from the account's SMS-capable number and answers the segments and cost. */
async function send(api: Api, from: number, body: string): Promise<{ segments: number; cost: number }> {
  const res = await api.post('/user/sms', { from, to: RECIPIENT, body });
  expect(res.status, res.text).toBe(200);
  return { segments: res.body.data.segments, cost: res.body.data.cost };
}

for (const wire of WIRES) {
  contract(`live C.5 SMS [${wire} wire]`, (api) => {
    it('sends from an own SMS-capable number with exactly 200, charges 0.05 USD a segment and keeps the record', async () => {
      const number = await buy(api());
      const res = await api().post('/user/sms', { from: number.id, to: RECIPIENT, body: 'Hello' });
      expectAnswer(res, 200, {
        message: 'SMS sent successfully',
        data: { sms_id: 'SMS_1', from: number.phone_number, to: RECIPIENT, body: 'Hello', segments: 1, cost: 0.05, currency: 'USD', status: 'sent' },
      });
      expect(await balance(api())).toBe(99.95);
      const record = { id: 1, account_id: 1, sms_id: 'SMS_1', phone_number_id: number.id, from: number.phone_number, to: RECIPIENT, body: 'Hello', segments: 1, cost: 0.05, currency: 'USD', status: 'sent', created_at: NOW };
      expectAnswer(await api().get('/__sim/sms'), 200, { data: [record] });
      expect(api().sim.control.sms.list()).toStrictEqual({ data: [record] });
      const second = await api().post('/user/sms', { from: number.id, to: RECIPIENT, body: 'Again' });
      expect(second.body.data.sms_id).toBe('SMS_2');
      expect(api().sim.events.history('sms.sent').map((e) => e.data)).toStrictEqual([
        { account_id: 1, sms_id: 'SMS_1', phone_number_id: number.id, to: RECIPIENT, segments: 1 },
        { account_id: 1, sms_id: 'SMS_2', phone_number_id: number.id, to: RECIPIENT, segments: 1 },
      ]);
    });

    it('normalises the recipient: spaces, dashes and parentheses go, a leading 00 becomes +', async () => {
      const { id } = await buy(api());
      const cases: [string, string][] = [
        ['0049 151 2345 6789', '+4915123456789'],
        ['+1 (415) 555-0123', '+14155550123'],
        ['00 44-20-7946-0958', '+442079460958'],
        ['\t+33 6 12 34 56 78 ', '+33612345678'],
      ];
      for (const [to, normalised] of cases) {
        const res = await api().post('/user/sms', { from: id, to, body: 'Hi' });
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.to).toBe(normalised);
      }
    });

    it('refuses a recipient that is not E.164 after normalisation with 400, changing nothing', async () => {
      const { id } = await buy(api());
      for (const to of ['(415) 555-0123', '+0151234567', '+49', 'call me', '+1234567890123456', '0+4915123456789']) {
        await refused(api(), { from: id, to, body: 'Hi' }, 400, { message: 'Invalid phone number format' });
      }
    });

    it('takes a body of 1 and of 300 code points, counting an emoji as one, and refuses 301 or none with 422', async () => {
      const { id } = await buy(api());
      expect((await send(api(), id, 'x')).segments).toBe(1);
      expect(await send(api(), id, 'a'.repeat(300))).toStrictEqual({ segments: 2, cost: 0.1 });
      // 300 emoji are 300 code points and 600 UTF-16 units: ceil(600 / 67) = 9 segments.
      expect(await send(api(), id, '😀'.repeat(300))).toStrictEqual({ segments: 9, cost: 0.45 });
      const tooLong = invalidField('body', 'The body may not be greater than 300 characters.');
      await refused(api(), { from: id, to: RECIPIENT, body: 'a'.repeat(301) }, 422, tooLong);
      await refused(api(), { from: id, to: RECIPIENT, body: '😀'.repeat(301) }, 422, tooLong);
      await refused(api(), { from: id, to: RECIPIENT, body: '' }, 422, invalidField('body', 'The body field is required.'));
    });

    it('counts GSM bodies as 1 segment up to 160 characters, then per 153', async () => {
      const { id } = await buy(api());
      const cases: [string, number][] = [
        ['a'.repeat(160), 1],
        ['a'.repeat(161), 2],
        ['a'.repeat(300), 2],
        // Whitespace inside the body: the live wire trims its ends (live-platform G.3 item 3).
        ['~'.repeat(158) + '\n~', 1],
        ['a' + ' '.repeat(152) + '\r'.repeat(7) + 'a', 2],
      ];
      for (const [body, segments] of cases) expect((await send(api(), id, body)).segments, `${body.length} characters`).toBe(segments);
    });

    it('counts any other body in UTF-16 units: 1 segment up to 70, then per 67', async () => {
      const { id } = await buy(api());
      const cases: [string, number][] = [
        ['ü'.repeat(70), 1],
        ['ü'.repeat(71), 2],
        ['a'.repeat(133) + 'é', 2],
        ['a'.repeat(134) + 'é', 3],
        ['😀'.repeat(35), 1],
        ['😀'.repeat(36), 2],
        ['€' + 'a'.repeat(69), 1],
        ['a\t' + 'a'.repeat(69), 2],
      ];
      for (const [body, segments] of cases) expect((await send(api(), id, body)).segments, JSON.stringify(body.slice(0, 3))).toBe(segments);
    });

    it('prices each segment at the account\'s rates.sms_segment, set through the control API', async () => {
      const { id } = await buy(api());
      const patched = await api().patch('/__sim/accounts/1', { rates: { sms_segment: 0.12 } });
      expect(patched.status).toBe(200);
      expect(patched.body.rates.sms_segment).toBe(0.12);
      expect(await send(api(), id, 'ü'.repeat(135))).toStrictEqual({ segments: 3, cost: 0.36 });
      expect(await balance(api())).toBe(99.64);
      expect((await api().patch('/__sim/accounts/1', { rates: { sms_segment: 0 } })).status).toBe(200);
      expect(await send(api(), id, 'free')).toStrictEqual({ segments: 1, cost: 0 });
      expect(await balance(api())).toBe(99.64);
    });

    it('takes rates.sms_segment from 0 to 1000 and refuses outside with 422, on create and patch', async () => {
      const created = await api().post('/__sim/accounts', { api_key: OTHER_KEY, rates: { sms_segment: 1000 } });
      expect(created.status).toBe(201);
      expect(created.body.rates.sms_segment).toBe(1000);
      for (const [value, text] of [[1000.01, 'The rates.sms segment may not be greater than 1000.'], [-0.01, 'The rates.sms segment must be at least 0.']] as const) {
        const before = state(api());
        expectAnswer(await api().patch('/__sim/accounts/1', { rates: { sms_segment: value } }), 422, invalidField('rates.sms_segment', text));
        expectAnswer(await api().post('/__sim/accounts', { rates: { sms_segment: value } }), 422, invalidField('rates.sms_segment', text));
        expect(state(api())).toBe(before);
      }
    });

    it('refuses a body with a broken field with 422 before looking at the recipient or the number', async () => {
      await refused(api(), { to: 'not a number', body: 'Hi' }, 422, invalidField('from', 'The from field is required.'));
      await refused(api(), { from: '1', to: 'x', body: 'Hi' }, 422, invalidField('from', 'The from must be an integer.'));
      await refused(api(), { from: 999, body: 'Hi' }, 422, invalidField('to', 'The to field is required.'));
      await refused(api(), { from: 999, to: 4915123456789, body: 'Hi' }, 422, invalidField('to', 'The to must be a string.'));
      await refused(api(), { from: 999, to: 'x' }, 422, invalidField('body', 'The body field is required.'));
    });

    it('checks in the documented order: recipient, then the number, its SMS capability, its subscription, the balance', async () => {
      const bought = await buy(api());
      const gb = await buy(api(), { country: 'GB' });
      const sip = api().sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' }).id;
      const released = await buy(api());
      expect((await api().del(`/user/phone-numbers/${released.id}`)).status).toBe(200);
      api().sim.control.accounts.create({ api_key: OTHER_KEY });
      const theirs = await buy(api(), { key: OTHER_KEY });
      // An unknown number with a bad recipient: the recipient is checked first.
      await refused(api(), { from: 999, to: '12345', body: 'Hi' }, 400, { message: 'Invalid phone number format' });
      for (const from of [999, theirs.id]) await refused(api(), { from, to: RECIPIENT, body: 'Hi' }, 400, { message: 'From number not found' });
      for (const from of [gb.id, sip]) await refused(api(), { from, to: RECIPIENT, body: 'Hi' }, 400, { message: 'Phone number is not SMS-capable' });
      await refused(api(), { from: released.id, to: RECIPIENT, body: 'Hi' }, 400, { message: 'Phone number subscription is not active' });
      expect((await api().patch('/__sim/accounts/1', { balance: 0.09 })).status).toBe(200);
      // 161 GSM characters are 2 segments, 0.10 USD: more than the balance.
      await refused(api(), { from: bought.id, to: RECIPIENT, body: 'a'.repeat(161) }, 400, { message: 'Insufficient balance to send SMS' });
      expect(await send(api(), bought.id, 'a'.repeat(160))).toStrictEqual({ segments: 1, cost: 0.05 });
      expect(await balance(api())).toBe(0.04);
    });

    it('sends when the balance equals the cost, leaving exactly 0', async () => {
      const { id } = await buy(api());
      expect((await api().patch('/__sim/accounts/1', { balance: 0.1 })).status).toBe(200);
      expect(await send(api(), id, 'a'.repeat(200))).toStrictEqual({ segments: 2, cost: 0.1 });
      expect(await balance(api())).toBe(0);
      await refused(api(), { from: id, to: RECIPIENT, body: 'one more' }, 400, { message: 'Insufficient balance to send SMS' });
    });

    it('lists the SMS of every account in id order, or of one account with ?account_id; the inspection changes nothing', async () => {
      const mine = await buy(api());
      api().sim.control.accounts.create({ api_key: OTHER_KEY });
      const theirs = await buy(api(), { key: OTHER_KEY });
      await send(api(), mine.id, 'first');
      expect((await api().post('/user/sms', { from: theirs.id, to: RECIPIENT, body: 'second' }, { key: OTHER_KEY })).status).toBe(200);
      await send(api(), mine.id, 'third');
      const before = state(api());
      const all = await api().get('/__sim/sms');
      expect(all.body.data.map((m: Body) => [m.id, m.account_id, m.body])).toEqual([[1, 1, 'first'], [2, 2, 'second'], [3, 1, 'third']]);
      const second = await api().get('/__sim/sms', { query: { account_id: 2 } });
      expect(second.body.data.map((m: Body) => m.sms_id)).toEqual(['SMS_2']);
      expect(api().sim.control.sms.list({ account_id: 1 }).data.map((m) => m.sms_id)).toEqual(['SMS_1', 'SMS_3']);
      expectAnswer(await api().get('/__sim/sms', { query: { account_id: 'x' } }), 422, invalidField('account_id', 'The account id must be an integer.'));
      expect(state(api())).toBe(before);
    });

    it('carries the SMS through a snapshot and restore, and empties them on reset', async () => {
      const { id } = await buy(api());
      await send(api(), id, 'kept');
      const saved = api().sim.snapshot();
      api().sim.reset();
      expect((await api().get('/__sim/sms')).body.data).toEqual([]);
      api().sim.restore(saved);
      expect((await api().get('/__sim/sms')).body.data.map((m: Body) => m.body)).toEqual(['kept']);
      expect((await api().post('/user/sms', { from: id, to: RECIPIENT, body: 'next' })).body.data.sms_id).toBe('SMS_2');
    });
  }, { wire });
}
