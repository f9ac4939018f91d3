/**
 * The wire setting (live-platform Rule 5) reaches every way of running voxsim:
 * `createSimulator({ wire })`, `handlers(sim, { wire })` for one set of handlers,
 * `POST /__sim/reset {wire}`, a scenario's `wire:` key and `voxsim serve --wire`.
 * Observed through two answers that differ by wire: make_call's message and a failed
 * assistant create.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlers } from '../src/adapters/msw.js';
import { parseServeArgs, serve } from '../src/cli.js';
import { createSimulator, type Simulator } from '../src/simulator.js';
import { pipelineAssistant } from './support/fixtures.js';

const AUTH = { authorization: 'Bearer sim_test_key' };
const START = '2026-03-02T09:00:00Z';
const SPEC_INVALID = 'The name field is required. (and 7 more errors)';

async function invalidCreate(sim: Simulator): Promise<string> {
  const res = await sim.handle({ method: 'POST', path: '/user/assistant', headers: AUTH, body: '{}' });
  expect(res.status).toBe(422);
  return (res.body as { message: string }).message;
}

async function makeCallMessage(call: (path: string, body: unknown) => Promise<{ message: string }>): Promise<string> {
  return (await call('/user/make_call', { assistant_id: 1, phone_number: '+14155550123' })).message;
}

function withNumberedAssistant(sim: Simulator): Promise<unknown> {
  sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  return sim.handle({ method: 'POST', path: '/user/assistant', headers: AUTH, body: JSON.stringify(pipelineAssistant({ phone_number_id: 1 }, sim.wire)) });
}

describe('wire setting', () => {
  it('answers the spec wire by default and the live wire with createSimulator({ wire: "live" })', async () => {
    expect(createSimulator({ startAt: START }).wire).toBe('spec');
    expect(await invalidCreate(createSimulator({ startAt: START }))).toBe(SPEC_INVALID);
    const live = createSimulator({ startAt: START, wire: 'live' });
    expect(live.wire).toBe('live');
    expect(await invalidCreate(live)).toBe('Validation failed');
  });

  it('refuses an unknown wire when the simulator is created', () => {
    expect(() => createSimulator({ wire: 'legacy' as 'live' })).toThrow('wire must be one of spec, live: legacy');
  });

  it('switches the wire with POST /__sim/reset {wire}, and a plain reset goes back to the simulator\'s own', async () => {
    const sim = createSimulator({ startAt: START });
    const reset = await sim.handle({ method: 'POST', path: '/__sim/reset', body: '{"wire":"live"}' });
    expect(reset.status).toBe(200);
    expect(await invalidCreate(sim)).toBe('Validation failed');
    sim.control.reset({});
    expect(await invalidCreate(sim)).toBe(SPEC_INVALID);
    const refused = await sim.handle({ method: 'POST', path: '/__sim/reset', body: '{"wire":"legacy"}' });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ message: 'The selected wire is invalid.', errors: { wire: ['The selected wire is invalid.'] } });
  });

  it("takes a scenario's wire key", async () => {
    const sim = createSimulator({ startAt: START });
    const run = await sim.loadScenario({ name: 'live wire', wire: 'live', steps: [] });
    expect(run.passed).toBe(true);
    expect(sim.wire).toBe('live');
    expect(await invalidCreate(sim)).toBe('Validation failed');
  });

  it('reads --wire on voxsim serve and refuses another value', () => {
    expect(parseServeArgs(['--wire', 'live']).wire).toBe('live');
    expect(parseServeArgs([]).wire).toBeUndefined();
    expect(() => parseServeArgs(['--wire', 'legacy'])).toThrow('--wire must be one of spec, live, got "legacy"');
  });

  it('answers in the live wire from voxsim serve --wire live', async () => {
    const running = await serve({ ...parseServeArgs(['--port', '0', '--wire', 'live', '--start', START]), quiet: true });
    try {
      await withNumberedAssistant(running.sim);
      const res = await fetch(`${running.url}/user/make_call`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ assistant_id: 1, phone_number: '+14155550123' }) });
      expect(await res.json()).toEqual({ message: 'Call initiated successfully', call_id: 1, status: 'initiated' });
    } finally {
      await running.close();
    }
  });
});

describe('handlers(sim, { wire })', () => {
  const sim = createSimulator({ startAt: START });
  const server = setupServer(...handlers(sim, { baseUrl: 'https://live.voxsim.test/api', wire: 'live' }), ...handlers(sim, { baseUrl: 'https://spec.voxsim.test/api' }));
  beforeAll(() => server.listen());
  afterAll(() => server.close());

  const over = (base: string) => async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as { message: string };
  };

  it('answers one set of handlers in its own wire and the others in the simulator\'s, over one state', async () => {
    await withNumberedAssistant(sim);
    expect(await makeCallMessage(over('https://live.voxsim.test/api'))).toBe('Call initiated successfully');
    expect(await makeCallMessage(over('https://spec.voxsim.test/api'))).toBe('Call initiated successfully.');
    expect(sim.db.calls.size).toBe(2);
    expect(sim.wire).toBe('spec');
  });
});
