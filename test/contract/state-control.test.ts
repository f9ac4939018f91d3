/**
 * The staging side of the control API over both transports (issue 6, items 4 and 5;
 * ARCHITECTURE §6): `GET/PUT /__sim/state`, the request journal `GET /__sim/requests`
 * with its bound, and the admin token that guards every `/__sim` route.
 */
import { expect, it } from 'vitest';
import { SNAPSHOT_FORMAT } from '../../src/simulator.js';
import { VERSION } from '../../src/version.js';
import { contract, START, type Api } from '../support/api.js';
import { damagedSnapshot } from '../support/expect.js';
import { nested, pipelineAssistant } from '../support/fixtures.js';

const START_MS = Date.parse(START);
const FORMAT_MESSAGE = 'The format must be "voxsim-snapshot/1" (the body of GET /__sim/state).';
const CLOCK_TIME_PROBLEM = 'must be a time in whole milliseconds from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z (0 to 253370764800000)';
const UNAUTHENTICATED = { message: 'Unauthenticated.' };
const ADMIN_TOKEN = 's3cret';

async function createAssistant(api: Api, name: string): Promise<number> {
  const res = await api.post('/user/assistant', pipelineAssistant({ name }));
  expect(res.status).toBe(201);
  return res.body.data.id as number;
}

/** The names of the default account's assistants. */
async function assistantNames(api: Api): Promise<string[]> {
  const res = await api.get('/user/assistants/get');
  expect(res.status).toBe(200);
  return (res.body.data as { name: string }[]).map((a) => a.name);
}

/** What a rejected state import must leave as it was: assistants, the clock and its queue. */
async function observable(api: Api): Promise<unknown> {
  return { assistants: (await api.get('/user/assistants/get')).body, clock: (await api.get('/__sim/clock')).body };
}

contract('control: GET /__sim/state', (api) => {
  it('exports the snapshot format, version, seed, start and the clock with its time and queue', async () => {
    const res = await api().get('/__sim/state');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      format: 'voxsim-snapshot/1',
      version: VERSION,
      seed: 1,
      start: START_MS,
      clock: { now: START_MS, mode: 'manual', speed: 1, events: expect.any(Array) },
    });
  });

  it('exports every part of the state: tables, random position, webhooks, scripts and faults', async () => {
    const res = await api().get('/__sim/state');
    expect(Object.keys(res.body).sort()).toEqual(['catalog', 'clock', 'db', 'faults', 'format', 'message_outcomes', 'outcomes', 'random', 'replies', 'seed', 'start', 'version', 'webhooks']);
    expect(res.body.db.accounts.rows).toEqual([expect.objectContaining({ id: 1, api_key: 'sim_test_key' })]);
    // issue 27: no catalog document in force: each wire's own catalog.
    expect(res.body.catalog).toBeNull();
    expect(res.body.random).toEqual([expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)]);
  });

  it('exports what was created, with pending events in the queue', async () => {
    await createAssistant(api(), 'Exported');
    await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', text: 'Hi' });
    const res = await api().get('/__sim/state');
    expect(res.body.db.assistants.rows.map((a: { name: string }) => a.name)).toEqual(['Exported']);
    expect(res.body.clock.events).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'msgapp.session_close', at: START_MS + 86_400_000 })]));
  });

  it('answers the same snapshot as sim.snapshot() in-process', async () => {
    const res = await api().get('/__sim/state');
    expect(res.body).toStrictEqual(JSON.parse(JSON.stringify(api().sim.snapshot())));
  });
});

