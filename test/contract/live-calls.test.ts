/**
 * Calls as the reference documents them (live-platform H.1 built-in evaluation variables,
 * H.2 the post-call payload, H.8 prompt variables), on both transports.
 */
import { expect, it } from 'vitest';
import { contract, type Api } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';

/** Deliveries answered in-process: the payloads are read from the journal, and no test waits on a receiver that does not exist. */
const QUIET = { deliver: async () => ({ status: 200, body: '', duration_ms: 0 }) };
const LIVE = { wire: 'live', ...QUIET } as const;
const CALLER = '+14155550100';
const HOOK = 'https://hooks.example.test/calls';
const STATUS_ITEM = { name: 'status', type: 'bool', description: 'Whether the call objective was achieved or not.' };
const SUMMARY_ITEM = { name: 'summary', type: 'string', description: 'Call summary in a few words.' };
/** `YYYY-MM-DDTHH:MM:SSZ` (live-platform H.2). */
const ZULU = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** An outbound assistant with a caller number and an active post-call webhook for every call; answers its id. */
async function assistant(api: Api, overrides: Record<string, unknown> = {}): Promise<number> {
  const number = api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: CALLER }).id;
  const res = await api.post(
    '/user/assistant',
    pipelineAssistant({ phone_number_id: number, is_webhook_active: true, webhook_url: HOOK, send_webhook_only_on_completed: false, ...overrides }, api.sim.wire),
  );
  expect(res.status).toBe(201);
  return res.body.data.id as number;
}

/** Places one call and lets it end; answers the call as GET /user/calls/{id} shows it and its post-call payload. */
async function oneCall(api: Api, assistantId: number, phone: string, variables?: Record<string, unknown>) {
  const made = await api.post('/user/make_call', { assistant_id: assistantId, phone_number: phone, ...(variables && { variables }) });
  expect(made.status).toBe(200);
  await api.sim.clock.runUntilIdle();
  const calls = (await api.get('/user/calls')).body.data as { id: number }[];
  const id = Math.max(...calls.map((c) => c.id));
  const call = (await api.get(`/user/calls/${id}`)).body;
  const delivery = api.sim.control.webhooks.deliveries({ kind: 'post_call' }).data.find((d) => (d.payload as { id: number }).id === id);
  return { call, payload: delivery?.payload as Record<string, any> | undefined };
}

