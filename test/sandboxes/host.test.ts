/**
 * Sandboxes (issue 35): one host, many simulators, each answering the requests its key
 * names, with its own clock, control plane and determinism; the registry's access rules,
 * limit and idle lifetime. In-process through `SandboxHost.handle` (the transport is
 * test/sandboxes/server.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SANDBOX_MESSAGES, SandboxHost, type SandboxHostOptions } from '../../src/sandboxes/host.js';
import { ACCOUNT_MESSAGES } from '../../src/domain/accounts/service.js';
import { createSimulator } from '../../src/simulator.js';
import { SLICE_MS } from '../../src/core/clock.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { checkAgainstOpenApi, checkRequestAgainstOpenApi } from '../support/openapi-check.js';

const START = '2026-03-02T09:00:00Z';
const UNAUTHENTICATED = { message: 'Unauthenticated.' };

function hostWith(options: SandboxHostOptions = {}, adminToken?: string): SandboxHost {
  return new SandboxHost(createSimulator({ seed: 1, startAt: START, ...(adminToken !== undefined && { adminToken }) }), { simulator: { startAt: START }, ...options });
}

/**
 * One request through the host; its answer, and the request when it was accepted, are
 * checked against the OpenAPI document a server serves (the registry's operations too).
 */
async function call(host: SandboxHost, method: string, path: string, key?: string, body?: unknown) {
  const headers: Record<string, string> = { ...(key !== undefined && { authorization: `Bearer ${key}` }), 'content-type': 'application/json' };
  const text = body === undefined ? undefined : JSON.stringify(body);
  const res = await host.handle({ method, path, headers, body: text ?? null });
  checkAgainstOpenApi(method, path.split('?')[0]!, res.status, res.body);
  checkRequestAgainstOpenApi({ method, target: path, headers, ...(text !== undefined && { body: text }) }, res.status);
  return { status: res.status, body: res.body as any };
}

async function sandbox(host: SandboxHost, body: Record<string, unknown> = {}, key?: string) {
  const res = await call(host, 'POST', '/__sim/sandboxes', key, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; api_key: string; name: string | null; seed: number; now: string; wire: string; created_at: string; expires_at: string };
}

