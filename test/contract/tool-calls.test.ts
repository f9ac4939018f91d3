/**
 * Mid-call tools called for real (live-platform H.10): a call's scripted `tool_calls`, a
 * chat reply rule's function call without `result`, the test route, and the tool-call
 * journal, against a real local HTTP endpoint. Every account starts with fixture tools
 * 1-3, so the first tool created is id 4.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../../src/simulator.js';
import { contract, type Api } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const received: Received[] = [];
let server: Server;
let endpoint = '';

/**
 * The integrator's endpoint: `/orders/{id}` answers the order, `/bookings` echoes the
 * booking (`/orders/missing` is a 404), `/text` answers plain text and `/slow` answers after 1.5 s of real time.
 */
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const path = req.url!.split('?')[0]!;
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (path === '/bookings') return json(201, { booked: true, ...JSON.parse(body || '{}') });
      if (path === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('all good');
      }
      if (path === '/slow') {
        const timer = setTimeout(() => json(200, { late: true }), 1_500);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      const order = /^\/orders\/([^/]+)$/.exec(path);
      if (order?.[1] === 'missing') return json(404, { message: 'No such order' });
      if (order) return json(200, { order_id: decodeURIComponent(order[1]!), status: 'shipped' });
      json(404, { message: 'Not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
});

const CUSTOMER = '+14155550123';

async function createTool(api: Api, overrides: Record<string, unknown>): Promise<number> {
  const res = await api.post('/user/tools', {
    name: 'lookup_order',
    description: 'Looks an order up by its number.',
    endpoint: `${endpoint}/orders/{order_id}`,
    method: 'GET',
    schema: [{ name: 'order_id', type: 'string', description: 'The order number' }],
    ...overrides,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

/** An outbound assistant named Bar Bot with the tools given and a number to call from. */
async function createAssistant(api: Api, toolIds: number[]): Promise<{ id: number; uuid: string }> {
  const number = api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  const res = await api.post('/user/assistant', pipelineAssistant({ name: 'Bar Bot', phone_number_id: number.id, tool_ids: toolIds }));
  expect(res.status, res.text).toBe(201);
  const read = await api.get(`/user/assistant/${res.body.data.id}`);
  return { id: read.body.data.id, uuid: read.body.data.uuid };
}

/** A call to CUSTOMER answered after 4 s of ringing that talks 60 s and calls the tools given. */
async function callWithTools(api: Api, assistantId: number, toolCalls: { tool: string; arguments?: Record<string, unknown>; at?: number }[]): Promise<void> {
  api.sim.control.outcomes.forNumber(CUSTOMER, [{ kind: 'human', ring_seconds: 4, talk_seconds: 60, tool_calls: toolCalls }]);
  const made = await api.post('/user/make_call', { assistant_id: assistantId, phone_number: CUSTOMER });
  expect(made.status, made.text).toBe(200);
}

async function openChat(api: Api, assistantUuid: string): Promise<string> {
  const res = await api.post('/conversations', { assistant_id: assistantUuid, type: 'test' }, { key: null });
  expect(res.status, res.text).toBe(200);
  return res.body.conversation_id as string;
}

contract('mid-call tools: calls', (api) => {
  it('calls GET /orders/BST-1?src=Bar%20Bot at the scripted second with the assistant name in the header, and records request and answer', async () => {
    const toolId = await createTool(api(), {
      endpoint: `${endpoint}/orders/{order_id}?src={{assistant_name}}`,
      headers: [{ name: 'X-Assistant', value: '{{assistant_name}}' }],
    });
    const assistant = await createAssistant(api(), [toolId]);
    await callWithTools(api(), assistant.id, [{ tool: 'lookup_order', arguments: { order_id: 'BST-1' }, at: 10 }]);
    // Placed at 09:00:00, ringing at :01, answered at :05: the tool is called at :15.
    await api().sim.clock.advance('14s');
    expect(received).toEqual([]);
    await api().sim.clock.advance('1s');
    expect(received.map((r) => [r.method, r.url, r.headers['x-assistant'], r.headers['content-type']])).toEqual([['GET', '/orders/BST-1?src=Bar%20Bot', 'Bar Bot', undefined]]);
    const journal = await api().get('/__sim/tool-calls', { key: null });
    expect(journal.status).toBe(200);
    expect(journal.body).toStrictEqual({
      data: [
        {
          id: 1,
          account_id: 1,
          at: '2026-03-02T09:00:15Z',
          tool_id: toolId,
          tool: 'lookup_order',
          call_id: 1,
          request: { method: 'GET', url: `${endpoint}/orders/BST-1?src=Bar%20Bot`, headers: { 'X-Assistant': 'Bar Bot' }, body: null },
          response: { status: 200, body: '{"order_id":"BST-1","status":"shipped"}' },
          error: null,
        },
      ],
      evicted: 0,
    });
    expect(api().sim.control.toolCalls.list()).toStrictEqual(journal.body);
    expect(api().sim.events.history('tool.called').map((e) => [e.at, e.data])).toStrictEqual([
      [
        Date.parse('2026-03-02T09:00:15Z'),
        {
          account_id: 1,
          tool_call_id: 1,
          tool_id: toolId,
          tool: 'lookup_order',
          call_id: 1,
          conversation_id: null,
          method: 'GET',
          url: `${endpoint}/orders/BST-1?src=Bar%20Bot`,
          status: 200,
          error: null,
        },
      ],
    ]);
  });

  it('spreads tool calls without `at` in order through the talk time and sends the other arguments as the query', async () => {
    const toolId = await createTool(api(), {});
    const assistant = await createAssistant(api(), [toolId]);
    await callWithTools(api(), assistant.id, [
      { tool: 'lookup_order', arguments: { order_id: 'A 1', verbose: true } },
      { tool: 'lookup_order', arguments: { order_id: 'B/2' } },
    ]);
    await api().sim.clock.advance('5m');
    expect(received.map((r) => r.url)).toEqual(['/orders/A%201?verbose=true', '/orders/B%2F2']);
    // 60 s of talk from 09:00:05: the first of two at 20 s, the second at 40 s.
    expect(api().sim.control.toolCalls.list().data.map((c) => c.at)).toEqual(['2026-03-02T09:00:25Z', '2026-03-02T09:00:45Z']);
  });

  it('makes no request for a tool not attached to the assistant and says why in the record', async () => {
    await createTool(api(), {});
    const assistant = await createAssistant(api(), []);
    await callWithTools(api(), assistant.id, [{ tool: 'lookup_order', arguments: { order_id: 'BST-1' }, at: 1 }]);
    await api().sim.clock.advance('5m');
    expect(received).toEqual([]);
    expect(api().sim.control.toolCalls.list().data).toStrictEqual([
      {
        id: 1,
        account_id: 1,
        at: '2026-03-02T09:00:06Z',
        tool_id: 4,
        tool: 'lookup_order',
        call_id: 1,
        request: null,
        response: null,
        error: 'No tool named "lookup_order" is attached to the assistant: no request was made.',
      },
    ]);
    expect((await api().get('/user/calls/1')).body.status).toBe('completed');
  });

  it('lets a call complete when its tool is slower than its timeout, with the timeout in the record', async () => {
    const toolId = await createTool(api(), { name: 'slow_lookup', endpoint: `${endpoint}/slow`, timeout: 1, schema: [] });
    const assistant = await createAssistant(api(), [toolId]);
    await callWithTools(api(), assistant.id, [{ tool: 'slow_lookup', arguments: {}, at: 2 }]);
    await api().sim.clock.advance('5m');
    expect((await api().get('/user/calls/1')).body).toMatchObject({ id: 1, status: 'completed', duration: 60 });
    const [record] = api().sim.control.toolCalls.list().data;
    expect(record).toMatchObject({ tool: 'slow_lookup', call_id: 1, response: null, error: 'timeout: The receiver did not answer within 1000 ms.' });
    expect(record!.request).toStrictEqual({ method: 'GET', url: `${endpoint}/slow`, headers: {}, body: null });
  });

  it('refuses a tool call whose key is misspelt in the outcome script (422)', async () => {
    const res = await api().put('/__sim/outcomes', { rules: [{ outcomes: [{ kind: 'human', tool_calls: [{ tool: 'x', argumnets: {} }] }] }] }, { key: null });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['rules.0.outcomes.0.tool_calls.0']);
  });
});

contract('mid-call tools: chats', (api) => {
  it('calls a POST tool named by a rule with the JSON arguments and answers its JSON as the result', async () => {
    const toolId = await createTool(api(), {
      name: 'book_slot',
      endpoint: `${endpoint}/bookings`,
      method: 'POST',
      headers: [{ name: 'X-Api-Key', value: 'demo' }],
      schema: [{ name: 'day', type: 'string', description: 'The day to book' }],
    });
    const assistant = await createAssistant(api(), [toolId]);
    const conversation = await openChat(api(), assistant.uuid);
    await api().put('/__sim/replies', { rules: [{ when: 'book', reply: 'Booked.', function_calls: [{ name: 'book_slot', arguments: { day: 'friday' } }] }] }, { key: null });
    const res = await api().post(`/conversations/${conversation}/messages`, { message: 'Please book me in' }, { key: null });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({ status: true, message: 'Booked.', function_calls: [{ name: 'book_slot', arguments: { day: 'friday' }, result: { booked: true, day: 'friday' } }] });
    expect(received.map((r) => [r.method, r.url, r.headers['content-type'], r.headers['x-api-key'], r.body])).toEqual([
      ['POST', '/bookings', 'application/json', 'demo', '{"day":"friday"}'],
    ]);
    expect(api().sim.control.toolCalls.list().data).toStrictEqual([
      {
        id: 1,
        account_id: 1,
        at: '2026-03-02T09:00:00Z',
        tool_id: toolId,
        tool: 'book_slot',
        conversation_id: conversation,
        request: { method: 'POST', url: `${endpoint}/bookings`, headers: { 'content-type': 'application/json', 'X-Api-Key': 'demo' }, body: '{"day":"friday"}' },
        response: { status: 201, body: '{"booked":true,"day":"friday"}' },
        error: null,
      },
    ]);
    const history = (await api().get(`/conversations/${conversation}`, { key: null })).body.history;
    expect(history.at(-1)).toStrictEqual({ role: 'assistant', content: 'Booked.', function_calls: res.body.function_calls });
  });

  it('answers 400 invalid tool output when the tool answers text, and stores nothing', async () => {
    const toolId = await createTool(api(), { name: 'check', endpoint: `${endpoint}/text`, schema: [] });
    const assistant = await createAssistant(api(), [toolId]);
    const conversation = await openChat(api(), assistant.uuid);
    await api().put('/__sim/replies', { rules: [{ when: 'check', reply: 'Checked.', function_calls: [{ name: 'check' }] }] }, { key: null });
    const res = await api().post(`/conversations/${conversation}/messages`, { message: 'check it' }, { key: null });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ status: false, error: 'Failed to process message: invalid tool output' });
    expect((await api().get(`/conversations/${conversation}`, { key: null })).body.history).toHaveLength(1);
    expect(api().sim.control.toolCalls.list().data[0]).toMatchObject({ tool: 'check', response: { status: 200, body: 'all good' }, error: null });
  });

  it('answers 400 invalid tool output on an error status and on a forced failure', async () => {
    const toolId = await createTool(api(), {});
    const assistant = await createAssistant(api(), [toolId]);
    const conversation = await openChat(api(), assistant.uuid);
    await api().put('/__sim/replies', { rules: [{ when: 'order', reply: 'Found.', function_calls: [{ name: 'lookup_order', arguments: { order_id: 'missing' } }] }] }, { key: null });
    const missing = await api().post(`/conversations/${conversation}/messages`, { message: 'my order' }, { key: null });
    expect([missing.status, missing.body]).toStrictEqual([400, { status: false, error: 'Failed to process message: invalid tool output' }]);
    await api().post('/__sim/webhooks/failures', { kind: 'tool_call', with: 'refused' }, { key: null });
    const refused = await api().post(`/conversations/${conversation}/messages`, { message: 'my order' }, { key: null });
    expect([refused.status, refused.body]).toStrictEqual([400, { status: false, error: 'Failed to process message: invalid tool output' }]);
    expect(api().sim.control.toolCalls.list().data.map((c) => [c.response?.status ?? null, c.error])).toEqual([
      [404, null],
      [null, 'refused (forced)'],
    ]);
  });

  it('calls the tool for AI reply generation too, and refuses a bad answer there in shape D without storing the message', async () => {
    const toolId = await createTool(api(), {});
    const assistant = await createAssistant(api(), [toolId]);
    await api().put('/__sim/replies', { rules: [{ when: 'order', reply: 'Found.', function_calls: [{ name: 'lookup_order', arguments: { order_id: '{{order}}' } }] }] }, { key: null });
    const found = await api().post('/user/ai/generate-reply', { assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'my order', variables: { order: 'BST-3' } });
    expect(found.status, found.text).toBe(200);
    expect(found.body.function_calls).toStrictEqual([{ name: 'lookup_order', arguments: { order_id: '{{order}}' }, result: { order_id: 'BST-3', status: 'shipped' } }]);
    expect(received.map((r) => r.url)).toEqual(['/orders/BST-3']);
    const missing = await api().post('/user/ai/generate-reply', { assistant_id: assistant.id, customer_identifier: 'crm-42', message: 'my order', variables: { order: 'missing' } });
    expect([missing.status, missing.body]).toStrictEqual([400, { success: false, error: 'Failed to process message: invalid tool output', error_code: 'INVALID_TOOL_OUTPUT' }]);
    const history = (await api().get(`/conversations/${found.body.conversation_id}`, { key: null })).body.history;
    expect(history.map((m: { role: string }) => m.role)).toEqual(['assistant', 'user', 'assistant']);
  });

  it('keeps scripted results as they are, calling nothing', async () => {
    const toolId = await createTool(api(), {});
    const assistant = await createAssistant(api(), [toolId]);
    const conversation = await openChat(api(), assistant.uuid);
    const calls = [{ name: 'lookup_order', arguments: { order_id: 'BST-1' }, result: { status: 'scripted' } }];
    await api().put('/__sim/replies', { rules: [{ when: 'order', reply: 'Found.', function_calls: calls }] }, { key: null });
    const res = await api().post(`/conversations/${conversation}/messages`, { message: 'my order' }, { key: null });
    expect(res.body).toStrictEqual({ status: true, message: 'Found.', function_calls: calls });
    expect(received).toEqual([]);
    expect(api().sim.control.toolCalls.list().data).toEqual([]);
  });
});

contract('mid-call tools: the test route', (api) => {
  it('POST /__sim/tools/{id}/test calls /orders/test with the dummy values and answers what came back', async () => {
    const toolId = await createTool(api(), {
      schema: [
        { name: 'order_id', type: 'string', description: 'The order number' },
        { name: 'items', type: 'number', description: 'How many items' },
        { name: 'express', type: 'boolean', description: 'Express delivery?' },
      ],
    });
    const res = await api().post(`/__sim/tools/${toolId}/test`, undefined, { key: null });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      id: 1,
      account_id: 1,
      at: '2026-03-02T09:00:00Z',
      tool_id: toolId,
      tool: 'lookup_order',
      request: { method: 'GET', url: `${endpoint}/orders/test?items=1&express=true`, headers: {}, body: null },
      response: { status: 200, body: '{"order_id":"test","status":"shipped"}' },
      error: null,
    });
    expect(received.map((r) => r.url)).toEqual(['/orders/test?items=1&express=true']);
  });

  it('answers 404 for a tool id no account holds', async () => {
    const res = await api().post('/__sim/tools/99/test', undefined, { key: null });
    expect([res.status, res.body]).toStrictEqual([404, { message: 'Tool not found.' }]);
  });
});

