/**
 * The control API (ARCHITECTURE §6; decisions: Control API names): every `/__sim`
 * route over both transports, and the same operation through `sim.control` in-process
 * giving the same answer (STYLE 8).
 */
import { expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { contract, START, type Api } from '../support/api.js';
import { expectRefused, invalidField, simRefusal } from '../support/expect.js';
import { pipelineAssistant } from '../support/fixtures.js';

const START_MS = Date.parse(START);
const CREATED_AT = '2026-03-02T09:00:00.000000Z';
const DEFAULT_PLAN = { max_campaigns: 10, max_calls_in_parallel: 10, max_tools: 5 };
const DEFAULT_RATES = { ai_per_minute: 0.1, carrier_per_minute: 0.01, widget_message: 0.01, template_message: 0.05, freeform_message: 0.01, sms_segment: 0.05 };
const DEFAULT_ACCOUNT = {
  id: 1,
  name: 'Voxsim Test Account',
  email: 'test@voxsim.test',
  api_key: 'sim_test_key',
  balance: 100,
  has_payment_method: true,
  timezone: 'UTC',
  plan: DEFAULT_PLAN,
  rates: DEFAULT_RATES,
};
/** Every create field given. */
const SECOND_ACCOUNT_INPUT = {
  name: 'Second Co',
  email: 'ops@second.test',
  api_key: 'sim_second_key',
  balance: 12.5,
  has_payment_method: false,
  timezone: 'Europe/Berlin',
  plan: { max_campaigns: 3, max_calls_in_parallel: 2, max_tools: 1 },
};
const NAMED = { name: 'Third Co', email: 'ops@third.test', api_key: 'sim_third_key' };

/** A simulator like the harness builds, used in-process only. */
function fresh(options: { seed?: number; startAt?: string } = {}): Simulator {
  return createSimulator({ seed: 1, startAt: START, ...options });
}

async function createAssistant(api: Api, overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await api.post('/user/assistant', pipelineAssistant(overrides));
  expect(res.status).toBe(201);
  return res.body.data.id as number;
}

contract('control: health and unknown routes', (api) => {
  it('reports ok, the version and the simulated time', async () => {
    const res = await api().get('/__sim/health');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ok: true, version: '0.1.0', now: '2026-03-02T09:00:00Z' });
  });

  it('reports the simulated time after the clock moved', async () => {
    await api().sim.control.clock.advance({ by: '90s' });
    const res = await api().get('/__sim/health');
    expect(res.body.now).toBe('2026-03-02T09:01:30Z');
  });

  it('answers the same health in-process', async () => {
    const res = await api().get('/__sim/health');
    expect(api().sim.control.health()).toStrictEqual(res.body);
  });

  it('needs no Authorization header', async () => {
    const res = await api().get('/__sim/health', { key: null });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
  });

  it('answers an unknown /__sim route with 404 shape A', async () => {
    const res = await api().get('/__sim/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'The route __sim/nothing-here could not be found.' });
  });
});