describe('sandboxes: each a whole simulator of its own', () => {
  it('answers the creation with the sandbox, its minted key and its virtual time', async () => {
    const host = hostWith({ now: () => Date.parse('2026-11-28T10:00:00Z') });
    const created = await sandbox(host, { name: 'ci-42', seed: 7, start: '2026-05-04T08:00:00Z', wire: 'live', ttl: '2h' });
    expect(created).toStrictEqual({
      id: expect.stringMatching(/^sbx_[0-9a-f]{12}$/),
      name: 'ci-42',
      api_key: expect.stringMatching(/^vsk_[0-9a-f]{24}$/),
      seed: 7,
      now: '2026-05-04T08:00:00Z',
      wire: 'live',
      created_at: '2026-11-28T10:00:00.000Z',
      expires_at: '2026-11-28T12:00:00.000Z',
    });
    expect((await call(host, 'GET', '/user/me', created.api_key)).status).toBe(200);
  });

  it('slices the clock moves of every simulator it hosts, its own included', async () => {
    const host = hostWith();
    const a = await sandbox(host);
    expect(host.sim.clock.sliceMs).toBe(SLICE_MS);
    expect(host.simulators().map((sim) => sim.clock.sliceMs)).toEqual([SLICE_MS, SLICE_MS]);
    expect(createSimulator().clock.sliceMs).toBe(Infinity);
    expect(a.api_key).toMatch(/^vsk_/);
  });

  it("serves each sandbox's file links from that sandbox alone, without a key (live-platform H.7)", async () => {
    const host = hostWith();
    const a = await sandbox(host, { wire: 'live' });
    const b = await sandbox(host, { wire: 'live' });
    const links: string[] = [];
    for (const key of [a.api_key, b.api_key]) {
      const assistant = await call(host, 'POST', '/user/assistant', key, pipelineAssistant({ conversation_ended_webhook_url: 'https://hooks.example.test/ended', conversation_inactivity_timeout: 5 }));
      await call(host, 'PATCH', '/__sim/msgapp/senders/1', key, { assistant_id: assistant.body.data.id });
      await call(host, 'POST', '/__sim/msgapp/inbound', key, { sender_id: 1, from: '+14155550123', media: { type: 'image' } });
      await call(host, 'POST', '/__sim/clock/advance', key, { by: '5m' });
      const [delivery] = (await call(host, 'GET', '/__sim/webhooks/deliveries', key)).body.data;
      links.push(delivery.payload.attachments[0].url);
    }
    // Same seed, same ids: the links differ by the sandbox's scope and token (derived from its key).
    expect(links[0]).not.toBe(links[1]);
    const paths = links.map((url) => url.slice(url.indexOf('/files/')));
    for (const path of paths) {
      const file = await host.handle({ method: 'GET', path, headers: {}, body: null });
      expect(file.status).toBe(200);
      expect(file.headers?.['content-disposition']).toBe('inline; filename="image.png"');
    }
    // A's link with B's scope names nothing.
    const crossed = paths[0]!.replace(/\/files\/[^/]+\//, paths[1]!.match(/\/files\/[^/]+\//)![0]);
    expect((await host.handle({ method: 'GET', path: crossed, headers: {}, body: null })).status).toBe(404);
    // Gone with its sandbox.
    await call(host, 'DELETE', `/__sim/sandboxes/${a.id}`, a.api_key);
    expect((await host.handle({ method: 'GET', path: paths[0]!, headers: {}, body: null })).status).toBe(404);
  });

  it('gives each sandbox ids from 1 and lists only its own records', async () => {
    const host = hostWith();
    const a = await sandbox(host);
    const b = await sandbox(host);
    const first = await call(host, 'POST', '/user/assistant', a.api_key, pipelineAssistant({ name: 'A' }));
    const second = await call(host, 'POST', '/user/assistant', b.api_key, pipelineAssistant({ name: 'B' }));
    expect([first.body.data.id, second.body.data.id]).toEqual([1, 1]);
    expect((await call(host, 'GET', '/user/assistants/get', a.api_key)).body.data.map((x: { name: string }) => x.name)).toEqual(['A']);
    expect((await call(host, 'GET', '/user/assistants/get', b.api_key)).body.data.map((x: { name: string }) => x.name)).toEqual(['B']);
    expect((await call(host, 'GET', '/user/assistants/get', 'sim_test_key')).body.data).toEqual([]);
  });

  it("moves one sandbox's clock with its key, leaving the other's and the server's where they were", async () => {
    const host = hostWith();
    const a = await sandbox(host);
    const b = await sandbox(host);
    const moved = await call(host, 'POST', '/__sim/clock/advance', a.api_key, { by: '2h' });
    expect(moved.body).toMatchObject({ now: '2026-03-02T11:00:00Z' });
    expect((await call(host, 'GET', '/__sim/clock', a.api_key)).body.now).toBe('2026-03-02T11:00:00Z');
    expect((await call(host, 'GET', '/__sim/clock', b.api_key)).body.now).toBe(START.replace('.000', ''));
    expect((await call(host, 'GET', '/__sim/clock')).body.now).toBe('2026-03-02T09:00:00Z');
  });

  it("resets one sandbox with its key, leaving the other's state whole", async () => {
    const host = hostWith();
    const a = await sandbox(host);
    const b = await sandbox(host);
    for (const key of [a.api_key, b.api_key]) await call(host, 'POST', '/user/assistant', key, pipelineAssistant());
    expect((await call(host, 'POST', '/__sim/reset', a.api_key, {})).status).toBe(200);
    expect((await call(host, 'GET', '/user/assistants/get', a.api_key)).body.data).toEqual([]);
    expect((await call(host, 'GET', '/user/assistants/get', b.api_key)).body.data).toHaveLength(1);
    // The reset sandbox keeps its key: its default account is made again with it.
    expect((await call(host, 'GET', '/user/me', a.api_key)).status).toBe(200);
  });

  it("never lets one sandbox's key read or change another sandbox, the server's own simulator or the list", async () => {
    const host = hostWith({}, 'admin-secret');
    const a = await sandbox(host, {}, 'admin-secret');
    const b = await sandbox(host, {}, 'admin-secret');
    expect(await call(host, 'GET', `/__sim/sandboxes/${b.id}`, a.api_key)).toStrictEqual({ status: 404, body: { message: SANDBOX_MESSAGES.notFound } });
    expect(await call(host, 'DELETE', `/__sim/sandboxes/${b.id}`, a.api_key)).toStrictEqual({ status: 404, body: { message: SANDBOX_MESSAGES.notFound } });
    expect(await call(host, 'GET', '/__sim/sandboxes', a.api_key)).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    // Its own sandbox it may read, and its control routes act on it alone, admin token or not.
    expect((await call(host, 'GET', `/__sim/sandboxes/${a.id}`, a.api_key)).body.id).toBe(a.id);
    expect((await call(host, 'GET', '/__sim/accounts', a.api_key)).body.data.map((x: { api_key: string }) => x.api_key)).toEqual([a.api_key]);
    // The dashboard's reads, with the sandbox's key.
    expect((await call(host, 'GET', '/__sim/overview', a.api_key)).status).toBe(200);
    expect((await call(host, 'GET', '/__sim/requests', a.api_key)).body.data.every((r: { path: string }) => r.path !== '/__sim/sandboxes')).toBe(true);
    expect((await call(host, 'GET', '/__sim/accounts', 'admin-secret')).body.data.map((x: { api_key: string }) => x.api_key)).toEqual(['sim_test_key']);
    expect((await call(host, 'GET', '/__sim/sandboxes', 'admin-secret')).body.data.map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);
  });

  it('answers 401 to the key of a deleted sandbox, on platform and control routes alike', async () => {
    const host = hostWith();
    const a = await sandbox(host);
    expect(await call(host, 'DELETE', `/__sim/sandboxes/${a.id}`, a.api_key)).toStrictEqual({ status: 200, body: { ok: true, id: a.id } });
    expect(await call(host, 'GET', '/user/me', a.api_key)).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await call(host, 'POST', '/__sim/reset', a.api_key, {})).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await call(host, 'GET', '/__sim/sandboxes/' + a.id)).toStrictEqual({ status: 404, body: { message: SANDBOX_MESSAGES.notFound } });
  });

  it("routes a sandbox account's key to its sandbox, and refuses an account key that does not start with the sandbox's", async () => {
    const host = hostWith();
    const a = await sandbox(host);
    const made = await call(host, 'POST', '/__sim/accounts', a.api_key, { name: 'Second' });
    expect(made.status).toBe(201);
    expect(made.body.api_key).toMatch(new RegExp(`^${a.api_key}_[a-z0-9]{32}$`));
    expect((await call(host, 'GET', '/user/me', made.body.api_key)).body).toMatchObject({ name: 'Second' });
    const own = await call(host, 'POST', '/__sim/accounts', a.api_key, { api_key: `${a.api_key}_ops` });
    expect(own.status).toBe(201);
    const stray = await call(host, 'POST', '/__sim/accounts', a.api_key, { api_key: 'sim_mine' });
    expect(stray).toStrictEqual({ status: 422, body: { message: ACCOUNT_MESSAGES.apiKeyOutsideSandbox(a.api_key), errors: { api_key: [ACCOUNT_MESSAGES.apiKeyOutsideSandbox(a.api_key)] } } });
    expect((await call(host, 'GET', '/__sim/accounts', a.api_key)).body.data).toHaveLength(3);
  });

  it('refuses a snapshot whose accounts would not route to the sandbox, changing nothing', async () => {
    const host = hostWith();
    const a = await sandbox(host);
    await call(host, 'POST', '/user/assistant', a.api_key, pipelineAssistant());
    const foreign = (await call(host, 'GET', '/__sim/state')).body;
    const res = await call(host, 'PUT', '/__sim/state', a.api_key, foreign);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['db.accounts[1].api_key']);
    expect((await call(host, 'GET', '/user/assistants/get', a.api_key)).body.data).toHaveLength(1);
    // Its own snapshot restores.
    const own = (await call(host, 'GET', '/__sim/state', a.api_key)).body;
    expect((await call(host, 'PUT', '/__sim/state', a.api_key, own)).status).toBe(200);
  });
});

