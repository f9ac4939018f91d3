/**
 * Chat conversations over both transports: create, read, send message, widget billing,
 * scripted replies, AI on / off, the account's list, the inactivity end with its
 * conversation-ended webhook, and the enable / disable switches.
 * (spec: Conversation; Conversations; Conversation-ended webhook switches; Events;
 * Errors: Send message; Limits: chat message, Widget message price, Page size;
 * decisions: Create conversation, Get conversation, AI on / off, Conversation-ended
 * switches, Chat message endpoint credentials, Conversations, Switch routes'
 * {assistantId}, Validation outside the Errors table, Reply rule assistant_id,
 * Timestamps, Dates in filters; ARCHITECTURE §4 Scripted replies, Chat conversations,
 * Webhook delivery; §6 PUT /__sim/replies.)
 *
 * Webhook attempts go to the `deliver` option, never to the network: `captured` holds
 * every attempt of the current test.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { CONVERSATION_MESSAGES } from '../../src/domain/conversations/service.js';
import { DEFAULT_REPLY, REPLY_MESSAGES } from '../../src/engine/replies.js';
import type { DeliverFn, DeliverRequest } from '../../src/engine/webhooks.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';
import { contract, KEY, START, type Api } from '../support/api.js';
import { simRefusal } from '../support/expect.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { createAssistant, startConversation } from '../support/records.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const HOOK = 'https://hooks.example.test/conversation-ended';
const OTHER_KEY = 'sim_second_key';
const DEFAULT_REPLY_TEXT = 'Thank you for your message. How else can I help you today?';
const NOT_FOUND = { status: false, error: 'Conversation not found.' };

/** Every webhook attempt of the current test (the `deliver` option answers 200). */
const captured: DeliverRequest[] = [];
const deliver: DeliverFn = async (request) => {
  captured.push(request);
  return { status: 200, body: 'ok', duration_ms: 0 };
};
const withDeliver = { deliver };

beforeEach(() => {
  captured.length = 0;
});

/** The JSON bodies of the captured webhook attempts. */
function payloads(): any[] {
  return captured.map((r) => JSON.parse(r.body));
}

interface AssistantRef {
  id: number;
  uuid: string;
}

/** `POST /conversations/{uuid}/messages` without credentials. */
function send(api: Api, conversation: string, message: string) {
  return api.post(`/conversations/${conversation}/messages`, { message }, { key: null });
}

async function history(api: Api, conversation: string): Promise<any[]> {
  return (await api.get(`/conversations/${conversation}`, { key: null })).body.history;
}

/** The conversation as `GET /user/conversations` lists it. */
async function listed(api: Api, conversation: string, key: string = KEY): Promise<any> {
  const res = await api.get('/user/conversations', { key, query: { per_page: 100 } });
  return res.body.data.find((c: { id: string }) => c.id === conversation);
}

async function balance(api: Api): Promise<number> {
  return (await api.get('/user/me')).body.total_balance;
}

function setBalance(api: Api, usd: number): void {
  api.sim.control.accounts.patch(1, { balance: usd });
}

/** A second account with its own key. */
function secondAccount(api: Api): void {
  api.sim.control.accounts.create({ api_key: OTHER_KEY });
}

contract('create conversation', (api) => {
  it('answers 200 with a conversation uuid and the greeting as the only history entry', async () => {
    const assistant = await createAssistant(api());
    const res = await api().post('/conversations', { assistant_id: assistant.uuid }, { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: true,
      conversation_id: expect.stringMatching(UUID),
      history: [{ role: 'assistant', content: 'Hello, this is Ava from Acme. Do you have a minute?' }],
    });
  });

  it("fills the greeting's placeholders from the assistant's variables", async () => {
    const assistant = await createAssistant(api(), {
      initial_message: 'Hi {{name}}, this is {{agent}} from {{company}}.',
      variables: { name: 'there', agent: 'Ava', company: 'Acme' },
    });
    const res = await api().post('/conversations', { assistant_id: assistant.uuid }, { key: null });
    expect(res.body.history).toEqual([{ role: 'assistant', content: 'Hi there, this is Ava from Acme.' }]);
  });

  it("fills the greeting from the input variables, which win over the assistant's", async () => {
    const assistant = await createAssistant(api(), {
      initial_message: 'Hi {{name}}, this is {{agent}} from {{company}}.',
      variables: { name: 'there', agent: 'Ava', company: 'Acme' },
    });
    const res = await api().post('/conversations', { assistant_id: assistant.uuid, variables: { name: 'Ann', company: 'Globex' } }, { key: null });
    expect(res.body.history).toEqual([{ role: 'assistant', content: 'Hi Ann, this is Ava from Globex.' }]);
  });

  it('leaves a greeting placeholder without a value as written', async () => {
    const assistant = await createAssistant(api(), { initial_message: 'Hi {{name}}, your code is {{code}}.', variables: { name: 'Ann' } });
    const res = await api().post('/conversations', { assistant_id: assistant.uuid }, { key: null });
    expect(res.body.history).toEqual([{ role: 'assistant', content: 'Hi Ann, your code is {{code}}.' }]);
  });

  it('creates a widget conversation when no type is given', async () => {
    const assistant = await createAssistant(api());
    const id = await startConversation(api(), assistant.uuid);
    expect((await listed(api(), id)).type).toBe('widget');
  });

  it.each(['test', 'api', 'widget'])('accepts the %s type', async (type) => {
    const assistant = await createAssistant(api());
    const id = await startConversation(api(), assistant.uuid, { type });
    expect((await listed(api(), id)).type).toBe(type);
  });

  it.each(['msgapp', 'sms'])('rejects the %s type with 422 shape E and creates nothing', async (type) => {
    const assistant = await createAssistant(api());
    const res = await api().post('/conversations', { assistant_id: assistant.uuid, type }, { key: null });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ status: false, error: 'The selected type is invalid.' });
    expect((await api().get('/user/conversations')).body.total).toBe(0);
  });

  it('rejects a missing assistant id with 422 shape E', async () => {
    const res = await api().post('/conversations', { type: 'test' }, { key: null });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ status: false, error: 'The assistant id field is required.' });
  });

  it('answers 404 shape E for an unknown assistant uuid', async () => {
    await createAssistant(api());
    const res = await api().post('/conversations', { assistant_id: '00000000-0000-4000-8000-000000000000' }, { key: null });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: false, error: 'Assistant not found.' });
  });

  it('answers 404 shape E when the assistant is given by its integer id', async () => {
    const assistant = await createAssistant(api());
    const res = await api().post('/conversations', { assistant_id: String(assistant.id) }, { key: null });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: false, error: 'Assistant not found.' });
  });

  it('accepts a request that carries a Bearer key', async () => {
    const assistant = await createAssistant(api());
    const res = await api().post('/conversations', { assistant_id: assistant.uuid });
    expect(res.status).toBe(200);
    expect(res.body.conversation_id).toMatch(UUID);
  });

  it('refuses a widget conversation with 400 shape E when the balance is zero', async () => {
    const assistant = await createAssistant(api());
    setBalance(api(), 0);
    const res = await api().post('/conversations', { assistant_id: assistant.uuid }, { key: null });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: false, error: 'Insufficient balance. Please top up your account to continue the conversation.' });
    expect((await api().get('/user/conversations')).body.total).toBe(0);
  });

  it('opens a test conversation when the balance is zero', async () => {
    const assistant = await createAssistant(api());
    setBalance(api(), 0);
    const res = await api().post('/conversations', { assistant_id: assistant.uuid, type: 'test' }, { key: null });
    expect(res.status).toBe(200);
    expect(res.body.history).toHaveLength(1);
  });
});