contract(
  'live H.1: built-in status and summary',
  (api) => {
    it('shows a human call on an assistant with no schema with evaluation [status, summary] and status true, in variables and the payload too', async () => {
      const id = await assistant(api());
      const { call, payload } = await oneCall(api(), id, '+14155550123');
      expect(call.status).toBe('completed');
      const summary = call.evaluation[1].value as string;
      expect(summary).toMatch(/^The customer answered and the goal was met after (\d+ min )?\d+ s\.$|^The customer answered and the goal was met after \d+ min\.$/);
      expect(call.evaluation).toStrictEqual([
        { ...STATUS_ITEM, value: true },
        { ...SUMMARY_ITEM, value: summary },
      ]);
      expect(call.variables).toStrictEqual({ status: true, summary });
      expect(payload!.extracted_variables).toStrictEqual({ status: true, summary });
    });

    it('gives a voicemail call status false, and says voicemail answered', async () => {
      const id = await assistant(api());
      const { call, payload } = await oneCall(api(), id, '+14155550003');
      expect(call).toMatchObject({ status: 'ended', answered_by: 'machine' });
      expect(call.evaluation.map((e: { name: string; value: unknown }) => [e.name, e.value])).toStrictEqual([
        ['status', false],
        ['summary', `Voicemail answered and the call ended after ${call.duration} s.`],
      ]);
      expect(payload!.extracted_variables).toStrictEqual({ status: false, summary: `Voicemail answered and the call ended after ${call.duration} s.` });
    });

    it('gives a busy call status false and a summary without a length', async () => {
      const id = await assistant(api());
      const { call, payload } = await oneCall(api(), id, '+14155550001');
      expect(call.status).toBe('busy');
      expect(payload!.extracted_variables).toStrictEqual({ status: false, summary: 'Nobody answered and the line was busy.' });
      expect(call.evaluation[0]).toStrictEqual({ ...STATUS_ITEM, value: false });
    });

    it('lists the built-ins first, before the schema items, a schema item of the same name replacing the type and description', async () => {
      const schema = [
        { name: 'booked', type: 'bool', description: 'Booked a demo' },
        { name: 'summary', type: 'string', description: 'What was agreed' },
      ];
      const id = await assistant(api(), { post_call_schema: schema });
      const { call, payload } = await oneCall(api(), id, '+14155550123');
      expect(call.evaluation.map((e: { name: string }) => e.name)).toStrictEqual(['status', 'summary', 'booked']);
      expect(call.evaluation[1]).toMatchObject({ name: 'summary', type: 'string', description: 'What was agreed' });
      expect(call.evaluation[2]).toStrictEqual({ name: 'booked', type: 'bool', value: true, description: 'Booked a demo' });
      expect(Object.keys(payload!.extracted_variables)).toStrictEqual(['status', 'summary', 'booked']);
    });

    it("takes an outcome script's variables and evaluation over the built-ins", async () => {
      const id = await assistant(api());
      await api().put('/__sim/outcomes', {
        rules: [{ match: {}, outcomes: [{ kind: 'human', variables: { status: false, topic: 'pricing' }, evaluation: { summary: 'Asked about pricing.' } }] }],
      });
      const { call, payload } = await oneCall(api(), id, '+14155550123');
      expect(call.variables).toStrictEqual({ status: false, summary: expect.any(String), topic: 'pricing' });
      expect(call.evaluation).toStrictEqual([
        { ...STATUS_ITEM, value: true },
        { ...SUMMARY_ITEM, value: 'Asked about pricing.' },
      ]);
      expect(payload!.extracted_variables).toStrictEqual(call.variables);
    });

    it('accepts goal_completion_variable "status" without a schema item, and still refuses an unknown name', async () => {
      const id = await assistant(api());
      const ok = await api().post('/user/campaign', { name: 'Spring', assistant_id: id, goal_completion_variable: 'status' });
      expect(ok.status).toBe(201);
      expect(api().sim.db.campaigns.get(ok.body.data.id as number)!.goal_completion_variable).toBe('status');
      const bad = await api().post('/user/campaign', { name: 'Summer', assistant_id: id, goal_completion_variable: 'booked' });
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.errors)).toStrictEqual(['goal_completion_variable']);
    });

    it('completes a lead whose call met the goal with goal "status" and retry_on_goal_incomplete, and retries one that did not', async () => {
      const id = await assistant(api());
      const campaign = (await api().post('/user/campaign', { name: 'Spring', assistant_id: id, goal_completion_variable: 'status', retry_on_goal_incomplete: true, max_retries: 1, retry_interval: 10 }))
        .body.data.id as number;
      await api().post('/user/lead', { campaign_id: campaign, phone_number: '+14155550123' });
      await api().post('/user/lead', { campaign_id: campaign, phone_number: '+14155550005' });
      expect((await api().post('/user/campaigns/update-status', { campaign_id: campaign, action: 'start' })).status).toBe(200);
      await api().sim.clock.runUntilIdle();
      const calls = (await api().get('/user/calls?per_page=50')).body.data as { client_phone_number: string }[];
      expect(calls.filter((c) => c.client_phone_number === '+14155550123')).toHaveLength(1);
      // goal-incomplete: status false, so the lead is retried once (max_retries 1).
      expect(calls.filter((c) => c.client_phone_number === '+14155550005')).toHaveLength(2);
    });
  },
  LIVE,
);

contract('H.1 on the default wire: no built-ins, the goal variable as before', (api) => {
  it('keeps evaluation and variables as stored and refuses goal_completion_variable "status" without a schema item', async () => {
    const id = await assistant(api());
    const { call, payload } = await oneCall(api(), id, '+14155550123');
    expect(call.variables).toStrictEqual({});
    expect(call.evaluation).toStrictEqual({});
    expect(payload!.extracted_variables).toStrictEqual({});
    const res = await api().post('/user/campaign', { name: 'Spring', assistant_id: id, goal_completion_variable: 'status' });
    expect(res.status).toBe(422);
  });
}, QUIET);

