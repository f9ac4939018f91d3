/**
 * The webhook control routes (ARCHITECTURE §6: POST/GET/DELETE /__sim/webhooks/failures,
 * GET /__sim/webhooks/deliveries; decisions: Control API names, Webhook timing) over
 * both transports, and the same operations through `sim.control.webhooks` in-process
 * giving the same bodies (STYLE 8). Every delivery here meets a forced failure rule,
 * so no request leaves the process.
 */
import { expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { contract, START, type Api } from '../support/api.js';
import { simRefusal } from '../support/expect.js';
import { CONVERSATION_ENDED_BODY, POST_CALL_BODY } from '../support/fixtures.js';

const HOOK = 'https://hooks.example.test/x';
const WITH_MESSAGE = 'The with must be a status code from 100 to 599, "timeout" or "refused".';

/** A simulator like the harness builds, used in-process only. */
function fresh(): Simulator {
  return createSimulator({ seed: 1, startAt: START });
}

/** Four forced 500s, then a conversation-ended delivery to HOOK that fails all of them. */
async function failedDelivery(sim: Simulator): Promise<void> {
  sim.webhooks.failNext({ times: 4, with: 500 });
  sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: CONVERSATION_ENDED_BODY });
  await sim.clock.advance('4m');
}

/** A post_call delivery that has made one forced-500 attempt and waits for its retry. */
async function pendingDelivery(sim: Simulator): Promise<void> {
  sim.webhooks.failNext({ times: 1, with: 500 });
  sim.webhooks.send({ account_id: 1, kind: 'post_call', url: `${HOOK}/call`, payload: { ...POST_CALL_BODY, id: 7 } });
  await sim.clock.advance(0);
}

const FAILED_DELIVERY = {
  id: 1,
  account_id: 1,
  kind: 'conversation_ended',
  url: HOOK,
  state: 'failed',
  attempts: [
    { at: '2026-03-02T09:00:00Z', status: 500, error: null, duration_ms: 0 },
    { at: '2026-03-02T09:00:30Z', status: 500, error: null, duration_ms: 0 },
    { at: '2026-03-02T09:01:30Z', status: 500, error: null, duration_ms: 0 },
    { at: '2026-03-02T09:03:30Z', status: 500, error: null, duration_ms: 0 },
  ],
  next_attempt_at: null,
  response: { status: 500, body: '' },
  created_at: '2026-03-02T09:00:00Z',
  payload: CONVERSATION_ENDED_BODY,
};

/** Delivery 2, sent at 09:04:00 after FAILED_DELIVERY, after its first attempt. */
const PENDING_DELIVERY = {
  id: 2,
  account_id: 1,
  kind: 'post_call',
  url: `${HOOK}/call`,
  state: 'pending',
  attempts: [{ at: '2026-03-02T09:04:00Z', status: 500, error: null, duration_ms: 0 }],
  next_attempt_at: '2026-03-02T09:04:30Z',
  response: { status: 500, body: '' },
  created_at: '2026-03-02T09:04:00Z',
  payload: { ...POST_CALL_BODY, id: 7 },
};

async function bothDeliveries(api: Api): Promise<void> {
  await failedDelivery(api.sim);
  await pendingDelivery(api.sim);
}

