/**
 * SIP trunks (live-platform C.4), on both transports and both wires: create, list, read
 * and update with every field rule at its edges, the trunk ids and their re-provisioning,
 * duplicates (409) before held numbers (422), the family 404 (unknown, foreign, not a
 * `sip` number), deletion through the phone-number release, and the default trunk of a
 * `sip` number made through the control API. Expected bodies are literal texts; a refused
 * request is compared through a snapshot.
 */
import { expect, it } from 'vitest';
import { WIRES } from '../../src/core/wire.js';
import { createSimulator } from '../../src/simulator.js';
import { contract, START, type Api } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { buy } from '../support/records.js';
import { expectAnswer, expectRefused, invalidField } from '../support/expect.js';

type Body = Record<string, unknown>;
const OTHER_KEY = 'sim_other_key';
const TRUNKS = '/user/phone-numbers/sip-trunks';
const TRUNK_ID = /^ST_[a-z0-9]{12}$/;
const NOT_FOUND = { error: 'SIP trunk not found.' };
const DUPLICATE = { error: 'A SIP trunk with the same phone number, username, and address already exists.' };
const NOW = '2026-03-02T09:00:00.000000Z';

/** A `number` trunk on a Berlin number, authorised by IP. */
const NUMBER_TRUNK: Body = {
  sip_trunk_type: 'number',
  phone_number: '+493012345678',
  nickname: 'Berlin office',
  sip_username: 'berlin',
  sip_password: 'pa55word',
  sip_address: 'sip.carrier.example.test',
  sip_calling_format: 'e164',
  inbound_authorization_type: 'ip',
  allowed_inbound_ips: ['203.0.113.10', '2001:db8::1'],
  country_code: 'US',
  outbound_proxy: true,
};
/** An `extension` trunk on a PBX, authorised by credentials. */
const EXTENSION_TRUNK: Body = {
  sip_trunk_type: 'extension',
  phone_number: '1001',
  sip_username: 'ext-1001',
  sip_password: 'secret',
  sip_address: '10.0.0.5',
  sip_calling_format: 'national',
  inbound_authorization_type: 'auth',
  country_code: 'gb',
};


function refused(api: Api, method: string, path: string, body: unknown, status: number, expected: unknown) {
  return expectRefused(api, () => api.call(method, path, body), status, expected, `${method} ${path} ${JSON.stringify(body)}`);
}