contract('get conversation', (api) => {
  it('returns the history and the input variables without credentials', async () => {
    const assistant = await createAssistant(api());
    const id = await startConversation(api(), assistant.uuid, { variables: { name: 'Ann', plan: 'pro' } });
    const res = await api().get(`/conversations/${id}`, { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: true,
      history: [{ role: 'assistant', content: 'Hello, this is Ava from Acme. Do you have a minute?' }],
      variables: { name: 'Ann', plan: 'pro' },
    });
  });

  it('answers an empty variables object when none were given', async () => {
    const assistant = await createAssistant(api());
    const id = await startConversation(api(), assistant.uuid);
    expect((await api().get(`/conversations/${id}`, { key: null })).body.variables).toEqual({});
  });

  it('answers 404 shape E for an unknown uuid', async () => {
    const res = await api().get('/conversations/00000000-0000-4000-8000-000000000000', { key: null });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});

contract('send message', (api) => {
  let conversation: string;
  beforeEach(async () => {
    const assistant = await createAssistant(api());
    conversation = await startConversation(api(), assistant.uuid);
  });

  it('answers with the default reply when no rule matches', async () => {
    const res = await send(api(), conversation, 'What are your opening hours?');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true, message: DEFAULT_REPLY_TEXT, function_calls: [] });
    expect(DEFAULT_REPLY).toBe(DEFAULT_REPLY_TEXT);
  });

  it('stores the user message and the reply after the greeting', async () => {
    await send(api(), conversation, 'What are your opening hours?');
    expect(await history(api(), conversation)).toEqual([
      { role: 'assistant', content: 'Hello, this is Ava from Acme. Do you have a minute?' },
      { role: 'user', content: 'What are your opening hours?' },
      { role: 'assistant', content: DEFAULT_REPLY_TEXT },
    ]);
  });

  it('accepts a request that carries a Bearer key', async () => {
    const res = await api().post(`/conversations/${conversation}/messages`, { message: 'hi' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true, message: DEFAULT_REPLY_TEXT, function_calls: [] });
  });

  it('accepts a message of exactly 2000 characters', async () => {
    const text = 'a'.repeat(2000);
    const res = await send(api(), conversation, text);
    expect(res.status).toBe(200);
    expect((await history(api(), conversation))[1]).toEqual({ role: 'user', content: text });
  });

  it('rejects a message of 2001 characters with 422 shape E, storing and charging nothing', async () => {
    const res = await send(api(), conversation, 'a'.repeat(2001));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ status: false, error: 'The message may not be greater than 2000 characters.' });
    expect(await history(api(), conversation)).toHaveLength(1);
    expect(await balance(api())).toBe(100);
  });

  it('rejects an empty message with 422 shape E', async () => {
    const res = await send(api(), conversation, '');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ status: false, error: 'The message field is required.' });
  });

  it('rejects a body without a message with 422 shape E', async () => {
    const res = await api().post(`/conversations/${conversation}/messages`, {}, { key: null });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ status: false, error: 'The message field is required.' });
  });

  it('answers 404 shape E for an unknown conversation', async () => {
    const res = await send(api(), '00000000-0000-4000-8000-000000000000', 'hi');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('answers malformed JSON with 400 shape E and stores nothing', async () => {
    const res = await api().post(`/conversations/${conversation}/messages`, undefined, { key: null, raw: '{"message": "hi"' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: false, error: 'Malformed JSON in request body.' });
    expect(await history(api(), conversation)).toHaveLength(1);
  });
});

contract('widget billing and message_count', (api) => {
  let assistant: AssistantRef;
  beforeEach(async () => {
    assistant = await createAssistant(api());
  });

  it('charges 0.01 USD per widget user message, on the balance and on total_cost', async () => {
    const id = await startConversation(api(), assistant.uuid);
    await send(api(), id, 'one');
    await send(api(), id, 'two');
    expect(await balance(api())).toBe(99.98);
    expect((await listed(api(), id)).total_cost).toBe(0.02);
  });

  it.each(['test', 'api'])('charges nothing for a %s conversation', async (type) => {
    const id = await startConversation(api(), assistant.uuid, { type });
    await send(api(), id, 'one');
    await send(api(), id, 'two');
    expect(await balance(api())).toBe(100);
    expect((await listed(api(), id)).total_cost).toBe(0);
  });

  it('refuses a widget message the balance cannot pay with 400 shape E and stores nothing', async () => {
    const id = await startConversation(api(), assistant.uuid);
    setBalance(api(), 0.009999);
    const res = await send(api(), id, 'hello');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: false, error: 'Insufficient balance. Please top up your account to continue the conversation.' });
    expect(await history(api(), id)).toEqual([{ role: 'assistant', content: 'Hello, this is Ava from Acme. Do you have a minute?' }]);
    expect(await listed(api(), id)).toMatchObject({ message_count: 1, total_cost: 0 });
    expect(await balance(api())).toBe(0.009999);
  });

  it('accepts a widget message that takes a balance of exactly 0.01 to zero', async () => {
    const id = await startConversation(api(), assistant.uuid);
    setBalance(api(), 0.01);
    const res = await send(api(), id, 'hello');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true, message: DEFAULT_REPLY_TEXT, function_calls: [] });
    expect(await balance(api())).toBe(0);
    expect((await listed(api(), id)).total_cost).toBe(0.01);
  });

  it('lets a test conversation exchange messages on a zero balance', async () => {
    setBalance(api(), 0);
    const id = await startConversation(api(), assistant.uuid, { type: 'test' });
    const res = await send(api(), id, 'hello');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(DEFAULT_REPLY_TEXT);
  });

  it('counts the greeting, the user messages and the replies in message_count', async () => {
    const id = await startConversation(api(), assistant.uuid);
    expect((await listed(api(), id)).message_count).toBe(1);
    await send(api(), id, 'one');
    await send(api(), id, 'two');
    expect((await listed(api(), id)).message_count).toBe(5);
  });
});

