/**
 * `voxsim events` (issue 16, item 3) against a real `voxsim serve`: readable lines, raw
 * JSON with --json, the filters, the admin token; the dashboard and stream URLs in the
 * serve banner; and the progress output of long operations (item 4).
 */
import { describe, expect, it } from 'vitest';
import { liveLines, parseEventsArgs, runScenarios, serve } from '../../src/cli.js';
import type { WireEvent } from '../../src/core/events.js';
import { describeEvent, formatEventLine } from '../../src/event-lines.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { ROOT, startServer, stop, voxsim, waitForStderr, waitForStdout, type Server } from '../support/processes.js';

const START = '2026-03-02T09:00:00Z';
const KEY = { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' };

async function post(server: Server, path: string, body: unknown, headers: Record<string, string> = KEY) {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return res.status;
}

/** Lines of a child's stdout that are not empty. */
const lines = (text: string) => text.split('\n').filter((l) => l.length > 0);

describe('voxsim serve banner', () => {
  it('prints the dashboard URL and the event stream URL after the API URLs', async () => {
    const server = await startServer(['--quiet']);
    await waitForStdout(server, /Event stream:[^\n]*\n/, 'the stream line');
    const printed = lines(server.stdout());
    expect(printed.slice(1)).toEqual([
      `  API base URL:  ${server.url}`,
      '  API key:       sim_test_key   (Authorization: Bearer sim_test_key)',
      `  Control API:   ${server.url}/__sim   (try ${server.url}/__sim/health)`,
      `  Sandboxes:     ${server.url}/__sim/sandboxes   (voxsim sandbox create --url ${server.url})`,
      `  Dashboard:     ${server.url}/__sim/ui`,
      `  Event stream:  ${server.url.replace('http', 'ws')}/__sim/events   (voxsim events --url ${server.url})`,
    ]);
    const page = await fetch(`${server.url}/__sim/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('tells how to give the dashboard and the CLI the admin token, without printing it', () => {
    expect(liveLines('http://10.0.0.5:4010/api', 'secret')).toBe(
      [
        '  Dashboard:     http://10.0.0.5:4010/api/__sim/ui   (it asks for the admin token, or open http://10.0.0.5:4010/api/__sim/ui#token=<admin token>)',
        '  Event stream:  ws://10.0.0.5:4010/api/__sim/events   (voxsim events --url http://10.0.0.5:4010/api --admin-token <admin token>)',
      ].join('\n'),
    );
  });
});

describe('voxsim events', () => {
  it('prints one readable line per event, from the history with --since 0 and then live', async () => {
    const server = await startServer(['--quiet', '--start', START]);
    expect(await post(server, '/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550100' })).toBe(201);
    const tail = voxsim(['events', '--url', server.url, '--since', '0', '--no-color']);
    await waitForStdout(tail, /#1 /, 'the replayed event');
    expect(await post(server, '/user/assistant', pipelineAssistant({ phone_number_id: 1 }))).toBe(201);
    expect(await post(server, '/user/make_call', { assistant_id: 1, phone_number: '+15551230003' })).toBe(200);
    expect(await post(server, '/__sim/clock/advance', { by: '1m' })).toBe(200);
    await waitForStdout(tail, /POST \/__sim\/clock\/advance 200[^\n]*\n/, 'the advance request line');
    const printed = lines(tail.stdout());
    expect(printed.slice(0, 5)).toEqual([
      '2026-03-02 09:00:00  #1      request.answered       POST /__sim/phone-numbers 201  [account 1]',
      '2026-03-02 09:00:00  #2      request.answered       POST /user/assistant 201  [account 1]',
      '2026-03-02 09:00:00  #3      call.status            call 1 initiated to +15551230003  [account 1]',
      '2026-03-02 09:00:00  #4      request.answered       POST /user/make_call 200  [account 1]',
      '2026-03-02 09:00:01  #5      call.status            call 1 ringing  [account 1]',
    ]);
    expect(printed.some((l) => /^2026-03-02 09:00:\d\d  #\d+ +call\.status +call 1 ended: machine, \d+ s, \$0\.11  \[account 1\]$/.test(l))).toBe(true);
    expect(printed.at(-2)).toMatch(/^2026-03-02 09:01:00  #\d+ +clock\.advanced +advance: 2026-03-02 09:00:00 -> 2026-03-02 09:01:00, \d+ events$/);
    expect(tail.stderr()).toContain(`Following ${server.url}/__sim/events (latest seq 1, replaying 1). Ctrl-C stops.`);
    expect(await stop(tail, 'SIGINT')).toEqual({ code: 0, signal: null });
  });

  it('prints the raw JSON of each event with --json, filtered by --type and --account', async () => {
    const server = await startServer(['--quiet', '--start', START]);
    const tail = voxsim(['events', '--url', server.url, '--json', '--type', 'request.', '--account', '1']);
    await waitForStderr(tail, /Following/, 'the hello');
    expect(await post(server, '/user/campaign', {})).toBe(422);
    // A control request without an API key belongs to no account: the account filter leaves it out.
    expect(await post(server, '/__sim/clock/advance', { by: '1s' }, {})).toBe(200);
    expect(await post(server, '/user/campaign', {}, { authorization: 'Bearer nobody' })).toBe(401);
    expect(await post(server, '/user/campaign', {})).toBe(422);
    await waitForStdout(tail, /(\{[^\n]*\n){2}/, 'two JSON lines');
    const events = lines(tail.stdout()).map((l) => JSON.parse(l) as WireEvent);
    expect(events).toStrictEqual([
      { seq: 1, type: 'request.answered', at: '2026-03-02T09:00:00Z', at_ms: Date.parse(START), data: { method: 'POST', path: '/user/campaign', status: 422, account_id: 1, error: 'The name field is required. (and 1 more error)' } },
      { seq: 5, type: 'request.answered', at: '2026-03-02T09:00:01Z', at_ms: Date.parse(START) + 1000, data: { method: 'POST', path: '/user/campaign', status: 422, account_id: 1, error: 'The name field is required. (and 1 more error)' } },
    ]);
  });

  it('says the server refused it and exits 1 without the admin token, and follows with it', async () => {
    const server = await startServer(['--quiet', '--admin-token', 's3cret']);
    const refused = voxsim(['events', '--url', server.url]);
    expect((await refused.closed).code).toBe(1);
    expect(refused.stderr()).toBe('The server refused the stream: 401 Unauthenticated.\n');
    const tail = voxsim(['events', '--url', server.url, '--admin-token', 's3cret', '--no-color']);
    await waitForStderr(tail, /Following/, 'the hello');
    await fetch(`${server.url}/__sim/health`, { headers: { authorization: 'Bearer s3cret' } });
    await waitForStdout(tail, /GET \/__sim\/health 200/, 'the health request');
  });

  it('exits 0 when the server shuts down', async () => {
    const server = await startServer(['--quiet']);
    const tail = voxsim(['events', '--url', server.url]);
    await waitForStderr(tail, /Following/, 'the hello');
    await stop(server);
    expect((await tail.closed).code).toBe(0);
    expect(tail.stderr()).toContain('The stream ended (1001 The server is shutting down).');
  });
});

describe('voxsim events arguments', () => {
  it('defaults to the local server, every event, readable lines, colour on a terminal', () => {
    expect(parseEventsArgs([], {}, true)).toEqual({ url: 'http://127.0.0.1:4010/api', types: [], json: false, colour: true });
    expect(parseEventsArgs([], {}, false).colour).toBe(false);
  });

  it('reads every flag, repeated and comma-separated types', () => {
    expect(parseEventsArgs(['--url', 'https://sim.example.test/api/', '--admin-token', 't', '--type', 'call.', '--type', 'lead.,webhook.attempt', '--account', '2', '--since', '0', '--json', '--no-color'], {}, true)).toEqual({
      url: 'https://sim.example.test/api',
      adminToken: 't',
      types: ['call.', 'lead.', 'webhook.attempt'],
      accountId: 2,
      since: 0,
      json: true,
      colour: false,
    });
  });

  it('takes the URL and the token from VOXSIM_URL and VOXSIM_ADMIN_TOKEN, and honours NO_COLOR and FORCE_COLOR', () => {
    expect(parseEventsArgs([], { VOXSIM_URL: 'http://127.0.0.1:5000/v1', VOXSIM_ADMIN_TOKEN: 'env-token' }, false)).toMatchObject({ url: 'http://127.0.0.1:5000/v1', adminToken: 'env-token' });
    expect(parseEventsArgs([], { NO_COLOR: '1' }, true).colour).toBe(false);
    expect(parseEventsArgs([], { FORCE_COLOR: '1' }, false).colour).toBe(true);
  });

  it.each([
    [['--url', 'ftp://x'], '--url must be the server\'s API base URL'],
    [['--account', '0'], '--account must be a whole number from 1, got "0"'],
    [['--since=-3'], '--since must be a whole number, got "-3"'],
    [['--follow'], "Unknown option '--follow'"],
  ])('refuses %j', (args, message) => {
    expect(() => parseEventsArgs(args)).toThrow(message);
  });
});

describe('event lines', () => {
  const at = '2026-03-02T09:05:30Z';
  const event = (type: string, data: Record<string, unknown>, seq = 42): WireEvent => ({ seq, type, at, at_ms: Date.parse(at), data });

  it.each([
    ['call.status', { call_id: 3, status: 'ringing' }, 'call 3 ringing'],
    ['call.status', { call_id: 3, status: 'initiated', phone_number: '+15551230003' }, 'call 3 initiated to +15551230003'],
    ['call.status', { call_id: 3, status: 'completed', ended: true, answered_by: 'human', duration: 94, total_cost: 0.174 }, 'call 3 completed: human, 94 s, $0.17'],
    ['lead.status', { lead_id: 9, status: 'rescheduled' }, 'lead 9 rescheduled'],
    ['campaign.status', { campaign_id: 2, status: 'in-progress' }, 'campaign 2 in-progress'],
    ['campaign.idle', { campaign_id: 2, reason: 'outside_window' }, 'campaign 2 idle: outside window'],
    ['webhook.queued', { delivery_id: 4, kind: 'post_call', url: 'https://h.test/x' }, 'delivery 4 (post_call) to https://h.test/x'],
    ['webhook.attempt', { delivery_id: 4, attempt: 2, status: 500, error: null, state: 'pending', next_attempt_at: '2026-03-02T09:06:30Z' }, 'delivery 4 attempt 2: HTTP 500 -> pending, retry at 2026-03-02 09:06:30'],
    ['webhook.attempt', { delivery_id: 4, attempt: 4, status: null, error: 'timeout (forced)', state: 'failed', next_attempt_at: null }, 'delivery 4 attempt 4: timeout (forced) -> failed'],
    ['tool.called', { tool: 'lookup_order', call_id: 1, conversation_id: null, method: 'GET', url: 'https://shop.test/orders/1', status: 200, error: null }, 'tool lookup_order for call 1: GET https://shop.test/orders/1 -> HTTP 200'],
    ['tool.called', { tool: 'lookup_order', call_id: null, conversation_id: 'c-1', method: null, url: null, status: null, error: 'not attached' }, 'tool lookup_order for conversation c-1: no request -> not attached'],
    ['msgapp.window_opened', { recipient_phone: '+14155550177', sender_id: 1, expires_at: '2026-03-03T09:05:30Z', by: 'customer_message' }, 'window +14155550177 (sender 1) open until 2026-03-03 09:05:30 by customer message'],
    ['msgapp.window_closed', { recipient_phone: '+14155550177', sender_id: 1 }, 'window +14155550177 (sender 1) closed'],
    ['conversation.started', { type: 'widget', conversation_id: 'c-1' }, 'widget conversation c-1 started'],
    ['conversation.ended', { type: 'widget', conversation_id: 'c-1', reason: 'inactivity', webhook: true }, 'widget conversation c-1 ended (inactivity), webhook sent'],
    ['conversation.reopened', { type: 'msgapp', conversation_id: 'c-2' }, 'msgapp conversation c-2 reopened'],
    ['clock.advanced', { by: 'run_until_idle', from: '2026-03-02T09:00:00Z', to: at, ran: 12 }, 'run until idle: 2026-03-02 09:00:00 -> 2026-03-02 09:05:30, 12 events'],
    ['clock.mode', { mode: 'realtime', speed: 60 }, 'realtime at 60x'],
    ['document.status', { knowledgebase_id: 4, document_id: 21, status: 'failed' }, 'document 21 of knowledge base 4 failed'],
    ['request.answered', { method: 'POST', path: '/user/lead', status: 422, error: 'The phone number field is required.' }, 'POST /user/lead 422 The phone number field is required.'],
    ['sim.reset', { seed: 7 }, 'reset with seed 7'],
  ])('describes %s %j', (type, data, text) => {
    expect(describeEvent(event(type, data))).toBe(text);
  });

  it('lays out the time, the seq, the type and the account, plain without colour', () => {
    expect(formatEventLine(event('lead.status', { account_id: 1, lead_id: 9, status: 'completed' }), { colour: false })).toBe(
      '2026-03-02 09:05:30  #42     lead.status            lead 9 completed  [account 1]',
    );
  });

  it('colours the type by kind and a failure in red', () => {
    const green = formatEventLine(event('lead.status', { lead_id: 9, status: 'completed' }), { colour: true });
    expect(green).toContain('\u001b[32mlead.status           \u001b[0m');
    const failed = formatEventLine(event('request.answered', { method: 'GET', path: '/x', status: 404, error: 'no' }), { colour: true });
    expect(failed).toContain('\u001b[31mrequest.answered      \u001b[0m');
  });
});

describe('progress of long operations', () => {
  it('logs a progress line every N events of a clock move and one when it is done', async () => {
    const logged: string[] = [];
    const running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: START, quiet: true, progressEvery: 5 }, (line) => logged.push(line));
    try {
      // Three deliveries to a receiver that is down: 4 attempts each at t, t+30 s, t+90 s, t+210 s.
      running.sim.webhooks.failNext({ times: 12, with: 500 });
      for (let i = 0; i < 3; i++) running.sim.webhooks.send({ account_id: 1, kind: 'post_call', url: 'https://hooks.example.test/down', payload: { i } });
      await running.sim.clock.advance('1h');
      expect(logged.map((l) => JSON.parse(l))).toStrictEqual([
        { level: 'info', msg: 'clock progress', sim_time: '2026-03-02T09:00:30.000Z', ran: 5 },
        { level: 'info', msg: 'clock progress', sim_time: '2026-03-02T09:03:30.000Z', ran: 10 },
        { level: 'info', msg: 'clock moved', sim_time: '2026-03-02T10:00:00.000Z', by: 'advance', from: '2026-03-02T09:00:00.000Z', ran: 12 },
      ]);
      expect(running.sim.webhooks.deliveries().map((d) => d.state)).toEqual(['failed', 'failed', 'failed']);
      logged.length = 0;
      // A move of fewer events than N logs nothing.
      running.sim.webhooks.failNext({ times: 4, with: 500 });
      running.sim.webhooks.send({ account_id: 1, kind: 'post_call', url: 'https://hooks.example.test/down', payload: {} });
      await running.sim.clock.advance('1h');
      expect(logged).toEqual([]);
    } finally {
      await running.close();
    }
  });

  it('shows a progress line per scenario file on a terminal, and none otherwise', async () => {
    const files = [`${ROOT}scenarios/voicemail-then-human.yaml`, `${ROOT}scenarios/max-retries-reached.yaml`];
    const withProgress: string[] = [];
    const out = { log: () => undefined, error: (line: string) => withProgress.push(line) } as unknown as Console;
    expect(await runScenarios(files, out, { progress: true })).toBe(0);
    expect(withProgress.filter((l) => l.startsWith('['))).toEqual([`[1/2] ${files[0]}`, `[2/2] ${files[1]}`]);
    const without: string[] = [];
    expect(await runScenarios(files, { log: () => undefined, error: (line: string) => without.push(line) } as unknown as Console)).toBe(0);
    expect(without.filter((l) => l.startsWith('['))).toEqual([]);
  });
});
