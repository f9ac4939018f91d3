/**
 * The webhook engine's one-off requests (ARCHITECTURE §4: a mid-call tool's request is a
 * kind with no retry, the tool's timeout and an answer the caller waits for;
 * live-platform H.10): the method and body sent, the journal and its cap, forced failures.
 */
import { expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { WebhookEngine, WebhookTransportError, type DeliverRequest } from '../../src/engine/webhooks.js';

const START = Date.parse('2026-03-02T09:00:00Z');
const URL_ = 'http://127.0.0.1:9/orders/1';

function engine(answer: (request: DeliverRequest) => Promise<{ status: number; body: string; duration_ms: number }>, journalLimit?: number) {
  const sent: DeliverRequest[] = [];
  const clock = new VirtualClock(START);
  const webhooks = new WebhookEngine({ clock, deliver: async (r) => (sent.push(r), answer(r)), ...(journalLimit !== undefined && { journalLimit }) });
  return { webhooks, sent, clock };
}

const input = (request: { method: string; body: string | null }) => ({
  account_id: 1,
  tool_id: 4,
  tool: 'lookup_order',
  call_id: 9,
  request: { method: request.method, url: URL_, headers: { 'x-api-key': 'demo' }, body: request.body },
  timeoutMs: 1_000,
});

it('sends the method, headers and timeout given, with no body for a GET, and answers the record', async () => {
  const { webhooks, sent } = engine(async () => ({ status: 200, body: '{"ok":true}', duration_ms: 12 }));
  const done = await webhooks.request(input({ method: 'GET', body: null }));
  expect(sent).toStrictEqual([{ method: 'GET', url: URL_, body: '', headers: { 'x-api-key': 'demo' }, timeoutMs: 1_000 }]);
  expect(done).toStrictEqual({
    id: 1,
    account_id: 1,
    at: START,
    tool_id: 4,
    tool: 'lookup_order',
    call_id: 9,
    request: { method: 'GET', url: URL_, headers: { 'x-api-key': 'demo' }, body: null },
    response: { status: 200, body: '{"ok":true}' },
    error: null,
  });
  expect(webhooks.toolCalls()).toStrictEqual([done]);
  expect(webhooks.deliveries()).toEqual([]);
});

it('records a timeout without its real duration and never retries', async () => {
  const { webhooks, sent, clock } = engine(async () => {
    throw new WebhookTransportError('timeout', 'The receiver did not answer within 1000 ms.', 1003);
  });
  const done = await webhooks.request(input({ method: 'POST', body: '{"a":1}' }));
  expect([done.response, done.error]).toStrictEqual([null, 'timeout: The receiver did not answer within 1000 ms.']);
  await clock.advance('10m');
  expect(sent).toHaveLength(1);
});

it('fails a request with a tool_call failure rule without sending it, and leaves webhook rules alone', async () => {
  const { webhooks, sent } = engine(async () => ({ status: 200, body: '{}', duration_ms: 1 }));
  webhooks.failNext({ kind: 'post_call', times: 1, with: 500 });
  webhooks.failNext({ kind: 'tool_call', times: 1, with: 503 });
  const forced = await webhooks.request(input({ method: 'GET', body: null }));
  expect(forced.response).toStrictEqual({ status: 503, body: '' });
  expect(sent).toEqual([]);
  expect(webhooks.failureRules().map((r) => r.kind)).toEqual(['post_call']);
});

it('refuses a URL under the simulator own API without a request', async () => {
  const { webhooks, sent } = engine(async () => ({ status: 200, body: '{}', duration_ms: 1 }));
  webhooks.refuseUnder('http://127.0.0.1:9/orders');
  const done = await webhooks.request(input({ method: 'GET', body: null }));
  expect([done.response, done.error, sent.length]).toStrictEqual([null, "refused: the URL is the simulator's own API", 0]);
});

it('records why no request was made when there is none to make', async () => {
  const { webhooks, sent } = engine(async () => ({ status: 200, body: '{}', duration_ms: 1 }));
  const done = await webhooks.request({ account_id: 1, tool_id: null, tool: 'nope', conversation_id: 'c-1', request: null, timeoutMs: 0, error: 'not attached' });
  expect(done).toMatchObject({ tool_id: null, conversation_id: 'c-1', request: null, response: null, error: 'not attached' });
  expect(sent).toEqual([]);
});

it('keeps the journal within its limit, dropping the oldest records, and empties it on clear', async () => {
  const { webhooks } = engine(async () => ({ status: 200, body: '{}', duration_ms: 1 }), 2);
  for (let i = 0; i < 3; i++) await webhooks.request(input({ method: 'GET', body: null }));
  expect(webhooks.toolCalls().map((c) => c.id)).toEqual([2, 3]);
  expect(webhooks.toolCallsEvicted).toBe(1);
  webhooks.clear();
  expect([webhooks.toolCalls(), webhooks.toolCallsEvicted]).toStrictEqual([[], 0]);
});
