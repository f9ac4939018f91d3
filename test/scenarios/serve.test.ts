/**
 * `voxsim serve --scenario FILE` starts a server in the scenario's state (ARCHITECTURE
 * §7, issue 6 Build 2): its `given` and scripts applied, its steps not played.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src/cli.js';

const KEY = 'sim_test_key';

describe('serve with a scenario', () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', scenario: 'scenarios/voicemail-then-human.yaml' });
  });
  afterAll(() => running?.close());

  async function get(path: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${running.url}${path}`, { headers: { authorization: `Bearer ${KEY}`, accept: 'application/json' } });
    return { status: res.status, body: await res.json() };
  }

  it('listens on a loopback port under the base path', () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
  });

  it('serves the given Spring campaign, in draft', async () => {
    const res = await get('/user/campaigns');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([expect.objectContaining({ id: 1, name: 'Spring', status: 'draft', max_retries: 2, retry_interval: 60 })]);
  });

  it('serves the given lead, not yet called', async () => {
    const res = await get('/user/leads');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([expect.objectContaining({ id: 1, campaign_id: 1, phone_number: '+15551230003', status: 'created' })]);
  });

  it('has made no call, since the steps are not played', async () => {
    const res = await get('/user/calls');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: [], total: 0 });
  });

  it('keeps the clock at the scenario start', async () => {
    const res = await get('/__sim/clock');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ now: '2026-03-02T08:55:00Z', mode: 'manual', pending_events: 0 });
  });
});