contract('control: clock', (api) => {
  it('shows the clock at the start in manual mode with nothing pending', async () => {
    const res = await api().get('/__sim/clock');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ now: '2026-03-02T09:00:00Z', now_ms: START_MS, mode: 'manual', speed: 1, pending_events: 0 });
  });

  it('shows the same clock in-process', async () => {
    const res = await api().get('/__sim/clock');
    expect(api().sim.control.clock.get()).toStrictEqual(res.body);
  });

  it('advances by a duration with units', async () => {
    const res = await api().post('/__sim/clock/advance', { by: '90s' });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ now: '2026-03-02T09:01:30Z', now_ms: START_MS + 90_000, ran: 0 });
  });

  it('keeps the advanced time on the clock', async () => {
    await api().post('/__sim/clock/advance', { by: '90s' });
    const res = await api().get('/__sim/clock');
    expect(res.body.now).toBe('2026-03-02T09:01:30Z');
    expect(res.body.now_ms).toBe(START_MS + 90_000);
  });

  it('advances by a compound duration', async () => {
    const res = await api().post('/__sim/clock/advance', { by: '1h30m' });
    expect(res.body).toStrictEqual({ now: '2026-03-02T10:30:00Z', now_ms: START_MS + 5_400_000, ran: 0 });
  });

  it('advances by a number of milliseconds', async () => {
    const res = await api().post('/__sim/clock/advance', { by: 60_000 });
    expect(res.body).toStrictEqual({ now: '2026-03-02T09:01:00Z', now_ms: START_MS + 60_000, ran: 0 });
  });

  it('advances to an ISO time', async () => {
    const res = await api().post('/__sim/clock/advance', { to: '2026-03-03T00:00:00Z' });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ now: '2026-03-03T00:00:00Z', now_ms: Date.parse('2026-03-03T00:00:00Z'), ran: 0 });
  });

  it('accepts advancing to the current time', async () => {
    const res = await api().post('/__sim/clock/advance', { to: START });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ now: '2026-03-02T09:00:00Z', now_ms: START_MS, ran: 0 });
  });

  it('rejects advancing to a time one second in the past with 422 shape B on to', async () => {
    const res = await api().post('/__sim/clock/advance', { to: '2026-03-02T08:59:59Z' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The to may not be before the current simulated time.',
      errors: { to: ['The to may not be before the current simulated time.'] },
    });
  });

  it('leaves the clock where it was after a refused advance', async () => {
    await api().post('/__sim/clock/advance', { to: '2026-03-01T00:00:00Z' });
    expect((await api().get('/__sim/clock')).body.now).toBe('2026-03-02T09:00:00Z');
  });

  it('rejects an advance with neither by nor to with 422 shape B', async () => {
    const res = await api().post('/__sim/clock/advance', {});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Give exactly one of by or to.', errors: { by: ['Give exactly one of by or to.'] } });
  });

  it('rejects an advance with both by and to with 422 shape B', async () => {
    const res = await api().post('/__sim/clock/advance', { by: '1s', to: '2026-03-02T10:00:00Z' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Give exactly one of by or to.', errors: { by: ['Give exactly one of by or to.'] } });
  });

  it('rejects a duration it cannot read with 422 shape B on by', async () => {
    const res = await api().post('/__sim/clock/advance', { by: 'soon' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The by must be a duration in milliseconds or with units (90s, 15m, 2h, 3d).',
      errors: { by: ['The by must be a duration in milliseconds or with units (90s, 15m, 2h, 3d).'] },
    });
  });

  it('rejects a negative duration with 422 shape B on by', async () => {
    const res = await api().post('/__sim/clock/advance', { by: -1000 });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['by']);
  });

  it('rejects a to that is not an ISO time with 422 shape B on to', async () => {
    const res = await api().post('/__sim/clock/advance', { to: 'tomorrow' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The to must be an ISO 8601 time.', errors: { to: ['The to must be an ISO 8601 time.'] } });
  });

  it('advances the same way in-process', async () => {
    const res = await api().post('/__sim/clock/advance', { by: '90s' });
    const sim = fresh();
    expect(await sim.control.clock.advance({ by: '90s' })).toStrictEqual(res.body);
    expect(sim.control.clock.get().now).toBe('2026-03-02T09:01:30Z');
  });

  it('refuses the same advance in-process with the same error', async () => {
    const res = await api().post('/__sim/clock/advance', { to: '2026-03-02T08:59:59Z' });
    expect(await simRefusal(() => api().sim.control.clock.advance({ to: '2026-03-02T08:59:59Z' }))).toStrictEqual({ status: 422, body: res.body });
  });

  it('runs until idle with nothing pending and leaves the time as it is', async () => {
    const res = await api().post('/__sim/clock/run-until-idle');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ now: '2026-03-02T09:00:00Z', now_ms: START_MS, ran: 0, pending: 0, periodic_pending: 0 });
  });

  it('answers run-until-idle while a number renews monthly: the work runs, the renewal is reported, not run', async () => {
    const offer = (await api().get('/user/phone-numbers/search', { query: { country_code: 'US' } })).body.data[0].phone_number;
    expect((await api().post('/user/phone-numbers/purchase', { phone_number: offer })).status).toBe(201);
    await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550100' });
    const assistant = await api().post('/user/assistant', pipelineAssistant({ phone_number_id: 2 }));
    expect((await api().post('/user/make_call', { assistant_id: assistant.body.data.id, phone_number: '+14155550001' })).status).toBe(200);
    const res = await api().post('/__sim/clock/run-until-idle', {});
    expect(res.status).toBe(200);
    // The busy call rings after 1 s and ends 2 s later: two events; the renewal a month away stays pending.
    expect(res.body).toStrictEqual({ now: '2026-03-02T09:00:03Z', now_ms: START_MS + 3_000, ran: 2, pending: 0, periodic_pending: 1 });
    expect((await api().get('/user/calls/1')).body.status).toBe('busy');
    expect((await api().get('/__sim/charges')).body.data).toHaveLength(1);
  });

  it('runs renewals that fall due before the last piece of work', async () => {
    const offer = (await api().get('/user/phone-numbers/search', { query: { country_code: 'US' } })).body.data[0].phone_number;
    await api().post('/user/phone-numbers/purchase', { phone_number: offer });
    await api().post('/__sim/webhooks/failures', { times: 1, with: 500 });
    api().sim.clock.schedule(START_MS + 40 * 86_400_000, 'webhook.attempt', { delivery_id: 999 });
    const res = await api().post('/__sim/clock/run-until-idle', {});
    expect(res.body).toMatchObject({ now: '2026-04-11T09:00:00Z', ran: 2, periodic_pending: 1 });
    expect((await api().get('/__sim/charges')).body.data.map((c: { period_start: string }) => c.period_start)).toEqual(['2026-03-02T09:00:00.000000Z', '2026-04-02T09:00:00.000000Z']);
  });

  it('moves the clock at most ten years at a time, by either form, at both edges', async () => {
    const TEN_YEARS = 3652.5 * 86_400_000;
    const horizon = (field: string) => ({ message: `The ${field} may move the clock at most ten years (3652.5 days) ahead.`, errors: { [field]: [`The ${field} may move the clock at most ten years (3652.5 days) ahead.`] } });
    const tooFar = await api().post('/__sim/clock/advance', { by: TEN_YEARS + 1 });
    expect(tooFar.status).toBe(422);
    expect(tooFar.body).toStrictEqual(horizon('by'));
    const farTo = await api().post('/__sim/clock/advance', { to: new Date(START_MS + TEN_YEARS + 1000).toISOString() });
    expect(farTo.status).toBe(422);
    expect(farTo.body).toStrictEqual(horizon('to'));
    for (const by of [1e308, 9007199254740993]) {
      const huge = await api().post('/__sim/clock/advance', { by });
      expect([huge.status, huge.body]).toStrictEqual([422, horizon('by')]);
    }
    expect((await api().get('/__sim/clock')).body.now_ms).toBe(START_MS);
    const atEdge = await api().post('/__sim/clock/advance', { to: new Date(START_MS + TEN_YEARS).toISOString() });
    expect(atEdge.status).toBe(200);
    expect(atEdge.body.now_ms).toBe(START_MS + TEN_YEARS);
    expect((await api().post('/__sim/clock/advance', { by: TEN_YEARS })).status).toBe(200);
    expect(() => api().sim.clock.advance(TEN_YEARS + 1)).toThrow('The clock moves at most ten years at a time.');
  });

  it('renews a number monthly over ten years in one advance, one charge a month', async () => {
    const offer = (await api().get('/user/phone-numbers/search', { query: { country_code: 'US' } })).body.data[0].phone_number;
    await api().post('/user/phone-numbers/purchase', { phone_number: offer });
    const res = await api().post('/__sim/clock/advance', { by: '3652d' });
    expect(res.status).toBe(200);
    expect((await api().get('/__sim/charges')).body.data).toHaveLength(1 + 119);
  });

  it('accepts max_events of 1 on run-until-idle', async () => {
    const res = await api().post('/__sim/clock/run-until-idle', { max_events: 1 });
    expect(res.status).toBe(200);
    expect(res.body.ran).toBe(0);
  });

  it('rejects max_events of 0 with 422 shape B', async () => {
    const res = await api().post('/__sim/clock/run-until-idle', { max_events: 0 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The max events must be between 1 and 10000000.',
      errors: { max_events: ['The max events must be between 1 and 10000000.'] },
    });
  });

  it('runs until idle the same way in-process', async () => {
    await api().sim.control.clock.advance({ by: '1m' });
    const res = await api().post('/__sim/clock/run-until-idle', {});
    expect(await api().sim.control.clock.runUntilIdle()).toStrictEqual(res.body);
  });

  it('switches to realtime at a speed and answers the clock object', async () => {
    const res = await api().put('/__sim/clock', { mode: 'realtime', speed: 60 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode: 'realtime', speed: 60, pending_events: 0 });
    expect(Object.keys(res.body).sort()).toEqual(['mode', 'now', 'now_ms', 'pending_events', 'speed']);
    expect(res.body.now_ms).toBeGreaterThanOrEqual(START_MS);
    expect(res.body.now).toBe(new Date(res.body.now_ms).toISOString().replace('.000Z', 'Z'));
  });

  it('switches back from realtime to manual, where time stands still', async () => {
    await api().put('/__sim/clock', { mode: 'realtime', speed: 60 });
    const res = await api().put('/__sim/clock', { mode: 'manual' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode: 'manual', speed: 60, pending_events: 0 });
    const later = await api().get('/__sim/clock');
    expect(later.body.now_ms).toBe(res.body.now_ms);
  });

  it('answers the clock object when set to manual', async () => {
    const res = await api().put('/__sim/clock', { mode: 'manual' });
    expect(res.body).toStrictEqual({ now: '2026-03-02T09:00:00Z', now_ms: START_MS, mode: 'manual', speed: 1, pending_events: 0 });
  });

  it('sets the mode the same way in-process', async () => {
    const res = await api().put('/__sim/clock', { mode: 'manual', speed: 30 });
    expect(fresh().control.clock.setMode({ mode: 'manual', speed: 30 })).toStrictEqual(res.body);
  });

  it('rejects an unknown clock mode with 422 shape B on mode', async () => {
    const res = await api().put('/__sim/clock', { mode: 'fast' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected mode is invalid.', errors: { mode: ['The selected mode is invalid.'] } });
  });

  it('rejects a speed of 0 with 422 shape B on speed', async () => {
    const res = await api().put('/__sim/clock', { mode: 'realtime', speed: 0 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The speed must be between 0.001 and 1000000.', errors: { speed: ['The speed must be between 0.001 and 1000000.'] } });
    expect((await api().get('/__sim/clock')).body.mode).toBe('manual');
  });

  it('refuses the same clock mode in-process with the same error', async () => {
    const res = await api().put('/__sim/clock', { mode: 'fast' });
    // @ts-expect-error the input type refuses the mode too
    expect(await simRefusal(() => api().sim.control.clock.setMode({ mode: 'fast' }))).toStrictEqual({ status: 422, body: res.body });
  });
});

contract('control: reset', (api) => {
  it('goes back to the simulator\'s own seed on a plain reset after a seeded one', async () => {
    await api().post('/__sim/reset', { seed: 5 });
    const res = await api().post('/__sim/reset', {});
    expect(res.body).toStrictEqual({ ok: true, seed: 1, now: '2026-03-02T09:00:00Z' });
  });

  it('answers ok with the seed and the start time', async () => {
    await api().post('/__sim/clock/advance', { by: '2h' });
    const res = await api().post('/__sim/reset');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ok: true, seed: 1, now: '2026-03-02T09:00:00Z' });
  });

  it('sets the clock back to the start', async () => {
    await api().post('/__sim/clock/advance', { by: '2h' });
    await api().post('/__sim/reset', {});
    expect((await api().get('/__sim/clock')).body).toStrictEqual({ now: '2026-03-02T09:00:00Z', now_ms: START_MS, mode: 'manual', speed: 1, pending_events: 0 });
  });

  it('puts a realtime clock back in manual mode at speed 1', async () => {
    await api().put('/__sim/clock', { mode: 'realtime', speed: 60 });
    await api().post('/__sim/reset', {});
    expect((await api().get('/__sim/clock')).body).toMatchObject({ mode: 'manual', speed: 1 });
  });

  it('empties the assistants', async () => {
    await createAssistant(api());
    await api().post('/__sim/reset', {});
    const res = await api().get('/user/assistants/get');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
    expect(res.body.data).toEqual([]);
  });

  it('re-creates the default account with its key and a balance of 100', async () => {
    await api().patch('/__sim/accounts/1', { balance: 5 });
    await api().post('/__sim/reset', {});
    const res = await api().get('/user/me');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ name: 'Voxsim Test Account', email: 'test@voxsim.test', total_balance: 100 });
  });

  it('removes the accounts created since the start', async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    await api().post('/__sim/reset', {});
    expect((await api().get('/__sim/accounts')).body).toStrictEqual({ data: [DEFAULT_ACCOUNT] });
    expect((await api().get('/user/me', { key: 'sim_second_key' })).status).toBe(401);
  });

  it('re-creates the default account fixtures', async () => {
    await api().post('/__sim/reset', {});
    const kbs = await api().get('/user/knowledgebases');
    expect(kbs.body.data.map((kb: { id: number }) => kb.id)).toEqual([1, 2, 3]);
    const tools = await api().get('/user/tools');
    expect(tools.body.map((t: { id: number }) => t.id)).toEqual([1, 2, 3]);
  });

  it('uses the given seed and start', async () => {
    const res = await api().post('/__sim/reset', { seed: 5, start: '2026-06-01T00:00:00Z' });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ok: true, seed: 5, now: '2026-06-01T00:00:00Z' });
    expect((await api().get('/__sim/clock')).body.now_ms).toBe(Date.parse('2026-06-01T00:00:00Z'));
  });

  it('numbers the next assistant 1 again', async () => {
    await createAssistant(api());
    await createAssistant(api());
    await api().post('/__sim/reset', {});
    expect(await createAssistant(api())).toBe(1);
  });

  it('re-seeds, so the next assistant gets the uuid a fresh simulator with that seed gives', async () => {
    await createAssistant(api());
    await api().post('/__sim/reset', { seed: 5, start: '2026-06-01T00:00:00Z' });
    await createAssistant(api());
    const afterReset = await api().get('/user/assistant/1');

    const other = fresh({ seed: 5, startAt: '2026-06-01T00:00:00Z' });
    const headers = { authorization: 'Bearer sim_test_key' };
    await other.handle({ method: 'POST', path: '/user/assistant', headers, body: JSON.stringify(pipelineAssistant()) });
    const reference = await other.handle({ method: 'GET', path: '/user/assistant/1', headers });
    expect(afterReset.body.data).toStrictEqual((reference.body as { data: unknown }).data);
  });

  it('re-seeds with the same seed, so the first uuid repeats', async () => {
    await createAssistant(api());
    const before = (await api().get('/user/assistant/1')).body.data.uuid as string;
    await createAssistant(api());
    await api().post('/__sim/reset', {});
    await createAssistant(api());
    expect((await api().get('/user/assistant/1')).body.data.uuid).toBe(before);
  });

  it('clears the fault rules', async () => {
    await api().post('/__sim/faults', { method: 'GET', path: '/user/me' });
    await api().post('/__sim/reset', {});
    expect((await api().get('/__sim/faults')).body).toStrictEqual({ data: [] });
    expect((await api().get('/user/me')).status).toBe(200);
  });

  it('clears the fault and webhook failure rules on sim.reset() too, and numbers new rules from 1 again', async () => {
    await api().post('/__sim/faults', { method: 'GET', path: '/user/me' });
    await api().post('/__sim/webhooks/failures', { times: 1, with: 500 });
    api().sim.reset();
    expect((await api().get('/__sim/faults')).body).toStrictEqual({ data: [] });
    expect((await api().get('/__sim/webhooks/failures')).body).toStrictEqual({ data: [] });
    expect((await api().get('/user/me')).status).toBe(200);
    expect((await api().post('/__sim/faults', { method: 'GET', path: '/user/me' })).body).toStrictEqual({ id: 1, method: 'GET', path: '/user/me', times: 1, status: 500, retry_after: null });
  });

  it('rejects a negative seed and a start that is not a time with 422 shape B, changing nothing', async () => {
    await createAssistant(api());
    const res = await api().post('/__sim/reset', { seed: -1, start: 'soon' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ seed: ['The seed must be between 0 and 2147483647.'], start: ['The start must be an ISO 8601 time.'] });
    expect((await api().get('/user/assistant/1')).status).toBe(200);
  });

  it('resets the same way in-process', async () => {
    const res = await api().post('/__sim/reset', { seed: 5, start: '2026-06-01T00:00:00Z' });
    const sim = fresh();
    expect(sim.control.reset({ seed: 5, start: '2026-06-01T00:00:00Z' })).toStrictEqual(res.body);
  });

  it('refuses the same reset in-process with the same error', async () => {
    const res = await api().post('/__sim/reset', { seed: 'five' });
    expect(res.status).toBe(422);
    // @ts-expect-error the input type refuses the seed too
    expect(await simRefusal(() => api().sim.control.reset({ seed: 'five' }))).toStrictEqual({ status: 422, body: res.body });
  });
});

