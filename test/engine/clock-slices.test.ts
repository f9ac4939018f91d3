/**
 * Fairness between simulators (issue 35; docs/clock.md "Moves run in slices"): a long clock
 * move yields to the event loop between slices, so another simulator in the same process
 * answers meanwhile; a request to the moving simulator waits for the move to end; a webhook
 * receiver calling back while its delivery is in flight is answered at once; and slicing
 * changes no result. Campaigns run on the virtual clock; the concurrency is real (two
 * simulators in one process), and the test records the order things finish in, never timings.
 */
import { describe, expect, it } from 'vitest';
import { SLICE_MS } from '../../src/core/clock.js';
import { createLead } from '../../src/domain/leads/service.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { pipelineAssistant } from '../support/fixtures.js';

const START = '2026-03-02T00:00:00Z';
const AUTH = { authorization: 'Bearer sim_test_key' };
/** A slice budget of a microsecond: a move yields after nearly every event. */
const TINY = 0.001;
const DAY_MS = 86_400_000;

async function request(sim: Simulator, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await sim.handle({ method, path, headers: AUTH, body: body === undefined ? null : JSON.stringify(body) });
  return { status: res.status, body: res.body };
}

async function ok(sim: Simulator, method: string, path: string, body?: unknown): Promise<any> {
  const res = await request(sim, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * A simulator running a campaign of `leads` leads, started: 10 calls in parallel, 3 retries,
 * open all day, outcomes 40% human, 30% no-answer, 20% voicemail, 10% busy by each lead's
 * `mix` variable (the dialer bench's campaign, smaller); its clock's moves yield every
 * `sliceMs` of real time (by default SLICE_MS, as a server's simulators do).
 */
async function campaign(leads: number, sliceMs = SLICE_MS): Promise<Simulator> {
  const sim = createSimulator({ seed: 1, startAt: START, accounts: [{ api_key: 'sim_test_key', balance: 1_000_000 }] });
  sim.clock.sliceMs = sliceMs;
  sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  const assistant = await ok(sim, 'POST', '/user/assistant', pipelineAssistant({ phone_number_id: 1, timezone: 'UTC' }));
  const created = await ok(sim, 'POST', '/user/campaign', {
    name: 'Fairness', assistant_id: assistant.data.id, max_calls_in_parallel: 10, max_retries: 3, retry_interval: 10,
    allowed_hours_start_time: '00:00', allowed_hours_end_time: '23:59',
  });
  const mixes = ['human', 'no-answer', 'voicemail', 'busy'] as const;
  sim.control.outcomes.set({ rules: mixes.map((outcome) => ({ match: { lead_variables: { mix: outcome } }, outcomes: [outcome] })) });
  const ctx = sim.accountScope(1)!;
  for (let i = 0; i < leads; i++) {
    const slot = i % 100;
    const mix = slot < 40 ? 'human' : slot < 70 ? 'no-answer' : slot < 90 ? 'voicemail' : 'busy';
    createLead(ctx, { campaign_id: created.data.id, phone_number: `+1212${String(2_000_000 + i).padStart(7, '0')}`, variables: { mix } });
  }
  await ok(sim, 'POST', '/user/campaigns/update-status', { campaign_id: created.data.id, action: 'start' });
  return sim;
}

/** Resolves on a later turn of the event loop once `ready()` holds (checked once per turn, at most `turns` times). */
async function turnWhen(ready: () => boolean, turns = 1000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (ready()) return;
    await new Promise((resume) => setImmediate(resume));
  }
  throw new Error(`not ready after ${turns} turns of the event loop`);
}

describe('a clock move in slices', () => {
  it('gives the same state and the same calls with slicing forced tiny as with slicing off', async () => {
    const sliced = await campaign(2000, TINY);
    const whole = await campaign(2000, 0);
    const movedSliced = await ok(sliced, 'POST', '/__sim/clock/advance', { by: '4d' });
    const movedWhole = await ok(whole, 'POST', '/__sim/clock/advance', { by: '4d' });
    expect(movedSliced).toStrictEqual(movedWhole);
    expect(movedSliced.ran).toBeGreaterThan(10_000);
    expect(sliced.db.campaigns.get(1)!.status).toBe('completed');
    expect(JSON.stringify(sliced.snapshot())).toBe(JSON.stringify(whole.snapshot()));
    const calls = await ok(sliced, 'GET', '/user/calls?per_page=100&page=3');
    expect(calls.data).toHaveLength(100);
    expect(calls).toStrictEqual(await ok(whole, 'GET', '/user/calls?per_page=100&page=3'));
  });

  it("answers another simulator's request during a long move, and the moving simulator's only after the move, on its final clock", async () => {
    const moving = await campaign(10_000);
    const other = createSimulator({ seed: 2, startAt: START });
    const finished: string[] = [];
    moving.clock.onMoved(() => finished.push('moved'));
    const move = request(moving, 'POST', '/__sim/clock/advance', { by: '30d' }).then((res) => (finished.push('move answered'), res));
    await turnWhen(() => moving.clock.yielding);
    const answers = [
      request(other, 'GET', '/user/me').then((res) => (finished.push('other answered'), res)),
      request(moving, 'GET', '/__sim/clock').then((res) => (finished.push('moving answered'), res)),
    ] as const;
    const [moved, otherMe, movingClock] = await Promise.all([move, ...answers]);
    // The waiting request is answered as the move ends, just before the move's own request.
    expect(finished).toEqual(['other answered', 'moved', 'moving answered', 'move answered']);
    expect(otherMe.status).toBe(200);
    expect(moved.status).toBe(200);
    expect(moved.body.ran).toBeGreaterThan(50_000);
    expect(moved.body.now_ms).toBe(Date.parse(START) + 30 * DAY_MS);
    expect(movingClock.body).toMatchObject({ now: moved.body.now, now_ms: moved.body.now_ms });
  });

  it('runs two advances requested during a move one after another, each from where the one before ended', async () => {
    const sim = await campaign(2000, TINY);
    const first = request(sim, 'POST', '/__sim/clock/advance', { by: '1d' });
    await turnWhen(() => sim.clock.yielding);
    const second = request(sim, 'POST', '/__sim/clock/advance', { by: '1d' });
    const third = request(sim, 'POST', '/__sim/clock/advance', { by: '1d' });
    const answers = await Promise.all([first, second, third]);
    expect(answers.map((a) => a.body.now_ms)).toEqual([1, 2, 3].map((days) => Date.parse(START) + days * DAY_MS));
  });

  it("answers at once a webhook receiver's call back to the simulator while its delivery is in flight", async () => {
    const seen: string[] = [];
    const sim = createSimulator({
      seed: 1,
      startAt: START,
      deliver: async () => {
        // The receiver asks the simulator for its clock before it answers the delivery.
        const res = await request(sim, 'GET', '/__sim/clock');
        seen.push(res.body.now);
        return { status: 200, body: 'ok', duration_ms: 1 };
      },
    });
    sim.clock.sliceMs = TINY;
    sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: 'https://hooks.example.test/ended', payload: { status: 'ended' } });
    await ok(sim, 'POST', '/__sim/clock/advance', { by: '1h' });
    expect(seen).toEqual(['2026-03-02T00:00:00Z']);
    expect(sim.webhooks.deliveries().map((d) => d.state)).toEqual(['delivered']);
  });

  it('stops a move when its simulator is disposed between two slices, and answers the move with what ran', async () => {
    const sim = await campaign(2000, TINY);
    const move = request(sim, 'POST', '/__sim/clock/advance', { by: '4d' });
    await turnWhen(() => sim.clock.yielding);
    sim.dispose();
    const callsAtDispose = sim.db.calls.size;
    const moved = await move;
    expect(moved.status).toBe(200);
    expect(moved.body.now_ms).toBeLessThan(Date.parse(START) + 4 * DAY_MS);
    expect(sim.db.calls.size).toBe(callsAtDispose);
    expect(sim.clock.pendingCount).toBe(0);
  });
});