contract('control: webhook failures', (api) => {
  it('creates a rule for any url and kind, once, when only with is given', async () => {
    const res = await api().post('/__sim/webhooks/failures', { with: 500 });
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({ id: 1, url: null, kind: null, times: 1, with: 500 });
  });

  it('creates a rule scoped to a url and a kind', async () => {
    const res = await api().post('/__sim/webhooks/failures', { url: HOOK, kind: 'post_call', times: 3, with: 'timeout' });
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({ id: 1, url: HOOK, kind: 'post_call', times: 3, with: 'timeout' });
  });

  it('creates a rule that refuses the connection', async () => {
    const res = await api().post('/__sim/webhooks/failures', { kind: 'conversation_ended', times: 2, with: 'refused' });
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({ id: 1, url: null, kind: 'conversation_ended', times: 2, with: 'refused' });
  });

  it('numbers successive rules 1, 2', async () => {
    await api().post('/__sim/webhooks/failures', { with: 500 });
    const res = await api().post('/__sim/webhooks/failures', { with: 502 });
    expect(res.body).toStrictEqual({ id: 2, url: null, kind: null, times: 1, with: 502 });
  });

  it.each([
    ['times 1000', { times: 1000, with: 500 }],
    ['with 100', { with: 100 }],
    ['with 199', { with: 199 }],
    ['with 300', { with: 300 }],
    ['with 599', { with: 599 }],
  ])('accepts the edge %s', async (_, body) => {
    const res = await api().post('/__sim/webhooks/failures', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(body);
  });

  it.each([
    ['with "boom"', { with: 'boom' }, 'with', WITH_MESSAGE],
    ['no with', {}, 'with', WITH_MESSAGE],
    ['with 700', { with: 700 }, 'with', 'The with must be between 100 and 599.'],
    ['with 99', { with: 99 }, 'with', 'The with must be between 100 and 599.'],
    ['with 600', { with: 600 }, 'with', 'The with must be between 100 and 599.'],
    ['with 200', { with: 200 }, 'with', 'The with must be a failing status (not 2xx), "timeout" or "refused".'],
    ['with 299', { with: 299 }, 'with', 'The with must be a failing status (not 2xx), "timeout" or "refused".'],
    ['times 0', { times: 0, with: 500 }, 'times', 'The times must be between 1 and 1000.'],
    ['times 1001', { times: 1001, with: 500 }, 'times', 'The times must be between 1 and 1000.'],
    ['kind "other"', { kind: 'other', with: 500 }, 'kind', 'The selected kind is invalid.'],
    ['an empty url', { url: '', with: 500 }, 'url', 'The url field is required.'],
  ])('rejects %s with 422 shape B', async (_, body, field, message) => {
    const res = await api().post('/__sim/webhooks/failures', body);
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message, errors: { [field]: [message] } });
  });

  it('stores nothing from a rejected rule', async () => {
    await api().post('/__sim/webhooks/failures', { times: 0, with: 500 });
    const res = await api().post('/__sim/webhooks/failures', { with: 500 });
    expect(res.body.id).toBe(1);
    expect((await api().get('/__sim/webhooks/failures')).body).toStrictEqual({ data: [{ id: 1, url: null, kind: null, times: 1, with: 500 }] });
  });

  it('lists the rules waiting to be used, oldest first', async () => {
    await api().post('/__sim/webhooks/failures', { with: 500, times: 2 });
    await api().post('/__sim/webhooks/failures', { url: HOOK, with: 'refused' });
    const res = await api().get('/__sim/webhooks/failures');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      data: [
        { id: 1, url: null, kind: null, times: 2, with: 500 },
        { id: 2, url: HOOK, kind: null, times: 1, with: 'refused' },
      ],
    });
  });

  it('lists no rules on a fresh simulator', async () => {
    const res = await api().get('/__sim/webhooks/failures');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [] });
  });

  it('shows what is left of a rule after an attempt used it', async () => {
    await api().post('/__sim/webhooks/failures', { with: 500, times: 2 });
    api().sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: CONVERSATION_ENDED_BODY });
    await api().post('/__sim/clock/advance', { by: 0 });
    expect((await api().get('/__sim/webhooks/failures')).body).toStrictEqual({ data: [{ id: 1, url: null, kind: null, times: 1, with: 500 }] });
  });

  it('clears every rule', async () => {
    await api().post('/__sim/webhooks/failures', { with: 500 });
    await api().post('/__sim/webhooks/failures', { with: 'timeout' });
    const res = await api().del('/__sim/webhooks/failures');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ok: true });
    expect((await api().get('/__sim/webhooks/failures')).body).toStrictEqual({ data: [] });
  });

  it('creates the same rule in-process', async () => {
    const res = await api().post('/__sim/webhooks/failures', { url: HOOK, kind: 'post_call', times: 3, with: 503 });
    expect(fresh().control.webhooks.failNext({ url: HOOK, kind: 'post_call', times: 3, with: 503 })).toStrictEqual(res.body);
  });

  it('lists the same rules in-process', async () => {
    await api().post('/__sim/webhooks/failures', { with: 500, times: 2 });
    const res = await api().get('/__sim/webhooks/failures');
    expect(api().sim.control.webhooks.failures()).toStrictEqual(res.body);
  });

  it('clears the rules in-process with the same answer', async () => {
    await api().post('/__sim/webhooks/failures', { with: 500 });
    expect(api().sim.control.webhooks.clearFailures()).toStrictEqual({ ok: true });
    expect((await api().get('/__sim/webhooks/failures')).body).toStrictEqual({ data: [] });
  });

  it('rejects the same bad rule in-process with the same 422', async () => {
    const res = await api().post('/__sim/webhooks/failures', { with: 'boom' });
    // @ts-expect-error the input type refuses the failure too
    expect(await simRefusal(() => fresh().control.webhooks.failNext({ with: 'boom' }))).toStrictEqual({ status: 422, body: res.body });
  });
});

