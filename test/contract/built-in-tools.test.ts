/**
 * Built-in tools as the live platform takes them (live-platform G.2), on both wires: the
 * new `assistant_transfer` type, the calendar's `calcom_*` fields beside the spec's names,
 * the warm-transfer and call-transfer extras with their documented defaults; refusals on
 * the item's path with nothing changed.
 */
import { expect, it } from 'vitest';
import { TOOL_DEFAULTS } from '../../src/domain/assistants/schema.js';
import { contract, type Api } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';

const LIVE = { wire: 'live' } as const;
const SECOND_KEY = 'sim_second_key';
const SUPERVISOR = '+14155550188';

/** A sip number of the default account (the warm transfer's outbound_phone_id). */
function addNumber(api: Api): number {
  return api.sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' }).id;
}

const CALENDAR_LIVE = {
  type: 'calendar_integration',
  calcom_api_key: 'cal_live_123',
  calcom_event_slug: 'intro-call',
  calcom_team_slug: 'sales',
  calcom_endpoint: 'eu',
  calcom_booking_fields: [{ slug: 'company', type: 'text', label: 'Company', required: true }],
  description: 'Book a meeting',
};

/** A warm transfer with every live field (live-platform G.2). */
function warmTransfer(numberId: number) {
  return {
    type: 'warm_call_transfer',
    supervisor_phone: SUPERVISOR,
    outbound_phone_id: numberId,
    description: 'Hand over to a supervisor',
    caller_id_mode: 'custom',
    hold_music: 'hold_music',
    hold_message: 'One moment please.',
    custom_sip: false,
    custom_caller_id: '+14155550199',
    hold_music_volume: 60,
    summary_instructions: 'Summarise in one sentence.',
    briefing_initial_message: 'I have a caller for you.',
    connected_message: 'You are connected.',
  };
}

/** The docs' create example (voice 41), its tools including an assistant_transfer to assistant 1 and a warm transfer with every extra field. */
function docsExample(numberId: number) {
  return {
    name: 'Front Desk',
    voice_id: 41,
    language_id: 1,
    type: 'inbound',
    mode: 'pipeline',
    timezone: 'Europe/Berlin',
    initial_message: 'Hello, how can I help?',
    system_prompt: 'You answer calls for the front desk.',
    llm_model_id: 2,
    tools: [
      { type: 'end_call', description: 'End the call when the caller says goodbye.' },
      { type: 'assistant_transfer', assistant_id: 1 },
      warmTransfer(numberId),
      { type: 'call_transfer', phone_number: '+14155550177', timezone: 'Europe/Berlin' },
    ],
  };
}

async function createdId(api: Api, body: Record<string, unknown>, key?: string): Promise<number> {
  const res = await api.post('/user/assistant', body, key === undefined ? {} : { key });
  expect(res.status).toBe(201);
  return res.body.data.id as number;
}

/** Asserts a 422 shape B with exactly `errors` (the live `message` on the live wire) and that nothing changed. */
async function expectRefused(api: Api, send: () => Promise<{ status: number; body: any }>, errors: Record<string, string[]>): Promise<void> {
  const before = api.sim.snapshot().db;
  const res = await send();
  expect(res.status).toBe(422);
  expect(res.body).toStrictEqual({ message: api.sim.wire === 'live' ? 'Validation failed' : Object.values(errors)[0]![0], errors });
  expect(api.sim.snapshot().db).toStrictEqual(before);
}