contract('control: accounts', (api) => {
  it('creates an account with every field given and answers 201 with it', async () => {
    const res = await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({ id: 2, ...SECOND_ACCOUNT_INPUT, rates: DEFAULT_RATES });
  });

  it('gives an account created with only name, email and key the default balance, payment method, timezone and plan', async () => {
    const res = await api().post('/__sim/accounts', NAMED);
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({ id: 2, ...NAMED, balance: 100, has_payment_method: true, timezone: 'UTC', plan: DEFAULT_PLAN, rates: DEFAULT_RATES });
  });

  it('generates the name, email and api key of an account created with an empty body', async () => {
    const res = await api().post('/__sim/accounts', {});
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({
      id: 2,
      name: expect.stringMatching(/\S/),
      email: expect.stringMatching(/^[^@\s]+@example\.test$/),
      api_key: expect.stringMatching(/^sim_[a-z0-9]{32}$/),
      balance: 100,
      has_payment_method: true,
      timezone: 'UTC',
      plan: DEFAULT_PLAN,
      rates: DEFAULT_RATES,
    });
  });

  it('lets a generated api key authenticate as the generated account', async () => {
    const created = await api().post('/__sim/accounts', {});
    const res = await api().get('/user/me', { key: created.body.api_key });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ name: created.body.name, email: created.body.email, total_balance: 100 });
  });

  it('generates the same account as another simulator with the same seed, in-process', async () => {
    const res = await api().post('/__sim/accounts', {});
    expect(fresh().control.accounts.create({})).toStrictEqual(res.body);
  });

  it('generates a different account under another seed', async () => {
    const res = await api().post('/__sim/accounts', {});
    const other = fresh({ seed: 2 }).control.accounts.create({});
    expect(other.api_key).not.toBe(res.body.api_key);
  });

  it('generates the same account again after a reset', async () => {
    const first = await api().post('/__sim/accounts', {});
    await api().post('/__sim/reset', {});
    const again = await api().post('/__sim/accounts', {});
    expect(again.body).toStrictEqual(first.body);
  });

  it('generates only the fields not given', async () => {
    const res = await api().post('/__sim/accounts', { name: 'Given Co' });
    expect(res.body.name).toBe('Given Co');
    expect(res.body.api_key).toMatch(/^sim_[a-z0-9]{32}$/);
  });

  it('merges a partial plan over the default plan', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, plan: { max_tools: 2 } });
    expect(res.body.plan).toStrictEqual({ max_campaigns: 10, max_calls_in_parallel: 10, max_tools: 2 });
  });

  it('lets the new key authenticate as the new account', async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    const res = await api().get('/user/me', { key: 'sim_second_key' });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ name: 'Second Co', email: 'ops@second.test', total_balance: 12.5 });
  });

  it('gives the new account its own three knowledge bases', async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    const res = await api().get('/user/knowledgebases', { key: 'sim_second_key' });
    expect(res.body.data.map((kb: { id: number; name: string }) => [kb.id, kb.name])).toEqual([
      [4, 'Product FAQ'],
      [5, 'Returns policy'],
      [6, 'Clinic opening hours'],
    ]);
  });

  it('gives the new account its own three tools', async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    const res = await api().get('/user/tools', { key: 'sim_second_key' });
    expect(res.body.map((t: { id: number }) => t.id)).toEqual([4, 5, 6]);
    expect((await api().get('/user/tools')).body.map((t: { id: number }) => t.id)).toEqual([1, 2, 3]);
  });

  it('accepts a balance of 0 and a key of 8 characters', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, api_key: 'abcd1234', balance: 0 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ api_key: 'abcd1234', balance: 0 });
  });

  it('rejects an api key that is already taken with 422 shape B on api_key, creating nothing', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, api_key: 'sim_test_key' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The api key has already been taken.', errors: { api_key: ['The api key has already been taken.'] } });
    expect((await api().get('/__sim/accounts')).body.data).toHaveLength(1);
  });

  it('rejects a timezone that is not Area/City with 422 shape B on timezone', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, timezone: 'Mars/Base' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The timezone must be a valid zone.', errors: { timezone: ['The timezone must be a valid zone.'] } });
  });

  it('rejects a balance below 0 with 422 shape B on balance', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, balance: -0.01 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The balance must be at least 0.', errors: { balance: ['The balance must be at least 0.'] } });
  });

  it('rejects an api key of 7 characters with 422 shape B on api_key', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, api_key: 'abc1234' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The api key must be at least 8 characters.', errors: { api_key: ['The api key must be at least 8 characters.'] } });
  });

  it('rejects an unknown key in plan with 422 shape B naming plan, creating nothing', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, plan: { max_campaign: 3 } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: 'The max_campaign field is not allowed in plan.', errors: { plan: ['The max_campaign field is not allowed in plan.'] } });
    expect((await api().get('/__sim/accounts')).body.data).toHaveLength(1);
  });

  it('rejects an unknown key in rates with 422 shape B naming rates, creating nothing', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, rates: { ai_per_minut: 1 } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: 'The ai_per_minut field is not allowed in rates.', errors: { rates: ['The ai_per_minut field is not allowed in rates.'] } });
    expect((await api().get('/__sim/accounts')).body.data).toHaveLength(1);
  });

  it('refuses an unknown key in plan in-process with the same error', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, plan: { max_campaign: 3 } });
    // @ts-expect-error the input type refuses the key too
    expect(await simRefusal(() => api().sim.control.accounts.create({ ...NAMED, plan: { max_campaign: 3 } }))).toStrictEqual({ status: 422, body: res.body });
  });

  it('lists the accounts in {data}', async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    const res = await api().get('/__sim/accounts');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [DEFAULT_ACCOUNT, { id: 2, ...SECOND_ACCOUNT_INPUT, rates: DEFAULT_RATES }] });
  });

  it('lists the same accounts in-process', async () => {
    await api().sim.control.accounts.create(SECOND_ACCOUNT_INPUT);
    const res = await api().get('/__sim/accounts');
    expect(api().sim.control.accounts.list()).toStrictEqual(res.body);
  });

  it('creates the same account in-process', async () => {
    const res = await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    expect(fresh().control.accounts.create(SECOND_ACCOUNT_INPUT)).toStrictEqual(res.body);
  });

  it('refuses the same account in-process with the same error', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, api_key: 'sim_test_key' });
    expect(await simRefusal(() => api().sim.control.accounts.create({ ...NAMED, api_key: 'sim_test_key' }))).toStrictEqual({ status: 422, body: res.body });
  });

  it('changes the balance of an account, visible on GET /user/me', async () => {
    const res = await api().patch('/__sim/accounts/1', { balance: 42.5 });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ...DEFAULT_ACCOUNT, balance: 42.5 });
    expect((await api().get('/user/me')).body.total_balance).toBe(42.5);
  });

  it('changes the name, email, payment method and timezone of an account', async () => {
    const patch = { name: 'Renamed Co', email: 'new@voxsim.test', has_payment_method: false, timezone: 'Asia/Tokyo' };
    const res = await api().patch('/__sim/accounts/1', patch);
    expect(res.body).toStrictEqual({ ...DEFAULT_ACCOUNT, ...patch });
  });

  it('merges a plan change into the current plan', async () => {
    await api().patch('/__sim/accounts/1', { plan: { max_campaigns: 2 } });
    const res = await api().patch('/__sim/accounts/1', { plan: { max_tools: 1 } });
    expect(res.body.plan).toStrictEqual({ max_campaigns: 2, max_calls_in_parallel: 10, max_tools: 1 });
  });

  it('moves authentication to a changed api key', async () => {
    await api().patch('/__sim/accounts/1', { api_key: 'sim_rotated_key' });
    expect((await api().get('/user/me')).status).toBe(401);
    expect((await api().get('/user/me', { key: 'sim_rotated_key' })).status).toBe(200);
  });

  it('accepts an account keeping its own api key', async () => {
    const res = await api().patch('/__sim/accounts/1', { api_key: 'sim_test_key', balance: 1 });
    expect(res.status).toBe(200);
    expect(res.body.balance).toBe(1);
  });

  it("rejects a change to another account's api key with 422 shape B on api_key", async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    const res = await api().patch('/__sim/accounts/2', { api_key: 'sim_test_key' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ api_key: ['The api key has already been taken.'] });
  });

  it('rejects an invalid change with 422 shape B and changes nothing', async () => {
    const res = await api().patch('/__sim/accounts/1', { balance: -1, name: 'Ignored' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ balance: ['The balance must be at least 0.'] });
    expect((await api().get('/user/me')).body).toStrictEqual({ name: 'Voxsim Test Account', email: 'test@voxsim.test', total_balance: 100 });
  });

  it('rejects an unknown key in a plan change with 422 shape B and changes nothing', async () => {
    const res = await api().patch('/__sim/accounts/1', { balance: 5, plan: { max_tool: 1 } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: 'The max_tool field is not allowed in plan.', errors: { plan: ['The max_tool field is not allowed in plan.'] } });
    expect((await api().get('/__sim/accounts')).body.data).toStrictEqual([DEFAULT_ACCOUNT]);
  });

  it('answers an unknown account id with 404 shape A', async () => {
    const res = await api().patch('/__sim/accounts/99', { balance: 1 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Account not found.' });
  });

  it('answers a non-numeric account id with 404 shape A', async () => {
    const res = await api().patch('/__sim/accounts/first', { balance: 1 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Account not found.' });
  });

  it('changes an account the same way in-process', async () => {
    const res = await api().patch('/__sim/accounts/1', { balance: 7, plan: { max_tools: 3 } });
    expect(fresh().control.accounts.patch(1, { balance: 7, plan: { max_tools: 3 } })).toStrictEqual(res.body);
  });

  it('refuses an unknown account in-process with the same error', async () => {
    const res = await api().patch('/__sim/accounts/99', { balance: 1 });
    expect(await simRefusal(() => api().sim.control.accounts.patch(99, { balance: 1 }))).toStrictEqual({ status: 404, body: res.body });
  });
});

contract('control: phone numbers', (api) => {
  it('adds a sip number and answers 201 with it as the account list shows it', async () => {
    const res = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550123' });
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({
      id: 1,
      phone_number: '+14155550123',
      country_code: 'US',
      type: 'sip',
      type_label: 'SIP trunk',
      sms_capable: false,
      region: 'us1',
      has_active_subscription: false,
      created_at: CREATED_AT,
    });
  });

  it('adds a caller-ID number with its label', async () => {
    const res = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'caller_id', phone_number: '+14155550123' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'caller_id', type_label: 'Caller ID' });
  });

  it('reads the country and region of a GB number', async () => {
    const res = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+442071838750' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ phone_number: '+442071838750', country_code: 'GB', region: 'ie1' });
  });

  it('stamps the number with the current simulated time', async () => {
    await api().sim.control.clock.advance({ by: '1h' });
    const res = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550123' });
    expect(res.body.created_at).toBe('2026-03-02T10:00:00.000000Z');
  });

  it('numbers the added phone numbers in sequence', async () => {
    await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550123' });
    const res = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550124' });
    expect(res.body.id).toBe(2);
  });

  it('gives the number to the named account only', async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    await api().post('/__sim/phone-numbers', { account_id: 2, type: 'sip', phone_number: '+14155550123' });
    expect((await api().get('/user/assistants/phone-numbers', { key: 'sim_second_key' })).body.map((n: { phone_number: string }) => n.phone_number)).toEqual([
      '+14155550123',
    ]);
    expect((await api().get('/user/assistants/phone-numbers')).body).toEqual([]);
  });

  it('rejects a number not in E.164 with 422 shape B on phone_number', async () => {
    const res = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '4155550123' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The phone number must be a valid phone number in E.164 format.',
      errors: { phone_number: ['The phone number must be a valid phone number in E.164 format.'] },
    });
  });

  it('rejects a number already added, even to another account, with 422 shape B on phone_number', async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    await api().post('/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550123' });
    const res = await api().post('/__sim/phone-numbers', { account_id: 2, type: 'caller_id', phone_number: '+14155550123' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The phone number has already been taken.', errors: { phone_number: ['The phone number has already been taken.'] } });
  });

  it('rejects an unknown account with 422 shape B on account_id', async () => {
    const res = await api().post('/__sim/phone-numbers', { account_id: 99, type: 'sip', phone_number: '+14155550123' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected account id is invalid.', errors: { account_id: ['The selected account id is invalid.'] } });
  });

  it('rejects the type normal with 422 shape B on type', async () => {
    const res = await api().post('/__sim/phone-numbers', { account_id: 1, type: 'normal', phone_number: '+14155550123' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected type is invalid.', errors: { type: ['The selected type is invalid.'] } });
  });

  it('names every missing field', async () => {
    const res = await api().post('/__sim/phone-numbers', {});
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      account_id: ['The account id field is required.'],
      type: ['The type field is required.'],
      phone_number: ['The phone number field is required.'],
    });
  });

  it('adds nothing when refused', async () => {
    await api().post('/__sim/phone-numbers', { account_id: 1, type: 'normal', phone_number: '+14155550123' });
    expect((await api().get('/user/assistants/phone-numbers')).body).toEqual([]);
  });

  it('adds the same number in-process', async () => {
    const input = { account_id: 1, type: 'sip', phone_number: '+442071838750' } as const;
    const res = await api().post('/__sim/phone-numbers', input);
    expect(fresh().control.phoneNumbers.add(input)).toStrictEqual(res.body);
  });

  it('refuses the same number in-process with the same error', async () => {
    const input = { account_id: 1, type: 'sip', phone_number: '12345' } as const;
    const res = await api().post('/__sim/phone-numbers', input);
    expect(await simRefusal(() => api().sim.control.phoneNumbers.add(input))).toStrictEqual({ status: 422, body: res.body });
  });
});