describe('sandboxes: a sandbox key is never the admin, on a server without an admin token too (issue 45)', () => {
  it("answers a sandbox key 401 for the list and 404 for another's record and delete, leaving the other sandbox whole", async () => {
    const host = hostWith();
    const a = await sandbox(host, { name: 'a' });
    const b = await sandbox(host, { name: 'b' });
    await call(host, 'POST', '/user/assistant', b.api_key, pipelineAssistant({ name: 'B' }));
    const bBefore = (await call(host, 'GET', `/__sim/sandboxes/${b.id}`)).body;
    const accountKey = (await call(host, 'POST', '/__sim/accounts', a.api_key, {})).body.api_key as string;
    // The sandbox's key and an account key of it alike.
    for (const key of [a.api_key, accountKey]) {
      expect(await call(host, 'GET', '/__sim/sandboxes', key)).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
      expect(await call(host, 'GET', `/__sim/sandboxes/${b.id}`, key)).toStrictEqual({ status: 404, body: { message: SANDBOX_MESSAGES.notFound } });
      expect(await call(host, 'DELETE', `/__sim/sandboxes/${b.id}`, key)).toStrictEqual({ status: 404, body: { message: SANDBOX_MESSAGES.notFound } });
    }
    // b is still there, as it was: its record, its key, its assistant.
    expect((await call(host, 'GET', `/__sim/sandboxes/${b.id}`)).body).toStrictEqual(bBefore);
    expect((await call(host, 'GET', '/user/assistants/get', b.api_key)).body.data.map((x: { name: string }) => x.name)).toEqual(['B']);
    expect((await call(host, 'GET', '/__sim/sandboxes')).body.data.map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);
    // Its own sandbox it still reads; a request without a sandbox key is the admin here.
    expect((await call(host, 'GET', `/__sim/sandboxes/${a.id}`, accountKey)).body).toMatchObject({ id: a.id, name: 'a', api_key: a.api_key });
    expect((await call(host, 'GET', `/__sim/sandboxes/${b.id}`, 'sim_test_key')).body.id).toBe(b.id);
  });

  it('lets a sandbox key create a sandbox only with --open-sandboxes', async () => {
    const closed = hostWith();
    const a = await sandbox(closed);
    expect(await call(closed, 'POST', '/__sim/sandboxes', a.api_key, {})).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    expect(closed.size).toBe(1);
    const open = hostWith({ openSandboxes: true });
    const mine = await sandbox(open);
    const made = await sandbox(open, { name: 'by a key' }, mine.api_key);
    expect(made.name).toBe('by a key');
    // What it made is not its own: the maker's key does not reach it.
    expect(await call(open, 'GET', `/__sim/sandboxes/${made.id}`, mine.api_key)).toStrictEqual({ status: 404, body: { message: SANDBOX_MESSAGES.notFound } });
  });

  it('answers a key of no sandbox 401 on every registry route, never as the admin', async () => {
    const host = hostWith();
    const a = await sandbox(host);
    const stranger = 'vsk_000000000000000000000000';
    for (const [method, path] of [['GET', '/__sim/sandboxes'], ['GET', `/__sim/sandboxes/${a.id}`], ['DELETE', `/__sim/sandboxes/${a.id}`], ['POST', '/__sim/sandboxes'], ['GET', '/__sim/sandbox']] as const) {
      expect(await call(host, method, path, stranger, method === 'POST' ? {} : undefined), `${method} ${path}`).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    }
    expect(host.size).toBe(1);
  });
});

