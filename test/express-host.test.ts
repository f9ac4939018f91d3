/**
 * `voxsim/express` inside a host app (issue 15): host routes before and after the
 * middleware, the host's body parsers first, mounted at the root and under a prefix.
 * Requests outside the base path reach the host; a body the host already parsed reaches
 * the simulator intact. And `createApp`, the standalone Express app: every request target
 * as Express reads it, its own answer headers, a JSON 500.
 */
import { connect, type AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { attachEventStream, createApp, middleware, type AppOptions } from '../src/adapters/express.js';
import { dashboardPage } from '../src/adapters/dashboard.js';
import { createSimulator, type Simulator } from '../src/simulator.js';

const AUTH = { authorization: 'Bearer sim_test_key' };
const JSON_HEADERS = { ...AUTH, 'content-type': 'application/json' };
const ASSISTANT = {
  name: 'Sales', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin',
  initial_message: 'Hello!', system_prompt: 'You sell.', llm_model_id: 1,
};

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(app: Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function simulator(): Simulator {
  return createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
}

/** A host app: `parsers` first, a route before, the middleware at `mount`, a route after. */
function hostApp(sim: Simulator, parsers: express.RequestHandler[], mount: string, basePath: string, options: { bodyLimit?: number } = {}): Express {
  const app = express();
  for (const parser of parsers) app.use(parser);
  app.get('/before', (_req, res) => {
    res.json({ host: 'before' });
  });
  app.use(mount, middleware(sim, { basePath, ...options }));
  app.get('/after', (_req, res) => {
    res.json({ host: 'after' });
  });
  app.post('/after/echo', (req, res) => {
    res.json({ received: req.body });
  });
  return app;
}

describe('mounted at the root after express.json()', () => {
  it('creates from the parsed body, and the host routes before and after answer', async () => {
    const sim = simulator();
    const origin = await listen(hostApp(sim, [express.json()], '/', '/api'));
    const created = await fetch(`${origin}/api/user/assistant`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(ASSISTANT) });
    expect(created.status).toBe(201);
    expect((await created.json()).data).toMatchObject({ id: 1, name: 'Sales' });
    expect(sim.db.assistants.all()).toHaveLength(1);

    expect(await (await fetch(`${origin}/before`)).json()).toEqual({ host: 'before' });
    expect(await (await fetch(`${origin}/after`)).json()).toEqual({ host: 'after' });
    // The host's parser ran once for the host's own route, untouched by the middleware.
    const echo = await fetch(`${origin}/after/echo`, { method: 'POST', headers: JSON_HEADERS, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ received: { a: 1 } });
  });

  it('answers unknown paths under its base path itself, and leaves every other path to the host', async () => {
    const origin = await listen(hostApp(simulator(), [express.json()], '/', '/api'));
    const unknown = await fetch(`${origin}/api/user/nope`, { headers: AUTH });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ message: 'The route user/nope could not be found.' });
    // `/apiary` is outside `/api`: Express's own 404, the middleware called next().
    for (const path of ['/elsewhere', '/apiary']) {
      const res = await fetch(`${origin}${path}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain(`Cannot GET ${path}`);
    }
  });

  it('validates the parsed body like a raw one: a refusal is 422 and changes nothing', async () => {
    const sim = simulator();
    const origin = await listen(hostApp(sim, [express.json()], '/', '/api'));
    const before = JSON.stringify(sim.snapshot());
    const res = await fetch(`${origin}/api/user/assistant`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ ...ASSISTANT, name: '' }) });
    expect(res.status).toBe(422);
    expect((await res.json()).errors).toEqual({ name: ['The name field is required.'] });
    expect(JSON.stringify(sim.snapshot())).toBe(before);
  });

  it("leaves malformed JSON that the host's parser refused to the host's error handling", async () => {
    const origin = await listen(hostApp(simulator(), [express.json()], '/', '/api'));
    const res = await fetch(`${origin}/api/user/assistant`, { method: 'POST', headers: JSON_HEADERS, body: '{bad' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('other host parsers', () => {
  it('takes express.text() text as is: malformed JSON gets the simulator\'s 400', async () => {
    const sim = simulator();
    const origin = await listen(hostApp(sim, [express.text({ type: '*/*' })], '/', '/api'));
    const created = await fetch(`${origin}/api/user/assistant`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(ASSISTANT) });
    expect(created.status).toBe(201);
    const bad = await fetch(`${origin}/api/user/assistant`, { method: 'POST', headers: JSON_HEADERS, body: '{bad' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ message: 'Malformed JSON in request body.' });
    expect(sim.db.assistants.all()).toHaveLength(1);
  });

  it('takes express.raw() bytes as UTF-8', async () => {
    const origin = await listen(hostApp(simulator(), [express.raw({ type: '*/*' })], '/', '/api'));
    const created = await fetch(`${origin}/api/user/assistant`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ ...ASSISTANT, name: 'Verkäufer' }) });
    expect(created.status).toBe(201);
    expect((await created.json()).data.name).toBe('Verkäufer');
  });

  it('answers a form that express.urlencoded() parsed as it answers the form unparsed: malformed JSON, nothing created', async () => {
    const form = { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' };
    const answers = [];
    for (const parsers of [[], [express.urlencoded()]]) {
      const sim = simulator();
      const origin = await listen(hostApp(sim, parsers, '/', '/api'));
      const res = await fetch(`${origin}/api/user/folder`, { method: 'POST', headers: form, body: 'name=Sales&colour[0]=red' });
      answers.push({ status: res.status, body: await res.json() });
      expect(sim.db.folders.all()).toEqual([]);
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[0]).toEqual({ status: 400, body: { message: 'Malformed JSON in request body.' } });
  });

  it('answers a JSON null that express.json({ strict: false }) parsed as it answers it unparsed', async () => {
    const answers = [];
    for (const parsers of [[], [express.json({ strict: false })]]) {
      const origin = await listen(hostApp(simulator(), parsers, '/', '/api'));
      const res = await fetch(`${origin}/api/user/assistant`, { method: 'POST', headers: JSON_HEADERS, body: 'null' });
      answers.push({ status: res.status, body: await res.json() });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[0]!.status).toBe(400);
  });

  it('reads the body itself with no host parser, within its bodyLimit', async () => {
    const sim = simulator();
    const origin = await listen(hostApp(sim, [], '/', '/api', { bodyLimit: 300 }));
    const created = await fetch(`${origin}/api/user/assistant`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(ASSISTANT) });
    expect(created.status).toBe(201);
    const large = await fetch(`${origin}/api/user/assistant`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ ...ASSISTANT, system_prompt: 'x'.repeat(300) }) });
    expect(large.status).toBe(413);
    expect(await large.json()).toEqual({ message: 'The request body may not be larger than 300 bytes.' });
    expect(sim.db.assistants.all()).toHaveLength(1);
    // The host's own routes still answer after a refusal.
    expect(await (await fetch(`${origin}/after`)).json()).toEqual({ host: 'after' });
  });
});

describe('mounted under a prefix', () => {
  it('serves the API at the mount path with basePath "", the host keeps the rest', async () => {
    const origin = await listen(hostApp(simulator(), [express.json()], '/sim', ''));
    const me = await fetch(`${origin}/sim/user/me`, { headers: AUTH });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ name: 'Voxsim Test Account', email: 'test@voxsim.test', total_balance: 100 });
    expect(await (await fetch(`${origin}/after`)).json()).toEqual({ host: 'after' });
    expect(await (await fetch(`${origin}/before`)).json()).toEqual({ host: 'before' });
  });

  it('serves the control API and the event-stream hint under prefix and base path', async () => {
    const origin = await listen(hostApp(simulator(), [express.json()], '/platform', '/api'));
    const clock = await fetch(`${origin}/platform/api/__sim/clock`);
    expect(clock.status).toBe(200);
    expect(await clock.json()).toMatchObject({ now: '2026-03-02T09:00:00Z' });
    const events = await fetch(`${origin}/platform/api/__sim/events`);
    expect(events.status).toBe(426);
    expect((await events.json()).message).toMatch(/^GET \/platform\/api\/__sim\/events is a WebSocket stream/);
    expect((await fetch(`${origin}/api/__sim/clock`)).status).toBe(404);
  });

  it("reads the query from the URL whatever the host's query parser", async () => {
    const answers: unknown[] = [];
    for (const parser of ['simple', 'extended']) {
      const sim = simulator();
      const app = hostApp(sim, [express.json()], '/', '/api');
      app.set('query parser', parser);
      const origin = await listen(app);
      const res = await fetch(`${origin}/api/user/calls?page[x]=1&per_page=abc`, { headers: AUTH });
      answers.push({ status: res.status, body: await res.json() });
    }
    expect(answers[1]).toEqual(answers[0]);
  });
});

/** The first text message a WebSocket client receives. */
function firstMessage(ws: WebSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    ws.once('message', (data) => resolve(String(data)));
    ws.once('error', reject);
  });
}

/** The HTTP status and body of an upgrade the server refused. */
function refusal(ws: WebSocket): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += String(chunk)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
  });
}

describe('the event stream beside the host app', () => {
  it("streams under the mount prefix and leaves upgrades to other paths to the host's own WebSockets", async () => {
    const sim = simulator();
    const origin = await listen(hostApp(sim, [], '/platform', '/api'));
    const server = servers.at(-1)!;
    const stream = attachEventStream(server, sim, { basePath: '/platform/api' });
    const hostSockets = new WebSocketServer({ noServer: true });
    server.on('upgrade', (request, socket, head) => {
      if (new URL(request.url ?? '/', 'http://host.invalid').pathname !== '/host/ws') return;
      hostSockets.handleUpgrade(request, socket, head, (ws) => ws.send('host hello'));
    });
    const base = origin.replace('http:', 'ws:');
    const host = new WebSocket(`${base}/host/ws`);
    const events = new WebSocket(`${base}/platform/api/__sim/events`);
    try {
      expect(await firstMessage(host)).toBe('host hello');
      expect(JSON.parse(await firstMessage(events))).toMatchObject({ type: 'stream.hello' });
    } finally {
      host.close();
      events.close();
      stream.close();
      hostSockets.close();
    }
  });

  it('refuses an upgrade to another path with 404 shape A when it is the only listener', async () => {
    const sim = simulator();
    const origin = await listen(hostApp(sim, [], '/platform', '/api'));
    const stream = attachEventStream(servers.at(-1)!, sim, { basePath: '/platform/api' });
    try {
      const refused = await refusal(new WebSocket(`${origin.replace('http:', 'ws:')}/api/__sim/events`));
      expect(refused.status).toBe(404);
      expect(JSON.parse(refused.body)).toEqual({ message: 'The route api/__sim/events could not be found.' });
    } finally {
      stream.close();
    }
  });
});

/** `createApp(sim, options)` listening on a free port: its origin. */
async function listenApp(sim: Simulator, options: AppOptions = {}): Promise<string> {
  const server = createApp(sim, { basePath: '/api', ...options }).listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** One raw HTTP/1.1 request line (any target) with `Connection: close`: the answer's status, headers and body. */
function rawRequest(origin: string, method: string, target: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += String(chunk)));
    socket.on('end', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.on('error', reject);
    socket.end(`${method} ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: ${AUTH.authorization}\r\nConnection: close\r\n\r\n`);
  });
}

describe('createApp, the standalone app', () => {
  it('reads an absolute-form target and one with a fragment as Express reads them', async () => {
    const origin = await listenApp(simulator());
    const me = await (await fetch(`${origin}/api/user/me`, { headers: AUTH })).text();
    for (const target of [`${origin}/api/user/me`, '/api/user/me#top', '/api/user/me?x=1#top']) {
      const res = await rawRequest(origin, 'GET', target);
      expect([target, res.status, res.body]).toEqual([target, 200, me]);
    }
    expect(await rawRequest(origin, 'GET', `${origin}/elsewhere`)).toMatchObject({ status: 404, body: JSON.stringify({ message: 'The route elsewhere could not be found.' }) });
  });

  it('answers JSON with its length and no ETag, and a conditional request with the answer, not 304', async () => {
    const origin = await listenApp(simulator());
    const first = await fetch(`${origin}/api/user/me`, { headers: AUTH });
    const text = await first.text();
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(first.headers.get('etag')).toBeNull();
    const again = await fetch(`${origin}/api/user/me`, { headers: { ...AUTH, 'if-none-match': '*' } });
    expect([again.status, await again.text()]).toEqual([200, text]);
  });

  it('answers HEAD with the headers of the answer and no body', async () => {
    const origin = await listenApp(simulator());
    const res = await rawRequest(origin, 'HEAD', '/api/__sim/ui');
    expect(res).toMatchObject({ status: 200, body: '' });
    expect(res.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(dashboardPage())), 'cache-control': 'no-store' });
  });

  it('answers 503 in the family shape with the hook’s message when the answer hook fails, the request already handled', async () => {
    const sim = simulator();
    const origin = await listenApp(sim, { beforeAnswer: () => Promise.reject(new Error('The state could not be saved: disk gone.')) });
    const res = await fetch(`${origin}/api/__sim/accounts`, { method: 'POST', body: JSON.stringify({ api_key: 'sim_other_key' }) });
    expect([res.status, await res.json()]).toEqual([503, { message: 'The state could not be saved: disk gone.' }]);
    // The change was made before the hook ran: it stays in memory (docs/state.md: State file).
    expect(sim.control.accounts.list().data.map((a) => a.api_key)).toContain('sim_other_key');
  });

  it('answers 500 shape A to a failure that reached no answer, and logs it', async () => {
    const sim = simulator();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const handle = vi.spyOn(sim, 'handle').mockRejectedValue(new Error('boom'));
    try {
      const origin = await listenApp(sim);
      const res = await fetch(`${origin}/api/user/me`, { headers: AUTH });
      expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([500, 'application/json; charset=utf-8', { message: 'Server Error.' }]);
      expect(logged).toHaveBeenCalledWith(new Error('boom'));
    } finally {
      handle.mockRestore();
      logged.mockRestore();
    }
  });
});