describe('mid-call tools: determinism', () => {
  /** One run: a call and a chat that call the endpoint; answers the journal, the chat's answer and the events as text. */
  async function run(): Promise<string> {
    const sim = createSimulator({ seed: 7, startAt: '2026-03-02T09:00:00Z' });
    const events: unknown[] = [];
    sim.events.on('tool.called', (event) => events.push(event));
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await sim.handle({ method, path, headers: { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body) });
      return res.body as any;
    };
    await send('POST', '/user/tools', { name: 'lookup_order', description: 'Looks an order up.', endpoint: `${endpoint}/orders/{order_id}`, method: 'GET', schema: [{ name: 'order_id', type: 'string', description: 'The order' }] });
    sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
    await send('POST', '/user/assistant', pipelineAssistant({ name: 'Bar Bot', phone_number_id: 1, tool_ids: [4] }));
    sim.control.outcomes.forNumber(CUSTOMER, [{ kind: 'human', tool_calls: [{ tool: 'lookup_order', arguments: { order_id: 'BST-1' } }] }]);
    await send('POST', '/user/make_call', { assistant_id: 1, phone_number: CUSTOMER });
    await sim.clock.advance('10m');
    sim.control.replies.set({ rules: [{ when: 'order', reply: 'Found.', function_calls: [{ name: 'lookup_order', arguments: { order_id: 'BST-2' } }] }] });
    const uuid = (await send('GET', '/user/assistant/1')).data.uuid;
    const chat = await send('POST', '/conversations', { assistant_id: uuid, type: 'test' });
    const answer = await send('POST', `/conversations/${chat.conversation_id}/messages`, { message: 'my order' });
    sim.dispose();
    return JSON.stringify({ journal: sim.control.toolCalls.list(), answer, events });
  }

  it('gives byte-identical records, answers and events for the same seed, requests, clock moves and endpoint answers', async () => {
    const first = await run();
    expect(JSON.parse(first).journal.data).toHaveLength(2);
    expect(await run()).toBe(first);
  });
});