describe('widget billing at volume (in-process)', () => {
  /** Drives the core directly: the amount, not the transport, is under test here. */
  async function call(sim: Simulator, method: string, path: string, body?: unknown, auth = true) {
    return sim.handle({
      method,
      path,
      headers: { 'content-type': 'application/json', ...(auth && { authorization: `Bearer ${KEY}` }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  }

  it('charges exactly 100.00 USD for 10,000 widget messages, with no float drift', async () => {
    const sim = createSimulator({ seed: 1, startAt: START });
    expect((await call(sim, 'POST', '/user/assistant', pipelineAssistant())).status).toBe(201);
    const uuid = ((await call(sim, 'GET', '/user/assistant/1')).body as any).data.uuid;
    const id = ((await call(sim, 'POST', '/conversations', { assistant_id: uuid }, false)).body as any).conversation_id;
    sim.control.accounts.patch(1, { balance: 150 });
    for (let i = 0; i < 10_000; i++) {
      const res = await sim.handle({ method: 'POST', path: `/conversations/${id}/messages`, body: JSON.stringify({ message: 'hi' }) });
      if (res.status !== 200) throw new Error(`message ${i + 1} answered ${res.status}`);
    }
    const page = (await call(sim, 'GET', '/user/conversations')).body as any;
    expect(page.data[0]).toMatchObject({ id, total_cost: 100, message_count: 20_001 });
    expect(((await call(sim, 'GET', '/user/me')).body as any).total_balance).toBe(50);
    sim.dispose();
  });
});

contract('scripted replies', (api) => {
  let assistant: AssistantRef;
  let conversation: string;
  beforeEach(async () => {
    assistant = await createAssistant(api(), { variables: { agent: 'Ava' } });
    conversation = await startConversation(api(), assistant.uuid, { variables: { name: 'Ann' } });
  });

  async function setRules(rules: unknown[]) {
    const res = await api().put('/__sim/replies', { rules }, { key: null });
    expect(res.status).toBe(200);
    return res;
  }

  async function replyTo(message: string, id = conversation): Promise<string> {
    const res = await send(api(), id, message);
    expect(res.status).toBe(200);
    return res.body.message;
  }

  it('PUT /__sim/replies answers 200 with the rules and their defaults', async () => {
    const res = await api().put('/__sim/replies', { rules: [{ when: 'hours', reply: 'We are open 9 to 5.' }] }, { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      rules: [{ assistant_id: null, when: 'hours', reply: 'We are open 9 to 5.', function_calls: [], set_variables: {} }],
    });
  });

  it('GET /__sim/replies lists the rules in order', async () => {
    await setRules([
      { when: 'hours', reply: 'We are open 9 to 5.' },
      { assistant_id: assistant.id, when: { regex: '^bye$', flags: 'i' }, reply: 'Goodbye!' },
    ]);
    const res = await api().get('/__sim/replies', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      rules: [
        { assistant_id: null, when: 'hours', reply: 'We are open 9 to 5.', function_calls: [], set_variables: {} },
        { assistant_id: assistant.id, when: { regex: '^bye$', flags: 'i' }, reply: 'Goodbye!', function_calls: [], set_variables: {} },
      ],
    });
  });

  it('sim.control.replies.set answers like the route and its rules reply', async () => {
    const result = api().sim.control.replies.set({ rules: [{ when: 'hours', reply: 'We are open 9 to 5.' }] });
    expect(result).toEqual({ rules: [{ assistant_id: null, when: 'hours', reply: 'We are open 9 to 5.', function_calls: [], set_variables: {} }] });
    expect(api().sim.control.replies.list()).toEqual(result);
    expect(await replyTo('hours?')).toBe('We are open 9 to 5.');
  });

  it('matches a text rule anywhere in the message, in any letter case', async () => {
    await setRules([{ when: 'Opening Hours', reply: 'We are open 9 to 5.' }]);
    expect(await replyTo('what are your OPENING hours today?')).toBe('We are open 9 to 5.');
  });

  it('does not answer with a text rule the message does not contain', async () => {
    await setRules([{ when: 'opening hours', reply: 'We are open 9 to 5.' }]);
    expect(await replyTo('when do you open?')).toBe(DEFAULT_REPLY_TEXT);
  });

  it('matches a regex rule with its flags', async () => {
    await setRules([{ when: { regex: '^order #\\d+$', flags: 'i' }, reply: 'Looking up your order.' }]);
    expect(await replyTo('ORDER #42')).toBe('Looking up your order.');
  });

  it('matches a regex rule without flags case-sensitively', async () => {
    await setRules([{ when: { regex: '^order #\\d+$' }, reply: 'Looking up your order.' }]);
    expect(await replyTo('ORDER #42')).toBe(DEFAULT_REPLY_TEXT);
    expect(await replyTo('order #42')).toBe('Looking up your order.');
  });

  it('answers with the first matching rule in order', async () => {
    await setRules([
      { when: 'price', reply: 'Plans start at 10 USD.' },
      { when: 'price list', reply: 'Here is the price list.' },
    ]);
    expect(await replyTo('send me the price list')).toBe('Plans start at 10 USD.');
  });

  it('lets a rule scoped by integer id answer only that assistant', async () => {
    const second = await createAssistant(api(), { name: 'Support' });
    const other = await startConversation(api(), second.uuid);
    await setRules([{ assistant_id: second.id, when: 'hello', reply: 'Support here.' }]);
    expect(await replyTo('hello', conversation)).toBe(DEFAULT_REPLY_TEXT);
    expect(await replyTo('hello', other)).toBe('Support here.');
  });

  it('lets a rule scoped by uuid answer only that assistant', async () => {
    const second = await createAssistant(api(), { name: 'Support' });
    const other = await startConversation(api(), second.uuid);
    await setRules([{ assistant_id: second.uuid, when: 'hello', reply: 'Support here.' }]);
    expect(await replyTo('hello', conversation)).toBe(DEFAULT_REPLY_TEXT);
    expect(await replyTo('hello', other)).toBe('Support here.');
  });

  it('fills placeholders from assistant variables, input variables and set_variables', async () => {
    await setRules([{ when: 'offer', reply: 'Thanks {{name}}, {{agent}} will send the {{plan}} offer.', set_variables: { plan: 'pro' } }]);
    expect(await replyTo('send me an offer')).toBe('Thanks Ann, Ava will send the pro offer.');
  });

  it('leaves a placeholder without a value as written', async () => {
    await setRules([{ when: 'code', reply: 'Your code is {{code}}, {{name}}.' }]);
    expect(await replyTo('my code?')).toBe('Your code is {{code}}, Ann.');
  });

  it('returns the function calls of the rule in the send response', async () => {
    await setRules([
      { when: 'demo', reply: 'Booked.', function_calls: [{ name: 'book_demo', arguments: { day: 'friday' }, result: { booked: true } }, { name: 'notify_sales' }] },
    ]);
    const res = await send(api(), conversation, 'book a demo');
    expect(res.body).toEqual({
      status: true,
      message: 'Booked.',
      function_calls: [
        { name: 'book_demo', arguments: { day: 'friday' }, result: { booked: true } },
        { name: 'notify_sales', arguments: {}, result: {} },
      ],
    });
  });

  it('stores function calls on that assistant message only', async () => {
    await setRules([{ when: 'demo', reply: 'Booked.', function_calls: [{ name: 'book_demo', arguments: { day: 'friday' }, result: { booked: true } }] }]);
    await send(api(), conversation, 'book a demo');
    await send(api(), conversation, 'thanks');
    const messages = await history(api(), conversation);
    expect(messages).toEqual([
      { role: 'assistant', content: 'Hello, this is Ava from Acme. Do you have a minute?' },
      { role: 'user', content: 'book a demo' },
      { role: 'assistant', content: 'Booked.', function_calls: [{ name: 'book_demo', arguments: { day: 'friday' }, result: { booked: true } }] },
      { role: 'user', content: 'thanks' },
      { role: 'assistant', content: DEFAULT_REPLY_TEXT },
    ]);
    expect(messages.map((m) => Object.keys(m).sort())).toEqual([
      ['content', 'role'],
      ['content', 'role'],
      ['content', 'function_calls', 'role'],
      ['content', 'role'],
      ['content', 'role'],
    ]);
  });

  it('shows set_variables beside the input variables in GET /conversations/{uuid}', async () => {
    await setRules([{ when: 'demo', reply: 'Noted.', set_variables: { wants_demo: 'yes', budget: '1500' } }]);
    await send(api(), conversation, 'I want a demo');
    const res = await api().get(`/conversations/${conversation}`, { key: null });
    expect(res.body.variables).toEqual({ name: 'Ann', wants_demo: 'yes', budget: '1500' });
  });

  it('rejects a regex that does not compile with 422 shape B', async () => {
    const res = await api().put('/__sim/replies', { rules: [{ when: { regex: '(' }, reply: 'x' }] }, { key: null });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The rules.0.when.regex is not a valid regular expression.',
      errors: { 'rules.0.when.regex': ['The rules.0.when.regex is not a valid regular expression.'] },
    });
  });

  it.each(['^(a+)+$', '^(\\w+\\s?)*$', '((a*)?)*$', '(?<!x)(\\d+)+$'])('refuses %s, which can backtrack catastrophically, with 422 shape B on its field, keeping the previous rules', async (regex) => {
    await setRules([{ when: 'hours', reply: 'We are open 9 to 5.' }]);
    const res = await api().put('/__sim/replies', { rules: [{ when: 'hi', reply: 'x' }, { when: { regex }, reply: 'x' }] }, { key: null });
    const message = REPLY_MESSAGES.catastrophicRegex.replace(':attribute', 'rules.1.when.regex');
    expect({ status: res.status, body: res.body }).toEqual({ status: 422, body: { message, errors: { 'rules.1.when.regex': [message] } } });
    expect(message).toBe(
      'The rules.1.when.regex may take exponential time on a message that almost matches: it repeats a group that holds a repetition (as in (a+)+) or has more than 25 repetitions. Rewrite it without nested repetition.',
    );
    expect((await api().get('/__sim/replies', { key: null })).body.rules).toMatchObject([{ when: 'hours' }]);
  });

  it('takes a group made optional, lookbehind and alternatives, and matches with them', async () => {
    await setRules([
      { when: { regex: '^(?:\\+?1)?\\d{10}$' }, reply: 'A number.' },
      { when: { regex: '(?<=order #)\\d+' }, reply: 'An order.' },
      { when: { regex: 'refund|cancel(lation)?' }, reply: 'Money back.' },
    ]);
    expect([await replyTo('+14155550123'), await replyTo('order #42'), await replyTo('a cancellation')]).toEqual(['A number.', 'An order.', 'Money back.']);
  });

  it('sim.control.replies.set refuses a catastrophic regex with the same 422 shape B', async () => {
    const message = REPLY_MESSAGES.catastrophicRegex.replace(':attribute', 'rules.0.when.regex');
    expect(await simRefusal(() => api().sim.control.replies.set({ rules: [{ when: { regex: '^(a+)+$' }, reply: 'x' }] }))).toEqual({
      status: 422,
      body: { message, errors: { 'rules.0.when.regex': [message] } },
    });
  });

  it('reports an unknown regex flag once, on flags, for a pattern that compiles', async () => {
    const res = await api().put('/__sim/replies', { rules: [{ when: { regex: 'a', flags: 'q' }, reply: 'x' }] }, { key: null });
    expect(res.status).toBe(422);
    const message = 'The rules.0.when.flags may only hold the flags d, g, i, m, s, u and y.';
    expect(res.body).toEqual({ message, errors: { 'rules.0.when.flags': [message] } });
  });

  it('rejects a rule without a reply with 422 shape B', async () => {
    const res = await api().put('/__sim/replies', { rules: [{ when: 'hi' }] }, { key: null });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The rules.0.reply field is required.', errors: { 'rules.0.reply': ['The rules.0.reply field is required.'] } });
  });

  it('rejects rules that are not an array with 422 shape B', async () => {
    const res = await api().put('/__sim/replies', { rules: 'hi' }, { key: null });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The rules must be an array.', errors: { rules: ['The rules must be an array.'] } });
  });

  it('rejects an unknown key in a rule with 422 shape B naming the rule', async () => {
    const res = await api().put('/__sim/replies', { rules: [{ when: 'hi', reply: 'x', set_variable: {} }] }, { key: null });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The set_variable field is not allowed in rules.0.', errors: { 'rules.0': ['The set_variable field is not allowed in rules.0.'] } });
  });

  it('rejects an unknown key in a function call with 422 shape B naming the call', async () => {
    const res = await api().put('/__sim/replies', { rules: [{ when: 'hi', reply: 'x', function_calls: [{ name: 'lookup', reslt: 1 }] }] }, { key: null });
    expect(res.status).toBe(422);
    const message = 'The reslt field is not allowed in rules.0.function calls.0.';
    expect(res.body).toEqual({ message, errors: { 'rules.0.function_calls.0': [message] } });
  });

  it('keeps the previous rules when a PUT with an unknown key is rejected', async () => {
    await setRules([{ when: 'hours', reply: 'We are open 9 to 5.' }]);
    await api().put('/__sim/replies', { rules: [{ when: 'hi', reply: 'x', function_calls: [{ name: 'lookup', reslt: 1 }] }] }, { key: null });
    expect((await api().get('/__sim/replies', { key: null })).body.rules).toHaveLength(1);
    expect(await replyTo('hours?')).toBe('We are open 9 to 5.');
  });

  it('sim.control.replies.set rejects an unknown key in a function call with the same 422 shape B', async () => {
    const rules = [{ when: 'hi', reply: 'x', function_calls: [{ name: 'lookup', reslt: 1 }] }];
    const res = await api().put('/__sim/replies', { rules }, { key: null });
    expect(await simRefusal(() => api().sim.control.replies.set({ rules }))).toEqual({ status: 422, body: res.body });
  });

  it('keeps the previous rules when a PUT is rejected', async () => {
    await setRules([{ when: 'hours', reply: 'We are open 9 to 5.' }]);
    await api().put('/__sim/replies', { rules: [{ when: { regex: '(' }, reply: 'x' }] }, { key: null });
    expect((await api().get('/__sim/replies', { key: null })).body.rules).toHaveLength(1);
    expect(await replyTo('hours?')).toBe('We are open 9 to 5.');
  });

  it('sim.control.replies.set rejects an invalid rule with the same 422 shape B', async () => {
    expect(await simRefusal(() => api().sim.control.replies.set({ rules: [{ when: { regex: '(' }, reply: 'x' }] }))).toEqual({
      status: 422,
      body: {
        message: 'The rules.0.when.regex is not a valid regular expression.',
        errors: { 'rules.0.when.regex': ['The rules.0.when.regex is not a valid regular expression.'] },
      },
    });
  });

  it('POST /__sim/reset clears the rules', async () => {
    await setRules([{ when: 'hours', reply: 'We are open 9 to 5.' }]);
    const res = await api().post('/__sim/reset', {}, { key: null });
    expect(res.status).toBe(200);
    expect((await api().get('/__sim/replies', { key: null })).body).toEqual({ rules: [] });
  });
});

contract('AI on / off', (api) => {
  let conversation: string;
  beforeEach(async () => {
    const assistant = await createAssistant(api());
    conversation = await startConversation(api(), assistant.uuid);
  });

  it('disable-ai answers {status: true, ai_enabled: false} and the list shows it', async () => {
    const res = await api().post(`/automate/conversations/${conversation}/disable-ai`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true, ai_enabled: false });
    expect((await listed(api(), conversation)).ai_enabled).toBe(false);
  });

  it('stores a message while AI is off and answers it with no reply', async () => {
    await api().post(`/automate/conversations/${conversation}/disable-ai`);
    const res = await send(api(), conversation, 'anyone there?');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true, message: '', function_calls: [] });
    expect(await history(api(), conversation)).toEqual([
      { role: 'assistant', content: 'Hello, this is Ava from Acme. Do you have a minute?' },
      { role: 'user', content: 'anyone there?' },
    ]);
    expect((await listed(api(), conversation)).message_count).toBe(2);
  });

  it('enable-ai answers {status: true, ai_enabled: true} and replies resume', async () => {
    await api().post(`/automate/conversations/${conversation}/disable-ai`);
    const res = await api().post(`/automate/conversations/${conversation}/enable-ai`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true, ai_enabled: true });
    expect((await send(api(), conversation, 'hello')).body).toEqual({ status: true, message: DEFAULT_REPLY_TEXT, function_calls: [] });
  });

  it('answers 404 shape E for an unknown conversation', async () => {
    const res = await api().post('/automate/conversations/00000000-0000-4000-8000-000000000000/disable-ai');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});

