import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createSimulator } from 'voxsim';
import { handlers } from 'voxsim/msw';

const baseUrl = 'https://api.example.test/api';
const sim = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });

// Your endpoint: the order lookup the assistant calls during a call or a chat. In a test,
// an MSW handler serves it; the simulator's request goes through the same fetch.
const orderLookup = http.get('https://shop.example.test/orders/:id', ({ params, request }) => {
  if (request.headers.get('x-api-key') !== 'demo') return HttpResponse.json({ error: 'unauthorised' }, { status: 401 });
  return HttpResponse.json({ order_id: params.id, status: 'shipped', src: new URL(request.url).searchParams.get('src') });
});

const server = setupServer(...handlers(sim, { baseUrl }), orderLookup);
beforeAll(() => server.listen());
beforeEach(() => sim.reset());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** The tool (id 4: every account starts with three) and an assistant (id 1) that has it. */
async function assistantWithTool() {
  const tool = await api('POST', '/user/tools', {
    name: 'lookup_order',
    description: 'Looks an order up by its number.',
    endpoint: 'https://shop.example.test/orders/{order_id}?src={{assistant_name}}',
    method: 'GET',
    timeout: 5,
    headers: [{ name: 'X-Api-Key', value: 'demo' }],
    schema: [{ name: 'order_id', type: 'string', description: 'The order number' }],
  });
  sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  const assistant = await api('POST', '/user/assistant', {
    name: 'Bar Bot', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin',
    initial_message: 'Hello!', system_prompt: 'You help with orders.', llm_model_id: 1, phone_number_id: 1, tool_ids: [tool.body.data.id],
  });
  return { toolId: tool.body.data.id as number, assistantId: assistant.body.data.id as number };
}

it('looks the order up 10 s into the call', async () => {
  const { assistantId } = await assistantWithTool();
  sim.control.outcomes.forNumber('+15551230042', [
    { kind: 'human', ring_seconds: 4, talk_seconds: 60, tool_calls: [{ tool: 'lookup_order', arguments: { order_id: 'BST-1' }, at: 10 }] },
  ]);
  await api('POST', '/user/make_call', { assistant_id: assistantId, phone_number: '+15551230042' });
  await sim.clock.advance('2m');

  const [lookup] = sim.control.toolCalls.list().data;
  expect(lookup!.request!.url).toBe('https://shop.example.test/orders/BST-1?src=Bar%20Bot');
  expect(JSON.parse(lookup!.response!.body)).toEqual({ order_id: 'BST-1', status: 'shipped', src: 'Bar Bot' });
});

it('answers a chat with the order the endpoint found', async () => {
  await assistantWithTool();
  const assistant = await api('GET', '/user/assistant/1');
  sim.control.replies.set({ rules: [{ when: 'order', reply: 'Let me check.', function_calls: [{ name: 'lookup_order', arguments: { order_id: 'BST-7' } }] }] });
  const chat = await api('POST', '/conversations', { assistant_id: assistant.body.data.uuid, type: 'test' });
  const reply = await api('POST', `/conversations/${chat.body.conversation_id}/messages`, { message: 'Where is my order?' });
  expect(reply.body.function_calls[0].result).toEqual({ order_id: 'BST-7', status: 'shipped', src: 'Bar Bot' });
});

it('shows what the endpoint answers to the test call', async () => {
  const { toolId } = await assistantWithTool();
  const tested = await sim.control.tools.test(toolId);
  expect(tested.request!.url).toBe('https://shop.example.test/orders/test?src=');
  expect(tested.response).toEqual({ status: 200, body: '{"order_id":"test","status":"shipped","src":""}' });
});