contract('control: PUT /__sim/state', (api) => {
  it('answers 200 {ok: true, now} with the restored clock time', async () => {
    const saved = (await api().get('/__sim/state')).body;
    await createAssistant(api(), 'Later');
    await api().post('/__sim/clock/advance', { by: '2h' });
    const res = await api().put('/__sim/state', saved);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ok: true, now: '2026-03-02T09:00:00Z' });
  });

  it.each([9007199254740993, 1e308, 8.64e15 + 1, 1.5])('refuses a clock time of %s with 422 and changes nothing', async (now) => {
    await createAssistant(api(), 'Kept');
    const saved = (await api().get('/__sim/state')).body;
    const before = JSON.stringify(api().sim.snapshot());
    const res = await api().put('/__sim/state', { ...saved, clock: { ...saved.clock, now } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(damagedSnapshot('clock.now', CLOCK_TIME_PROBLEM));
    expect(JSON.stringify(api().sim.snapshot())).toBe(before);
    expect((await api().get('/__sim/clock')).body.now).toBe('2026-03-02T09:00:00Z');
  });

  it('brings back the earlier store: an assistant created since is gone', async () => {
    await createAssistant(api(), 'Before');
    const saved = (await api().get('/__sim/state')).body;
    await createAssistant(api(), 'After');
    expect(await assistantNames(api())).toEqual(['Before', 'After']);
    await api().put('/__sim/state', saved);
    expect(await assistantNames(api())).toEqual(['Before']);
  });

  it('brings back the earlier clock time and pending events', async () => {
    await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', text: 'Hi' });
    const saved = (await api().get('/__sim/state')).body;
    const clockBefore = (await api().get('/__sim/clock')).body;
    await api().post('/__sim/clock/advance', { by: '25h' });
    expect((await api().get('/__sim/clock')).body.pending_events).toBe(0);
    await api().put('/__sim/state', saved);
    const clockAfter = (await api().get('/__sim/clock')).body;
    expect(clockAfter).toStrictEqual(clockBefore);
    expect(clockAfter).toMatchObject({ now: '2026-03-02T09:00:00Z', pending_events: 1 });
  });

  it('refuses a body without format with 422 shape B on format', async () => {
    const res = await api().put('/__sim/state', { db: {} });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: FORMAT_MESSAGE, errors: { format: [FORMAT_MESSAGE] } });
  });

  it('refuses another format with 422 shape B on format', async () => {
    const saved = (await api().get('/__sim/state')).body;
    const res = await api().put('/__sim/state', { ...saved, format: 'voxsim-snapshot/0' });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: FORMAT_MESSAGE, errors: { format: [FORMAT_MESSAGE] } });
  });

  it('changes nothing when it refuses a body without format', async () => {
    await createAssistant(api(), 'Kept');
    await api().post('/__sim/clock/advance', { by: '1h' });
    const before = await observable(api());
    await api().put('/__sim/state', { seed: 9, clock: { now: 0 } });
    expect(await observable(api())).toStrictEqual(before);
  });

  it('takes back the snapshot GET gave when a lead holds variables as deep as a body may nest them', async () => {
    const assistant = await createAssistant(api(), 'Deep');
    const campaign = await api().post('/user/campaign', { name: 'Deep', assistant_id: assistant });
    // The body is level 1, so its variables may hold 63 levels: in a snapshot they sit at level 6.
    expect((await api().post('/user/lead', { campaign_id: campaign.body.data.id, phone_number: '+14155550177', variables: nested(62) })).status).toBe(200);
    const saved = (await api().get('/__sim/state')).body;
    const res = await api().put('/__sim/state', saved);
    expect(res.status).toBe(200);
    expect((await api().get('/__sim/state')).body).toStrictEqual(saved);
  });

  it('takes a snapshot 128 levels deep and refuses 129 (the body itself the first) with 422 shape B, changing nothing', async () => {
    const saved = (await api().get('/__sim/state')).body;
    // `replies` is level 2, its rule 3, `set_variables` 4: n objects in it reach level n + 3.
    const withRule = (levels: number) => ({ ...saved, replies: [{ when: 'x', reply: 'y', set_variables: nested(levels) }] });
    expect((await api().put('/__sim/state', withRule(125))).status).toBe(200);
    const before = JSON.stringify(api().sim.snapshot());
    const res = await api().put('/__sim/state', withRule(126));
    const text = 'The replies may not nest more than 128 levels deep.';
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: text, errors: { replies: [text] } });
    expect(JSON.stringify(api().sim.snapshot())).toBe(before);
  });

  const damaged: [string, (snapshot: Record<string, any>) => Record<string, unknown>, string, string][] = [
    ['without db', ({ db: _db, ...rest }) => rest, 'db', 'is required'],
    ['with a garbage table in db', (s) => ({ ...s, db: { ...s.db, accounts: 'garbage' } }), 'db.accounts', 'must be an object'],
    ['with a garbage clock', (s) => ({ ...s, clock: 'garbage' }), 'clock', 'must be an object'],
    ['with nothing but the format', () => ({ format: SNAPSHOT_FORMAT }), 'version', 'is required'],
    ['whose db is a string', (s) => ({ ...s, db: 'garbage' }), 'db', 'must be an object'],
    ['whose db is empty', (s) => ({ ...s, db: {} }), 'db.accounts', 'is required'],
    ['whose table rows are not a list', (s) => ({ ...s, db: { ...s.db, accounts: { seq: 1, rows: 'x' } } }), 'db.accounts.rows', 'must be an array'],
    ['without replies', ({ replies: _r, ...rest }) => rest, 'replies', 'is required'],
    ['whose replies are text', (s) => ({ ...s, replies: 'x' }), 'replies', 'must be an array'],
    ['whose random state is text', (s) => ({ ...s, random: 'abcd' }), 'random', 'must be an array'],
    ['whose clock time is text', (s) => ({ ...s, clock: { ...s.clock, now: 'x' } }), 'clock.now', CLOCK_TIME_PROBLEM],
  ];

  it.each(damaged)('refuses a snapshot %s with 422 shape B naming the damaged path', async (_name, damage, path, problem) => {
    const saved = (await api().get('/__sim/state')).body;
    const res = await api().put('/__sim/state', damage(saved));
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual(damagedSnapshot(path, problem));
  });

  it.each(damaged)('keeps the state unchanged when it refuses a snapshot %s', async (_name, damage) => {
    const saved = (await api().get('/__sim/state')).body;
    await createAssistant(api(), 'Kept');
    await api().post('/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550123', text: 'Hi' });
    await api().post('/__sim/clock/advance', { by: '1h' });
    const before = await observable(api());
    const snapshotBefore = (await api().get('/__sim/state')).body;
    await api().put('/__sim/state', damage(saved));
    expect(await observable(api())).toStrictEqual(before);
    expect((await api().get('/__sim/state')).body).toStrictEqual(snapshotBefore);
    expect((await api().get('/user/me')).status).toBe(200);
  });
});