contract('list conversations', (api) => {
  let first: AssistantRef;
  let second: AssistantRef;
  beforeEach(async () => {
    first = await createAssistant(api(), { name: 'Sales' });
    second = await createAssistant(api(), { name: 'Support' });
  });

  it('answers the paginator with each conversation in the Conversation shape', async () => {
    const id = await startConversation(api(), first.uuid);
    const res = await api().get('/user/conversations');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        {
          id,
          assistant_id: first.uuid,
          assistant_name: 'Sales',
          type: 'widget',
          message_count: 1,
          total_cost: 0,
          ai_enabled: true,
          created_at: '2026-03-02 09:00:00',
          updated_at: '2026-03-02 09:00:00',
        },
      ],
      current_page: 1,
      per_page: 15,
      total: 1,
      last_page: 1,
    });
  });

  it('moves updated_at with each message and keeps created_at', async () => {
    const id = await startConversation(api(), first.uuid, { type: 'test' });
    await api().sim.clock.advance('2m');
    await send(api(), id, 'hi');
    expect(await listed(api(), id)).toMatchObject({ created_at: '2026-03-02 09:00:00', updated_at: '2026-03-02 09:02:00' });
  });

  it('pages 15 by default', async () => {
    for (let i = 0; i < 16; i++) await startConversation(api(), first.uuid, { type: 'test' });
    const res = await api().get('/user/conversations');
    expect(res.body.data).toHaveLength(15);
    expect(res.body).toMatchObject({ current_page: 1, per_page: 15, total: 16, last_page: 2 });
  });

  it('filters by type', async () => {
    const test = await startConversation(api(), first.uuid, { type: 'test' });
    await startConversation(api(), first.uuid, { type: 'widget' });
    const api_ = await startConversation(api(), first.uuid, { type: 'api' });
    const res = await api().get('/user/conversations', { query: { type: 'test' } });
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([test]);
    expect((await api().get('/user/conversations', { query: { type: 'api' } })).body.data.map((c: { id: string }) => c.id)).toEqual([api_]);
  });

  it('rejects an unknown type filter with 422 shape B', async () => {
    const res = await api().get('/user/conversations', { query: { type: 'sms' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected type is invalid.', errors: { type: ['The selected type is invalid.'] } });
  });

  it('filters by the integer assistant id', async () => {
    await startConversation(api(), first.uuid);
    const b = await startConversation(api(), second.uuid);
    const res = await api().get('/user/conversations', { query: { assistant_id: second.id } });
    expect(res.body.data.map((c: { id: string; assistant_id: string }) => [c.id, c.assistant_id])).toEqual([[b, second.uuid]]);
    expect(res.body.total).toBe(1);
  });

  it('rejects a missing assistant id filter with 422 shape B', async () => {
    const res = await api().get('/user/conversations', { query: { assistant_id: 99 } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected assistant id is invalid.', errors: { assistant_id: ['The selected assistant id is invalid.'] } });
  });

  it("rejects another account's assistant id with 422 shape B", async () => {
    secondAccount(api());
    const foreign = await createAssistant(api(), {}, OTHER_KEY);
    const res = await api().get('/user/conversations', { query: { assistant_id: foreign.id } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected assistant id is invalid.', errors: { assistant_id: ['The selected assistant id is invalid.'] } });
  });

  it("filters by created day in the account's timezone, both ends inclusive", async () => {
    api().sim.control.accounts.patch(1, { timezone: 'America/New_York' });
    const a = await startConversation(api(), first.uuid, { type: 'test' }); // 09:00Z = Mar 2 04:00 New York
    await api().sim.clock.advance('18h');
    const b = await startConversation(api(), first.uuid, { type: 'test' }); // Mar 3 03:00Z = Mar 2 22:00 New York
    await api().sim.clock.advance('3h');
    const c = await startConversation(api(), first.uuid, { type: 'test' }); // Mar 3 06:00Z = Mar 3 01:00 New York
    const ids = async (query: Record<string, string>) =>
      (await api().get('/user/conversations', { query })).body.data.map((x: { id: string }) => x.id);
    expect(await ids({ date_from: '2026-03-02', date_to: '2026-03-02' })).toEqual([a, b]);
    expect(await ids({ date_from: '2026-03-03' })).toEqual([c]);
    expect(await ids({ date_to: '2026-03-01' })).toEqual([]);
  });

  it('shows created_at and updated_at in UTC whatever the account timezone', async () => {
    api().sim.control.accounts.patch(1, { timezone: 'America/New_York' });
    const id = await startConversation(api(), first.uuid);
    expect(await listed(api(), id)).toMatchObject({ created_at: '2026-03-02 09:00:00', updated_at: '2026-03-02 09:00:00' });
  });

  it('rejects a date_to before date_from with 422 shape B', async () => {
    const res = await api().get('/user/conversations', { query: { date_from: '2026-03-03', date_to: '2026-03-02' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ date_to: ['The date to must be a date after or equal to date from.'] });
  });

  it.each([1, 100])('accepts per_page %i', async (perPage) => {
    for (let i = 0; i < 3; i++) await startConversation(api(), first.uuid, { type: 'test' });
    const res = await api().get('/user/conversations', { query: { per_page: perPage } });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(Math.min(perPage, 3));
    expect(res.body).toMatchObject({ current_page: 1, per_page: perPage, total: 3, last_page: Math.ceil(3 / perPage) });
  });

  it.each([0, 101])('rejects per_page %i with 422 shape B', async (perPage) => {
    const res = await api().get('/user/conversations', { query: { per_page: perPage } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The per page must be between 1 and 100.', errors: { per_page: ['The per page must be between 1 and 100.'] } });
  });

  it('answers an empty page past the end with the totals', async () => {
    for (let i = 0; i < 3; i++) await startConversation(api(), first.uuid, { type: 'test' });
    const res = await api().get('/user/conversations', { query: { per_page: 2, page: 5 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], current_page: 5, per_page: 2, total: 3, last_page: 2 });
  });

  it("lists only the caller's conversations", async () => {
    const own = await startConversation(api(), first.uuid);
    secondAccount(api());
    const foreign = await createAssistant(api(), {}, OTHER_KEY);
    const theirs = await startConversation(api(), foreign.uuid);
    expect((await api().get('/user/conversations')).body.data.map((c: { id: string }) => c.id)).toEqual([own]);
    expect((await api().get('/user/conversations', { key: OTHER_KEY })).body.data.map((c: { id: string }) => c.id)).toEqual([theirs]);
  });
});

const POST_CALL_SCHEMA = [
  { name: 'wants_demo', type: 'bool', description: 'Whether the customer wants a demo' },
  { name: 'budget', type: 'number', description: 'Budget in USD' },
  { name: 'city', type: 'string', description: 'City of the customer' },
];

/** An assistant that ends widget conversations after 5 idle minutes and reports them to HOOK. */
function endingAssistant(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    conversation_ended_webhook_url: HOOK,
    conversation_inactivity_timeout: 5,
    post_call_schema: POST_CALL_SCHEMA,
    ...overrides,
  };
}

contract(
  'conversation-ended webhook',
  (api) => {
    let assistant: AssistantRef;
    beforeEach(async () => {
      assistant = await createAssistant(api(), endingAssistant());
      api().sim.control.replies.set({
        rules: [
          { when: 'demo', reply: 'Great, {{name}}! What is your budget?', set_variables: { wants_demo: 'yes' } },
          { when: 'budget', reply: 'Noted. Where are you based?', set_variables: { budget: '1500' } },
          { when: 'berlin', reply: 'Thanks, we will be in touch.', set_variables: { city: 'Berlin' } },
        ],
      });
    });

    it('sends nothing 4 min 59 s after the last message', async () => {
      const id = await startConversation(api(), assistant.uuid);
      await send(api(), id, 'I want a demo');
      await api().sim.clock.advance('299s');
      expect(captured).toHaveLength(0);
      expect(api().sim.webhooks.deliveries()).toHaveLength(0);
    });

    it('sends exactly one delivery to the URL 5 minutes after the last message', async () => {
      const id = await startConversation(api(), assistant.uuid);
      await send(api(), id, 'I want a demo');
      await api().sim.clock.advance('5m');
      expect(captured).toHaveLength(1);
      expect(captured[0]!.url).toBe(HOOK);
      expect(captured[0]!.headers['content-type']).toBe('application/json');
      await api().sim.clock.advance('1h');
      expect(captured).toHaveLength(1);
    });

    it('ends a conversation without messages 5 minutes after it opened', async () => {
      const id = await startConversation(api(), assistant.uuid);
      await api().sim.clock.advance('299s');
      expect(captured).toHaveLength(0);
      await api().sim.clock.advance('1s');
      expect(payloads().map((p) => [p.conversation_id, p.message_count])).toEqual([[id, 1]]);
    });

    it('re-arms the timer with each message: a message at minute 3 moves the end to minute 8', async () => {
      const id = await startConversation(api(), assistant.uuid);
      await api().sim.clock.advance('3m');
      await send(api(), id, 'I want a demo');
      await api().sim.clock.advance('299s');
      expect(captured).toHaveLength(0);
      await api().sim.clock.advance('1s');
      expect(captured).toHaveLength(1);
      expect(payloads()[0].ended_at).toBe('2026-03-02T10:08:00+01:00');
    });

    it('posts every field of the Events table, and only those', async () => {
      const id = await startConversation(api(), assistant.uuid, { variables: { name: 'Ann', source: 'pricing page' } });
      await api().sim.clock.advance('1m');
      await send(api(), id, 'I would like a demo');
      await send(api(), id, 'My budget is 1500');
      await send(api(), id, 'We are in Berlin');
      await api().sim.clock.advance('5m');
      expect(payloads()).toEqual([
        {
          conversation_id: id,
          assistant_id: assistant.uuid,
          type: 'widget',
          message_count: 7,
          status: 'ended',
          extracted_variables: { wants_demo: true, budget: 1500, city: 'Berlin' },
          input_variables: { name: 'Ann', source: 'pricing page' },
          transcript: [
            { role: 'assistant', content: 'Hello, this is Ava from Acme. Do you have a minute?' },
            { role: 'user', content: 'I would like a demo' },
            { role: 'assistant', content: 'Great, Ann! What is your budget?' },
            { role: 'user', content: 'My budget is 1500' },
            { role: 'assistant', content: 'Noted. Where are you based?' },
            { role: 'user', content: 'We are in Berlin' },
            { role: 'assistant', content: 'Thanks, we will be in touch.' },
          ],
          formatted_transcript: [
            'AI: Hello, this is Ava from Acme. Do you have a minute?',
            'Customer: I would like a demo',
            'AI: Great, Ann! What is your budget?',
            'Customer: My budget is 1500',
            'AI: Noted. Where are you based?',
            'Customer: We are in Berlin',
            'AI: Thanks, we will be in touch.',
          ].join('\n'),
          customer_phone: null,
          customer_name: 'Ann',
          sender: null,
          created_at: '2026-03-02T10:00:00+01:00',
          ended_at: '2026-03-02T10:06:00+01:00',
        },
      ]);
    });

    it('types extracted variables per the post-call schema', async () => {
      const id = await startConversation(api(), assistant.uuid);
      await send(api(), id, 'demo');
      await send(api(), id, 'budget');
      await send(api(), id, 'berlin');
      await api().sim.clock.advance('5m');
      expect(payloads()[0].extracted_variables).toStrictEqual({ wants_demo: true, budget: 1500, city: 'Berlin' });
    });

    it('generates a value of the schema type for an item the conversation never set, as a call does', async () => {
      const id = await startConversation(api(), assistant.uuid);
      await send(api(), id, 'demo');
      await api().sim.clock.advance('5m');
      expect(payloads()[0].extracted_variables).toStrictEqual({ wants_demo: true, budget: 5, city: 'premium' });
    });

    it('generates the same values for the same seed, requests and clock moves', async () => {
      const run = async (sim: Simulator) => {
        const headers = { authorization: `Bearer ${KEY}` };
        const created = (await sim.handle({ method: 'POST', path: '/user/assistant', headers, body: JSON.stringify(pipelineAssistant(endingAssistant())) })).body as any;
        const read = (await sim.handle({ method: 'GET', path: `/user/assistant/${created.data.id}`, headers })).body as any;
        await sim.handle({ method: 'POST', path: '/conversations', body: JSON.stringify({ assistant_id: read.data.uuid }) });
        await sim.clock.advance('5m');
        return sim.webhooks.deliveries().map((d) => (d.payload as any).extracted_variables);
      };
      const first = await run(createSimulator({ seed: 3, startAt: START, deliver }));
      const second = await run(createSimulator({ seed: 3, startAt: START, deliver }));
      expect(first).toEqual([{ wants_demo: expect.any(Boolean), budget: expect.any(Number), city: expect.any(String) }]);
      expect(second).toStrictEqual(first);
    });

    it('reports an empty input_variables object when none were given', async () => {
      const id = await startConversation(api(), assistant.uuid);
      await send(api(), id, 'demo');
      await api().sim.clock.advance('5m');
      expect(payloads()[0].input_variables).toEqual({});
    });

    it.each([
      [{ name: 'Ann' }, 'Ann'],
      [{ customer_name: 'Bob' }, 'Bob'],
      [{ email: 'ann@example.test' }, null],
    ])('takes customer_name from the input variables %j', async (variables, expected) => {
      await startConversation(api(), assistant.uuid, { variables });
      await api().sim.clock.advance('5m');
      expect(payloads()[0].customer_name).toBe(expected);
    });

    it("gives created_at and ended_at in ISO 8601 with the assistant timezone's offset", async () => {
      const ny = await createAssistant(api(), endingAssistant({ timezone: 'America/New_York' }));
      await startConversation(api(), ny.uuid);
      await api().sim.clock.advance('5m');
      const [payload] = payloads();
      expect([payload.created_at, payload.ended_at]).toEqual(['2026-03-02T04:00:00-05:00', '2026-03-02T04:05:00-05:00']);
    });

    it.each(['test', 'api'])('never ends a %s conversation', async (type) => {
      const id = await startConversation(api(), assistant.uuid, { type });
      await send(api(), id, 'demo');
      await api().sim.clock.advance('2d');
      expect(captured).toHaveLength(0);
      expect(api().sim.webhooks.deliveries()).toHaveLength(0);
    });

    it('never ends a conversation when conversation_inactivity_timeout is null', async () => {
      const update = await api().put(`/user/assistant/${assistant.id}`, { conversation_inactivity_timeout: null });
      expect(update.status).toBe(200);
      const id = await startConversation(api(), assistant.uuid);
      await send(api(), id, 'demo');
      await api().sim.clock.advance('2d');
      expect(captured).toHaveLength(0);
    });

    it('without conversation_ended_retrigger, a re-opened conversation ends without a second webhook', async () => {
      const id = await startConversation(api(), assistant.uuid);
      await api().sim.clock.advance('5m');
      const again = await send(api(), id, 'demo');
      expect(again.body).toEqual({ status: true, message: 'Great, {{name}}! What is your budget?', function_calls: [] });
      await api().sim.clock.advance('1h');
      expect(captured).toHaveLength(1);
    });

    it('with conversation_ended_retrigger, a re-opened conversation sends a second webhook when it ends again', async () => {
      const retrigger = await createAssistant(api(), endingAssistant({ conversation_ended_retrigger: true }));
      const id = await startConversation(api(), retrigger.uuid);
      await api().sim.clock.advance('5m');
      await send(api(), id, 'demo');
      await api().sim.clock.advance('5m');
      expect(payloads().map((p) => [p.conversation_id, p.message_count, p.ended_at])).toEqual([
        [id, 1, '2026-03-02T10:05:00+01:00'],
        [id, 3, '2026-03-02T10:10:00+01:00'],
      ]);
      expect(payloads()[1].transcript.map((m: { role: string }) => m.role)).toEqual(['assistant', 'user', 'assistant']);
      await api().sim.clock.advance('1h');
      expect(captured).toHaveLength(2);
    });

    it('records the delivery in GET /__sim/webhooks/deliveries, delivered', async () => {
      const id = await startConversation(api(), assistant.uuid);
      await api().sim.clock.advance('5m');
      const res = await api().get('/__sim/webhooks/deliveries', { key: null, query: { kind: 'conversation_ended', state: 'delivered' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: [
          {
            id: 1,
            account_id: 1,
            kind: 'conversation_ended',
            url: HOOK,
            state: 'delivered',
            attempts: [{ at: '2026-03-02T09:05:00Z', status: 200, error: null, duration_ms: 0 }],
            next_attempt_at: null,
            response: { status: 200, body: 'ok' },
            created_at: '2026-03-02T09:05:00Z',
            payload: payloads()[0],
          },
        ],
        evicted: 0,
      });
      expect(res.body.data[0].payload.conversation_id).toBe(id);
    });
  },
  withDeliver,
);

contract(
  'conversation-ended webhook switches',
  (api) => {
    const SWITCH_URL = 'https://hooks.example.test/from-switch';
    let assistant: AssistantRef;
    beforeEach(async () => {
      assistant = await createAssistant(api(), { conversation_inactivity_timeout: 5 });
    });

    async function storedUrl(id = assistant.id): Promise<string | null> {
      return (await api().get(`/user/assistant/${id}`)).body.data.conversation_ended_webhook_url;
    }

    it('enable by integer id answers 200 and stores the URL', async () => {
      const res = await api().post(`/assistants/${assistant.id}/enable-conversation-ended-webhook`, { webhook_url: SWITCH_URL });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Conversation ended webhook enabled.', data: [] });
      expect(await storedUrl()).toBe(SWITCH_URL);
    });

    it('enable by uuid answers 200 and stores the URL', async () => {
      const res = await api().post(`/assistants/${assistant.uuid}/enable-conversation-ended-webhook`, { webhook_url: SWITCH_URL });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Conversation ended webhook enabled.', data: [] });
      expect(await storedUrl()).toBe(SWITCH_URL);
    });

    it('delivers to the URL set by the switch when a conversation ends', async () => {
      await api().post(`/assistants/${assistant.id}/enable-conversation-ended-webhook`, { webhook_url: SWITCH_URL });
      const id = await startConversation(api(), assistant.uuid);
      await api().sim.clock.advance('5m');
      expect(captured.map((r) => [r.url, JSON.parse(r.body).conversation_id])).toEqual([[SWITCH_URL, id]]);
    });

    it('rejects a missing webhook_url with 422 shape B and stores nothing', async () => {
      const res = await api().post(`/assistants/${assistant.id}/enable-conversation-ended-webhook`, {});
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'The webhook url field is required.', errors: { webhook_url: ['The webhook url field is required.'] } });
      expect(await storedUrl()).toBeNull();
    });

    it('rejects a webhook_url that is not a URL with 422 shape B', async () => {
      const res = await api().post(`/assistants/${assistant.id}/enable-conversation-ended-webhook`, { webhook_url: 'not a url' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'The webhook url format is invalid.', errors: { webhook_url: ['The webhook url format is invalid.'] } });
      expect(await storedUrl()).toBeNull();
    });

    it.each(['enable', 'disable'])('%s answers 404 shape A for an unknown assistant', async (action) => {
      for (const id of ['99', '00000000-0000-4000-8000-000000000000']) {
        const res = await api().post(`/assistants/${id}/${action}-conversation-ended-webhook`, { webhook_url: SWITCH_URL });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ message: 'Assistant not found.' });
      }
    });

    it('disable answers 200 and clears the URL', async () => {
      await api().post(`/assistants/${assistant.id}/enable-conversation-ended-webhook`, { webhook_url: SWITCH_URL });
      const res = await api().post(`/assistants/${assistant.id}/disable-conversation-ended-webhook`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Conversation ended webhook disabled.', data: [] });
      expect(await storedUrl()).toBeNull();
    });

    it('disable by uuid clears the URL', async () => {
      await api().post(`/assistants/${assistant.id}/enable-conversation-ended-webhook`, { webhook_url: SWITCH_URL });
      const res = await api().post(`/assistants/${assistant.uuid}/disable-conversation-ended-webhook`);
      expect(res.status).toBe(200);
      expect(await storedUrl()).toBeNull();
    });

    it('sends nothing for a conversation that ends after the webhook was disabled', async () => {
      await api().post(`/assistants/${assistant.id}/enable-conversation-ended-webhook`, { webhook_url: SWITCH_URL });
      const id = await startConversation(api(), assistant.uuid);
      await send(api(), id, 'hello');
      await api().post(`/assistants/${assistant.id}/disable-conversation-ended-webhook`);
      await api().sim.clock.advance('1h');
      expect(captured).toHaveLength(0);
      expect(api().sim.webhooks.deliveries()).toHaveLength(0);
    });
  },
  withDeliver,
);