describe('sandboxes: determinism per sandbox', () => {
  /** A flow with outcomes, a campaign and clock moves; every answer's text. */
  async function flow(host: SandboxHost, key: string): Promise<string[]> {
    const answers: string[] = [];
    const step = async (method: string, path: string, body?: unknown) => answers.push(JSON.stringify(await call(host, method, path, key, body)));
    await step('POST', '/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550100' });
    await step('POST', '/user/assistant', pipelineAssistant({ phone_number_id: 1 }));
    await step('POST', '/user/campaign', { name: 'Spring', assistant_id: 1, retry_on_voicemail: true, retry_interval: 60 });
    await step('POST', '/user/lead', { campaign_id: 1, phone_number: '+15551230042' });
    await step('POST', '/user/lead', { campaign_id: 1, phone_number: '+15551230043' });
    await step('PUT', '/__sim/outcomes', { rules: [{ match: { phone_number: '+15551230042' }, outcomes: ['voicemail', 'human'] }] });
    await step('POST', '/user/campaigns/update-status', { campaign_id: 1, action: 'start' });
    await step('POST', '/__sim/clock/advance', { by: '3h' });
    await step('GET', '/user/calls');
    await step('GET', '/user/leads');
    return answers.map((a) => a.replaceAll(key, '<key>'));
  }

  it('answers a seed-7 flow byte for byte alike, alone and beside three busy sandboxes', async () => {
    const alone = hostWith();
    const solo = await sandbox(alone, { seed: 7 });
    const expected = await flow(alone, solo.api_key);

    const busy = hostWith();
    const neighbours = await Promise.all([sandbox(busy, { seed: 7 }), sandbox(busy, { seed: 3 }), sandbox(busy)]);
    const mine = await sandbox(busy, { seed: 7 });
    const [answers] = await Promise.all([flow(busy, mine.api_key), ...neighbours.map((n) => flow(busy, n.api_key))]);
    expect(answers).toStrictEqual(expected);
    expect(expected.at(-2)).toContain('"answered_by":"human"');
  });
});

