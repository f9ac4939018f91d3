/**
 * The live wire of the voice resources (live-platform D.1-D.5): Laravel's full paginator
 * on calls, leads and assistants; the live call and assistant records; the update-status
 * balance refusal's `data`; the live message texts of assistants, campaigns, leads,
 * make_call and calls. Every expectation is a literal, and every request of the text
 * table is also answered on the default wire, where nothing changed.
 */
import { expect, it } from 'vitest';
import { TOOL_DEFAULTS } from '../../src/domain/assistants/schema.js';
import { contract, type Api, type ApiResponse } from '../support/api.js';
import { LIVE_CATALOG, multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';

const LIVE = { wire: 'live' } as const;
const SECOND_KEY = 'sim_second_key';
const OUTBOUND_NUMBER = '+14155550100';

const LARAVEL_KEYS = ['current_page', 'data', 'first_page_url', 'from', 'last_page', 'last_page_url', 'links', 'next_page_url', 'path', 'per_page', 'prev_page_url', 'to', 'total'];
const SPEC_PAGE_KEYS = ['data', 'current_page', 'per_page', 'total', 'last_page'];

/**
 * The live `path` of a list answer: MSW's base URL literally, or the Express server's
 * 127.0.0.1 with the port it listens on; both followed by `/api` and the route, no query.
 */
function selfPath(api: Api, res: ApiResponse, route: string): string {
  const path = res.body.path as string;
  if (api.transport === 'msw') expect(path).toBe(`http://api.voxsim.test/api${route}`);
  else expect(path).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d{2,5}/api${route.replace(/\//g, '\\/')}$`));
  return path;
}

type Link = { url: string | null; label: string; active: boolean };
const previous = (url: string | null): Link => ({ url, label: '&laquo; Previous', active: false });
const next = (url: string | null): Link => ({ url, label: 'Next &raquo;', active: false });
const gap: Link = { url: null, label: '...', active: false };

/** The page window of `links` (between Previous and Next) as labels, the active one starred. */
function pageLabels(res: ApiResponse): string[] {
  const links = res.body.links as Link[];
  return links.slice(1, -1).map((l) => (l.active ? `*${l.label}` : l.label));
}

/** Every page link of the window points at `path?page=<label>`, every gap at nothing. */
function expectWindowUrls(res: ApiResponse, path: string): void {
  for (const link of (res.body.links as Link[]).slice(1, -1)) {
    expect(link.url).toBe(link.label === '...' ? null : `${path}?page=${link.label}`);
  }
}

async function outboundAssistant(api: Api, overrides: Record<string, unknown> = {}): Promise<number> {
  const number = api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: OUTBOUND_NUMBER }).id;
  const res = await api.post('/user/assistant', pipelineAssistant({ phone_number_id: number, ...overrides }, api.sim.wire));
  expect(res.status).toBe(201);
  return res.body.data.id;
}

/** `count` finished calls of assistant 1, ids 1..count, the newest last. */
async function calls(api: Api, count: number): Promise<void> {
  await outboundAssistant(api);
  for (let i = 1; i <= count; i++) {
    api.sim.control.calls.insert({ assistant_id: 1, client_phone_number: `+1415555${String(1000 + i)}`, created_at: `2026-03-01T${String(i % 24).padStart(2, '0')}:00:00Z` });
  }
}

async function campaignWithLeads(api: Api, count: number): Promise<number> {
  const assistant = await outboundAssistant(api);
  const campaign = (await api.post('/user/campaign', { name: 'Spring', assistant_id: assistant })).body.data.id as number;
  for (let i = 1; i <= count; i++) expect((await api.post('/user/lead', { campaign_id: campaign, phone_number: `+1415555${2000 + i}` })).status).toBe(200);
  return campaign;
}

contract(
  'live D.1: the Laravel paginator',
  (api) => {
    it('answers the example of D.1: 5 calls, per_page 2, page 2', async () => {
      await calls(api(), 5);
      const res = await api().get('/user/calls', { query: { per_page: 2, page: 2 } });
      expect(res.status).toBe(200);
      const path = selfPath(api(), res, '/user/calls');
      expect(Object.keys(res.body)).toEqual(LARAVEL_KEYS);
      expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([3, 2]);
      expect({ ...res.body, data: undefined }).toStrictEqual({
        current_page: 2,
        data: undefined,
        first_page_url: `${path}?page=1`,
        from: 3,
        last_page: 3,
        last_page_url: `${path}?page=3`,
        links: [
          previous(`${path}?page=1`),
          { url: `${path}?page=1`, label: '1', active: false },
          { url: `${path}?page=2`, label: '2', active: true },
          { url: `${path}?page=3`, label: '3', active: false },
          next(`${path}?page=3`),
        ],
        next_page_url: `${path}?page=3`,
        path,
        per_page: 2,
        prev_page_url: `${path}?page=1`,
        to: 4,
        total: 5,
      });
    });

    it('writes the keys in Laravel order in the body text itself', async () => {
      const res = await api().get('/user/calls');
      const order = LARAVEL_KEYS.map((key) => res.text.indexOf(`"${key}":`));
      expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    });

    it('answers an empty first page: from and to null, one active page, no neighbours', async () => {
      const res = await api().get('/user/calls');
      const path = selfPath(api(), res, '/user/calls');
      expect(Object.keys(res.body)).toEqual(LARAVEL_KEYS);
      expect(res.body).toStrictEqual({
        current_page: 1,
        data: [],
        first_page_url: `${path}?page=1`,
        from: null,
        last_page: 1,
        last_page_url: `${path}?page=1`,
        links: [previous(null), { url: `${path}?page=1`, label: '1', active: true }, next(null)],
        next_page_url: null,
        path,
        per_page: 15,
        prev_page_url: null,
        to: null,
        total: 0,
      });
    });

    it('answers a page past the end: no data, from and to null, previous page linked, no page active', async () => {
      await calls(api(), 3);
      const res = await api().get('/user/calls', { query: { per_page: 2, page: 9 } });
      const path = selfPath(api(), res, '/user/calls');
      expect(res.body).toStrictEqual({
        current_page: 9,
        data: [],
        first_page_url: `${path}?page=1`,
        from: null,
        last_page: 2,
        last_page_url: `${path}?page=2`,
        links: [previous(`${path}?page=8`), { url: `${path}?page=1`, label: '1', active: false }, { url: `${path}?page=2`, label: '2', active: false }, next(null)],
        next_page_url: null,
        path,
        per_page: 2,
        prev_page_url: `${path}?page=8`,
        to: null,
        total: 3,
      });
    });

    it('answers the last, partial page: to counts only its items, no next page', async () => {
      await calls(api(), 5);
      const res = await api().get('/user/calls', { query: { per_page: 2, page: 3 } });
      const path = selfPath(api(), res, '/user/calls');
      expect(res.body).toMatchObject({ current_page: 3, from: 5, to: 5, last_page: 3, next_page_url: null, prev_page_url: `${path}?page=2` });
      expect(res.body.links.at(-1)).toStrictEqual(next(null));
    });

    it('carries no other query parameter into the links (only page)', async () => {
      await calls(api(), 5);
      const res = await api().get('/user/calls', { query: { per_page: 1, page: 2, status: 'completed', type: 'outbound' } });
      const path = selfPath(api(), res, '/user/calls');
      expect(res.body).toMatchObject({ first_page_url: `${path}?page=1`, prev_page_url: `${path}?page=1`, next_page_url: `${path}?page=3`, last_page_url: `${path}?page=5` });
      expectWindowUrls(res, path);
    });

    it('shows every page while there are fewer than 14 (13 pages, page 7)', async () => {
      await calls(api(), 13);
      const res = await api().get('/user/calls', { query: { per_page: 1, page: 7 } });
      expect(pageLabels(res)).toEqual(['1', '2', '3', '4', '5', '6', '*7', '8', '9', '10', '11', '12', '13']);
      expectWindowUrls(res, selfPath(api(), res, '/user/calls'));
    });

    it('shows 1-10, a gap and the last two near the start (20 pages, page 1 and page 7)', async () => {
      await calls(api(), 20);
      const first = await api().get('/user/calls', { query: { per_page: 1, page: 1 } });
      expect(pageLabels(first)).toEqual(['*1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '...', '19', '20']);
      const seventh = await api().get('/user/calls', { query: { per_page: 1, page: 7 } });
      expect(pageLabels(seventh)).toEqual(['1', '2', '3', '4', '5', '6', '*7', '8', '9', '10', '...', '19', '20']);
      expectWindowUrls(seventh, selfPath(api(), seventh, '/user/calls'));
      expect(seventh.body.links[11]).toStrictEqual(gap);
    });

    it('shows the first two, a gap and the last ten near the end (20 pages, page 14 and page 20)', async () => {
      await calls(api(), 20);
      const fourteenth = await api().get('/user/calls', { query: { per_page: 1, page: 14 } });
      expect(pageLabels(fourteenth)).toEqual(['1', '2', '...', '11', '12', '13', '*14', '15', '16', '17', '18', '19', '20']);
      const last = await api().get('/user/calls', { query: { per_page: 1, page: 20 } });
      expect(pageLabels(last)).toEqual(['1', '2', '...', '11', '12', '13', '14', '15', '16', '17', '18', '19', '*20']);
      expect(last.body.links.at(-1)).toStrictEqual(next(null));
      expectWindowUrls(fourteenth, selfPath(api(), fourteenth, '/user/calls'));
    });

    it('shows the first two, three pages each side and the last two in the middle (20 pages, pages 8, 10 and 13)', async () => {
      await calls(api(), 20);
      const eighth = await api().get('/user/calls', { query: { per_page: 1, page: 8 } });
      expect(pageLabels(eighth)).toEqual(['1', '2', '...', '5', '6', '7', '*8', '9', '10', '11', '...', '19', '20']);
      const tenth = await api().get('/user/calls', { query: { per_page: 1, page: 10 } });
      expect(pageLabels(tenth)).toEqual(['1', '2', '...', '7', '8', '9', '*10', '11', '12', '13', '...', '19', '20']);
      const thirteenth = await api().get('/user/calls', { query: { per_page: 1, page: 13 } });
      expect(pageLabels(thirteenth)).toEqual(['1', '2', '...', '10', '11', '12', '*13', '14', '15', '16', '...', '19', '20']);
      expectWindowUrls(tenth, selfPath(api(), tenth, '/user/calls'));
    });

    it('switches from all pages to the window at exactly 14 pages (page 8 is past L-7)', async () => {
      await calls(api(), 14);
      const res = await api().get('/user/calls', { query: { per_page: 1, page: 8 } });
      expect(pageLabels(res)).toEqual(['1', '2', '...', '5', '6', '7', '*8', '9', '10', '11', '12', '13', '14']);
    });

    it('pages the leads list with its own path, without campaign_id in the links', async () => {
      const campaign = await campaignWithLeads(api(), 3);
      const res = await api().get('/user/leads', { query: { campaign_id: campaign, per_page: 2 } });
      const path = selfPath(api(), res, '/user/leads');
      expect(Object.keys(res.body)).toEqual(LARAVEL_KEYS);
      expect(res.body.data.map((l: { id: number }) => l.id)).toEqual([1, 2]);
      expect({ ...res.body, data: undefined }).toStrictEqual({
        current_page: 1,
        data: undefined,
        first_page_url: `${path}?page=1`,
        from: 1,
        last_page: 2,
        last_page_url: `${path}?page=2`,
        links: [previous(null), { url: `${path}?page=1`, label: '1', active: true }, { url: `${path}?page=2`, label: '2', active: false }, next(`${path}?page=2`)],
        next_page_url: `${path}?page=2`,
        path,
        per_page: 2,
        prev_page_url: null,
        to: 2,
        total: 3,
      });
    });

    it('pages GET /user/assistants/get by 10 with its own path', async () => {
      for (let i = 1; i <= 11; i++) await api().post('/user/assistant', pipelineAssistant({ name: `Assistant ${i}` }, api().sim.wire));
      const res = await api().get('/user/assistants/get', { query: { page: 2 } });
      const path = selfPath(api(), res, '/user/assistants/get');
      expect(Object.keys(res.body)).toEqual(LARAVEL_KEYS);
      expect(res.body.data.map((a: { name: string }) => a.name)).toEqual(['Assistant 11']);
      expect({ ...res.body, data: undefined }).toStrictEqual({
        current_page: 2,
        data: undefined,
        first_page_url: `${path}?page=1`,
        from: 11,
        last_page: 2,
        last_page_url: `${path}?page=2`,
        links: [previous(`${path}?page=1`), { url: `${path}?page=1`, label: '1', active: false }, { url: `${path}?page=2`, label: '2', active: true }, next(null)],
        next_page_url: null,
        path,
        per_page: 10,
        prev_page_url: `${path}?page=1`,
        to: 11,
        total: 11,
      });
    });

    it('still refuses a bad page with the spec 422 shape B', async () => {
      const res = await api().get('/user/calls', { query: { page: 0 } });
      expect(res.status).toBe(422);
      expect(res.body).toStrictEqual({ message: 'The page must be at least 1.', errors: { page: ['The page must be at least 1.'] } });
    });
  },
  LIVE,
);

contract('live D.1 on the default wire: the spec paginator is unchanged', (api) => {
  it('answers calls, leads and assistants with the five spec keys', async () => {
    const campaign = await campaignWithLeads(api(), 3);
    api().sim.control.calls.insert({ assistant_id: 1, client_phone_number: '+14155551001' });
    const callsPage = await api().get('/user/calls', { query: { per_page: 2, page: 2 } });
    expect(Object.keys(callsPage.body)).toEqual(SPEC_PAGE_KEYS);
    expect(callsPage.body).toStrictEqual({ data: [], current_page: 2, per_page: 2, total: 1, last_page: 1 });
    const leadsPage = await api().get('/user/leads', { query: { campaign_id: campaign, per_page: 2 } });
    expect(Object.keys(leadsPage.body)).toEqual(SPEC_PAGE_KEYS);
    expect({ ...leadsPage.body, data: leadsPage.body.data.length }).toStrictEqual({ data: 2, current_page: 1, per_page: 2, total: 3, last_page: 2 });
    const assistantsPage = await api().get('/user/assistants/get');
    expect(Object.keys(assistantsPage.body)).toEqual(SPEC_PAGE_KEYS);
    expect({ ...assistantsPage.body, data: assistantsPage.body.data.length }).toStrictEqual({ data: 1, current_page: 1, per_page: 10, total: 1, last_page: 1 });
  });
});

/** A finished call of assistant 1 with a transcript, an evaluation, costs and empties. */
function insertHistoryCall(api: Api, overrides: Record<string, unknown> = {}) {
  return api.sim.control.calls.insert({
    assistant_id: 1,
    client_phone_number: '+14155550111',
    created_at: '2026-03-01T10:00:00Z',
    duration: 100,
    transcript: 'Assistant: Hello, this is Ava.\nCustomer: Hi, yes?\n[call transferred]',
    variables: {},
    evaluation: { booked: true, score: 7, note: 'call back', extra: null },
    webhook_response: {},
    carrier_cost: 0.025,
    total_cost: 0.1234,
    ...overrides,
  });
}

const SCHEMA = [{ name: 'booked', type: 'bool', description: 'Booked a demo' }];

contract(
  'live D.2: call records',
  (api) => {
    it('answers a call with transcript items, evaluation items, 8-decimal costs and [] empties, keys in spec order', async () => {
      await outboundAssistant(api(), { post_call_schema: SCHEMA });
      insertHistoryCall(api());
      const res = await api().get('/user/calls/1');
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({
        id: 1,
        assistant_id: 1,
        assistant_name: 'Sales Assistant',
        campaign_id: null,
        campaign_name: null,
        type: 'outbound',
        duration: 100,
        assistant_phone_number: '+14155550100',
        client_phone_number: '+14155550111',
        status: 'completed',
        transcript: [
          { text: 'Hello, this is Ava.', type: 'transcript', sender: 'bot', timestamp: 1772359200 },
          { text: 'Hi, yes?', type: 'transcript', sender: 'human', timestamp: 1772359233.333333 },
          { text: '[call transferred]', type: 'transcript', sender: 'bot', timestamp: 1772359266.666667 },
        ],
        // live-platform H.1: the built-in status and summary come first.
        variables: { status: true, summary: 'The customer answered and the goal was met after 1 min 40 s.' },
        evaluation: [
          { name: 'status', type: 'bool', value: true, description: 'Whether the call objective was achieved or not.' },
          { name: 'summary', type: 'string', value: 'The customer answered and the goal was met after 1 min 40 s.', description: 'Call summary in a few words.' },
          { name: 'booked', type: 'bool', value: true, description: 'Booked a demo' },
          { name: 'score', type: 'number', value: 7, description: '' },
          { name: 'note', type: 'string', value: 'call back', description: '' },
          { name: 'extra', type: 'string', value: null, description: '' },
        ],
        webhook_response: [],
        carrier_cost: '0.02500000',
        total_cost: '0.12340000',
        answered_by: 'human',
        recording_url: null,
        created_at: '2026-03-01 10:00:00',
        updated_at: '2026-03-01 10:00:00',
      });
      expect(Object.keys(res.body)).toEqual(['id', 'assistant_id', 'assistant_name', 'campaign_id', 'campaign_name', 'type', 'duration', 'assistant_phone_number', 'client_phone_number', 'status', 'transcript', 'variables', 'evaluation', 'webhook_response', 'carrier_cost', 'total_cost', 'answered_by', 'recording_url', 'created_at', 'updated_at']);
      expect(res.text).toContain('"carrier_cost":"0.02500000","total_cost":"0.12340000"');
    });

    it('lists the same item as GET /user/calls/{id}', async () => {
      await outboundAssistant(api(), { post_call_schema: SCHEMA });
      insertHistoryCall(api());
      const list = await api().get('/user/calls');
      const one = await api().get('/user/calls/1');
      expect(list.body.data).toStrictEqual([one.body]);
    });

    it('answers an empty transcript and evaluation as [], zero costs as "0.00000000", large ones with 8 decimals', async () => {
      // An assistant without post-call evaluation: no built-ins in the evaluation (live-platform H.1).
      await outboundAssistant(api(), { post_call_evaluation: false });
      insertHistoryCall(api(), { transcript: '', evaluation: {}, carrier_cost: 0, total_cost: 12.5 });
      const res = await api().get('/user/calls/1');
      expect(res.body).toMatchObject({ transcript: [], evaluation: [], carrier_cost: '0.00000000', total_cost: '12.50000000' });
    });

    it('answers the variables of a call not yet over as [] (no built-ins before the end)', async () => {
      await outboundAssistant(api());
      insertHistoryCall(api(), { status: 'in-progress', variables: {}, evaluation: {} });
      const res = await api().get('/user/calls/1');
      expect(res.body).toMatchObject({ variables: [], evaluation: [] });
    });

    it('gives one item per non-blank line: a trailing newline or an empty line adds none (decision)', async () => {
      await outboundAssistant(api());
      insertHistoryCall(api(), { transcript: 'Assistant: Hi.\n\nCustomer: Hello.\n', duration: 10 });
      expect((await api().get('/user/calls/1')).body.transcript).toStrictEqual([
        { text: 'Hi.', type: 'transcript', sender: 'bot', timestamp: 1772359200 },
        { text: 'Hello.', type: 'transcript', sender: 'human', timestamp: 1772359205 },
      ]);
    });

    it('keeps non-empty variables and webhook_response as objects and a null webhook_response null', async () => {
      await outboundAssistant(api());
      insertHistoryCall(api(), { variables: { booked: true }, webhook_response: { status: 200, body: 'ok' } });
      insertHistoryCall(api(), { webhook_response: null });
      const first = await api().get('/user/calls/1');
      expect(first.body).toMatchObject({ variables: { booked: true }, webhook_response: { status: 200, body: 'ok' } });
      expect((await api().get('/user/calls/2')).body.webhook_response).toBeNull();
    });

    it('infers the evaluation types when the assistant was deleted', async () => {
      await outboundAssistant(api(), { post_call_schema: SCHEMA });
      insertHistoryCall(api(), { evaluation: { booked: false } });
      await api().del('/user/assistant/1');
      const res = await api().get('/user/calls/1');
      expect(res.body.evaluation).toStrictEqual([
        { name: 'status', type: 'bool', value: true, description: 'Whether the call objective was achieved or not.' },
        { name: 'summary', type: 'string', value: 'The customer answered and the goal was met after 1 min 40 s.', description: 'Call summary in a few words.' },
        { name: 'booked', type: 'bool', value: false, description: '' },
      ]);
    });

    it('stamps the lines of a placed call from its answer time (1 s dialing + 4 s ringing after creation) over its duration', async () => {
      await outboundAssistant(api());
      await api().put('/__sim/outcomes', {
        rules: [{ match: {}, outcomes: [{ kind: 'human', ring_seconds: 4, talk_seconds: 90, transcript: ['Assistant: Hello.', { role: 'customer', content: 'Hi.' }, 'Assistant: Bye.'], evaluation: {} }] }],
      });
      expect((await api().post('/user/make_call', { assistant_id: 1, phone_number: '+14155550177' })).status).toBe(200);
      await api().sim.clock.advance('5m');
      const res = await api().get('/user/calls/1');
      expect(res.body.duration).toBe(90);
      expect(res.body.transcript).toStrictEqual([
        { text: 'Hello.', type: 'transcript', sender: 'bot', timestamp: 1772442005 },
        { text: 'Hi.', type: 'transcript', sender: 'human', timestamp: 1772442035 },
        { text: 'Bye.', type: 'transcript', sender: 'bot', timestamp: 1772442065 },
      ]);
      expect(res.body.carrier_cost).toMatch(/^\d+\.\d{8}$/);
      expect(res.body.total_cost).toMatch(/^\d+\.\d{8}$/);
    });
  },
  LIVE,
);

contract('live D.2 on the default wire: the spec call record is unchanged', (api) => {
  it('answers the same call with a text transcript, objects and number costs', async () => {
    await outboundAssistant(api(), { post_call_schema: SCHEMA });
    insertHistoryCall(api());
    const res = await api().get('/user/calls/1');
    expect(res.body).toMatchObject({
      transcript: 'Assistant: Hello, this is Ava.\nCustomer: Hi, yes?\n[call transferred]',
      variables: {},
      evaluation: { booked: true, score: 7, note: 'call back', extra: null },
      webhook_response: {},
      carrier_cost: 0.025,
      total_cost: 0.1234,
    });
    expect((await api().get('/user/calls')).body.data).toStrictEqual([res.body]);
  });
});

/** The live read record of `pipelineAssistant` with the overrides of the D.3 tests (the live catalog's voice 10; ElevenLabs and Deepgram, English's defaults: live-platform G.1). */
const LIVE_RECORD = {
  id: 1,
  uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
  name: 'Sales Assistant',
  status: 'inactive',
  type: 'outbound',
  mode: 'pipeline',
  chat_llm_fallback_id: null,
  turn_detection_threshold: null,
  secondary_language_ids: [],
  knowledgebase_id: null,
  knowledgebase_mode: 'function_call',
  phone_number_id: null,
  tool_ids: [],
  tools: [
    { type: 'end_call', data: { description: 'Hang up' } },
    { type: 'collect_keypad', data: { timeout: 5, stop_key: '#' } },
  ],
  voice_stability: '0.7',
  voice_similarity: '0.5',
  speech_speed: '1.0',
  llm_temperature: '0.7',
  tts_emotion_enabled: true,
  allow_interruptions: true,
  fillers: 1,
  filler_config: [],
  record: false,
  enable_noise_cancellation: true,
  wait_for_customer: false,
  max_duration: 600,
  max_silence_duration: 40,
  max_initial_silence_duration: null,
  ringing_time: 30,
  reengagement_interval: 30,
  reengagement_prompt: null,
  end_call_on_voicemail: 1,
  voice_mail_message: null,
  endpoint_type: 'vad',
  endpoint_sensitivity: 0.5,
  interrupt_sensitivity: 0.5,
  min_interrupt_words: null,
  ambient_sound: 'off',
  ambient_sound_volume: '0.5',
  is_webhook_active: false,
  webhook_url: null,
  send_webhook_only_on_completed: true,
  include_recording_in_webhook: true,
  post_call_evaluation: true,
  post_call_schema: [],
  variables: [],
  conversation_inactivity_timeout: 30,
  conversation_ended_retrigger: false,
  conversation_ended_webhook_url: null,
  llm_model_id: 1,
  multimodal_model_id: null,
  synthesizer_provider_id: 1,
  transcriber_provider_id: 1,
  voice_id: 10,
  language_id: 1,
  timezone: 'Europe/Berlin',
  initial_message: 'Hello, this is Ava from Acme. Do you have a minute?',
  system_prompt: 'You book product demos for Acme. Be brief and friendly.',
  created_at: '2026-03-02T09:00:00.000000Z',
  updated_at: '2026-03-02T09:00:00.000000Z',
  user_id: 1,
  engine_id: 1,
  synthesizer_id: 1,
  transcriber_id: 1,
  instance_id: null,
  flows_platform_id: null,
  language: 'en',
  inbound_webhook_url: null,
  widget_settings: { enabled: false },
  deleted_at: null,
  folder_id: null,
  label_ids: [],
};
const LIVE_ONLY_KEYS = ['user_id', 'engine_id', 'synthesizer_id', 'transcriber_id', 'instance_id', 'flows_platform_id', 'language', 'inbound_webhook_url', 'widget_settings', 'deleted_at', 'folder_id', 'label_ids'];

const D3_ASSISTANT = {
  fillers: true,
  filler_config: {},
  llm_temperature: 0.7,
  speech_speed: 1,
  tools: [
    { type: 'end_call', description: 'Hang up' },
    { type: 'collect_keypad', timeout: 5, stop_key: '#' },
  ],
};

contract(
  'live D.3: the assistant read record',
  (api) => {
    it('answers GET /user/assistant/{id} with 0/1, decimal strings, [] empties, {type, data} tools and the live-only keys last', async () => {
      expect((await api().post('/user/assistant', pipelineAssistant(D3_ASSISTANT, api().sim.wire))).status).toBe(201);
      const res = await api().get('/user/assistant/1');
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({ data: LIVE_RECORD });
      expect(Object.keys(res.body.data)).toEqual(Object.keys(LIVE_RECORD));
      expect(Object.keys(res.body.data).slice(-12)).toEqual(LIVE_ONLY_KEYS);
      expect(res.text).toContain('"speech_speed":"1.0","llm_temperature":"0.7"');
    });

    it('answers the same record in /user/assistants/get, /user/assistants and /user/assistants/outbound', async () => {
      await api().post('/user/assistant', pipelineAssistant(D3_ASSISTANT, api().sim.wire));
      const one = (await api().get('/user/assistant/1')).body.data;
      expect((await api().get('/user/assistants/get')).body.data).toStrictEqual([one]);
      expect((await api().get('/user/assistants')).body).toStrictEqual([one]);
      expect((await api().get('/user/assistants/outbound')).body).toStrictEqual([one]);
    });

    it('writes false booleans as 0, keeps non-empty variables and filler_config, a null filler_config null', async () => {
      await api().post('/user/assistant', pipelineAssistant({ end_call_on_voicemail: false, variables: { tier: 'gold' }, fillers: true, filler_config: { positive: ['Great!'] } }, api().sim.wire));
      await api().post('/user/assistant', pipelineAssistant({ filler_config: null, llm_temperature: 0, voice_similarity: 1, ambient_sound_volume: 0.25 }, api().sim.wire));
      const first = (await api().get('/user/assistant/1')).body.data;
      expect(first).toMatchObject({ fillers: 1, end_call_on_voicemail: 0, variables: { tier: 'gold' }, filler_config: { positive: ['Great!'] } });
      const second = (await api().get('/user/assistant/2')).body.data;
      expect(second).toMatchObject({ fillers: 0, filler_config: null, llm_temperature: '0.0', voice_similarity: '1.0', ambient_sound_volume: '0.25' });
    });

    it('writes a tiny decimal without exponent notation', async () => {
      await api().post('/user/assistant', pipelineAssistant({ voice_stability: 0.0000001, llm_temperature: 0.00000125 }, api().sim.wire));
      expect((await api().get('/user/assistant/1')).body.data).toMatchObject({ voice_stability: '0.0000001', llm_temperature: '0.00000125' });
    });

    it('keeps endpoint_sensitivity and interrupt_sensitivity numbers', async () => {
      await api().post('/user/assistant', pipelineAssistant({ endpoint_sensitivity: 2, interrupt_sensitivity: 0.3 }, api().sim.wire));
      expect((await api().get('/user/assistant/1')).body.data).toMatchObject({ endpoint_sensitivity: 2, interrupt_sensitivity: 0.3 });
    });

    it('writes a warm transfer tool with all its other fields in data, those left out at their documented defaults (G.2)', async () => {
      const id = await outboundAssistant(api());
      await api().put(`/user/assistant/${id}`, { tools: [{ type: 'warm_call_transfer', supervisor_phone: '+14155550188', outbound_phone_id: 1, description: 'To a human', hold_music: 'none' }] });
      expect((await api().get('/user/assistant/1')).body.data.tools).toStrictEqual([
        {
          type: 'warm_call_transfer',
          data: {
            supervisor_phone: '+14155550188',
            outbound_phone_id: 1,
            description: 'To a human',
            caller_id_mode: 'outbound_number',
            hold_music: 'none',
            hold_message: TOOL_DEFAULTS.holdMessage,
            custom_sip: false,
            custom_caller_id: null,
            hold_music_volume: 80,
            summary_instructions: TOOL_DEFAULTS.summaryInstructions,
            briefing_initial_message: TOOL_DEFAULTS.briefingInitialMessage,
            connected_message: TOOL_DEFAULTS.connectedMessage,
          },
        },
      ]);
    });

    it('gives engine_id 2 and 3 to multimodal and dualplex, transcriber_id null, language the iso_2 code', async () => {
      await api().post('/user/assistant', multimodalAssistant({ language_id: 4 }, api().sim.wire));
      await api().post('/user/assistant', multimodalAssistant({ name: 'Duo', mode: 'dualplex', multimodal_model_id: LIVE_CATALOG.dualplexModel }, api().sim.wire));
      const multimodal = (await api().get('/user/assistant/1')).body.data;
      expect(multimodal).toMatchObject({ engine_id: 2, transcriber_id: null, transcriber_provider_id: null, language: 'es' });
      expect(multimodal.synthesizer_id).toBe(multimodal.synthesizer_provider_id);
      expect((await api().get('/user/assistant/2')).body.data).toMatchObject({ engine_id: 3, language: 'en' });
    });

    it('shows the stored inbound_webhook_url', async () => {
      await api().post('/user/assistant', multimodalAssistant({}, api().sim.wire));
      await api().post('/user/assistants/enable-inbound-webhook', { assistant_id: 1, webhook_url: 'https://hooks.example.test/inbound' });
      expect((await api().get('/user/assistant/1')).body.data.inbound_webhook_url).toBe('https://hooks.example.test/inbound');
      await api().post('/user/assistants/disable-inbound-webhook', { assistant_id: 1 });
      expect((await api().get('/user/assistants')).body[0].inbound_webhook_url).toBeNull();
    });

    it("shows user_id as the owning account's id", async () => {
      api().sim.control.accounts.create({ api_key: SECOND_KEY });
      await api().post('/user/assistant', pipelineAssistant({}, api().sim.wire), { key: SECOND_KEY });
      expect((await api().get('/user/assistant/1', { key: SECOND_KEY })).body.data.user_id).toBe(2);
    });

    it('answers create and update with the unchanged summary record', async () => {
      const created = await api().post('/user/assistant', pipelineAssistant(D3_ASSISTANT, api().sim.wire));
      expect(created.body.data).toStrictEqual({ id: 1, name: 'Sales Assistant', status: 'inactive', type: 'outbound', mode: 'pipeline' });
      const updated = await api().put('/user/assistant/1', { name: 'Renamed' });
      expect(updated.body.data).toStrictEqual({ id: 1, name: 'Renamed', status: 'inactive', type: 'outbound', mode: 'pipeline' });
    });
  },
  LIVE,
);

contract('live D.3 on the default wire: the spec read record is unchanged', (api) => {
  it('answers booleans, numbers, objects and flat tools, without the live-only keys', async () => {
    await api().post('/user/assistant', pipelineAssistant(D3_ASSISTANT, api().sim.wire));
    await api().post('/user/assistants/enable-inbound-webhook', { assistant_id: 1, webhook_url: 'https://hooks.example.test/inbound' });
    const res = await api().get('/user/assistant/1');
    expect(res.body.data).toMatchObject({
      fillers: true,
      end_call_on_voicemail: true,
      llm_temperature: 0.7,
      speech_speed: 1,
      voice_stability: 0.7,
      ambient_sound_volume: 0.5,
      variables: {},
      filler_config: {},
      tools: [
        { type: 'end_call', description: 'Hang up' },
        { type: 'collect_keypad', timeout: 5, stop_key: '#' },
      ],
    });
    for (const key of LIVE_ONLY_KEYS) expect(res.body.data).not.toHaveProperty(key);
    expect(Object.keys(res.body.data).at(-1)).toBe('updated_at');
    expect((await api().get('/user/assistants/get')).body.data).toStrictEqual([res.body.data]);
    expect((await api().get('/user/assistants/outbound')).body).toStrictEqual([res.body.data]);
  });
});

for (const wire of ['spec', 'live'] as const) {
  contract(
    `live D.4 on the ${wire} wire: the update-status balance refusal`,
    (api) => {
      it(wire === 'live' ? 'adds data with the campaign id and its unchanged status' : 'answers message and success only', async () => {
        const campaign = await campaignWithLeads(api(), 1);
        api().sim.control.accounts.patch(1, { balance: 0 });
        const res = await api().post('/user/campaigns/update-status', { campaign_id: campaign, action: 'start' });
        expect(res.status).toBe(400);
        const refusal = { message: 'Insufficient balance to start the campaign. Please top up your account.', success: false };
        expect(res.body).toStrictEqual(wire === 'live' ? { ...refusal, data: { campaign_id: 1, status: 'draft' } } : refusal);
        expect(Object.keys(res.body)).toEqual(wire === 'live' ? ['message', 'success', 'data'] : ['message', 'success']);
      });

      it(wire === 'live' ? 'shows a stopped campaign as stopped in data' : 'keeps other refusals without data', async () => {
        const campaign = await campaignWithLeads(api(), 1);
        await api().post('/user/campaigns/update-status', { campaign_id: campaign, action: 'start' });
        await api().post('/user/campaigns/update-status', { campaign_id: campaign, action: 'stop' });
        api().sim.control.accounts.patch(1, { balance: 0 });
        const res = await api().post('/user/campaigns/update-status', { campaign_id: campaign, action: 'start' });
        const refusal = { message: 'Insufficient balance to start the campaign. Please top up your account.', success: false };
        expect(res.body).toStrictEqual(wire === 'live' ? { ...refusal, data: { campaign_id: 1, status: 'stopped' } } : refusal);
        const stopAgain = await api().post('/user/campaigns/update-status', { campaign_id: campaign, action: 'stop' });
        expect(stopAgain.body).toStrictEqual({ message: 'Campaign is not running.', success: false });
      });
    },
    wire === 'live' ? LIVE : {},
  );
}

interface TextCase {
  name: string;
  run(api: Api): Promise<ApiResponse>;
  status: number;
  spec: Record<string, unknown>;
  live: Record<string, unknown>;
}

const SUMMARY = { id: 1, name: 'Sales Assistant', status: 'inactive', type: 'outbound', mode: 'pipeline' };
const NAME_REQUIRED = { name: ['The name field is required.'] };
const VOICE_INCOMPATIBLE = { voice_id: ['The selected voice is incompatible with the engine mode.'] };
const TEMPERATURE = { llm_temperature: ['The llm temperature must be between 0 and 1.'] };

/** Assistant 1 (outbound, with a number), its campaign 1 and lead 1. */
async function withLead(api: Api): Promise<void> {
  await campaignWithLeads(api, 1);
}

const TEXT_CASES: TextCase[] = [
  // Assistants.
  {
    name: 'assistant create',
    run: (api) => api.post('/user/assistant', pipelineAssistant({}, api.sim.wire)),
    status: 201,
    spec: { message: 'Assistant created successfully.', data: SUMMARY },
    live: { message: 'Assistant created successfully', data: SUMMARY },
  },
  {
    name: 'assistant create refused by the body schema',
    run: (api) => api.post('/user/assistant', pipelineAssistant({ name: undefined }, api.sim.wire)),
    status: 422,
    spec: { message: 'The name field is required.', errors: NAME_REQUIRED },
    live: { message: 'Validation failed', errors: NAME_REQUIRED },
  },
  {
    // Every live voice suits every mode (live-platform G.1, corrected): the live wire breaks the knowledge base rule instead.
    name: 'assistant create refused by a create-time rule',
    run: (api) =>
      api.post('/user/assistant', api.sim.wire === 'live' ? multimodalAssistant({ knowledgebase_mode: 'prompt' }, 'live') : pipelineAssistant({ voice_id: 19 })),
    status: 422,
    spec: { message: 'The selected voice is incompatible with the engine mode.', errors: VOICE_INCOMPATIBLE },
    live: { message: 'Validation failed', errors: { knowledgebase_mode: ['Only function_call mode is available for multimodal assistants.'] } },
  },
  {
    name: 'assistant update',
    run: async (api) => (await api.post('/user/assistant', pipelineAssistant({}, api.sim.wire)), api.put('/user/assistant/1', { name: 'Renamed' })),
    status: 200,
    spec: { message: 'Assistant updated successfully.', data: { ...SUMMARY, name: 'Renamed' } },
    live: { message: 'Assistant updated successfully', data: { ...SUMMARY, name: 'Renamed' } },
  },
  {
    name: 'assistant update refused by the body schema',
    run: async (api) => (await api.post('/user/assistant', pipelineAssistant({}, api.sim.wire)), api.put('/user/assistant/1', { llm_temperature: 2 })),
    status: 422,
    spec: { message: 'The llm temperature must be between 0 and 1.', errors: TEMPERATURE },
    live: { message: 'Validation failed', errors: TEMPERATURE },
  },
  {
    name: 'assistant update refused by an update rule',
    run: async (api) =>
      api.sim.wire === 'live'
        ? (await api.post('/user/assistant', multimodalAssistant({}, 'live')), api.put('/user/assistant/1', { allow_interruptions: false }))
        : (await api.post('/user/assistant', pipelineAssistant()), api.put('/user/assistant/1', { voice_id: 19 })),
    status: 422,
    spec: { message: 'The selected voice is incompatible with the engine mode.', errors: VOICE_INCOMPATIBLE },
    live: { message: 'Validation failed', errors: { allow_interruptions: ['Interruptions cannot be disabled in multimodal or dualplex mode.'] } },
  },
  {
    name: 'assistant update of an unknown id',
    run: (api) => api.put('/user/assistant/99', { name: 'Renamed' }),
    status: 404,
    spec: { message: 'Assistant not found.' },
    live: { message: 'Assistant not found' },
  },
  {
    name: 'assistant get of an unknown id',
    run: (api) => api.get('/user/assistant/99'),
    status: 404,
    spec: { message: 'Assistant not found.' },
    live: { message: 'Assistant not found' },
  },
  {
    name: 'assistant delete',
    run: async (api) => (await api.post('/user/assistant', pipelineAssistant({}, api.sim.wire)), api.del('/user/assistant/1')),
    status: 200,
    spec: { message: 'Assistant deleted successfully.' },
    live: { message: 'Assistant deleted successfully' },
  },
  {
    name: 'assistant delete of an unknown id',
    run: (api) => api.del('/user/assistant/99'),
    status: 404,
    spec: { message: 'Assistant not found.' },
    live: { message: 'Assistant not found or does not belong to the authenticated user' },
  },
  {
    name: 'assistant delete that fails',
    run: async (api) => {
      await api.post('/user/assistant', pipelineAssistant({}, api.sim.wire));
      await api.post('/__sim/faults', { method: 'DELETE', path: '/user/assistant/:id' });
      return api.del('/user/assistant/1');
    },
    status: 500,
    spec: { message: 'Failed to delete assistant.' },
    live: { message: 'Assistant deletion failed' },
  },
  {
    name: 'body switch of an unknown assistant',
    run: (api) => api.post('/user/assistants/disable-webhook', { assistant_id: 99 }),
    status: 404,
    spec: { message: 'Assistant not found.' },
    live: { message: 'Assistant not found' },
  },
  {
    name: 'path switch of an unknown assistant',
    run: (api) => api.post('/assistants/99/disable-conversation-ended-webhook'),
    status: 404,
    spec: { message: 'Assistant not found.' },
    live: { message: 'Assistant not found' },
  },
  // Campaigns.
  {
    name: 'campaign create',
    run: async (api) => {
      await outboundAssistant(api);
      const res = await api.post('/user/campaign', { name: 'Spring', assistant_id: 1 });
      return { ...res, body: { message: res.body.message, name: res.body.data.name } };
    },
    status: 201,
    spec: { message: 'Campaign created successfully.', name: 'Spring' },
    live: { message: 'Campaign created successfully', name: 'Spring' },
  },
  {
    name: 'campaign create through POST /user/campaigns',
    run: async (api) => {
      await outboundAssistant(api);
      const res = await api.post('/user/campaigns', { name: 'Spring', assistant_id: 1 });
      return { ...res, body: { message: res.body.message, name: res.body.data.name } };
    },
    status: 201,
    spec: { message: 'Campaign created successfully.', name: 'Spring' },
    live: { message: 'Campaign created successfully', name: 'Spring' },
  },
  {
    name: 'campaign create over the plan maximum',
    run: async (api) => {
      await outboundAssistant(api);
      api.sim.control.accounts.patch(1, { plan: { max_campaigns: 1 } });
      await api.post('/user/campaign', { name: 'Spring', assistant_id: 1 });
      return api.post('/user/campaigns', { name: 'Summer', assistant_id: 1 });
    },
    status: 403,
    spec: { message: 'You have reached the maximum number of campaigns allowed by your plan (1).' },
    live: { message: 'You have reached the maximum number of campaigns allowed by your plan.' },
  },
  {
    name: 'campaign delete',
    run: async (api) => (await withLead(api), api.del('/user/campaign/1')),
    status: 200,
    spec: { message: 'Campaign deleted successfully.' },
    live: { message: 'Campaign deleted successfully' },
  },
  {
    name: 'campaign delete of an unknown id',
    run: (api) => api.del('/user/campaign/99'),
    status: 404,
    spec: { message: 'Campaign not found.' },
    live: { message: 'Campaign not found' },
  },
  {
    name: 'update-status of an unknown campaign',
    run: (api) => api.post('/user/campaigns/update-status', { campaign_id: 99, action: 'start' }),
    status: 404,
    spec: { message: 'Campaign not found.', success: false },
    live: { message: 'Campaign not found', success: false },
  },
  // Leads.
  {
    name: 'lead create',
    run: async (api) => {
      await outboundAssistant(api);
      await api.post('/user/campaign', { name: 'Spring', assistant_id: 1 });
      const res = await api.post('/user/lead', { campaign_id: 1, phone_number: '+14155552001' });
      return { ...res, body: { message: res.body.message, phone_number: res.body.data.phone_number } };
    },
    status: 200,
    spec: { message: 'Lead created successfully.', phone_number: '+14155552001' },
    live: { message: 'Lead created successfully', phone_number: '+14155552001' },
  },
  ...(['PUT /user/leads/1', 'PUT /leads/1', 'PATCH /user/leads/1'] as const).map(
    (route): TextCase => ({
      name: `lead update through ${route}`,
      run: async (api) => {
        await withLead(api);
        const [method, path] = route.split(' ') as [string, string];
        return api.call(method, path, { variables: { tier: 'gold' } });
      },
      status: 200,
      spec: { message: 'Lead updated successfully.' },
      live: { message: 'Lead successfully updated' },
    }),
  ),
  {
    name: 'lead update of an unknown id',
    run: (api) => api.put('/user/leads/99', { variables: {} }),
    status: 404,
    spec: { message: 'Lead not found.' },
    live: { message: 'Lead not found' },
  },
  {
    name: 'lead delete',
    run: async (api) => (await withLead(api), api.del('/user/leads/1')),
    status: 200,
    spec: { message: 'Lead deleted successfully.' },
    live: { message: 'Lead deleted successfully' },
  },
  {
    name: 'lead delete of an unknown id',
    run: (api) => api.del('/user/leads/99'),
    status: 404,
    spec: { message: 'Lead not found.' },
    live: { message: 'Lead not found' },
  },
  // make_call.
  {
    name: 'make_call',
    run: async (api) => (await outboundAssistant(api), api.post('/user/make_call', { assistant_id: 1, phone_number: '+14155550177' })),
    status: 200,
    spec: { message: 'Call initiated successfully.', call_id: 1, status: 'initiated' },
    live: { message: 'Call initiated successfully', call_id: 1, status: 'initiated' },
  },
  {
    name: 'make_call to a number not in E.164',
    run: async (api) => (await outboundAssistant(api), api.post('/user/make_call', { assistant_id: 1, phone_number: 'not a number' })),
    status: 400,
    spec: { message: 'Invalid phone number. Please provide the number in E.164 format, for example +14155550123.' },
    live: { message: 'Invalid phone number format. Please use E.164 format (e.g. +1234567890)' },
  },
  {
    name: 'make_call of an unknown assistant',
    run: (api) => api.post('/user/make_call', { assistant_id: 99, phone_number: '+14155550177' }),
    status: 404,
    spec: { message: 'Assistant not found.' },
    live: { message: 'Assistant not found or does not belong to the authenticated user' },
  },
  // Calls.
  {
    name: 'call get of an unknown id',
    run: (api) => api.get('/user/calls/99'),
    status: 404,
    spec: { message: 'Call not found.' },
    live: { message: 'Call not found' },
  },
  {
    name: 'call delete',
    run: async (api) => (await calls(api, 1), api.del('/user/calls/1')),
    status: 200,
    spec: { message: 'Call deleted successfully.' },
    live: { message: 'Call deleted successfully' },
  },
  {
    name: 'call delete of an unknown id',
    run: (api) => api.del('/user/calls/99'),
    status: 404,
    spec: { message: 'Call not found.' },
    live: { message: 'Call not found or does not belong to the authenticated user' },
  },
  {
    name: 'call delete of a foreign call',
    run: async (api) => {
      await calls(api, 1);
      api.sim.control.accounts.create({ api_key: SECOND_KEY });
      return api.del('/user/calls/1', { key: SECOND_KEY });
    },
    status: 404,
    spec: { message: 'Call not found.' },
    live: { message: 'Call not found or does not belong to the authenticated user' },
  },
];

for (const wire of ['spec', 'live'] as const) {
  contract(
    `live D.5 on the ${wire} wire: voice message texts`,
    (api) => {
      for (const c of TEXT_CASES) {
        it(`answers the ${wire} text of ${c.name}`, async () => {
          const res = await c.run(api());
          expect(res.status).toBe(c.status);
          expect(res.body).toStrictEqual(c[wire]);
        });
      }
    },
    wire === 'live' ? LIVE : {},
  );
}