contract(
  'live G.2: the docs create example on the live wire',
  (api) => {
    it('creates the example with voice 41 and reads its tools back in the live form, defaults filled in', async () => {
      const target = await createdId(api(), pipelineAssistant({ name: 'Billing' }, 'live'));
      const numberId = addNumber(api());
      const id = await createdId(api(), docsExample(numberId));
      const read = (await api().get(`/user/assistant/${id}`)).body.data;
      expect(read.voice_id).toBe(41);
      expect(read.tools).toStrictEqual([
        { type: 'end_call', data: { description: 'End the call when the caller says goodbye.' } },
        {
          type: 'assistant_transfer',
          data: { assistant_id: target, description: 'Transfer the conversation to this assistant when appropriate.', message_before_transfer: null, speak_transfer_greeting: true },
        },
        { type: 'warm_call_transfer', data: { ...warmTransfer(numberId), type: undefined } },
        {
          type: 'call_transfer',
          data: { phone_number: '+14155550177', description: null, custom: false, warm_transfer: false, warm_transfer_message: null, timezone: 'Europe/Berlin' },
        },
      ].map((tool) => JSON.parse(JSON.stringify(tool))));
      // The data of the warm transfer keeps the docs' order: the spec's fields, then the live extras.
      expect(Object.keys(read.tools[2].data)).toEqual([
        'supervisor_phone', 'outbound_phone_id', 'description', 'caller_id_mode', 'hold_music', 'hold_message',
        'custom_sip', 'custom_caller_id', 'hold_music_volume', 'summary_instructions', 'briefing_initial_message', 'connected_message',
      ]);
    });

    it('fills in the documented defaults of a warm transfer and an assistant transfer that give only what is required', async () => {
      await createdId(api(), pipelineAssistant({}, 'live'));
      const numberId = addNumber(api());
      const tools = [
        { type: 'warm_call_transfer', supervisor_phone: SUPERVISOR, outbound_phone_id: numberId, description: 'Escalate' },
        { type: 'assistant_transfer', assistant_id: 1, description: 'x'.repeat(500), message_before_transfer: 'y'.repeat(500), speak_transfer_greeting: false },
      ];
      const id = await createdId(api(), pipelineAssistant({ name: 'Second', tools }, 'live'));
      expect((await api().get(`/user/assistant/${id}`)).body.data.tools).toStrictEqual([
        {
          type: 'warm_call_transfer',
          data: {
            supervisor_phone: SUPERVISOR,
            outbound_phone_id: numberId,
            description: 'Escalate',
            caller_id_mode: 'outbound_number',
            hold_music: 'hold_music',
            hold_message: 'Please hold while I connect you with a supervisor.',
            custom_sip: false,
            custom_caller_id: null,
            hold_music_volume: 80,
            summary_instructions: TOOL_DEFAULTS.summaryInstructions,
            briefing_initial_message: 'Hello! I have a caller on the line who needs your assistance. May I brief you on the situation?',
            connected_message: "You are now connected with a supervisor. I'll leave you to it.",
          },
        },
        { type: 'assistant_transfer', data: { assistant_id: 1, description: 'x'.repeat(500), message_before_transfer: 'y'.repeat(500), speak_transfer_greeting: false } },
      ]);
      expect(TOOL_DEFAULTS.summaryInstructions).toBe(
        'Introduce the conversation from your perspective:\n- WHO is calling (name, company if mentioned)\n- WHY they called (their goal or problem)\n- WHY a human is needed at this point\n\nKeep it brief (2-3 sentences).',
      );
    });

    it('takes a SIP address as supervisor_phone with custom_sip, and refuses it without', async () => {
      const numberId = addNumber(api());
      const sip = { type: 'warm_call_transfer', supervisor_phone: 'sip:desk@pbx.example.test', outbound_phone_id: numberId, description: 'Desk' };
      await expectRefused(api(), () => api().post('/user/assistant', pipelineAssistant({ tools: [sip] }, 'live')), {
        'tools.0.supervisor_phone': ['The tools.0.supervisor phone must be a phone number in E.164 format.'],
      });
      const id = await createdId(api(), pipelineAssistant({ tools: [{ ...sip, custom_sip: true }] }, 'live'));
      expect((await api().get(`/user/assistant/${id}`)).body.data.tools[0].data).toMatchObject({ supervisor_phone: 'sip:desk@pbx.example.test', custom_sip: true });
    });

    it('keeps an assistant transfer whose target was deleted later, as written', async () => {
      await createdId(api(), pipelineAssistant({ name: 'Target' }, 'live'));
      const id = await createdId(api(), pipelineAssistant({ tools: [{ type: 'assistant_transfer', assistant_id: 1 }] }, 'live'));
      expect((await api().del('/user/assistant/1')).status).toBe(200);
      expect((await api().put(`/user/assistant/${id}`, { name: 'Renamed' })).status).toBe(200);
      expect((await api().get(`/user/assistant/${id}`)).body.data.tools[0].data.assistant_id).toBe(1);
    });
  },
  LIVE,
);