describe('sandboxes: limits, lifetime and who may create', () => {
  it('refuses a sandbox past the limit with 403 shape A, nothing changed, and makes it after a delete', async () => {
    const host = hostWith({ maxSandboxes: 2 });
    const a = await sandbox(host);
    await sandbox(host);
    expect(await call(host, 'POST', '/__sim/sandboxes', undefined, {})).toStrictEqual({ status: 403, body: { message: SANDBOX_MESSAGES.limit(2) } });
    expect((await call(host, 'GET', '/__sim/sandboxes')).body.data).toHaveLength(2);
    await call(host, 'DELETE', `/__sim/sandboxes/${a.id}`);
    expect((await call(host, 'POST', '/__sim/sandboxes', undefined, {})).status).toBe(201);
  });

  it('removes a sandbox idle for its ttl; a request before then keeps it', async () => {
    let now = Date.parse('2026-11-28T10:00:00Z');
    const host = hostWith({ now: () => now, ttlMs: 60 * 60 * 1000 });
    const a = await sandbox(host);
    const b = await sandbox(host, { ttl: '10m' });
    now += 9 * 60 * 1000;
    expect((await call(host, 'GET', '/user/me', b.api_key)).status).toBe(200);
    now += 9 * 60 * 1000;
    expect((await call(host, 'GET', `/__sim/sandboxes/${b.id}`, b.api_key)).body.expires_at).toBe('2026-11-28T10:19:00.000Z');
    now += 10 * 60 * 1000;
    expect(await call(host, 'GET', '/user/me', b.api_key)).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    now += 60 * 60 * 1000;
    expect(await call(host, 'GET', '/user/me', a.api_key)).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    expect(host.size).toBe(0);
  });

  it('needs the admin token to create, list and delete; --open-sandboxes lets anyone create', async () => {
    const closed = hostWith({}, 'admin-secret');
    expect(await call(closed, 'POST', '/__sim/sandboxes', undefined, {})).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await call(closed, 'POST', '/__sim/sandboxes', 'wrong', {})).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    const open = hostWith({ openSandboxes: true }, 'admin-secret');
    const mine = await sandbox(open);
    expect(await call(open, 'GET', '/__sim/sandboxes')).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    expect((await call(open, 'DELETE', `/__sim/sandboxes/${mine.id}`, mine.api_key)).status).toBe(200);
  });

  it('refuses bad creation input with 422 shape B naming each field, nothing created', async () => {
    const host = hostWith();
    const res = await call(host, 'POST', '/__sim/sandboxes', undefined, { seed: -1, wire: 'soap', ttl: '10s', start: 'soon', seeds: 1 });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['seed', 'seeds', 'start', 'ttl', 'wire']);
    expect(res.body.errors.ttl).toEqual([SANDBOX_MESSAGES.ttl]);
    const catalog = await call(host, 'POST', '/__sim/sandboxes', undefined, { catalog: { voices: [{ id: 1 }] } });
    expect(catalog.status).toBe(422);
    expect(Object.keys(catalog.body.errors)[0]).toMatch(/^voices\.0\./);
    expect(host.size).toBe(0);
  });

  it('mints keys and ids that carry the shard name', async () => {
    const host = hostWith({ shard: 'east-1' });
    const made = await sandbox(host);
    expect(made.api_key).toMatch(/^vsk_east-1_[0-9a-f]{24}$/);
    expect(made.id).toMatch(/^sbx_east-1_[0-9a-f]{12}$/);
    const account = await call(host, 'POST', '/__sim/accounts', made.api_key, {});
    expect((await call(host, 'GET', '/user/me', account.body.api_key)).status).toBe(200);
    expect(() => hostWith({ shard: 'East 1' })).toThrow(/shard must be/);
  });
});