contract('control: GET /__sim/requests', (api) => {
  it('lists earlier requests oldest first with clock time, method, path, status and account', async () => {
    await api().get('/user/me');
    await api().post('/user/assistant', pipelineAssistant(), { key: null });
    await api().sim.control.clock.advance({ by: '90s' });
    await api().get('/user/calls', { query: { per_page: 5 } });
    const res = await api().get('/__sim/requests');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      data: [
        { at: '2026-03-02T09:00:00Z', method: 'GET', path: '/user/me', status: 200, account_id: 1 },
        { at: '2026-03-02T09:00:00Z', method: 'POST', path: '/user/assistant', status: 401, account_id: null },
        { at: '2026-03-02T09:01:30Z', method: 'GET', path: '/user/calls', status: 200, account_id: 1 },
      ],
      evicted: 0,
    });
  });

  it('records refused requests and control requests with their status', async () => {
    await api().post('/user/assistant', { name: '' });
    await api().post('/__sim/clock/advance', { by: 'soon' });
    const res = await api().get('/__sim/requests');
    expect(res.body.data).toStrictEqual([
      { at: '2026-03-02T09:00:00Z', method: 'POST', path: '/user/assistant', status: 422, account_id: 1 },
      { at: '2026-03-02T09:00:00Z', method: 'POST', path: '/__sim/clock/advance', status: 422, account_id: 1 },
    ]);
  });

  it('does not list its own GET /__sim/requests', async () => {
    await api().get('/user/me');
    await api().get('/__sim/requests');
    await api().get('/__sim/requests', { query: { limit: 5 } });
    const res = await api().get('/__sim/requests');
    expect(res.body.data.map((e: { path: string }) => e.path)).toEqual(['/user/me']);
  });

  it('answers an empty journal before any request', async () => {
    const res = await api().get('/__sim/requests');
    expect(res.body).toStrictEqual({ data: [], evicted: 0 });
  });

  it('answers the latest two, oldest first, with ?limit=2', async () => {
    await api().get('/user/me');
    await api().get('/user/assistants/get');
    await api().get('/user/calls');
    const res = await api().get('/__sim/requests', { query: { limit: 2 } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { path: string }) => e.path)).toEqual(['/user/assistants/get', '/user/calls']);
    expect(res.body.evicted).toBe(0);
  });

  it.each([
    ['0', 'The limit must be between 1 and 100000.'],
    ['100001', 'The limit must be between 1 and 100000.'],
    ['abc', 'The limit must be an integer.'],
    ['1.5', 'The limit must be an integer.'],
  ])('refuses limit=%s with 422 shape B on limit', async (limit, message) => {
    const res = await api().get('/__sim/requests', { query: { limit } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message, errors: { limit: [message] } });
  });

  it('answers the same journal as sim.requests() in-process, with epoch times', async () => {
    await api().get('/user/me');
    const res = await api().get('/__sim/requests');
    expect(api().sim.requests()).toStrictEqual({
      data: [{ at: START_MS, method: 'GET', path: '/user/me', status: 200, account_id: 1 }],
      evicted: 0,
    });
    expect(res.body.data[0].at).toBe('2026-03-02T09:00:00Z');
  });
});

