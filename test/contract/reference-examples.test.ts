/**
 * The API reference's own request examples are accepted as written on the live wire
 * (live-platform G.3). The examples are the table under "The reference's request
 * examples" in docs/live-platform.md (the project's own copy of them) with its bodies,
 * read here rather than written into the suite, so the docs and the suite cannot drift.
 * Each test makes the records its example names (with the ids and uuids it names), sends
 * the example's method, path and body or query as the table gives them, and checks the
 * answer's values.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { contract, type Api, type ApiResponse } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';

const DOCUMENT = new URL('../../docs/live-platform.md', import.meta.url);
const SECTION = "## The reference's request examples";

interface Example {
  id: string;
  page: string;
  example: string;
  method: string;
  /** As the reference writes it; `{id}` is the assistant the test makes. */
  path: string;
  /** The JSON body's text, sent byte for byte. */
  body?: string;
  /** `?…` as the reference writes it, sent unencoded. */
  query: string;
  /** `accepted` (a 2xx answer), or the refusal's status and body. */
  expected: 'accepted' | { status: number; body: unknown };
}

/** The section's text, up to the next `## ` heading. */
function section(): string {
  const text = readFileSync(DOCUMENT, 'utf8');
  const at = text.indexOf(SECTION);
  if (at < 0) throw new Error(`docs/live-platform.md has no "${SECTION}" section`);
  return text.slice(at + SECTION.length).split(/\n## /)[0]!;
}

/** The bodies under "### Bodies": each `#### id` heading followed by a json block. */
function bodies(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of text.matchAll(/^#### (\S+)\n+```json\n([\s\S]*?)\n```$/gm)) found.set(m[1]!, m[2]!);
  return found;
}

/** A table cell: inline code unwrapped. */
const unquote = (cell: string) => /^`(.*)`$/.exec(cell)?.[1] ?? cell;

/** The rows of the examples table, bodies resolved. */
function examples(): Example[] {
  const text = section();
  const blocks = bodies(text);
  const rows = text
    .split('\n')
    .filter((line) => line.startsWith('|') && !line.startsWith('|---') && !line.startsWith('| id |'))
    .map((line) => line.trim().slice(1, -1).split('|').map((cell) => cell.trim()));
  return rows.map((cells) => {
    if (cells.length !== 8) throw new Error(`an examples row has ${cells.length} cells, not 8: ${cells.join(' | ')}`);
    const [id, page, example, method, path, given, , expected] = cells as [string, string, string, string, string, string, string, string];
    const link = /^\[([\w-]+)\]\(#([\w-]+)\)$/.exec(given);
    let body: string | undefined;
    let query = '';
    if (link) {
      body = blocks.get(link[2]!);
      if (body === undefined) throw new Error(`example ${id} names body ${link[2]}, which is not under "### Bodies"`);
    } else if (given.startsWith('`?')) query = unquote(given);
    else if (given !== '') body = unquote(given);
    const refusal = /^(\d{3}) `(.*)`$/.exec(expected);
    if (expected !== 'accepted' && !refusal) throw new Error(`example ${id} expects neither "accepted" nor a refusal: ${expected}`);
    return { id, page, example, method, path, body, query, expected: refusal ? { status: Number(refusal[1]), body: JSON.parse(refusal[2]!) } : 'accepted' };
  });
}

const EXAMPLES = examples();

it('reads every example of the reference from the docs, each once, with bodies that are JSON', () => {
  expect(EXAMPLES).toHaveLength(28);
  expect(EXAMPLES.map((e) => e.page).filter((p, i, all) => all.indexOf(p) === i)).toEqual([
    'assistants/create',
    'assistants/update',
    'whatsapp/send-template',
    'whatsapp/send-freeform',
    'whatsapp/session-status',
    'whatsapp/get-senders',
    'whatsapp/get-templates',
    'conversations/list',
    'ai-chatbot/get-conversation',
    'conversations/enable-ai',
    'conversations/disable-ai',
  ]);
  expect(EXAMPLES.filter((e) => e.page === 'assistants/create')).toHaveLength(3);
  expect(EXAMPLES.filter((e) => e.page === 'assistants/update')).toHaveLength(10);
  expect({ ...EXAMPLES[0]!, body: undefined }).toEqual({
    id: 'create-pipeline', page: 'assistants/create', example: 'pipeline assistant', method: 'POST', path: '/user/assistant', body: undefined, query: '', expected: 'accepted',
  });
  expect(JSON.parse(EXAMPLES[0]!.body!)).toMatchObject({ name: 'Sales Assistant', voice_id: 1, mode: 'pipeline', tool_ids: [1, 5] });
  expect(EXAMPLES.at(-1)).toEqual({
    id: 'disable-ai', page: 'conversations/disable-ai', example: 'disable AI (curl)', method: 'POST',
    path: '/automate/conversations/7c9e6679-7425-40de-944b-e07fc1f90ae7/disable-ai', body: undefined, query: '', expected: 'accepted',
  });
  expect(new Set(EXAMPLES.map((e) => e.id)).size).toBe(EXAMPLES.length);
  for (const e of EXAMPLES) if (e.body !== undefined) expect(() => JSON.parse(e.body!), e.id).not.toThrow();
  // The one refusal: the session-status curl's unencoded `+` (live-platform G.3 item 3).
  expect(EXAMPLES.filter((e) => e.expected !== 'accepted').map((e) => e.id)).toEqual(['session-status']);
});

/** The conversation the reference's conversation examples name. */
const CONVERSATION_UUID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
/** The customer the messaging examples write to. */
const RECIPIENT = '+1234567890';

/** Rewrites the simulator's state through a snapshot: the one way to give a record an id the API would not. */
function rewrite(api: Api, edit: (db: any) => void): void {
  const snapshot: any = api.sim.snapshot();
  edit(snapshot.db);
  api.sim.restore(snapshot);
}

/** Knowledge bases 1 to 3, mid-call tools 1 to 12 (on a plan that allows them) and phone numbers 1 to 7: every id the assistant examples name. */
async function assistantWorld(api: Api): Promise<void> {
  api.sim.control.accounts.patch(1, { plan: { max_tools: 100 } });
  for (let i = 1; i <= 3; i++) {
    const res = await api.post('/user/knowledgebases', { name: `Knowledge ${i}`, description: 'Help centre pages' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  for (let i = 1; i <= 12; i++) {
    const res = await api.post('/user/tools', { name: `lookup_${"abcdefghijkl"[i - 1]}`, description: 'Looks an order up.', endpoint: 'https://crm.example.test/orders', method: 'POST' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  let number = 0;
  while (number < 7) number = api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: `+1415555021${number}` }).id;
  expect(number).toBe(7);
}

/** A pipeline assistant (the suites' live fixture) for the update examples to change. */
async function baseAssistant(api: Api): Promise<number> {
  const res = await api.post('/user/assistant', pipelineAssistant({ tool_ids: [1], secondary_language_ids: [2], phone_number_id: 7, webhook_url: 'https://hooks.example.test/post-call' }, 'live'));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}

/**
 * The account's fixture senders as the reference's get-senders page numbers them (12
 * online, 15 offline) and the online one's templates as 45 to 48, 45 being the reference's
 * appointment reminder with its three variables and 46 its welcome message without any.
 */
function messagingWorld(api: Api): void {
  const senderIds = new Map([[1, 12], [2, 15]]);
  const templateIds = new Map([[1, 45], [2, 46], [3, 47], [4, 48]]);
  rewrite(api, (db) => {
    db.msgapp_senders.rows = db.msgapp_senders.rows.map((s: any) => ({ ...s, id: senderIds.get(s.id) }));
    db.msgapp_senders.seq = 15;
    db.msgapp_templates.rows = db.msgapp_templates.rows.map((t: any) => ({ ...t, id: templateIds.get(t.id), sender_id: senderIds.get(t.sender_id) }));
    db.msgapp_templates.seq = 48;
    Object.assign(db.msgapp_templates.rows[0], {
      body_text: 'Hi {{customer_name}}, this is a reminder for your appointment on {{date}} at {{time}}. Reply YES to confirm or NO to reschedule.',
      variables: ['customer_name', 'date', 'time'],
    });
  });
}

/** A customer message from `from` to sender 12 (the control API), which opens that number's window. */
function customerWrites(api: Api, from: string, name = 'John Doe'): void {
  api.sim.control.msgapp.inbound({ sender_id: 12, from, text: 'Hi, I need help with my order', name });
}

/** A widget conversation with the uuid the reference's conversation examples name. */
async function namedConversation(api: Api): Promise<void> {
  const assistant = await api.post('/user/assistant', pipelineAssistant({ name: 'Support Assistant' }, 'live'));
  const uuid = (await api.get(`/user/assistant/${assistant.body.data.id}`)).body.data.uuid;
  const started = await api.post('/conversations', { assistant_id: uuid, type: 'widget' }, { key: null });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  rewrite(api, (db) => {
    const row = db.conversations.rows.find((c: any) => c.uuid === started.body.conversation_id);
    row.uuid = CONVERSATION_UUID;
  });
}

/** Makes what the example names; answers the path to send it to. */
async function seed(api: Api, example: Example): Promise<string> {
  const { id } = example;
  if (example.page === 'assistants/create') await assistantWorld(api);
  if (example.page === 'assistants/update') {
    await assistantWorld(api);
    return example.path.replace('{id}', String(await baseAssistant(api)));
  }
  if (example.page.startsWith('whatsapp/')) {
    messagingWorld(api);
    if (id === 'send-freeform' || id === 'session-status-encoded') customerWrites(api, RECIPIENT);
  }
  if (example.page.startsWith('conversations/') || example.page.startsWith('ai-chatbot/')) {
    messagingWorld(api);
    await namedConversation(api);
    if (id === 'conversations-customer' || id === 'conversations-whatsapp') customerWrites(api, '+49123456789');
  }
  return example.path;
}

/** The latest message of the account's only messaging conversation, read through the API. */
async function lastMessagingMessage(api: Api): Promise<string> {
  const list = await api.get('/user/conversations');
  const [conversation] = list.body.data.filter((c: any) => c.type === 'whatsapp');
  const history = await api.get(`/conversations/${conversation.id}`, { key: null });
  return history.body.history.at(-1).content;
}

/** What each example's answer holds: the record it made or changed, the list it read (assistants read in the live encoding: 0/1 flags, decimal strings). */
const CHECKS: Record<string, (api: Api, res: ApiResponse, path: string) => Promise<void>> = {
  'create-pipeline': async (api, res) => {
    expect(res.body.data).toMatchObject({ name: 'Sales Assistant', status: 'inactive', type: 'outbound', mode: 'pipeline' });
    const read = (await api.get(`/user/assistant/${res.body.data.id}`)).body.data;
    expect(read).toMatchObject({ voice_id: 1, llm_model_id: 2, knowledgebase_id: 1, knowledgebase_mode: 'prompt', tool_ids: [1, 5], reengagement_interval: 20 });
    expect(read.tools.map((t: any) => t.type)).toEqual(['end_call', 'call_transfer', 'warm_call_transfer', 'collect_keypad']);
  },
  'create-multimodal': async (api, res) => {
    expect(res.body.data).toMatchObject({ name: 'Support Bot', status: 'inactive', type: 'inbound', mode: 'multimodal' });
    expect((await api.get(`/user/assistant/${res.body.data.id}`)).body.data).toMatchObject({ voice_id: 41, multimodal_model_id: 1, chat_llm_fallback_id: 2, turn_detection_threshold: 0.7 });
  },
  'create-dualplex': async (api, res) => {
    expect(res.body.data).toMatchObject({ name: 'Premium Agent', status: 'inactive', type: 'outbound', mode: 'dualplex' });
    expect((await api.get(`/user/assistant/${res.body.data.id}`)).body.data).toMatchObject({ voice_id: 1, language_id: 2, multimodal_model_id: 4, ambient_sound: 'office', ambient_sound_volume: '0.3' });
  },
  'update-basic': async (api, res, path) => {
    expect(res.body.data).toMatchObject({ name: 'Updated Assistant Name', mode: 'pipeline' });
    expect((await api.get(path)).body.data).toMatchObject({ initial_message: 'Hello! How can I help you today?', max_duration: 900 });
  },
  'update-multimodal': async (api, res, path) => {
    expect(res.body.data).toMatchObject({ mode: 'multimodal' });
    expect((await api.get(path)).body.data).toMatchObject({ voice_id: 41, multimodal_model_id: 1, chat_llm_fallback_id: 2, knowledgebase_mode: 'function_call' });
  },
  'update-tools-kb': async (api, _res, path) => {
    expect((await api.get(path)).body.data).toMatchObject({ tool_ids: [1, 5, 12], knowledgebase_id: 3, knowledgebase_mode: 'prompt' });
  },
  'update-reengagement': async (api, _res, path) => {
    expect((await api.get(path)).body.data).toMatchObject({
      reengagement_interval: 15, reengagement_prompt: "Are you still there? I'm here to help.", end_call_on_voicemail: 1, voice_mail_message: 'Hello, please call us back at your earliest convenience.',
    });
  },
  'update-remove': async (api, _res, path) => {
    expect((await api.get(path)).body.data).toMatchObject({ phone_number_id: null, webhook_url: null, tool_ids: [], secondary_language_ids: [] });
  },
  'snippet-secondary-languages': async (api, _res, path) => {
    expect((await api.get(path)).body.data).toMatchObject({ secondary_language_ids: [2, 3, 4] });
  },
  'snippet-tool-ids': async (api, _res, path) => {
    expect((await api.get(path)).body.data).toMatchObject({ tool_ids: [1, 5, 12] });
  },
  'snippet-tools': async (api, _res, path) => {
    const tools = (await api.get(path)).body.data.tools;
    expect(tools.map((t: any) => t.type)).toEqual(['dtmf_input', 'warm_call_transfer', 'collect_keypad', 'end_call']);
  },
  'snippet-filler-config': async (api, _res, path) => {
    expect((await api.get(path)).body.data.filler_config).toEqual({
      positive: ['Great!', 'Perfect!'], negative: ['Hmm.', 'Understood.'], question: ['Good question.', 'One moment.'], neutral: ['Okay.', 'Noted.'],
    });
  },
  'snippet-variables': async (api, _res, path) => {
    expect((await api.get(path)).body.data.variables).toEqual({ company_name: 'Acme Corp', product: 'Premium Widget' });
  },
  'send-template': async (api, res) => {
    expect(res.body).toMatchObject({ success: true, status: 'queued' });
    expect(await lastMessagingMessage(api)).toBe('Hi John, this is a reminder for your appointment on January 15, 2026 at 2:00 PM. Reply YES to confirm or NO to reschedule.');
  },
  'send-template-plain': async (api, res) => {
    expect(res.body).toMatchObject({ success: true, status: 'queued' });
    expect(await lastMessagingMessage(api)).toBe('Welcome! Thanks for getting in touch. How can we help you today?');
  },
  'send-freeform': async (api, res) => {
    expect(res.body).toMatchObject({ success: true, session_status: { is_open: true, can_send_freeform: true, minutes_remaining: 1440 } });
    expect(await lastMessagingMessage(api)).toBe('Thank you for your inquiry! Our team will review your request and get back to you within 2 hours.');
  },
  'session-status-encoded': async (_api, res) => {
    expect(res.body).toMatchObject({ success: true, has_conversation: true, customer_name: 'John Doe', session_status: { is_open: true, can_send_freeform: true, minutes_remaining: 1440 } });
  },
  senders: async (_api, res) => {
    expect(res.body.data.map((s: any) => [s.id, s.status])).toEqual([[12, 'online']]);
  },
  'senders-all': async (_api, res) => {
    expect(res.body.data.map((s: any) => [s.id, s.status])).toEqual([[12, 'online'], [15, 'offline']]);
  },
  templates: async (_api, res) => {
    expect(res.body.data.map((t: any) => [t.id, t.name, t.variables])).toEqual([[45, 'appointment_reminder', ['customer_name', 'date', 'time']], [46, 'welcome_message', []]]);
  },
  'templates-all': async (_api, res) => {
    expect(res.body.data.map((t: any) => [t.id, t.status])).toEqual([[45, 'approved'], [46, 'approved'], [47, 'pending'], [48, 'rejected']]);
  },
  'conversations-whatsapp': async (_api, res) => {
    expect(res.body.per_page).toBe(10);
    expect(res.body.data.map((c: any) => [c.type, c.customer])).toEqual([['whatsapp', { name: 'John Doe', phone: '+49123456789' }]]);
  },
  // live-platform G.3 item 3: the unencoded `+` arrives as a space, is trimmed away, and `49123456789` matches by substring.
  'conversations-customer': async (_api, res) => {
    expect(res.body.data.map((c: any) => c.customer?.phone)).toEqual(['+49123456789']);
  },
  // No sender of the account has that number: an empty page, the filter read.
  'conversations-sender': async (_api, res) => {
    expect(res.body).toMatchObject({ data: [], next_cursor: null, prev_cursor: null, per_page: 15 });
  },
  'conversation-get': async (_api, res) => {
    expect(res.body.status).toBe(true);
    expect(res.body.history).toEqual([{ role: 'assistant', content: 'Hello, this is Ava from Acme. Do you have a minute?' }]);
  },
  'enable-ai': async (_api, res) => {
    expect(res.body).toEqual({ status: true, ai_enabled: true });
  },
  'disable-ai': async (api, res) => {
    expect(res.body).toEqual({ status: true, ai_enabled: false });
    const listed = (await api.get('/user/conversations')).body.data.find((c: any) => c.id === CONVERSATION_UUID);
    expect(listed.ai_enabled).toBe(false);
  },
};

it('checks the answer of every example in the table', () => {
  expect(Object.keys(CHECKS).sort()).toEqual(EXAMPLES.filter((e) => e.expected === 'accepted').map((e) => e.id).sort());
});

contract(
  "the API reference's request examples (live wire)",
  (api) => {
    for (const example of EXAMPLES) {
      const expected = example.expected === 'accepted' ? 'is accepted' : `is refused with ${example.expected.status}`;
      it(`${example.page}: the ${example.example} example ${expected}`, async () => {
        const path = await seed(api(), example);
        // The reference's curl for a conversation's history sends no key.
        const key = example.page === 'ai-chatbot/get-conversation' ? { key: null } : {};
        const res = await api().call(example.method, `${path}${example.query}`, undefined, { ...key, ...(example.body === undefined ? {} : { raw: example.body }) });
        if (example.expected === 'accepted') {
          expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
          await CHECKS[example.id]!(api(), res, path);
        } else {
          expect({ status: res.status, body: res.body }).toEqual(example.expected);
        }
      });
    }
  },
  { wire: 'live' },
);
