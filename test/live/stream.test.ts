/**
 * The WebSocket event stream `GET {base}/__sim/events` (issue 16, item 1), tested with a
 * real `ws` client against a real `voxsim serve`: the hello, one JSON message per event,
 * type-prefix and account filters, `since` replay from the history, the admin token, and
 * the slow-consumer limit (close code 1013). Waits are for messages, each bounded.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Server } from '../support/processes.js';
import { closeAllClients, connect, refusal, type Message } from '../support/stream.js';
import { pipelineAssistant } from '../support/fixtures.js';

const START = '2026-03-02T09:00:00Z';
const T0 = Date.parse(START);
const KEY = 'sim_test_key';

afterEach(closeAllClients);

const serve = (args: string[] = [], shared = false) => startServer(['--quiet', '--start', START, ...args], { shared });

/** One server for the tests that need no flag, reset before each (starting a server takes a second). */
let main: Server | undefined;
/**
 * The shared server, reset: its history holds the `sim.reset` event, whose seq is `base`
 * (seq goes on across resets), and the answered reset request (`base + 1`).
 */
async function fresh(): Promise<{ server: Server; base: number }> {
  main ??= await serve([], true);
  expect((await call(main, 'POST', '/__sim/reset', {}, {})).status).toBe(200);
  const probe = await connect(main.url);
  const base = probe.messages[0]!.data.oldest_seq as number;
  expect(probe.messages[0]!.data.latest_seq).toBe(base + 1);
  probe.close();
  await probe.closed;
  return { server: main, base };
}

