/**
 * `GET /__sim/overview` (the dashboard's aggregate, issue 16): the clock, accounts and
 * balances, each campaign's leads by state with calls in flight and its window, the
 * latest calls, deliveries, messaging sessions and requests with their error texts.
 * It reads only: it is not journaled and changes nothing.
 */
import { expect, it } from 'vitest';
import { contract, START, type Api } from '../support/api.js';
import { POST_CALL_BODY, pipelineAssistant } from '../support/fixtures.js';

const T0 = Date.parse(START);
const HOOK = 'https://hooks.example.test/post-call';

/** An assistant on a sip number, a campaign (2 in parallel, 09:00-17:00 Berlin) with `numbers` as leads. */
async function campaignWith(api: Api, numbers: string[], assistant: Record<string, unknown> = {}) {
  api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  expect((await api.post('/user/assistant', pipelineAssistant({ phone_number_id: 1, ...assistant }))).status).toBe(201);
  const campaign = {
    name: 'Spring',
    assistant_id: 1,
    max_calls_in_parallel: 2,
    timezone: 'Europe/Berlin',
    allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
    allowed_hours_start_time: '09:00',
    allowed_hours_end_time: '17:00',
  };
  expect((await api.post('/user/campaign', campaign)).status).toBe(201);
  for (const phone_number of numbers) expect((await api.post('/user/lead', { campaign_id: 1, phone_number })).status).toBe(200);
}