for (const wire of ['spec', 'live'] as const) {
  const options = wire === 'live' ? LIVE : {};
  contract(
    `live G.2 on the ${wire} wire: the calendar's two spellings`,
    (api) => {
      it(`accepts the calcom_* fields and answers them ${wire === 'live' ? 'as calcom_* in data' : "under the spec's names"}`, async () => {
        const id = await createdId(api(), pipelineAssistant({ tools: [CALENDAR_LIVE] }, wire));
        const tool = (await api().get(`/user/assistant/${id}`)).body.data.tools[0];
        if (wire === 'live') {
          expect(tool).toStrictEqual({
            type: 'calendar_integration',
            data: {
              calcom_api_key: 'cal_live_123',
              calcom_event_slug: 'intro-call',
              calcom_team_slug: 'sales',
              calcom_endpoint: 'eu',
              calcom_custom_endpoint: null,
              calcom_booking_fields: [{ slug: 'company', type: 'text', label: 'Company', required: true, options: null }],
              description: 'Book a meeting',
            },
          });
        } else {
          expect(tool).toStrictEqual({
            type: 'calendar_integration',
            calendar_api_key: 'cal_live_123',
            calendar_event_slug: 'intro-call',
            calcom_team_slug: 'sales',
            calcom_endpoint: 'eu',
            calcom_booking_fields: [{ slug: 'company', type: 'text', label: 'Company', required: true }],
            description: 'Book a meeting',
          });
        }
      });

      it("accepts the spec's calendar_* names and answers them in the wire's spelling", async () => {
        const id = await createdId(api(), pipelineAssistant({ tools: [{ type: 'calendar_integration', calendar_api_key: 'k1', calendar_event_slug: 'demo' }] }, wire));
        const tool = (await api().get(`/user/assistant/${id}`)).body.data.tools[0];
        expect(tool).toStrictEqual(
          wire === 'live'
            ? { type: 'calendar_integration', data: { calcom_api_key: 'k1', calcom_event_slug: 'demo', calcom_team_slug: null, calcom_endpoint: 'us', calcom_custom_endpoint: null, calcom_booking_fields: [], description: null } }
            : { type: 'calendar_integration', calendar_api_key: 'k1', calendar_event_slug: 'demo' },
        );
      });

      it('names a missing calendar field in the spelling the item uses', async () => {
        await expectRefused(api(), () => api().post('/user/assistant', pipelineAssistant({ tools: [{ type: 'calendar_integration', calcom_api_key: 'k' }] }, wire)), {
          'tools.0.calcom_event_slug': ['The tools.0.calcom event slug field is required.'],
        });
        await expectRefused(api(), () => api().post('/user/assistant', pipelineAssistant({ tools: [{ type: 'calendar_integration', calendar_event_slug: 's' }] }, wire)), {
          'tools.0.calendar_api_key': ['The tools.0.calendar api key field is required.'],
        });
      });

      it('takes calcom_endpoint custom with a calcom_custom_endpoint URL', async () => {
        const tool = { ...CALENDAR_LIVE, calcom_endpoint: 'custom', calcom_custom_endpoint: 'https://cal.example.test/api' };
        expect((await api().post('/user/assistant', pipelineAssistant({ tools: [tool] }, wire))).status).toBe(201);
      });
    },
    options,
  );

  contract(
    `live G.2 on the ${wire} wire: refusals on the item's path, nothing changed`,
    (api) => {
      it('refuses a self-transfer on update', async () => {
        const id = await createdId(api(), pipelineAssistant({}, wire));
        await expectRefused(api(), () => api().put(`/user/assistant/${id}`, { tools: [{ type: 'end_call' }, { type: 'assistant_transfer', assistant_id: id }] }), {
          'tools.1.assistant_id': ['The tools.1.assistant id may not be the assistant itself.'],
        });
      });

      it('refuses a self-transfer on create (the id the new assistant would take)', async () => {
        await expectRefused(api(), () => api().post('/user/assistant', pipelineAssistant({ tools: [{ type: 'assistant_transfer', assistant_id: 1 }] }, wire)), {
          'tools.0.assistant_id': ['The tools.0.assistant id may not be the assistant itself.'],
        });
      });

      it("refuses a foreign target: another account's assistant", async () => {
        api().sim.control.accounts.create({ api_key: SECOND_KEY });
        const foreign = await createdId(api(), pipelineAssistant({}, wire), SECOND_KEY);
        await createdId(api(), pipelineAssistant({}, wire));
        await expectRefused(api(), () => api().put('/user/assistant/2', { tools: [{ type: 'assistant_transfer', assistant_id: foreign }] }), {
          'tools.0.assistant_id': ['The selected tools.0.assistant id is invalid.'],
        });
      });

      it('refuses a missing target and an assistant_transfer without assistant_id', async () => {
        await createdId(api(), pipelineAssistant({}, wire));
        await expectRefused(api(), () => api().put('/user/assistant/1', { tools: [{ type: 'assistant_transfer', assistant_id: 99 }] }), {
          'tools.0.assistant_id': ['The selected tools.0.assistant id is invalid.'],
        });
        await expectRefused(api(), () => api().put('/user/assistant/1', { tools: [{ type: 'assistant_transfer' }] }), {
          'tools.0.assistant_id': ['The tools.0.assistant id field is required.'],
        });
      });

      it('takes hold_music_volume 0 and 100 and refuses 101 and -1', async () => {
        const numberId = addNumber(api());
        const warm = (volume: number) => ({ type: 'warm_call_transfer', supervisor_phone: SUPERVISOR, outbound_phone_id: numberId, description: 'Escalate', hold_music_volume: volume });
        expect((await api().post('/user/assistant', pipelineAssistant({ tools: [warm(0), warm(100)] }, wire))).status).toBe(201);
        await expectRefused(api(), () => api().put('/user/assistant/1', { tools: [warm(50), warm(101)] }), {
          'tools.1.hold_music_volume': ['The tools.1.hold music volume must be between 0 and 100.'],
        });
        await expectRefused(api(), () => api().put('/user/assistant/1', { tools: [warm(-1)] }), {
          'tools.0.hold_music_volume': ['The tools.0.hold music volume must be between 0 and 100.'],
        });
      });

      it('refuses an assistant_transfer description of 501 characters', async () => {
        await createdId(api(), pipelineAssistant({}, wire));
        await expectRefused(api(), () => api().post('/user/assistant', pipelineAssistant({ tools: [{ type: 'assistant_transfer', assistant_id: 1, description: 'x'.repeat(501) }] }, wire)), {
          'tools.0.description': ['The tools.0.description may not be greater than 500 characters.'],
        });
      });

      it('refuses calcom_endpoint custom without calcom_custom_endpoint', async () => {
        await expectRefused(api(), () => api().post('/user/assistant', pipelineAssistant({ tools: [{ ...CALENDAR_LIVE, calcom_endpoint: 'custom' }] }, wire)), {
          'tools.0.calcom_custom_endpoint': ['The tools.0.calcom custom endpoint field is required when calcom endpoint is custom.'],
        });
      });

      it('refuses both calendar spellings with different values', async () => {
        const tool = { type: 'calendar_integration', calendar_api_key: 'a', calcom_api_key: 'b', calcom_event_slug: 'demo' };
        await expectRefused(api(), () => api().post('/user/assistant', pipelineAssistant({ tools: [tool] }, wire)), {
          'tools.0.calcom_api_key': ['The tools.0.calcom api key and calendar api key must match.'],
        });
      });

      it('refuses an unknown tool type', async () => {
        await expectRefused(api(), () => api().post('/user/assistant', pipelineAssistant({ tools: [{ type: 'end_call' }, { type: 'teleport' }] }, wire)), {
          'tools.1.type': ['The selected tools.1.type is invalid.'],
        });
      });

      it('refuses a call_transfer timezone that is no IANA zone', async () => {
        await expectRefused(api(), () => api().post('/user/assistant', pipelineAssistant({ tools: [{ type: 'call_transfer', phone_number: SUPERVISOR, timezone: 'Mars/Olympus' }] }, wire)), {
          'tools.0.timezone': ['The tools.0.timezone must be a valid zone.'],
        });
      });
    },
    options,
  );
}