async function createTrunk(api: Api, body: Body, key?: string): Promise<Body> {
  const res = await api.post(TRUNKS, body, key === undefined ? {} : { key });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

for (const wire of WIRES) {
  contract(`live C.4 SIP trunks [${wire} wire]`, (api) => {
    it('creates a number trunk with 201: the number\'s own country wins, the password is never shown, two trunk ids', async () => {
      const res = await api().post(TRUNKS, NUMBER_TRUNK);
      expect(res.status, res.text).toBe(201);
      expect(res.body.message).toBe('SIP trunk created successfully.');
      const { inbound_trunk_id, outbound_trunk_id, ...rest } = res.body.data;
      expect(rest).toStrictEqual({
        id: 1,
        phone_number: '+493012345678',
        nickname: 'Berlin office',
        sip_username: 'berlin',
        sip_address: 'sip.carrier.example.test',
        sip_calling_format: 'e164',
        inbound_authorization_type: 'ip',
        allowed_inbound_ips: ['203.0.113.10', '2001:db8::1'],
        outbound_proxy: true,
        country_code: 'DE',
        created_at: NOW,
        updated_at: NOW,
      });
      expect(inbound_trunk_id).toMatch(TRUNK_ID);
      expect(outbound_trunk_id).toMatch(TRUNK_ID);
      expect(inbound_trunk_id).not.toBe(outbound_trunk_id);
      expect(res.text).not.toContain('pa55word');
      expect(Object.keys(res.body.data)).toEqual([
        'id', 'phone_number', 'nickname', 'sip_username', 'sip_address', 'sip_calling_format', 'inbound_authorization_type', 'allowed_inbound_ips',
        'outbound_proxy', 'country_code', 'inbound_trunk_id', 'outbound_trunk_id', 'created_at', 'updated_at',
      ]);
    });

    it('creates an extension trunk: the country as given, in capitals; outbound_proxy false and no addresses by default', async () => {
      const data = await createTrunk(api(), { ...EXTENSION_TRUNK, allowed_inbound_ips: ['10.0.0.9'] });
      expect(data).toMatchObject({ id: 1, phone_number: '1001', nickname: null, country_code: 'GB', allowed_inbound_ips: null, outbound_proxy: false, inbound_authorization_type: 'auth' });
    });

    it('stores an empty or null nickname as null, and shows a nickname set through PUT /user/phone-numbers/{id}', async () => {
      expect((await createTrunk(api(), { ...EXTENSION_TRUNK, nickname: '' })).nickname).toBeNull();
      const second = await createTrunk(api(), { ...EXTENSION_TRUNK, sip_username: 'ext-2', nickname: null });
      expect(second.nickname).toBeNull();
      expect((await api().put(`/user/phone-numbers/${second.id}`, { nickname: 'Lobby' })).status).toBe(200);
      expect((await api().get(`${TRUNKS}/${second.id}`)).body.data.nickname).toBe('Lobby');
      expect((await api().put(`${TRUNKS}/${second.id}`, { nickname: '' })).body.data.nickname).toBeNull();
    });

    it('lists trunks in id order without their trunk ids, and only sip numbers', async () => {
      await buy(api());
      await createTrunk(api(), EXTENSION_TRUNK);
      await createTrunk(api(), NUMBER_TRUNK);
      const res = await api().get(TRUNKS);
      expect(res.status).toBe(200);
      expect(res.body.data.map((t: Body) => [t.id, t.phone_number])).toEqual([[2, '1001'], [3, '+493012345678']]);
      for (const trunk of res.body.data) {
        expect(trunk).not.toHaveProperty('inbound_trunk_id');
        expect(trunk).not.toHaveProperty('outbound_trunk_id');
        expect(trunk).not.toHaveProperty('sip_password');
      }
    });

    it('lists a trunk in /user/phone-numbers/all as a sip number, not SMS-capable, without subscription, in its country\'s region', async () => {
      await createTrunk(api(), NUMBER_TRUNK);
      const item = (await api().get('/user/phone-numbers/all')).body.data[0];
      expect(item).toMatchObject({ id: 1, phone_number: '+493012345678', country_code: 'DE', type: 'sip', type_label: wire === 'spec' ? 'SIP trunk' : 'SIP Trunk', sms_capable: false, region: 'ie1', has_active_subscription: false });
    });

    it('reads one trunk with its trunk ids; unknown, foreign, bought and caller-ID numbers are its 404', async () => {
      const created = await createTrunk(api(), NUMBER_TRUNK);
      expectAnswer(await api().get(`${TRUNKS}/${created.id}`), 200, { data: created });
      const bought = await buy(api());
      const callerId = api().sim.control.phoneNumbers.add({ account_id: 1, type: 'caller_id', phone_number: '+14155550190' }).id;
      api().sim.control.accounts.create({ api_key: OTHER_KEY });
      const theirs = await createTrunk(api(), EXTENSION_TRUNK, OTHER_KEY);
      for (const id of [bought.id, callerId, theirs.id, 999, 'abc']) {
        expectAnswer(await api().get(`${TRUNKS}/${id}`), 404, NOT_FOUND);
        await refused(api(), 'PUT', `${TRUNKS}/${id}`, { nickname: 'Mine now' }, 404, NOT_FOUND);
      }
    });

    it('refuses each broken field with 422 on it, changing nothing', async () => {
      const rows: [Body, string, string][] = [
        [{ sip_trunk_type: 'trunk' }, 'sip_trunk_type', 'The selected sip trunk type is invalid.'],
        [{ sip_trunk_type: undefined }, 'sip_trunk_type', 'The sip trunk type field is required.'],
        [{ phone_number: undefined }, 'phone_number', 'The phone number field is required.'],
        [{ phone_number: '030 1234' }, 'phone_number', 'The phone number must be a phone number in E.164 format.'],
        [{ sip_trunk_type: 'extension', phone_number: '1234567890123456' }, 'phone_number', 'The phone number must be between 1 and 15 characters.'],
        [{ sip_trunk_type: 'extension', phone_number: '10 01' }, 'phone_number', 'The phone number may not contain whitespace.'],
        [{ nickname: 'n'.repeat(51) }, 'nickname', 'The nickname may not be greater than 50 characters.'],
        [{ sip_username: 'ab' }, 'sip_username', 'The sip username must be between 3 and 128 characters.'],
        [{ sip_username: 'u'.repeat(129) }, 'sip_username', 'The sip username must be between 3 and 128 characters.'],
        [{ sip_password: 'pw' }, 'sip_password', 'The sip password must be between 3 and 255 characters.'],
        [{ sip_password: 'p'.repeat(256) }, 'sip_password', 'The sip password must be between 3 and 255 characters.'],
        [{ sip_address: 'sip:carrier.example.test' }, 'sip_address', 'The sip address must be a host name or IP address, without scheme or port.'],
        [{ sip_address: 'carrier.example.test:5060' }, 'sip_address', 'The sip address must be a host name or IP address, without scheme or port.'],
        [{ sip_address: 'https://carrier.example.test' }, 'sip_address', 'The sip address must be a host name or IP address, without scheme or port.'],
        [{ sip_calling_format: 'E164' }, 'sip_calling_format', 'The selected sip calling format is invalid.'],
        [{ inbound_authorization_type: 'token' }, 'inbound_authorization_type', 'The selected inbound authorization type is invalid.'],
        [{ allowed_inbound_ips: undefined }, 'allowed_inbound_ips', 'The allowed inbound ips field is required when inbound authorization type is ip.'],
        [{ allowed_inbound_ips: null }, 'allowed_inbound_ips', 'The allowed inbound ips field is required when inbound authorization type is ip.'],
        [{ allowed_inbound_ips: [] }, 'allowed_inbound_ips', 'The allowed inbound ips must have at least 1 items.'],
        [{ allowed_inbound_ips: ['203.0.113.300'] }, 'allowed_inbound_ips.0', 'The allowed inbound ips.0 must be a valid IP address.'],
        [{ country_code: 'USA' }, 'country_code', 'The country code must be two letters.'],
        [{ outbound_proxy: 'yes' }, 'outbound_proxy', 'The outbound proxy field must be true or false.'],
      ];
      for (const [change, field, text] of rows) {
        await refused(api(), 'POST', TRUNKS, { ...NUMBER_TRUNK, ...change }, 422, invalidField(field, text));
      }
    });

    it('takes the limits at their edges: 15-character extensions, 3 and 128/255-character credentials, 50-character nicknames, IP hosts', async () => {
      const edges: Body[] = [
        { sip_trunk_type: 'extension', phone_number: '123456789012345', country_code: 'DE' },
        { sip_trunk_type: 'extension', phone_number: '1', country_code: 'DE' },
        { sip_trunk_type: 'extension', phone_number: '2', sip_username: 'abc', sip_password: 'pwd', country_code: 'DE' },
        { sip_trunk_type: 'extension', phone_number: '3', sip_username: 'u'.repeat(128), sip_password: 'p'.repeat(255), nickname: 'n'.repeat(50), country_code: 'DE' },
        { sip_trunk_type: 'extension', phone_number: '4', sip_address: '2001:db8::5', country_code: 'DE' },
      ];
      for (const edge of edges) await createTrunk(api(), { ...NUMBER_TRUNK, ...edge });
      expect((await api().get(TRUNKS)).body.data).toHaveLength(edges.length);
    });

    it('refuses the same number, username and address again with 409, before the held-number 422', async () => {
      await createTrunk(api(), NUMBER_TRUNK);
      await refused(api(), 'POST', TRUNKS, NUMBER_TRUNK, 409, DUPLICATE);
      // Same number, another username: not a duplicate, but the number is held.
      await refused(api(), 'POST', TRUNKS, { ...NUMBER_TRUNK, sip_username: 'berlin-2' }, 422, invalidField('phone_number', 'The phone number has already been taken.'));
      // Extensions are not platform numbers: the same one on another username is another trunk.
      await createTrunk(api(), EXTENSION_TRUNK);
      await refused(api(), 'POST', TRUNKS, EXTENSION_TRUNK, 409, DUPLICATE);
      await createTrunk(api(), { ...EXTENSION_TRUNK, sip_username: 'ext-1001b' });
    });

    it('refuses a number trunk on a number any record holds, of this account or another, with 422 on phone_number', async () => {
      const bought = await buy(api());
      api().sim.control.accounts.create({ api_key: OTHER_KEY });
      api().sim.control.phoneNumbers.add({ account_id: 2, type: 'caller_id', phone_number: '+14155550190' });
      for (const phone_number of [bought.phone_number, '+14155550190']) {
        await refused(api(), 'POST', TRUNKS, { ...NUMBER_TRUNK, phone_number }, 422, invalidField('phone_number', 'The phone number has already been taken.'));
      }
    });

    it('updates partially with 200; each change re-provisions only the trunks that depend on it', async () => {
      const created = await createTrunk(api(), NUMBER_TRUNK);
      let last = { inbound: created.inbound_trunk_id, outbound: created.outbound_trunk_id };
      const cases: [Body, boolean, boolean][] = [
        [{ nickname: 'Renamed' }, false, false],
        [{ sip_calling_format: '+e164' }, false, false],
        [{ country_code: 'FR' }, false, false],
        [{ sip_address: 'sip2.carrier.example.test' }, false, true],
        [{ outbound_proxy: false }, false, true],
        [{ allowed_inbound_ips: ['198.51.100.7'] }, true, false],
        [{ inbound_authorization_type: 'auth' }, true, false],
        [{ sip_username: 'berlin-main' }, true, true],
        [{ sip_password: 'n3w-pass' }, true, true],
        [{ phone_number: '+493012345679' }, true, true],
        [{ sip_username: 'berlin-main' }, false, false],
        [{ sip_trunk_type: 'number' }, false, false],
      ];
      for (const [change, inbound, outbound] of cases) {
        const res = await api().put(`${TRUNKS}/${created.id}`, change);
        expect(res.status, `${JSON.stringify(change)}: ${res.text}`).toBe(200);
        expect(res.body.message).toBe('SIP trunk updated successfully.');
        const ids = { inbound: res.body.data.inbound_trunk_id, outbound: res.body.data.outbound_trunk_id };
        expect(ids.inbound !== last.inbound, `inbound after ${JSON.stringify(change)}`).toBe(inbound);
        expect(ids.outbound !== last.outbound, `outbound after ${JSON.stringify(change)}`).toBe(outbound);
        expect(ids.inbound).toMatch(TRUNK_ID);
        last = ids;
      }
      const read = (await api().get(`${TRUNKS}/${created.id}`)).body.data;
      expect(read).toMatchObject({ phone_number: '+493012345679', nickname: 'Renamed', sip_username: 'berlin-main', sip_address: 'sip2.carrier.example.test', sip_calling_format: '+e164', inbound_authorization_type: 'auth', allowed_inbound_ips: null, outbound_proxy: false, country_code: 'DE' });
    });

    it('stamps updated_at with the clock on update, keeping created_at', async () => {
      const created = await createTrunk(api(), EXTENSION_TRUNK);
      await api().sim.clock.advance('90s');
      const res = await api().put(`${TRUNKS}/${created.id}`, { nickname: 'Desk' });
      expect([res.body.data.created_at, res.body.data.updated_at]).toEqual([NOW, '2026-03-02T09:01:30.000000Z']);
    });

    it('refuses a type change, an ip switch without addresses, a duplicate and a held number on update, changing nothing', async () => {
      const trunk = await createTrunk(api(), EXTENSION_TRUNK);
      await createTrunk(api(), { ...EXTENSION_TRUNK, sip_username: 'ext-other' });
      const bought = await buy(api());
      const number = await createTrunk(api(), NUMBER_TRUNK);
      const path = `${TRUNKS}/${trunk.id}`;
      await refused(api(), 'PUT', path, { sip_trunk_type: 'number' }, 422, invalidField('sip_trunk_type', 'The sip trunk type cannot be changed.'));
      await refused(api(), 'PUT', path, { inbound_authorization_type: 'ip' }, 422, invalidField('allowed_inbound_ips', 'The allowed inbound ips field is required when inbound authorization type is ip.'));
      await refused(api(), 'PUT', path, { sip_username: 'ext-other' }, 409, DUPLICATE);
      await refused(api(), 'PUT', path, { phone_number: '1 2' }, 422, invalidField('phone_number', 'The phone number may not contain whitespace.'));
      await refused(api(), 'PUT', `${TRUNKS}/${number.id}`, { phone_number: bought.phone_number }, 422, invalidField('phone_number', 'The phone number has already been taken.'));
      await refused(api(), 'PUT', path, { sip_password: 'p'.repeat(256) }, 422, invalidField('sip_password', 'The sip password must be between 3 and 255 characters.'));
    });

    it('deletes a trunk through DELETE /user/phone-numbers/{id} at once, letting go of its assistants', async () => {
      const trunk = await createTrunk(api(), NUMBER_TRUNK);
      const assistant = await api().post('/user/assistant', pipelineAssistant({ phone_number_id: trunk.id }, api().sim.wire));
      expect(assistant.status).toBe(201);
      expectAnswer(await api().del(`/user/phone-numbers/${trunk.id}`), 200, { message: 'Phone number deleted successfully.' });
      expectAnswer(await api().get(`${TRUNKS}/${trunk.id}`), 404, NOT_FOUND);
      expect((await api().get(TRUNKS)).body.data).toEqual([]);
      expect((await api().get(`/user/assistant/${assistant.body.data.id}`)).body.data.phone_number_id).toBeNull();
      // The number is free again.
      await createTrunk(api(), NUMBER_TRUNK);
    });

    it('gives a sip number made through the control API the default trunk fields and generated trunk ids', async () => {
      const made = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550100' });
      expect(made.status).toBe(201);
      const res = await api().get(`${TRUNKS}/${made.body.id}`);
      expect(res.status).toBe(200);
      const { inbound_trunk_id, outbound_trunk_id, ...rest } = res.body.data;
      expect(rest).toStrictEqual({
        id: made.body.id,
        phone_number: '+14155550100',
        nickname: null,
        sip_username: null,
        sip_address: null,
        sip_calling_format: '+e164',
        inbound_authorization_type: 'auth',
        allowed_inbound_ips: null,
        outbound_proxy: false,
        country_code: 'US',
        created_at: NOW,
        updated_at: NOW,
      });
      expect([inbound_trunk_id, outbound_trunk_id].every((id) => TRUNK_ID.test(id))).toBe(true);
      // Its settings can be completed through the update.
      const completed = await api().put(`${TRUNKS}/${made.body.id}`, { sip_username: 'front', sip_password: 'desk-pass', sip_address: 'pbx.example.test' });
      expect(completed.body.data).toMatchObject({ sip_username: 'front', sip_address: 'pbx.example.test' });
      expect(completed.body.data.inbound_trunk_id).not.toBe(inbound_trunk_id);
    });

    it('carries trunks through a snapshot and restore, and empties them on reset', async () => {
      const trunk = await createTrunk(api(), NUMBER_TRUNK);
      const saved = api().sim.snapshot();
      api().sim.reset();
      expect((await api().get(TRUNKS)).body.data).toEqual([]);
      api().sim.restore(saved);
      expectAnswer(await api().get(`${TRUNKS}/${trunk.id}`), 200, { data: trunk });
    });
  }, { wire });
}

it('derives trunk ids from the seed alone: the same seed gives the same ids, and nothing else drawn changes', async () => {
  const run = async (withTrunk: boolean) => {
    const sim = createSimulator({ seed: 5, startAt: START });
    const call = async (method: string, path: string, body: unknown) =>
      (await sim.handle({ method, path, headers: { authorization: 'Bearer sim_test_key' }, body: JSON.stringify(body) })).body as { data: Body };
    const trunk = withTrunk ? (await call('POST', TRUNKS, NUMBER_TRUNK)).data : undefined;
    await call('POST', '/user/assistant', pipelineAssistant());
    const assistant = (await sim.handle({ method: 'GET', path: '/user/assistants', headers: { authorization: 'Bearer sim_test_key' } })).body as Body[];
    return { trunk, uuid: assistant[0]!.uuid };
  };
  const first = await run(true);
  const again = await run(true);
  const without = await run(false);
  expect(again.trunk).toStrictEqual(first.trunk);
  expect(first.uuid).toBe(without.uuid);
  const other = createSimulator({ seed: 6, startAt: START });
  const res = await other.handle({ method: 'POST', path: TRUNKS, headers: { authorization: 'Bearer sim_test_key' }, body: JSON.stringify(NUMBER_TRUNK) });
  expect((res.body as { data: Body }).data.inbound_trunk_id).not.toBe(first.trunk!.inbound_trunk_id);
});