contract(
  'control: the request journal keeps requestJournalLimit entries',
  (api) => {
    it('keeps the latest three and counts the evicted ones', async () => {
      for (const path of ['/user/me', '/user/assistants/get', '/user/calls', '/user/leads', '/user/me']) await api().get(path);
      const res = await api().get('/__sim/requests');
      expect(res.body).toStrictEqual({
        data: [
          { at: '2026-03-02T09:00:00Z', method: 'GET', path: '/user/calls', status: 200, account_id: 1 },
          { at: '2026-03-02T09:00:00Z', method: 'GET', path: '/user/leads', status: 200, account_id: 1 },
          { at: '2026-03-02T09:00:00Z', method: 'GET', path: '/user/me', status: 200, account_id: 1 },
        ],
        evicted: 2,
      });
    });

    it('evicts nothing while within the limit', async () => {
      for (const path of ['/user/me', '/user/calls', '/user/leads']) await api().get(path);
      const res = await api().get('/__sim/requests');
      expect(res.body.data).toHaveLength(3);
      expect(res.body.evicted).toBe(0);
    });
  },
  { requestJournalLimit: 3 },
);

contract(
  'control: the admin token',
  (api) => {
    const wrong = [
      ['without Authorization', null],
      ['with the platform key', 'sim_test_key'],
      ['with a wrong token', 's3cret-not'],
    ] as const;

    it.each(wrong)('answers GET /__sim/health %s with 401 shape A', async (_name, key) => {
      const res = await api().get('/__sim/health', { key });
      expect(res.status).toBe(401);
      expect(res.body).toStrictEqual(UNAUTHENTICATED);
    });

    it.each(wrong)('answers GET /__sim/state %s with 401 shape A', async (_name, key) => {
      const res = await api().get('/__sim/state', { key });
      expect(res.status).toBe(401);
      expect(res.body).toStrictEqual(UNAUTHENTICATED);
    });

    it.each(wrong)('answers GET /__sim/requests %s with 401 shape A', async (_name, key) => {
      const res = await api().get('/__sim/requests', { key });
      expect(res.status).toBe(401);
      expect(res.body).toStrictEqual(UNAUTHENTICATED);
    });

    it.each(wrong)('changes nothing on POST /__sim/accounts %s', async (_name, key) => {
      const res = await api().post('/__sim/accounts', { api_key: 'sim_intruder_key' }, { key });
      expect(res.status).toBe(401);
      expect(res.body).toStrictEqual(UNAUTHENTICATED);
      expect(api().sim.control.accounts.list().data.map((a) => a.api_key)).toEqual(['sim_test_key']);
    });

    it.each(wrong)('does not move the clock on POST /__sim/clock/advance %s', async (_name, key) => {
      const res = await api().post('/__sim/clock/advance', { by: '1h' }, { key });
      expect(res.status).toBe(401);
      expect(api().sim.clock.now()).toBe(START_MS);
    });

    it.each(wrong)('does not import a state on PUT /__sim/state %s', async (_name, key) => {
      const saved = JSON.parse(JSON.stringify(api().sim.snapshot()));
      await createAssistant(api(), 'Kept');
      const res = await api().put('/__sim/state', saved, { key });
      expect(res.status).toBe(401);
      expect(await assistantNames(api())).toEqual(['Kept']);
    });

    it('answers GET /__sim/health with Bearer s3cret', async () => {
      const res = await api().get('/__sim/health', { key: ADMIN_TOKEN });
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({ ok: true, version: VERSION, now: '2026-03-02T09:00:00Z' });
    });

    it('exports and imports the state with Bearer s3cret', async () => {
      const saved = (await api().get('/__sim/state', { key: ADMIN_TOKEN })).body;
      expect(saved.format).toBe('voxsim-snapshot/1');
      await createAssistant(api(), 'Dropped');
      const res = await api().put('/__sim/state', saved, { key: ADMIN_TOKEN });
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({ ok: true, now: '2026-03-02T09:00:00Z' });
      expect(await assistantNames(api())).toEqual([]);
    });

    it('creates an account with Bearer s3cret', async () => {
      const res = await api().post('/__sim/accounts', { api_key: 'sim_second_key' }, { key: ADMIN_TOKEN });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ id: 2, api_key: 'sim_second_key' });
    });

    it('lists requests with Bearer s3cret, the admin requests with no account', async () => {
      await api().get('/user/me');
      await api().get('/__sim/health', { key: ADMIN_TOKEN });
      await api().get('/__sim/health', { key: null });
      const res = await api().get('/__sim/requests', { key: ADMIN_TOKEN });
      expect(res.status).toBe(200);
      expect(res.body.data).toStrictEqual([
        { at: '2026-03-02T09:00:00Z', method: 'GET', path: '/user/me', status: 200, account_id: 1 },
        { at: '2026-03-02T09:00:00Z', method: 'GET', path: '/__sim/health', status: 200, account_id: null },
        { at: '2026-03-02T09:00:00Z', method: 'GET', path: '/__sim/health', status: 401, account_id: null },
      ]);
    });

    it('leaves platform routes to the platform key: sim_test_key still works', async () => {
      const res = await api().get('/user/me');
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({ name: 'Voxsim Test Account', email: 'test@voxsim.test', total_balance: 100 });
      expect((await api().post('/user/assistant', pipelineAssistant())).status).toBe(201);
    });

    it('does not let the admin token stand in for a platform key', async () => {
      const res = await api().get('/user/me', { key: ADMIN_TOKEN });
      expect(res.status).toBe(401);
      expect(res.body).toStrictEqual(UNAUTHENTICATED);
    });
  },
  { adminToken: ADMIN_TOKEN },
);