describe('sandboxes: the account option', () => {
  it('refuses accounts that are not a list as it refuses a bad account', () => {
    let error: any;
    try {
      createSimulator({ accounts: { api_key: 'x' } as never });
    } catch (caught) {
      error = caught;
    }
    expect(error.status).toBe(422);
    expect(error.message).toBe('accounts: The accounts must be an array.');
    expect(error.body).toStrictEqual({ message: 'The accounts must be an array.', errors: { accounts: ['The accounts must be an array.'] } });
  });
});

describe('sandboxes: the sandbox of the key sent', () => {
  it('reads and deletes the caller\'s own sandbox at /__sim/sandbox, and answers 401 without a sandbox key', async () => {
    const host = hostWith();
    const a = await sandbox(host, { name: 'job' });
    expect((await call(host, 'GET', '/__sim/sandbox', a.api_key)).body).toMatchObject({ id: a.id, name: 'job', api_key: a.api_key });
    expect(await call(host, 'GET', '/__sim/sandbox')).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await call(host, 'GET', '/__sim/sandbox', 'sim_test_key')).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    expect(await call(host, 'DELETE', '/__sim/sandbox', a.api_key)).toStrictEqual({ status: 200, body: { ok: true, id: a.id } });
    expect(await call(host, 'GET', '/__sim/sandbox', a.api_key)).toStrictEqual({ status: 401, body: UNAUTHENTICATED });
    expect(host.size).toBe(0);
  });
});

describe('sandboxes: scenarios', () => {
  const VOICEMAIL = readFileSync(new URL('../../scenarios/voicemail-then-human.yaml', import.meta.url), 'utf8');

  it("starts a sandbox in a scenario's state, the scenario's key written as the sandbox's", async () => {
    const host = hostWith();
    const made = await sandbox(host, { scenario: VOICEMAIL });
    expect(made).toMatchObject({ seed: 7, now: '2026-03-02T08:55:00Z' });
    const campaigns = await call(host, 'GET', '/user/campaigns', made.api_key);
    expect(campaigns.body.map((c: { name: string }) => c.name)).toEqual(['Spring']);
    expect((await call(host, 'GET', '/__sim/accounts', made.api_key)).body.data).toMatchObject([{ api_key: made.api_key, balance: 20 }]);
    // The scenario's steps are not played: the campaign waits for its start.
    expect((await call(host, 'GET', '/user/calls', made.api_key)).body.data).toEqual([]);
    expect((await call(host, 'POST', '/user/campaigns/update-status', made.api_key, { campaign_id: 1, action: 'start' })).status).toBe(200);
    await call(host, 'POST', '/__sim/clock/advance', made.api_key, { by: '2h' });
    expect((await call(host, 'GET', '/user/calls', made.api_key)).body.data.map((c: { answered_by: string }) => c.answered_by)).toEqual(['human', 'machine']);
  });

  it("writes a scenario's other keys under the sandbox's, with POST /__sim/scenario too", async () => {
    const host = hostWith();
    const made = await sandbox(host);
    const scenario = { name: 'two accounts', accounts: [{ api_key: 'sim_test_key' }, { api_key: 'sim_partner', name: 'Partner' }], given: { assistants: [{ key: 'sim_partner', ...pipelineAssistant() }] } };
    expect((await call(host, 'POST', '/__sim/scenario', made.api_key, scenario)).status).toBe(200);
    const partner = `${made.api_key}_sim_partner`;
    expect((await call(host, 'GET', '/user/me', partner)).body).toMatchObject({ name: 'Partner' });
    expect((await call(host, 'GET', '/user/assistants/get', partner)).body.data).toHaveLength(1);
    expect((await call(host, 'GET', '/user/assistants/get', made.api_key)).body.data).toEqual([]);
  });

  it('refuses a sandbox whose scenario fails with 422 on scenario, making none', async () => {
    const host = hostWith();
    const res = await call(host, 'POST', '/__sim/sandboxes', undefined, { scenario: 'name: broken\ngiven: { assistants: [{ name: X }] }' });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['scenario']);
    expect(host.size).toBe(0);
  });
});