async function call(server: Server, method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** A campaign on a sip number whose one lead reaches voicemail, then a human (as in the README). */
async function voicemailThenHuman(server: Server, key = KEY, accountId = 1, phone = '+14155550100') {
  const auth = { authorization: `Bearer ${key}` };
  expect((await call(server, 'POST', '/__sim/phone-numbers', { account_id: accountId, type: 'sip', phone_number: phone })).status).toBe(201);
  const assistant = await call(server, 'POST', '/user/assistant', pipelineAssistant({ phone_number_id: accountId === 1 ? 1 : 2 }), auth);
  expect(assistant.status).toBe(201);
  const campaign = await call(server, 'POST', '/user/campaign', { name: 'Spring', assistant_id: assistant.body.data.id, retry_on_voicemail: true, retry_interval: 60 }, auth);
  expect(campaign.status).toBe(201);
  expect((await call(server, 'POST', '/user/lead', { campaign_id: campaign.body.data.id, phone_number: '+15551230003' }, auth)).status).toBe(200);
  await call(server, 'PUT', '/__sim/outcomes', { rules: [{ match: { phone_number: '+15551230003' }, outcomes: ['voicemail', 'human'] }] });
  expect((await call(server, 'POST', '/user/campaigns/update-status', { campaign_id: campaign.body.data.id, action: 'start' }, auth)).status).toBe(200);
  return campaign.body.data.id as number;
}

const types = (messages: Message[]) => messages.map((m) => m.type);

describe('event stream: messages', () => {
  it('opens with a hello, then sends one JSON message per event with its seq, type, time and data', async () => {
    const { server, base } = await fresh();
    const stream = await connect(server.url);
    expect(stream.messages[0]).toStrictEqual({
      type: 'stream.hello',
      at: '2026-03-02T09:00:00Z',
      at_ms: T0,
      data: { latest_seq: base + 1, oldest_seq: base, since: null, replayed: 0, missed: 0, buffer_limit: 4 * 1024 * 1024, filters: { type: [], account_id: null } },
    });
    await call(server, 'POST', '/user/campaign', {});
    const [event] = (await stream.until((m) => m.length >= 2, 'the request event')).slice(1);
    expect(event).toStrictEqual({
      seq: base + 2,
      type: 'request.answered',
      at: '2026-03-02T09:00:00Z',
      at_ms: T0,
      data: { method: 'POST', path: '/user/campaign', status: 422, account_id: 1, error: 'The name field is required. (and 1 more error)' },
    });
  });

  it('streams a campaign through its calls and leads to the end, in seq order, with clock moves', async () => {
    const { server } = await fresh();
    const stream = await connect(server.url, 'type=call.&type=lead.&type=campaign.&type=clock.');
    await voicemailThenHuman(server);
    await call(server, 'POST', '/__sim/clock/advance', { by: '2h' });
    const events = await stream.until((m) => m.some((e) => e.type === 'clock.advanced'), 'the clock move');
    const seqs = stream.events().map((e) => e.seq!);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(
      stream
        .events()
        .filter((e) => e.type === 'call.status')
        .map((e) => `${e.data.call_id}:${e.data.status}`),
    ).toEqual(['1:initiated', '1:ringing', '1:in-progress', '1:ended', '2:initiated', '2:ringing', '2:in-progress', '2:completed']);
    expect(stream.events().filter((e) => e.type === 'lead.status').map((e) => e.data.status)).toEqual(['scheduled', 'processing', 'rescheduled', 'processing', 'completed']);
    expect(stream.events().filter((e) => e.type === 'campaign.status').map((e) => e.data.status)).toEqual(['in-progress', 'completed']);
    expect(events.at(-1)).toMatchObject({ type: 'clock.advanced', at: '2026-03-02T11:00:00Z', data: { by: 'advance', from: '2026-03-02T09:00:00Z', to: '2026-03-02T11:00:00Z', ran: 8 } });
    const ended = stream.events().find((e) => e.type === 'call.status' && e.data.status === 'ended')!;
    expect(ended.data).toStrictEqual({ account_id: 1, call_id: 1, status: 'ended', campaign_id: 1, lead_id: 1, ended: true, answered_by: 'machine', duration: ended.data.duration, total_cost: 0.11 });
  });
});

describe('event stream: filters', () => {
  it('sends only the types that start with one of the `type` prefixes', async () => {
    const { server } = await fresh();
    const stream = await connect(server.url, 'type=campaign.status,lead.');
    expect(stream.messages[0]!.data.filters).toStrictEqual({ type: ['campaign.status', 'lead.'], account_id: null });
    await voicemailThenHuman(server);
    await call(server, 'POST', '/__sim/clock/advance', { by: '2h' });
    await stream.until((m) => m.some((e) => e.type === 'campaign.status' && e.data.status === 'completed'), 'the campaign completed');
    expect(new Set(types(stream.events()))).toEqual(new Set(['campaign.status', 'lead.status']));
  });

  it("sends one account's events, and those of the whole simulator, with account_id", async () => {
    const { server } = await fresh();
    const second = await call(server, 'POST', '/__sim/accounts', { api_key: 'sim_second_key' });
    expect(second.body.id).toBe(2);
    const stream = await connect(server.url, 'account_id=2');
    await voicemailThenHuman(server, KEY, 1, '+14155550100');
    await voicemailThenHuman(server, 'sim_second_key', 2, '+14155550101');
    await call(server, 'POST', '/__sim/clock/advance', { by: '2h' });
    await stream.until((m) => m.some((e) => e.type === 'clock.advanced'), 'the clock move');
    const accounts = new Set(stream.events().map((e) => e.data.account_id));
    expect(accounts).toEqual(new Set([2, undefined]));
    expect(stream.events().filter((e) => e.data.account_id === undefined).map((e) => e.type)).toEqual(['clock.advanced']);
    expect(stream.events().filter((e) => e.type === 'campaign.status').map((e) => [e.data.campaign_id, e.data.status])).toEqual([
      [2, 'in-progress'],
      [2, 'completed'],
    ]);
  });

  describe('refusals', () => {
    let server: Server;
    beforeAll(async () => {
      server = await serve([], true);
    });

    it.each([
      ['since=-1', { since: ['The since must be at least 0.'] }],
      ['account_id=x', { account_id: ['The account id must be an integer.'] }],
      ['type=', { type: ['The type must be one or more event type prefixes such as call. or webhook.attempt.'] }],
    ])('refuses %s with 422 shape B before upgrading', async (query, errors) => {
      const refused = await refusal(server.url, query);
      expect(refused).toStrictEqual({ status: 422, body: { message: Object.values(errors)[0]![0], errors } });
    });
  });
});

describe('event stream: since', () => {
  it('replays the history after `since` first, then goes on live without a gap or a repeat', async () => {
    const { server, base } = await fresh();
    await voicemailThenHuman(server);
    await call(server, 'POST', '/__sim/clock/advance', { by: '2h' });
    const all = await connect(server.url, 'since=0');
    const history = all.events();
    // The history since the reset, every event once and in order; what came before the reset is gone.
    expect(history[0]).toMatchObject({ seq: base, type: 'sim.reset' });
    expect(history.map((e) => e.seq)).toEqual(history.map((_, i) => base + i));
    const latest = history.at(-1)!.seq!;
    expect(all.messages[0]!.data).toMatchObject({ latest_seq: latest, oldest_seq: base, since: 0, replayed: history.length, missed: base - 1 });

    const from = base + 10;
    const resumed = await connect(server.url, `since=${from}`);
    expect(resumed.events()).toStrictEqual(history.slice(11));
    expect(resumed.messages[0]!.data).toMatchObject({ since: from, replayed: latest - from, missed: 0 });
    await call(server, 'GET', '/user/me');
    const [live] = (await resumed.until((m) => m.length > latest - from + 1, 'the live event')).slice(-1);
    expect(live).toMatchObject({ seq: latest + 1, type: 'request.answered', data: { path: '/user/me' } });
  });

  it('lets a client that reconnects with the last seq it saw miss nothing', async () => {
    const { server } = await fresh();
    const first = await connect(server.url);
    await call(server, 'GET', '/user/me');
    await first.until((m) => m.length >= 2, 'the first event');
    const lastSeen = first.events().at(-1)!.seq!;
    first.close();
    await first.closed;
    await voicemailThenHuman(server);
    const again = await connect(server.url, `since=${lastSeen}`);
    const replayed = again.events();
    expect(replayed[0]!.seq).toBe(lastSeen + 1);
    expect(replayed.map((e) => e.seq)).toEqual(replayed.map((_, i) => lastSeen + 1 + i));
    expect(types(replayed)).toContain('campaign.status');
  });

  it('replays with the type filter applied and counts what the history no longer holds', async () => {
    const { server } = await fresh();
    await voicemailThenHuman(server);
    await call(server, 'POST', '/__sim/clock/advance', { by: '2h' });
    const stream = await connect(server.url, 'since=0&type=lead.');
    expect(stream.events().map((e) => e.data.status)).toEqual(['scheduled', 'processing', 'rescheduled', 'processing', 'completed']);
    expect(stream.messages[0]!.data.replayed).toBe(5);
  });

  it('replays the whole history for a `since` beyond the latest seq (a server restarted since)', async () => {
    const { server, base } = await fresh();
    await call(server, 'GET', '/user/me');
    await call(server, 'GET', '/user/me');
    const stream = await connect(server.url, 'since=10000000');
    expect(stream.events().map((e) => e.seq)).toEqual([base, base + 1, base + 2, base + 3]);
    expect(stream.events().map((e) => e.type)).toEqual(['sim.reset', 'request.answered', 'request.answered', 'request.answered']);
  });
});

describe('event stream: admin token', () => {
  let server: Server;
  beforeAll(async () => {
    server = await serve(['--admin-token', 's3cret'], true);
  });

  it('refuses a client without the token with 401 shape A, like every control route', async () => {
    expect(await refusal(server.url)).toStrictEqual({ status: 401, body: { message: 'Unauthenticated.' } });
    expect(await refusal(server.url, '', { authorization: 'Bearer wrong' })).toStrictEqual({ status: 401, body: { message: 'Unauthenticated.' } });
    expect(await refusal(server.url, 'token=wrong')).toStrictEqual({ status: 401, body: { message: 'Unauthenticated.' } });
    expect(await refusal(server.url, '', { authorization: `Bearer ${KEY}` })).toStrictEqual({ status: 401, body: { message: 'Unauthenticated.' } });
  });

  it('accepts the token as a Bearer header or, for browsers, as ?token=', async () => {
    const byHeader = await connect(server.url, '', { authorization: 'Bearer s3cret' });
    const byQuery = await connect(server.url, 'token=s3cret&type=request.');
    await call(server, 'GET', '/user/me');
    await byHeader.until((m) => m.some((e) => e.data.path === '/user/me'), 'the event by header');
    await byQuery.until((m) => m.some((e) => e.data.path === '/user/me'), 'the event by query');
    expect(byHeader.events().at(-1)).toMatchObject({ type: 'request.answered', data: { path: '/user/me', status: 200 } });
    expect(byQuery.messages[0]!.data.filters).toStrictEqual({ type: ['request.'], account_id: null });
  });
});

describe('event stream: slow consumers', () => {
  it('closes a consumer that stops reading with 1013 once more than the buffer limit waits, and keeps serving', async () => {
    const server = await serve(['--stream-buffer', '64kb']);
    const slow = await connect(server.url);
    expect(slow.messages[0]!.data.buffer_limit).toBe(65_536);
    // The consumer stops reading while events keep coming. Requests with long paths make
    // large events, so the kernel's socket buffers (a few MB on loopback) fill in a few
    // hundred; the server says on its log when it drops the consumer.
    slow.ws.pause();
    const long = 'x'.repeat(8_000);
    let sent = 0;
    const dropLine = /^\{[^\n]*"msg":"stream consumer dropped"[^\n]*$/m;
    while (!dropLine.test(server.stdout()) && sent < 3_000) {
      await Promise.all(Array.from({ length: 20 }, () => call(server, 'GET', `/user/${long}`)));
      sent += 20;
    }
    const line = JSON.parse(dropLine.exec(server.stdout())![0]);
    expect(line).toStrictEqual({ level: 'warn', msg: 'stream consumer dropped', code: 1013, reason: 'Slow consumer: more than 65536 bytes waiting', sent: line.sent });
    expect(line.sent).toBeGreaterThan(0);
    slow.ws.resume();
    expect(await slow.closed).toStrictEqual({ code: 1013, reason: 'Slow consumer: more than 65536 bytes waiting' });
    // It got what was sent before the drop, whole messages in seq order, fewer than the events.
    const got = slow.events();
    expect(got.length).toBe(line.sent);
    expect(got.length).toBeLessThan(sent);
    expect(got.map((e) => e.seq)).toEqual(got.map((_, i) => i + 1));
    // The server goes on serving, and the consumer catches up from the last seq it saw.
    expect((await call(server, 'GET', '/__sim/health')).status).toBe(200);
    const again = await connect(server.url, `since=${got.at(-1)!.seq}&type=request.`);
    expect(again.events()[0]!.seq).toBe(got.at(-1)!.seq! + 1);
    expect(again.messages[0]!.data.missed).toBe(0);
  });
});

describe('event stream: HTTP', () => {
  let server: Server;
  beforeAll(async () => {
    server = await serve([], true);
  });

  it('answers a plain GET with 426 and how to connect', async () => {
    const res = await fetch(`${server.url}/__sim/events`);
    expect(res.status).toBe(426);
    expect(res.headers.get('upgrade')).toBe('websocket');
    expect(await res.json()).toStrictEqual({ message: `GET /api/__sim/events is a WebSocket stream: connect with a WebSocket client (ws://${new URL(server.url).host}/api/__sim/events).` });
  });

  it('refuses an upgrade on any other path with 404', async () => {
    const res = await refusal(server.url.replace('/api', '/api/__sim/other'), '');
    expect(res).toStrictEqual({ status: 404, body: { message: 'The route api/__sim/other/__sim/events could not be found.' } });
  });
});
