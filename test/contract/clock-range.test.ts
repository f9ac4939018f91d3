/**
 * The clock's bounds (issue 13: every clock move bounded by a documented horizon; docs/control-api.md,
 * docs/clock.md: Clock range): its time stays from 1970-01-01T00:00:00Z to
 * 9999-01-01T00:00:00Z wherever a time enters (`POST /__sim/reset`, `advance`), a move
 * goes at most ten years and never past the range's end, run-until-idle stops at the same
 * horizon, and realtime speeds go from 0.001 to 1000000. A refusal changes nothing.
 */
import { expect, it } from 'vitest';
import { CLOCK_MESSAGES } from '../../src/control/schema.js';
import { CLOCK_RANGE } from '../../src/core/time.js';
import { contract, type Api } from '../support/api.js';
import { expectRefused, invalidField } from '../support/expect.js';

const RANGE_END = '9999-01-01T00:00:00Z';
const TEN_YEARS_MS = 3652.5 * 86_400_000;
const START_RULE = 'The start must be a time from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z.';
const SPEED_RULE = 'The speed must be between 0.001 and 1000000.';


/** Buys the first US number offered: a monthly renewal (a periodic event) is pending from then on. */
async function buyNumber(api: Api): Promise<void> {
  const offer = (await api.get('/user/phone-numbers/search', { query: { country_code: 'US' } })).body.data[0].phone_number;
  expect((await api.post('/user/phone-numbers/purchase', { phone_number: offer })).status).toBe(201);
}

contract('control: the clock range on POST /__sim/reset', (api) => {
  it.each([
    ['1970-01-01T00:00:00Z', 0],
    [RANGE_END, CLOCK_RANGE.max],
  ])('sets the clock to %s, an edge of the range', async (start, ms) => {
    const res = await api().post('/__sim/reset', { start });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ok: true, seed: 1, now: start });
    expect((await api().get('/__sim/clock')).body.now_ms).toBe(ms);
  });

  it.each(['1969-12-31T23:59:59Z', '9999-01-01T00:00:00.001Z', '9999-12-31T00:00:00Z', '+275760-09-12T00:00:00Z'])(
    'refuses start %s with 422 shape B on start and changes nothing',
    async (start) => {
      await api().post('/__sim/clock/advance', { by: '1h' });
      await expectRefused(api(), () => api().post('/__sim/reset', { start }), 422, invalidField('start', START_RULE));
    },
  );

  it('keeps answering after a refused start: advance and health work', async () => {
    await api().post('/__sim/reset', { start: '+275760-09-12T00:00:00Z' });
    expect((await api().post('/__sim/clock/advance', { by: '2d' })).body.now).toBe('2026-03-04T09:00:00Z');
    expect((await api().get('/__sim/health')).status).toBe(200);
  });
});

contract('control: a move never passes the end of the clock range', (api) => {
  it('advances to the end of the range exactly, by either form', async () => {
    await api().post('/__sim/reset', { start: '9998-12-31T00:00:00Z' });
    const by = await api().post('/__sim/clock/advance', { by: '12h' });
    expect(by.body).toStrictEqual({ now: '9998-12-31T12:00:00Z', now_ms: CLOCK_RANGE.max - 43_200_000, ran: 0 });
    const to = await api().post('/__sim/clock/advance', { to: RANGE_END });
    expect(to.status).toBe(200);
    expect(to.body).toStrictEqual({ now: RANGE_END, now_ms: CLOCK_RANGE.max, ran: 0 });
  });

  it.each([
    ['by', { by: 1 }],
    ['by', { by: '2d' }],
    ['to', { to: '9999-01-01T00:00:00.001Z' }],
    ['to', { to: '9999-06-01T00:00:00Z' }],
  ] as const)('refuses a move past the end with 422 shape B on %s and changes nothing', async (field, body) => {
    await api().post('/__sim/reset', { start: RANGE_END });
    await buyNumber(api());
    await expectRefused(api(), () => api().post('/__sim/clock/advance', body), 422, invalidField(field, `The ${field} may not move the clock past 9999-01-01T00:00:00Z, the end of its range.`));
    expect((await api().get('/__sim/health')).body.now).toBe(RANGE_END);
  });

  it('refuses a move queued behind another that would end past the range', async () => {
    await api().post('/__sim/reset', { start: '9998-12-31T00:00:00Z' });
    const sim = api().sim;
    // Both are checked against 9998-12-31 when asked; the second starts where the first ends.
    const first = sim.control.clock.advance({ by: '20h' });
    const second = sim.control.clock.advance({ by: '20h' });
    expect((await first).now).toBe('9998-12-31T20:00:00Z');
    await expect(second).rejects.toMatchObject({ status: 422, body: invalidField('by', CLOCK_MESSAGES.pastEnd('by')) });
    expect(sim.clock.now()).toBe(CLOCK_RANGE.max - 4 * 3_600_000);
  });

  it('keeps what falls due after the end of the range (a renewal a month on), and restores it', async () => {
    await api().post('/__sim/reset', { start: '9998-12-15T00:00:00Z' });
    await buyNumber(api());
    await api().post('/__sim/clock/advance', { to: RANGE_END });
    const saved = (await api().get('/__sim/state')).body;
    expect(saved.clock.events).toEqual([expect.objectContaining({ type: 'phone_number.period_end', at: Date.parse('9999-01-15T00:00:00Z') })]);
    expect((await api().get('/user/phone-numbers/all')).status).toBe(200);
    const res = await api().put('/__sim/state', saved);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ok: true, now: RANGE_END });
  });

  it('stops a realtime clock at the end of the range', async () => {
    await api().post('/__sim/reset', { start: RANGE_END });
    await api().put('/__sim/clock', { mode: 'realtime', speed: 1_000_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await api().get('/__sim/clock')).body).toMatchObject({ now: RANGE_END, now_ms: CLOCK_RANGE.max, mode: 'realtime' });
  });
});

