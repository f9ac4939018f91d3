/**
 * Sandboxes over HTTP (issue 35): `createApp` and the event stream serving a SandboxHost,
 * as `voxsim serve` and a user's own Express app do.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { attachEventStream, createApp, createHttpServer, SandboxHost, type EventStream } from '../../src/adapters/express.js';
import { createSimulator } from '../../src/simulator.js';
import { pipelineAssistant } from '../support/fixtures.js';

const ADMIN = 'admin-secret';
let base = '';
let close: () => Promise<void>;

beforeAll(async () => {
  const host = new SandboxHost(createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z', adminToken: ADMIN }), { openSandboxes: true, simulator: { startAt: '2026-03-02T09:00:00Z' } });
  const server = createHttpServer(createApp(host, { basePath: '/api' }));
  let stream: EventStream | undefined;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  stream = attachEventStream(server, host, { basePath: '/api' });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  close = async () => {
    stream?.close();
    host.dispose();
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  };
});
afterAll(() => close());

async function call(method: string, path: string, key?: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(key && { authorization: `Bearer ${key}` }), 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

it('creates a sandbox without credentials (open sandboxes) and serves the platform and control API under its key', async () => {
  const made = await call('POST', '/__sim/sandboxes', undefined, { seed: 7 });
  expect(made.status).toBe(201);
  const key = made.body.api_key;
  expect((await call('POST', '/user/assistant', key, pipelineAssistant())).body.data.id).toBe(1);
  expect((await call('POST', '/__sim/clock/advance', key, { by: '1h' })).body.now).toBe('2026-03-02T10:00:00Z');
  // The server's own control API still needs the admin token.
  expect((await call('GET', '/__sim/clock')).status).toBe(401);
  expect((await call('GET', '/__sim/clock', ADMIN)).body.now).toBe('2026-03-02T09:00:00Z');
  expect((await call('DELETE', `/__sim/sandboxes/${made.body.id}`, key)).body).toStrictEqual({ ok: true, id: made.body.id });
  expect((await call('GET', '/user/me', key)).status).toBe(401);
});

it("streams a sandbox's own events to its key, and refuses a key that names no sandbox", async () => {
  const made = (await call('POST', '/__sim/sandboxes', undefined, {})).body;
  const url = `${base.replace('http', 'ws')}/__sim/events?token=${made.api_key}&type=request.`;
  const ws = new WebSocket(url);
  const messages: { type: string; data: Record<string, unknown> }[] = [];
  const created = new Promise<void>((done) =>
    ws.on('message', (raw) => {
      messages.push(JSON.parse(String(raw)));
      if (messages.some((m) => m.data.path === '/user/me')) done();
    }),
  );
  await new Promise((done) => ws.once('open', done));
  // The server's own simulator answers a request too: its event is not this sandbox's.
  await call('POST', '/user/assistant', 'sim_test_key', pipelineAssistant({ name: 'Server' }));
  await call('GET', '/user/me', made.api_key);
  await created;
  ws.close();
  expect(messages[0]!.type).toBe('stream.hello');
  expect(messages.filter((m) => m.type === 'request.answered').map((m) => `${m.data.method} ${m.data.path} ${m.data.status}`)).toEqual(['GET /user/me 200']);

  const refused = new WebSocket(`${base.replace('http', 'ws')}/__sim/events?token=vsk_000000000000000000000000`);
  const status = await new Promise<number>((done) => refused.on('unexpected-response', (_req, res) => done(res.statusCode ?? 0)));
  expect(status).toBe(401);
});

it('on a server without an admin token, answers a sandbox key 4xx for the list, another sandbox and its delete, which stays (issue 45)', async () => {
  // The kind of server the pytest plugin starts: no admin token, loopback only.
  const host = new SandboxHost(createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' }), { simulator: { startAt: '2026-03-02T09:00:00Z' } });
  const server = createHttpServer(createApp(host, { basePath: '/api' }));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  const send = async (method: string, path: string, key?: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, { method, headers: { ...(key && { authorization: `Bearer ${key}` }), 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as any };
  };
  try {
    const a = (await send('POST', '/__sim/sandboxes', undefined, { name: 'a' })).body;
    const b = (await send('POST', '/__sim/sandboxes', undefined, { name: 'b' })).body;
    expect(await send('GET', '/__sim/sandboxes', a.api_key)).toStrictEqual({ status: 401, body: { message: 'Unauthenticated.' } });
    expect(await send('GET', `/__sim/sandboxes/${b.id}`, a.api_key)).toStrictEqual({ status: 404, body: { message: 'Sandbox not found.' } });
    expect(await send('DELETE', `/__sim/sandboxes/${b.id}`, a.api_key)).toStrictEqual({ status: 404, body: { message: 'Sandbox not found.' } });
    expect(await send('POST', '/__sim/sandboxes', a.api_key, {})).toStrictEqual({ status: 401, body: { message: 'Unauthenticated.' } });
    // b is still there, and still answers its own key; without a sandbox key, the caller is the admin.
    expect((await send('GET', '/user/me', b.api_key)).status).toBe(200);
    expect((await send('GET', '/__sim/sandboxes')).body.data).toStrictEqual([a, b].map((s) => ({ ...s, expires_at: expect.any(String) })));
  } finally {
    host.dispose();
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});
