/** `voxsim/vitest` (issue 15): a fresh simulator, MSW server and client per test. */
import { http, HttpResponse } from 'msw';
import { describe, expect } from 'vitest';
import { DEFAULT_BASE_URL, test } from '../src/adapters/vitest.js';
import type { Simulator } from '../src/simulator.js';

const seen: Simulator[] = [];

describe('the fixtures', () => {
  test('give a simulator at seed 1 and a client with the default key', async ({ sim, api }) => {
    seen.push(sim);
    expect(sim.seed).toBe(1);
    expect(api.baseUrl).toBe(DEFAULT_BASE_URL);
    const me = await api.get('/user/me');
    expect(me).toMatchObject({ status: 200, body: { name: 'Voxsim Test Account', email: 'test@voxsim.test', total_balance: 100 } });
    const anonymous = await api.get('/user/me', { key: null });
    expect(anonymous).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
  });

  test('give every test its own simulator, empty again', async ({ sim, api }) => {
    seen.push(sim);
    expect(seen[0]).not.toBe(seen[1]);
    const created = await api.post('/__sim/accounts', { api_key: 'sim_second_key' });
    expect(created.status).toBe(201);
    expect((await api.get('/user/me', { key: 'sim_second_key' })).status).toBe(200);
  });

  test('leave the MSW server open to the test\'s own handlers', async ({ server, api }) => {
    server.use(http.get('https://hooks.example.test/ping', () => HttpResponse.json({ pong: true })));
    expect(await (await fetch('https://hooks.example.test/ping')).json()).toEqual({ pong: true });
    expect((await api.get('/__sim/health')).body).toMatchObject({ ok: true });
  });
});

describe('with other simulator options and base URL', () => {
  test.override({ simulatorOptions: { seed: 7, startAt: '2026-03-02T09:00:00Z' }, baseUrl: 'https://platform.example.test/v1' });

  test('the simulator and handlers follow them', async ({ sim, api }) => {
    expect(sim.seed).toBe(7);
    expect(api.baseUrl).toBe('https://platform.example.test/v1');
    expect((await api.get('/__sim/clock')).body).toMatchObject({ now: '2026-03-02T09:00:00Z' });
  });
});