contract('live G.2 on the spec wire: new tool fields are read back as written', (api) => {
  it('answers an assistant_transfer and the warm transfer extras flat, without defaults added', async () => {
    await createdId(api(), pipelineAssistant());
    const numberId = addNumber(api());
    const tools = [{ type: 'assistant_transfer', assistant_id: 1 }, warmTransfer(numberId)];
    const id = await createdId(api(), pipelineAssistant({ name: 'Second', tools }));
    expect((await api().get(`/user/assistant/${id}`)).body.data.tools).toStrictEqual(tools);
  });

  it('keeps the tools through a snapshot and a restore', async () => {
    await createdId(api(), pipelineAssistant());
    await createdId(api(), pipelineAssistant({ name: 'Second', tools: [{ type: 'assistant_transfer', assistant_id: 1 }, CALENDAR_LIVE] }));
    const saved = api().sim.snapshot();
    api().sim.reset();
    api().sim.restore(saved);
    expect((await api().get('/user/assistant/2')).body.data.tools[1]).toMatchObject({ calendar_api_key: 'cal_live_123', calendar_event_slug: 'intro-call' });
  });
});

contract(
  'live G.2: tools in a scenario given',
  (api) => {
    it('creates given assistants whose tools use calcom_* fields and transfer to another given assistant by ref', async () => {
      const run = await api().sim.loadScenario({
        name: 'tools in given',
        wire: 'live',
        given: {
          assistants: [
            { ref: 'billing', ...pipelineAssistant({ name: 'Billing' }, 'live') },
            { ref: 'front', ...pipelineAssistant({ name: 'Front', tools: [{ type: 'assistant_transfer', assistant_id: '$billing' }, CALENDAR_LIVE] }, 'live') },
          ],
        },
      });
      expect(run.passed).toBe(true);
      const tools = (await api().get('/user/assistant/2')).body.data.tools;
      expect(tools.map((t: { type: string }) => t.type)).toEqual(['assistant_transfer', 'calendar_integration']);
      expect(tools[0].data.assistant_id).toBe(1);
      expect(tools[1].data.calcom_api_key).toBe('cal_live_123');
    });
  },
  LIVE,
);