contract(
  'live H.2: the post-call payload field for field',
  (api) => {
    it("has every field of the reference's example in its order, the lead's and campaign's documented fields, no total_cost, times ending in Z", async () => {
      const id = await assistant(api(), { include_recording_in_webhook: true, record: true });
      const campaign = (await api().post('/user/campaign', { name: 'Spring', assistant_id: id, allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] })).body.data.id as number;
      await api().post('/user/lead', { campaign_id: campaign, phone_number: '+14155550123', variables: { customer_name: 'Max' } });
      await api().post('/user/campaigns/update-status', { campaign_id: campaign, action: 'start' });
      await api().sim.clock.runUntilIdle();
      const payload = api().sim.control.webhooks.deliveries({ kind: 'post_call' }).data[0]!.payload as Record<string, any>;
      expect(Object.keys(payload)).toStrictEqual([
        'id',
        'customer_phone',
        'assistant_phone',
        'duration',
        'status',
        'extracted_variables',
        'input_variables',
        'transcript',
        'recording_url',
        'created_at',
        'finished_at',
        'lead',
        'campaign',
      ]);
      expect(payload).not.toHaveProperty('total_cost');
      expect(payload).toMatchObject({ id: 1, customer_phone: '+14155550123', assistant_phone: CALLER, status: 'completed', input_variables: { customer_name: 'Max' } });
      expect(payload.created_at).toBe('2026-03-02T09:00:00Z');
      expect(payload.finished_at).toMatch(ZULU);
      expect(Object.keys(payload.lead)).toStrictEqual(['id', 'phone_number', 'variables', 'status', 'created_at', 'updated_at']);
      expect(payload.lead).toMatchObject({ id: 1, phone_number: '+14155550123', variables: { customer_name: 'Max' }, status: 'completed', created_at: '2026-03-02T09:00:00Z' });
      expect(payload.lead.updated_at).toMatch(ZULU);
      expect(payload.campaign).toStrictEqual({
        id: campaign,
        name: 'Spring',
        status: 'completed',
        allowed_hours_start_time: '00:00:00',
        allowed_hours_end_time: '23:59:00',
        allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
        max_calls_in_parallel: 3,
        max_retries: 3,
        retry_interval: 60,
        created_at: '2026-03-02T09:00:00Z',
        updated_at: expect.stringMatching(ZULU),
      });
    });

    it('leaves recording_url out without include_recording_in_webhook and gives null lead and campaign for a single call', async () => {
      const id = await assistant(api(), { include_recording_in_webhook: false });
      const { payload } = await oneCall(api(), id, '+14155550123');
      expect(Object.keys(payload!)).toStrictEqual(['id', 'customer_phone', 'assistant_phone', 'duration', 'status', 'extracted_variables', 'input_variables', 'transcript', 'created_at', 'finished_at', 'lead', 'campaign']);
      expect(payload).toMatchObject({ lead: null, campaign: null });
    });
  },
  LIVE,
);

contract('H.2 on the default wire: the post-call payload as before', (api) => {
  it('keeps total_cost, the offset times and the short lead and campaign', async () => {
    const id = await assistant(api());
    const { payload } = await oneCall(api(), id, '+14155550123');
    expect(payload).toHaveProperty('total_cost');
    expect(payload!.created_at).toBe('2026-03-02T10:00:00+01:00');
  });
}, QUIET);

for (const wire of ['spec', 'live'] as const) {
  contract(
    `H.8 prompt variables [${wire} wire]`,
    (api) => {
      it('greets with the call variable in single braces and the system variables in double braces', async () => {
        const id = await assistant(api(), { initial_message: 'Hallo {customer_name}, hier ist {{assistant_name}} am {{current_date}}.' });
        const { call } = await oneCall(api(), id, '+14155550123', { customer_name: 'Max' });
        const first = wire === 'live' ? call.transcript[0].text : (call.transcript as string).split('\n')[0];
        expect(first).toBe(wire === 'live' ? 'Hallo Max, hier ist Sales Assistant am 2026-03-02.' : 'Assistant: Hallo Max, hier ist Sales Assistant am 2026-03-02.');
      });

      it('fills the phones, the uuid and the time (Berlin, at the start), lets a system name win in double braces and keeps unknown names as written', async () => {
        const id = await assistant(api(), {
          initial_message: '{{customer_phone}} {{assistant_phone}} {{assistant_id}} {{current_time}} {{assistant_name}}/{assistant_name} {{nobody}} {nobody} {{customer_name}}',
        });
        const uuid = (await api().get(`/user/assistant/${id}`)).body.data.uuid as string;
        await api().sim.clock.advance('90m');
        const { call } = await oneCall(api(), id, '+14155550123', { assistant_name: 'Someone', customer_name: 'Max' });
        const first = wire === 'live' ? call.transcript[0].text : (call.transcript as string).split('\n')[0]!.replace(/^Assistant: /, '');
        // 10:30 UTC is 11:30 in Berlin.
        expect(first).toBe(`+14155550123 ${CALLER} ${uuid} 11:30 Sales Assistant/Someone {{nobody}} {nobody} Max`);
      });

      it('fills the voicemail message', async () => {
        const id = await assistant(api(), { voice_mail_message: 'Bitte ruf {{assistant_phone}} zurück, {customer_name}.' });
        const { call } = await oneCall(api(), id, '+14155550003', { customer_name: 'Max' });
        const last = wire === 'live' ? call.transcript.at(-1).text : (call.transcript as string).split('\n').at(-1);
        expect(last).toBe(wire === 'live' ? `Bitte ruf ${CALLER} zurück, Max.` : `Assistant: Bitte ruf ${CALLER} zurück, Max.`);
      });
    },
    { wire, ...QUIET },
  );
}