contract('control: webhook deliveries', (api) => {
  it('lists no deliveries on a fresh simulator', async () => {
    const res = await api().get('/__sim/webhooks/deliveries');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [], evicted: 0 });
  });

  it('shows a delivery that failed four forced attempts at t, t+30 s, t+90 s and t+210 s', async () => {
    await failedDelivery(api().sim);
    const res = await api().get('/__sim/webhooks/deliveries');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: [FAILED_DELIVERY], evicted: 0 });
  });

  it('shows a pending delivery with the time of its next attempt', async () => {
    await bothDeliveries(api());
    const res = await api().get('/__sim/webhooks/deliveries');
    expect(res.body).toStrictEqual({ data: [FAILED_DELIVERY, PENDING_DELIVERY], evicted: 0 });
  });

  it('filters by state=failed', async () => {
    await bothDeliveries(api());
    const res = await api().get('/__sim/webhooks/deliveries', { query: { state: 'failed' } });
    expect(res.body).toStrictEqual({ data: [FAILED_DELIVERY], evicted: 0 });
  });

  it('filters by state=pending', async () => {
    await bothDeliveries(api());
    const res = await api().get('/__sim/webhooks/deliveries', { query: { state: 'pending' } });
    expect(res.body).toStrictEqual({ data: [PENDING_DELIVERY], evicted: 0 });
  });

  it('answers an empty list for state=delivered when none was delivered', async () => {
    await bothDeliveries(api());
    const res = await api().get('/__sim/webhooks/deliveries', { query: { state: 'delivered' } });
    expect(res.body).toStrictEqual({ data: [], evicted: 0 });
  });

  it('filters by kind=post_call', async () => {
    await bothDeliveries(api());
    const res = await api().get('/__sim/webhooks/deliveries', { query: { kind: 'post_call' } });
    expect(res.body).toStrictEqual({ data: [PENDING_DELIVERY], evicted: 0 });
  });

  it('filters by kind and state together', async () => {
    await bothDeliveries(api());
    const res = await api().get('/__sim/webhooks/deliveries', { query: { kind: 'conversation_ended', state: 'pending' } });
    expect(res.body).toStrictEqual({ data: [], evicted: 0 });
  });

  it('rejects an unknown state with 422 shape B', async () => {
    const res = await api().get('/__sim/webhooks/deliveries', { query: { state: 'lost' } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: 'The selected state is invalid.', errors: { state: ['The selected state is invalid.'] } });
  });

  it('rejects an unknown kind with 422 shape B', async () => {
    const res = await api().get('/__sim/webhooks/deliveries', { query: { kind: 'call_ended' } });
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: 'The selected kind is invalid.', errors: { kind: ['The selected kind is invalid.'] } });
  });

  it('changes nothing when read', async () => {
    await pendingDelivery(api().sim);
    const before = api().sim.webhooks.deliveries();
    await api().get('/__sim/webhooks/deliveries');
    expect(api().sim.webhooks.deliveries()).toStrictEqual(before);
    expect(api().sim.clock.pendingCount).toBe(1);
  });

  it('gives the same journal in-process', async () => {
    await bothDeliveries(api());
    const res = await api().get('/__sim/webhooks/deliveries');
    expect(api().sim.control.webhooks.deliveries()).toStrictEqual(res.body);
  });

  it('gives the same filtered journal in-process', async () => {
    await bothDeliveries(api());
    const res = await api().get('/__sim/webhooks/deliveries', { query: { state: 'failed' } });
    expect(api().sim.control.webhooks.deliveries({ state: 'failed' })).toStrictEqual(res.body);
  });

  it('rejects the same bad state in-process with the same 422', async () => {
    const res = await api().get('/__sim/webhooks/deliveries', { query: { state: 'lost' } });
    // @ts-expect-error the input type refuses the state too
    expect(await simRefusal(() => api().sim.control.webhooks.deliveries({ state: 'lost' }))).toStrictEqual({ status: 422, body: res.body });
  });

  it('empties the journal and the rules on POST /__sim/reset', async () => {
    await bothDeliveries(api());
    await api().post('/__sim/webhooks/failures', { with: 500 });
    const reset = await api().post('/__sim/reset', {});
    expect(reset.status).toBe(200);
    expect((await api().get('/__sim/webhooks/deliveries')).body).toStrictEqual({ data: [], evicted: 0 });
    expect((await api().get('/__sim/webhooks/failures')).body).toStrictEqual({ data: [] });
  });

  it('numbers deliveries and rules from 1 again after a reset', async () => {
    await bothDeliveries(api());
    await api().post('/__sim/reset', {});
    expect((await api().post('/__sim/webhooks/failures', { with: 500, times: 4 })).body.id).toBe(1);
    expect(api().sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: HOOK, payload: CONVERSATION_ENDED_BODY }).id).toBe(1);
  });
});

contract(
  'control: webhook deliveries with a journal of one',
  (api) => {
    it('reports how many finished deliveries the journal dropped', async () => {
      await failedDelivery(api().sim);
      await pendingDelivery(api().sim);
      const res = await api().get('/__sim/webhooks/deliveries');
      expect(res.body).toStrictEqual({ data: [PENDING_DELIVERY], evicted: 1 });
    });
  },
  { webhookJournalLimit: 1 },
);