contract('control: run-until-idle stops at the horizon', (api) => {
  it('runs nothing due more than ten years ahead and reports it pending, renewals up to the horizon run', async () => {
    await buyNumber(api());
    const start = api().sim.clock.now();
    api().sim.clock.schedule(start + 2 * TEN_YEARS_MS, 'webhook.attempt', { delivery_id: 999 });
    const res = await api().post('/__sim/clock/run-until-idle', {});
    expect(res.status).toBe(200);
    // Monthly renewals from 2026-04-02 to 2036-02-02 (2036-03-02 is 3653 days away): 119.
    expect(res.body).toStrictEqual({ now: '2036-02-02T09:00:00Z', now_ms: Date.parse('2036-02-02T09:00:00Z'), ran: 119, pending: 1, periodic_pending: 1 });
  });

  it('runs an event due exactly at the horizon', async () => {
    const start = api().sim.clock.now();
    api().sim.clock.schedule(start + TEN_YEARS_MS, 'webhook.attempt', { delivery_id: 999 });
    const res = await api().post('/__sim/clock/run-until-idle', {});
    expect(res.body).toMatchObject({ now_ms: start + TEN_YEARS_MS, ran: 1, pending: 0 });
  });

  it('stops at the end of the range, nearer than ten years', async () => {
    await api().post('/__sim/reset', { start: '9998-06-01T00:00:00Z' });
    const sim = api().sim;
    sim.clock.schedule(Date.parse('9999-01-01T00:00:00Z'), 'webhook.attempt', { delivery_id: 998 });
    sim.clock.schedule(Date.parse('9999-06-01T00:00:00Z'), 'webhook.attempt', { delivery_id: 999 });
    const res = await api().post('/__sim/clock/run-until-idle', {});
    expect(res.body).toStrictEqual({ now: RANGE_END, now_ms: CLOCK_RANGE.max, ran: 1, pending: 1, periodic_pending: 0 });
  });

  it('reports the events max_events left pending', async () => {
    const sim = api().sim;
    for (const minutes of [1, 2, 3]) sim.clock.schedule(sim.clock.now() + minutes * 60_000, 'webhook.attempt', { delivery_id: 990 + minutes });
    const res = await api().post('/__sim/clock/run-until-idle', { max_events: 2 });
    expect(res.body).toMatchObject({ ran: 2, pending: 1, periodic_pending: 0 });
  });
});

contract('control: the realtime speed range on PUT /__sim/clock', (api) => {
  it.each([0.001, 1_000_000])('accepts speed %s, an edge of the range', async (speed) => {
    const res = await api().put('/__sim/clock', { mode: 'realtime', speed });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode: 'realtime', speed });
  });

  it.each([0.0009, 1e-300, 1_000_000.5, -1])('refuses speed %s with 422 shape B on speed and changes nothing', async (speed) => {
    await expectRefused(api(), () => api().put('/__sim/clock', { mode: 'realtime', speed }), 422, invalidField('speed', SPEED_RULE));
  });
});