contract('control: faults', (api) => {
  const DELETE_FAULT = { method: 'DELETE', path: '/user/assistant/:id' } as const;

  it('matches a rule path written with a trailing slash', async () => {
    const id = await createAssistant(api());
    const rule = await api().post('/__sim/faults', { method: 'DELETE', path: `/user/assistant/${id}/` });
    expect(rule.body.path).toBe(`/user/assistant/${id}`);
    expect((await api().del(`/user/assistant/${id}`)).status).toBe(500);
  });

  it('never faults a control route', async () => {
    await api().post('/__sim/faults', { method: 'DELETE', path: '/__sim/faults' });
    const cleared = await api().del('/__sim/faults');
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ ok: true });
    expect((await api().get('/__sim/faults')).body).toEqual({ data: [] });
  });

  it('adds a fault rule and answers 201 with it, times defaulting to 1', async () => {
    const res = await api().post('/__sim/faults', DELETE_FAULT);
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({ id: 1, method: 'DELETE', path: '/user/assistant/:id', times: 1, status: 500, retry_after: null });
  });

  it("answers the route's documented failure while the fault holds, and keeps the assistant", async () => {
    const id = await createAssistant(api());
    await api().post('/__sim/faults', DELETE_FAULT);
    const res = await api().del(`/user/assistant/${id}`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'Failed to delete assistant.' });
    expect((await api().get(`/user/assistant/${id}`)).status).toBe(200);
  });

  it('lets the next request succeed once the fault is used up', async () => {
    const id = await createAssistant(api());
    await api().post('/__sim/faults', DELETE_FAULT);
    await api().del(`/user/assistant/${id}`);
    const res = await api().del(`/user/assistant/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Assistant deleted successfully.' });
    expect((await api().get(`/user/assistant/${id}`)).status).toBe(404);
  });

  it('fails only the concrete path a fault names', async () => {
    const first = await createAssistant(api());
    const second = await createAssistant(api());
    await api().post('/__sim/faults', { method: 'DELETE', path: `/user/assistant/${second}` });
    expect((await api().del(`/user/assistant/${first}`)).status).toBe(200);
    const res = await api().del(`/user/assistant/${second}`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'Failed to delete assistant.' });
  });

  it('fails as many requests as times says', async () => {
    const id = await createAssistant(api());
    await api().post('/__sim/faults', { ...DELETE_FAULT, times: 2 });
    expect((await api().del(`/user/assistant/${id}`)).status).toBe(500);
    expect((await api().del(`/user/assistant/${id}`)).status).toBe(500);
    expect((await api().del(`/user/assistant/${id}`)).status).toBe(200);
  });

  it('answers 500 Server Error. on a route without a documented failure', async () => {
    await api().post('/__sim/faults', { method: 'GET', path: '/user/me' });
    const res = await api().get('/user/me');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'Server Error.' });
    expect((await api().get('/user/me')).status).toBe(200);
  });

  it('fails only the method a fault names', async () => {
    const id = await createAssistant(api());
    await api().post('/__sim/faults', DELETE_FAULT);
    expect((await api().get(`/user/assistant/${id}`)).status).toBe(200);
    expect((await api().del(`/user/assistant/${id}`)).status).toBe(500);
  });

  it('lists the rules with the times left', async () => {
    const id = await createAssistant(api());
    await api().post('/__sim/faults', { ...DELETE_FAULT, times: 2 });
    await api().post('/__sim/faults', { method: 'GET', path: '/user/me' });
    await api().del(`/user/assistant/${id}`);
    const res = await api().get('/__sim/faults');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      data: [
        { id: 1, method: 'DELETE', path: '/user/assistant/:id', times: 1, status: 500, retry_after: null },
        { id: 2, method: 'GET', path: '/user/me', times: 1, status: 500, retry_after: null },
      ],
    });
  });

  // live-platform H.11: a chosen status, and a 429 of shape R with Retry-After.
  it('answers a 429 fault with Retry-After: 30 and shape R, once, and changes nothing', async () => {
    const id = await createAssistant(api());
    const rule = await api().post('/__sim/faults', { ...DELETE_FAULT, status: 429, retry_after: 30 });
    expect(rule.status).toBe(201);
    expect(rule.body).toStrictEqual({ id: 1, method: 'DELETE', path: '/user/assistant/:id', times: 1, status: 429, retry_after: 30 });
    const res = await api().del(`/user/assistant/${id}`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.body).toStrictEqual({ message: 'Too Many Attempts.', retry_after: 30 });
    expect((await api().get(`/user/assistant/${id}`)).status).toBe(200);
    const next = await api().del(`/user/assistant/${id}`);
    expect(next.status).toBe(200);
    expect(next.headers.get('retry-after')).toBeNull();
  });

  it('gives a 429 fault without retry_after 60 seconds', async () => {
    await api().post('/__sim/faults', { method: 'GET', path: '/user/me', status: 429 });
    const res = await api().get('/user/me');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(res.body).toStrictEqual({ message: 'Too Many Attempts.', retry_after: 60 });
  });

  it.each([
    [502, 'Bad Gateway.'],
    [503, 'Service Unavailable.'],
    [504, 'Gateway Timeout.'],
  ])('answers a %i fault in shape A with its reason phrase, once', async (status, message) => {
    const id = await createAssistant(api());
    await api().post('/__sim/faults', { ...DELETE_FAULT, status });
    const res = await api().del(`/user/assistant/${id}`);
    expect(res.status).toBe(status);
    expect(res.body).toStrictEqual({ message });
    expect(res.headers.get('retry-after')).toBeNull();
    expect((await api().del(`/user/assistant/${id}`)).status).toBe(200);
  });

  it('refuses another status, and retry_after without 429, with 422 shape B, adding no rule', async () => {
    const bad = await api().post('/__sim/faults', { method: 'GET', path: '/user/me', status: 404 });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toStrictEqual({ status: ['The selected status is invalid.'] });
    const stray = await api().post('/__sim/faults', { method: 'GET', path: '/user/me', status: 503, retry_after: 5 });
    expect(stray.status).toBe(422);
    expect(stray.body.errors).toStrictEqual({ retry_after: ['The retry after field is only allowed with status 429.'] });
    expect((await api().get('/__sim/faults')).body).toStrictEqual({ data: [] });
  });

  it('keeps a 429 fault through a saved state, and reads a rule saved without a status as a 500', async () => {
    await api().post('/__sim/faults', { method: 'GET', path: '/user/me', status: 429, retry_after: 30 });
    const saved = (await api().get('/__sim/state')).body;
    expect(saved.faults.rules).toStrictEqual([{ id: 1, method: 'GET', path: '/user/me', times: 1, status: 429, retry_after: 30 }]);
    await api().del('/__sim/faults');
    expect((await api().put('/__sim/state', saved)).status).toBe(200);
    expect((await api().get('/user/me')).headers.get('retry-after')).toBe('30');
    // A state saved before faults had a status.
    const older = { ...saved, faults: { ...saved.faults, rules: [{ id: 1, method: 'GET', path: '/user/me', times: 1 }] } };
    expect((await api().put('/__sim/state', older)).status).toBe(200);
    expect((await api().get('/__sim/faults')).body.data).toStrictEqual([{ id: 1, method: 'GET', path: '/user/me', times: 1, status: 500, retry_after: null }]);
    const res = await api().get('/user/me');
    expect(res.status).toBe(500);
    expect(res.body).toStrictEqual({ message: 'Server Error.' });
  });

  it('adds a 429 fault in-process as over HTTP', async () => {
    const sim = fresh();
    expect(sim.control.faults.add({ method: 'GET', path: '/user/me', status: 429, retry_after: 30 })).toStrictEqual({
      id: 1,
      method: 'GET',
      path: '/user/me',
      times: 1,
      status: 429,
      retry_after: 30,
    });
  });

  it('drops a rule from the list once it is used up', async () => {
    await api().post('/__sim/faults', { method: 'GET', path: '/user/me' });
    await api().get('/user/me');
    expect((await api().get('/__sim/faults')).body).toStrictEqual({ data: [] });
  });

  it('clears every rule', async () => {
    const id = await createAssistant(api());
    await api().post('/__sim/faults', DELETE_FAULT);
    const res = await api().del('/__sim/faults');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ok: true });
    expect((await api().get('/__sim/faults')).body).toStrictEqual({ data: [] });
    expect((await api().del(`/user/assistant/${id}`)).status).toBe(200);
  });

  it('does not spend a fault on a request refused by validation', async () => {
    await api().post('/__sim/faults', { method: 'GET', path: '/user/assistants/voices' });
    const invalid = await api().get('/user/assistants/voices', { query: { mode: 'bogus' } });
    expect(invalid.status).toBe(422);
    expect((await api().get('/__sim/faults')).body.data).toHaveLength(1);
    expect((await api().get('/user/assistants/voices')).status).toBe(500);
  });

  it('does not spend a fault on an unauthenticated request', async () => {
    const id = await createAssistant(api());
    await api().post('/__sim/faults', DELETE_FAULT);
    expect((await api().del(`/user/assistant/${id}`, { key: null })).status).toBe(401);
    expect((await api().del(`/user/assistant/${id}`)).status).toBe(500);
  });

  it('answers a delete of a missing assistant with the fault, spending it (faults fire before the lookup)', async () => {
    await api().post('/__sim/faults', DELETE_FAULT);
    const res = await api().del('/user/assistant/99');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'Failed to delete assistant.' });
    expect((await api().get('/__sim/faults')).body).toStrictEqual({ data: [] });
  });

  it('rejects an invalid rule with 422 shape B naming the fields', async () => {
    const res = await api().post('/__sim/faults', { method: 'delete', path: 'user/me', times: 0 });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      method: ['The selected method is invalid.'],
      path: ['The path must start with /.'],
      times: ['The times must be between 1 and 1000.'],
    });
    expect((await api().get('/__sim/faults')).body).toStrictEqual({ data: [] });
  });

  it('adds, lists and clears the same way in-process', async () => {
    const added = await api().post('/__sim/faults', { ...DELETE_FAULT, times: 3 });
    const listed = await api().get('/__sim/faults');
    const cleared = await api().del('/__sim/faults');
    const sim = fresh();
    expect(sim.control.faults.add({ ...DELETE_FAULT, times: 3 })).toStrictEqual(added.body);
    expect(sim.control.faults.list()).toStrictEqual(listed.body);
    expect(sim.control.faults.clear()).toStrictEqual(cleared.body);
    expect(sim.control.faults.list()).toStrictEqual({ data: [] });
  });

  it('fails HTTP requests with a fault added in-process', async () => {
    const id = await createAssistant(api());
    api().sim.control.faults.add(DELETE_FAULT);
    expect((await api().del(`/user/assistant/${id}`)).status).toBe(500);
  });

  it('refuses the same rule in-process with the same error', async () => {
    const res = await api().post('/__sim/faults', { method: 'DELETE' });
    // @ts-expect-error the input type requires the path too
    expect(await simRefusal(() => api().sim.control.faults.add({ method: 'DELETE' }))).toStrictEqual({ status: 422, body: res.body });
  });
});

contract('control: calls, charges and rates', (api) => {
  const CALL = { client_phone_number: '+14155550123', created_at: '2026-03-01T10:15:30Z' };

  async function buyNumber(key = 'sim_test_key'): Promise<{ id: number; phone_number: string }> {
    const found = await api().get('/user/phone-numbers/search', { key });
    const res = await api().post('/user/phone-numbers/purchase', { phone_number: found.body.data[0].phone_number }, { key });
    expect(res.status).toBe(201);
    return res.body.data;
  }

  it('inserts a call and answers 201 with the record as GET /user/calls/{id} shows it', async () => {
    const assistant = await createAssistant(api());
    const res = await api().post('/__sim/calls', { ...CALL, assistant_id: assistant, status: 'no-answer', duration: 0 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: 1, assistant_id: assistant, assistant_name: 'Sales Assistant', status: 'no-answer', created_at: '2026-03-01 10:15:30' });
    expect((await api().get('/user/calls/1')).body).toStrictEqual(res.body);
  });

  it('fills a finished outbound call stamped now when only the assistant and client are given', async () => {
    const assistant = await createAssistant(api());
    const res = await api().post('/__sim/calls', { assistant_id: assistant, client_phone_number: '+14155550123' });
    expect(res.body).toStrictEqual({
      id: 1,
      assistant_id: assistant,
      assistant_name: 'Sales Assistant',
      campaign_id: null,
      campaign_name: null,
      type: 'outbound',
      duration: 0,
      assistant_phone_number: '',
      client_phone_number: '+14155550123',
      status: 'completed',
      transcript: '',
      variables: {},
      evaluation: {},
      webhook_response: null,
      carrier_cost: 0,
      total_cost: 0,
      answered_by: 'human',
      recording_url: null,
      created_at: '2026-03-02 09:00:00',
      updated_at: '2026-03-02 09:00:00',
    });
  });

  it('inserts a call for the named account only', async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    const assistant = await api().post('/user/assistant', pipelineAssistant(), { key: 'sim_second_key' });
    const res = await api().post('/__sim/calls', { ...CALL, account_id: 2, assistant_id: assistant.body.data.id });
    expect(res.status).toBe(201);
    expect((await api().get('/user/calls', { key: 'sim_second_key' })).body.total).toBe(1);
    expect((await api().get('/user/calls')).body.total).toBe(0);
  });

  it('rejects an unknown assistant with 422 shape B on assistant_id', async () => {
    const res = await api().post('/__sim/calls', { ...CALL, assistant_id: 99 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected assistant id is invalid.', errors: { assistant_id: ['The selected assistant id is invalid.'] } });
  });

  it("rejects another account's assistant with 422 shape B on assistant_id", async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    const assistant = await api().post('/user/assistant', pipelineAssistant(), { key: 'sim_second_key' });
    const res = await api().post('/__sim/calls', { ...CALL, assistant_id: assistant.body.data.id });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ assistant_id: ['The selected assistant id is invalid.'] });
  });

  it('rejects a created_at that is not an ISO time with 422 shape B on created_at', async () => {
    const assistant = await createAssistant(api());
    const res = await api().post('/__sim/calls', { ...CALL, assistant_id: assistant, created_at: 'yesterday' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The created at must be an ISO 8601 time.', errors: { created_at: ['The created at must be an ISO 8601 time.'] } });
  });

  it.each(['1970-01-01T00:00:00Z', '9999-01-01T00:00:00Z'])('inserts a call created at %s, an edge of the clock range', async (created_at) => {
    const assistant = await createAssistant(api());
    const res = await api().post('/__sim/calls', { ...CALL, assistant_id: assistant, duration: 86_400, created_at });
    expect(res.status).toBe(201);
    expect(res.body.created_at).toBe(created_at.replace('T', ' ').replace('Z', ''));
    expect((await api().put('/__sim/state', (await api().get('/__sim/state')).body)).status).toBe(200);
  });

  it.each(['1969-12-31T23:59:59Z', '9999-01-01T00:00:01Z', '+275760-09-12T00:00:00Z'])('rejects a created_at of %s, outside the clock range, with 422 shape B and changes nothing', async (created_at) => {
    const assistant = await createAssistant(api());
    const refused = invalidField('created_at', 'The created at must be a time from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z.');
    await expectRefused(api(), () => api().post('/__sim/calls', { ...CALL, assistant_id: assistant, created_at }), 422, refused);
  });

  it('rejects an unknown account with 422 shape B on account_id', async () => {
    const res = await api().post('/__sim/calls', { ...CALL, account_id: 99, assistant_id: 1 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected account id is invalid.', errors: { account_id: ['The selected account id is invalid.'] } });
  });

  it('rejects an unknown campaign with 422 shape B on campaign_id', async () => {
    const assistant = await createAssistant(api());
    const res = await api().post('/__sim/calls', { ...CALL, assistant_id: assistant, campaign_id: 99 });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ campaign_id: ['The selected campaign id is invalid.'] });
  });

  it('rejects an unknown status with 422 shape B on status', async () => {
    const assistant = await createAssistant(api());
    const res = await api().post('/__sim/calls', { ...CALL, assistant_id: assistant, status: 'done' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ status: ['The selected status is invalid.'] });
  });

  it('names every missing field', async () => {
    const res = await api().post('/__sim/calls', {});
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      assistant_id: ['The assistant id field is required.'],
      client_phone_number: ['The client phone number field is required.'],
    });
  });

  it('inserts nothing when refused', async () => {
    const assistant = await createAssistant(api());
    await api().post('/__sim/calls', { ...CALL, assistant_id: assistant, created_at: 'yesterday' });
    expect((await api().get('/user/calls')).body.total).toBe(0);
    expect((await api().post('/__sim/calls', { ...CALL, assistant_id: assistant })).body.id).toBe(1);
  });

  it('inserts the same call in-process', async () => {
    const assistant = await createAssistant(api());
    const res = await api().post('/__sim/calls', { ...CALL, assistant_id: assistant });
    const sim = fresh();
    const headers = { authorization: 'Bearer sim_test_key' };
    await sim.handle({ method: 'POST', path: '/user/assistant', headers, body: JSON.stringify(pipelineAssistant()) });
    expect(sim.control.calls.insert({ ...CALL, assistant_id: assistant })).toStrictEqual(res.body);
  });

  it('refuses the same call in-process with the same error', async () => {
    const res = await api().post('/__sim/calls', { ...CALL, assistant_id: 99 });
    expect(await simRefusal(() => api().sim.control.calls.insert({ ...CALL, assistant_id: 99 }))).toStrictEqual({ status: 422, body: res.body });
  });

  it('refuses an account_id that is not a whole number', async () => {
    const res = await api().get('/__sim/charges', { query: { account_id: 'abc' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The account id must be an integer.', errors: { account_id: ['The account id must be an integer.'] } });
  });

  it('lists no charges before any purchase', async () => {
    const res = await api().get('/__sim/charges');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [] });
  });

  it('lists the charges of every account, oldest first', async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    await api().patch('/__sim/accounts/2', { has_payment_method: true });
    const first = await buyNumber();
    await api().sim.control.clock.advance({ by: '1h' });
    const second = await buyNumber('sim_second_key');
    const res = await api().get('/__sim/charges');
    expect(res.body).toStrictEqual({
      data: [
        {
          id: 1,
          account_id: 1,
          phone_number_id: first.id,
          phone_number: first.phone_number,
          amount: 1.15,
          billing_price_id: 'price_us_local_monthly',
          period_start: CREATED_AT,
          period_end: '2026-04-02T09:00:00.000000Z',
          created_at: CREATED_AT,
        },
        {
          id: 2,
          account_id: 2,
          phone_number_id: second.id,
          phone_number: second.phone_number,
          amount: 1.15,
          billing_price_id: 'price_us_local_monthly',
          period_start: '2026-03-02T10:00:00.000000Z',
          period_end: '2026-04-02T10:00:00.000000Z',
          created_at: '2026-03-02T10:00:00.000000Z',
        },
      ],
    });
  });

  it('lists the charges of one account with ?account_id', async () => {
    await api().post('/__sim/accounts', SECOND_ACCOUNT_INPUT);
    await api().patch('/__sim/accounts/2', { has_payment_method: true });
    await buyNumber();
    const second = await buyNumber('sim_second_key');
    const res = await api().get('/__sim/charges', { query: { account_id: 2 } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { id: number; account_id: number; phone_number: string }) => [c.id, c.account_id, c.phone_number])).toEqual([[2, 2, second.phone_number]]);
  });

  it('lists no charges for an account without any', async () => {
    await buyNumber();
    expect((await api().get('/__sim/charges', { query: { account_id: 99 } })).body).toStrictEqual({ data: [] });
  });

  it('lists the same charges in-process', async () => {
    await buyNumber();
    await api().sim.control.clock.advance({ by: '31d' });
    const all = await api().get('/__sim/charges');
    const one = await api().get('/__sim/charges', { query: { account_id: 1 } });
    expect(all.body.data).toHaveLength(2);
    expect(api().sim.control.charges.list()).toStrictEqual(all.body);
    expect(api().sim.control.charges.list({ account_id: 1 })).toStrictEqual(one.body);
  });

  it('creates an account with the rates given', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, rates: { ai_per_minute: 0.25, carrier_per_minute: 0.02 } });
    expect(res.status).toBe(201);
    expect(res.body.rates).toStrictEqual({ ...DEFAULT_RATES, ai_per_minute: 0.25, carrier_per_minute: 0.02 });
  });

  it('fills a rate not given with its default on create', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, rates: { carrier_per_minute: 0.05 } });
    expect(res.body.rates).toStrictEqual({ ...DEFAULT_RATES, carrier_per_minute: 0.05 });
  });

  it('accepts rates of 0', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, rates: { ai_per_minute: 0, carrier_per_minute: 0 } });
    expect(res.status).toBe(201);
    expect(res.body.rates).toStrictEqual({ ...DEFAULT_RATES, ai_per_minute: 0, carrier_per_minute: 0 });
  });

  it('merges a rates change into the current rates', async () => {
    await api().patch('/__sim/accounts/1', { rates: { carrier_per_minute: 0.03 } });
    const res = await api().patch('/__sim/accounts/1', { rates: { ai_per_minute: 0.12 } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ...DEFAULT_ACCOUNT, rates: { ...DEFAULT_RATES, ai_per_minute: 0.12, carrier_per_minute: 0.03 } });
    expect((await api().get('/__sim/accounts')).body.data[0].rates).toStrictEqual({ ...DEFAULT_RATES, ai_per_minute: 0.12, carrier_per_minute: 0.03 });
  });

  it('rejects a negative rate on create with 422 shape B on the nested field, creating nothing', async () => {
    const res = await api().post('/__sim/accounts', { ...NAMED, rates: { ai_per_minute: -0.01 } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The rates.ai per minute must be at least 0.', errors: { 'rates.ai_per_minute': ['The rates.ai per minute must be at least 0.'] } });
    expect((await api().get('/__sim/accounts')).body.data).toHaveLength(1);
  });

  it('rejects a negative rate on patch with 422 shape B and changes nothing', async () => {
    const res = await api().patch('/__sim/accounts/1', { rates: { ai_per_minute: 0.5, carrier_per_minute: -1 } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ 'rates.carrier_per_minute': ['The rates.carrier per minute must be at least 0.'] });
    expect((await api().get('/__sim/accounts')).body.data[0].rates).toStrictEqual(DEFAULT_RATES);
  });

  it('rejects rates that are not an object with 422 shape B on rates', async () => {
    const res = await api().patch('/__sim/accounts/1', { rates: 0.1 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The rates must be an object.', errors: { rates: ['The rates must be an object.'] } });
  });

  it('rejects a rate given as a string with 422 shape B', async () => {
    const res = await api().patch('/__sim/accounts/1', { rates: { ai_per_minute: '0.1' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ 'rates.ai_per_minute': ['The rates.ai per minute must be a number.'] });
  });

  it('changes the rates the same way in-process', async () => {
    const res = await api().patch('/__sim/accounts/1', { rates: { ai_per_minute: 0.3 } });
    expect(fresh().control.accounts.patch(1, { rates: { ai_per_minute: 0.3 } })).toStrictEqual(res.body);
  });

  it('refuses the same rates in-process with the same error', async () => {
    const res = await api().patch('/__sim/accounts/1', { rates: { ai_per_minute: -1 } });
    expect(await simRefusal(() => api().sim.control.accounts.patch(1, { rates: { ai_per_minute: -1 } }))).toStrictEqual({ status: 422, body: res.body });
  });
});

contract('control: a body key the operation does not have is refused, with the closest known key', (api) => {
  it.each([
    ['POST', '/__sim/reset', { seeds: 5 }, 'seeds', 'The seeds field is not allowed; did you mean seed?'],
    ['POST', '/__sim/clock/run-until-idle', { max_event: 10 }, 'max_event', 'The max_event field is not allowed; did you mean max_events?'],
    ['POST', '/__sim/clock/advance', { by: '1h', verbose: true }, 'verbose', 'The verbose field is not allowed.'],
    ['PUT', '/__sim/clock', { mode: 'manual', sped: 2 }, 'sped', 'The sped field is not allowed; did you mean speed?'],
    ['PUT', '/__sim/outcomes', { rules: [], rule: [] }, 'rule', 'The rule field is not allowed; did you mean rules?'],
    ['PUT', '/__sim/replies', { rules: [], rulse: [] }, 'rulse', 'The rulse field is not allowed; did you mean rules?'],
    ['POST', '/__sim/webhooks/failures', { with: 500, time: 2 }, 'time', 'The time field is not allowed; did you mean times?'],
    ['POST', '/__sim/faults', { method: 'GET', path: '/user/me', times: 1, code: 500 }, 'code', 'The code field is not allowed.'],
    ['PATCH', '/__sim/accounts/1', { balanse: 5 }, 'balanse', 'The balanse field is not allowed; did you mean balance?'],
  ] as const)('%s %s with %j answers 422 naming the key, and changes nothing', async (method, path, body, key, message) => {
    await expectRefused(api(), () => (method === 'POST' ? api().post(path, body) : method === 'PUT' ? api().put(path, body) : api().patch(path, body)), 422, invalidField(key, message));
  });

  it("lists every unknown key before the schema's own failures, the first being the message", async () => {
    await expectRefused(api(), () => api().post('/__sim/accounts', { name: 5, balanse: 3, api_key: 'sim_other_key' }), 422, {
      message: 'The balanse field is not allowed; did you mean balance? (and 1 more error)',
      errors: { balanse: ['The balanse field is not allowed; did you mean balance?'], name: ['The name must be a string.'] },
    });
  });

  it('refuses the same through sim.control, and takes a key set to undefined as absent', async () => {
    const sim = api().sim;
    await expect(sim.control.clock.runUntilIdle({ max_event: 10 } as never)).rejects.toMatchObject({ status: 422, body: invalidField('max_event', 'The max_event field is not allowed; did you mean max_events?') });
    expect(sim.control.accounts.patch(1, { balance: 7, name: undefined })).toMatchObject({ id: 1, balance: 7, name: 'Voxsim Test Account' });
  });
});