contract('control: GET /__sim/overview', (api) => {
  it('answers the empty simulator: the clock, the default account and empty lists', async () => {
    const res = await api().get('/__sim/overview');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      clock: { now: '2026-03-02T09:00:00Z', now_ms: T0, mode: 'manual', speed: 1, pending_events: 0 },
      events: { latest_seq: 0, capacity: 10_000 },
      accounts: {
        total: 1,
        data: [
          { id: 1, name: 'Voxsim Test Account', balance: 100, has_payment_method: true, timezone: 'UTC', plan: { max_campaigns: 10, max_calls_in_parallel: 10, max_tools: 5 } },
        ],
      },
      campaigns: { total: 0, data: [] },
      calls: { total: 0, latest: [] },
      deliveries: { total: 0, pending: 0, failed: 0, evicted: 0, latest: [] },
      sessions: { total: 0, open: 0, latest: [] },
      requests: { latest: [] },
    });
  });

  it("counts a running campaign's leads by state with its calls in flight against the limit and its window", async () => {
    await campaignWith(api(), ['+14155550201', '+14155550202', '+14155550203', '+14155550204', '+14155550205']);
    await api().post('/user/campaigns/update-status', { campaign_id: 1, action: 'start' });
    await api().sim.clock.advance('2s');
    const res = await api().get('/__sim/overview');
    expect(res.body.campaigns).toStrictEqual({
      total: 1,
      data: [
        {
          id: 1,
          account_id: 1,
          name: 'Spring',
          status: 'in-progress',
          idle_reason: null,
          leads: { created: 0, scheduled: 3, processing: 2, completed: 0, rescheduled: 0, 'reached-max-retries': 0, blacklisted: 0 },
          leads_total: 5,
          in_flight: 2,
          max_calls_in_parallel: 2,
          window: {
            open: true,
            next_open_at: '2026-03-02T09:00:02Z',
            timezone: 'Europe/Berlin',
            days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
            start: '09:00:00',
            end: '17:00:00',
          },
        },
      ],
    });
    expect(res.body.calls.total).toBe(2);
    expect(res.body.calls.latest.map((c: { id: number; status: string }) => [c.id, c.status])).toEqual([
      [2, 'ringing'],
      [1, 'ringing'],
    ]);
  });

  it('lists the latest calls newest first with their outcome and cost', async () => {
    await campaignWith(api(), ['+14155550003']);
    await api().post('/user/campaigns/update-status', { campaign_id: 1, action: 'start' });
    await api().sim.clock.advance('10m');
    const [call] = (await api().get('/__sim/overview')).body.calls.latest;
    expect(call).toMatchObject({
      id: 1,
      account_id: 1,
      campaign_id: 1,
      campaign_name: 'Spring',
      type: 'outbound',
      client_phone_number: '+14155550003',
      status: 'ended',
      outcome: 'voicemail',
      answered_by: 'machine',
      total_cost: 0.11,
      created_at: '2026-03-02T09:00:00Z',
    });
    expect(Object.keys(call).sort()).toEqual(['account_id', 'answered_by', 'campaign_id', 'campaign_name', 'client_phone_number', 'created_at', 'duration', 'ended_at', 'id', 'outcome', 'status', 'total_cost', 'type']);
    expect(call.ended_at).toMatch(/^2026-03-02T09:0\d:\d\dZ$/);
    expect(Date.parse(call.ended_at) - Date.parse(call.created_at)).toBeGreaterThan(call.duration * 1000);
  });

  it('shows a failing delivery with its attempts and next retry time, without its payload', async () => {
    api().sim.webhooks.failNext({ url: HOOK, times: 2, with: 500 });
    api().sim.webhooks.send({ account_id: 1, kind: 'post_call', url: HOOK, payload: POST_CALL_BODY });
    await api().sim.clock.advance('40s');
    const { deliveries } = (await api().get('/__sim/overview')).body;
    expect(deliveries).toStrictEqual({
      total: 1,
      pending: 1,
      failed: 0,
      evicted: 0,
      latest: [
        {
          id: 1,
          account_id: 1,
          kind: 'post_call',
          url: HOOK,
          state: 'pending',
          attempts: [
            { at: '2026-03-02T09:00:00Z', status: 500, error: null, duration_ms: 0 },
            { at: '2026-03-02T09:00:30Z', status: 500, error: null, duration_ms: 0 },
          ],
          next_attempt_at: '2026-03-02T09:01:30Z',
          response: { status: 500, body: '' },
          created_at: '2026-03-02T09:00:00Z',
        },
      ],
    });
  });

  it("counts a campaign call's post-call delivery that failed for good", async () => {
    await campaignWith(api(), ['+14155550201'], { is_webhook_active: true, webhook_url: HOOK });
    api().sim.webhooks.failNext({ url: HOOK, times: 4, with: 503 });
    await api().post('/user/campaigns/update-status', { campaign_id: 1, action: 'start' });
    await api().sim.clock.advance('1h');
    const { deliveries } = (await api().get('/__sim/overview')).body;
    expect(deliveries).toMatchObject({ total: 1, pending: 0, failed: 1, evicted: 0 });
    expect(deliveries.latest[0].attempts.map((a: { status: number }) => a.status)).toEqual([503, 503, 503, 503]);
    expect(deliveries.latest[0].next_attempt_at).toBeNull();
  });

  it('shows messaging sessions with their window', async () => {
    await api().post('/user/msgapp/send', { sender_id: 1, template_id: 2, recipient_phone: '+14155550177' });
    const res = await api().get('/__sim/overview');
    expect(res.body.sessions).toStrictEqual({
      total: 1,
      open: 1,
      latest: [{ id: 1, account_id: 1, sender_id: 1, recipient_phone: '+14155550177', is_open: true, expires_at: '2026-03-03T09:00:00Z', last_customer_message_at: null }],
    });
    await api().sim.clock.advance('24h');
    const later = await api().get('/__sim/overview');
    expect(later.body.sessions.open).toBe(0);
    expect(later.body.sessions.latest[0].is_open).toBe(false);
  });

  it('lists the latest requests newest first with the error text of failures, and not itself', async () => {
    await api().get('/user/me');
    await api().post('/user/campaign', {});
    await api().get('/user/me', { key: 'wrong' });
    await api().get('/__sim/overview');
    const res = await api().get('/__sim/overview');
    expect(res.body.requests.latest).toStrictEqual([
      { at: '2026-03-02T09:00:00Z', method: 'GET', path: '/user/me', status: 401, account_id: null, error: 'Unauthenticated.' },
      { at: '2026-03-02T09:00:00Z', method: 'POST', path: '/user/campaign', status: 422, account_id: 1, error: 'The name field is required. (and 1 more error)' },
      { at: '2026-03-02T09:00:00Z', method: 'GET', path: '/user/me', status: 200, account_id: 1, error: null },
    ]);
  });

  it('holds at most `limit` rows per list', async () => {
    for (let i = 0; i < 4; i++) await api().get('/user/me');
    const res = await api().get('/__sim/overview', { query: { limit: 2 } });
    expect(res.body.requests.latest).toHaveLength(2);
  });

  it.each([
    ['0', 'The limit must be between 1 and 200.'],
    ['201', 'The limit must be between 1 and 200.'],
    ['x', 'The limit must be an integer.'],
  ])('refuses limit=%s with 422 shape B', async (limit, message) => {
    const res = await api().get('/__sim/overview', { query: { limit } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message, errors: { limit: [message] } });
  });

  it('changes nothing: the state is the same before and after', async () => {
    await campaignWith(api(), ['+14155550201']);
    const before = (await api().get('/__sim/state')).body;
    await api().get('/__sim/overview');
    expect((await api().get('/__sim/state')).body).toStrictEqual(before);
  });

  it('answers the same as sim.control.overview() in-process', async () => {
    await api().get('/user/me');
    const res = await api().get('/__sim/overview');
    expect(res.body).toStrictEqual(JSON.parse(JSON.stringify(api().sim.control.overview())));
  });
});

contract(
  'control: GET /__sim/overview with an admin token',
  (api) => {
    it('answers 401 shape A without the token and 200 with it', async () => {
      expect(await api().get('/__sim/overview', { key: null })).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
      expect((await api().get('/__sim/overview', { key: 'admin-secret' })).status).toBe(200);
    });
  },
  { adminToken: 'admin-secret' },
);
