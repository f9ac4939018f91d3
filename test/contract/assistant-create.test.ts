/**
 * POST /user/assistant: success shape, defaults, and every create-time rule
 * (spec: Assistant table, Create-time rules 1-4; decisions: Voices and languages).
 */
import { expect, it } from 'vitest';
import { ASSISTANT_MESSAGES } from '../../src/domain/assistants/errors.js';
import { contract, type Api } from '../support/api.js';
import { CATALOG, multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';

async function create(api: Api, body: Record<string, unknown>) {
  return api.post('/user/assistant', body);
}

async function read(api: Api, id: number) {
  return (await api.get(`/user/assistant/${id}`)).body.data;
}

async function addNumber(api: Api, type: 'sip' | 'caller_id', phone: string, accountId = 1): Promise<number> {
  return api.sim.control.phoneNumbers.add({ account_id: accountId, type, phone_number: phone }).id;
}

function expectInvalid(res: { status: number; body: any }, errors: Record<string, string[]>) {
  expect(res.status).toBe(422);
  expect(res.body.errors).toEqual(errors);
  const all = Object.values(errors).flat();
  const more = all.length - 1;
  expect(res.body.message).toBe(more === 0 ? all[0] : `${all[0]} (and ${more} more error${more === 1 ? '' : 's'})`);
}

const REQUIRED = ['name', 'voice_id', 'language_id', 'type', 'mode', 'timezone', 'initial_message', 'system_prompt'];

contract('create assistant: success', (api) => {
  it('answers 201 with the create record and status inactive', async () => {
    const res = await create(api(), pipelineAssistant());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'Assistant created successfully.',
      data: { id: 1, name: 'Sales Assistant', status: 'inactive', type: 'outbound', mode: 'pipeline' },
    });
  });

  it('stores every default of the Assistant table for a pipeline assistant', async () => {
    await create(api(), pipelineAssistant());
    const data = await read(api(), 1);
    expect(data).toEqual({
      id: 1,
      uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      name: 'Sales Assistant',
      status: 'inactive',
      type: 'outbound',
      mode: 'pipeline',
      voice_id: 1,
      language_id: 1,
      timezone: 'Europe/Berlin',
      initial_message: 'Hello, this is Ava from Acme. Do you have a minute?',
      system_prompt: 'You book product demos for Acme. Be brief and friendly.',
      llm_model_id: 1,
      multimodal_model_id: null,
      chat_llm_fallback_id: null,
      turn_detection_threshold: null,
      secondary_language_ids: [],
      knowledgebase_id: null,
      knowledgebase_mode: 'function_call',
      phone_number_id: null,
      tool_ids: [],
      tools: [],
      voice_stability: 0.7,
      voice_similarity: 0.5,
      speech_speed: 1,
      llm_temperature: 0.1,
      tts_emotion_enabled: true,
      synthesizer_provider_id: 2,
      transcriber_provider_id: 2,
      allow_interruptions: true,
      fillers: false,
      filler_config: null,
      record: false,
      enable_noise_cancellation: true,
      wait_for_customer: false,
      max_duration: 600,
      max_silence_duration: 40,
      max_initial_silence_duration: null,
      ringing_time: 30,
      reengagement_interval: 30,
      reengagement_prompt: null,
      end_call_on_voicemail: true,
      voice_mail_message: null,
      endpoint_type: 'vad',
      endpoint_sensitivity: 0.5,
      interrupt_sensitivity: 0.5,
      min_interrupt_words: null,
      ambient_sound: 'off',
      ambient_sound_volume: 0.5,
      is_webhook_active: false,
      webhook_url: null,
      send_webhook_only_on_completed: true,
      include_recording_in_webhook: true,
      post_call_evaluation: true,
      post_call_schema: [],
      variables: {},
      conversation_inactivity_timeout: 30,
      conversation_ended_retrigger: false,
      conversation_ended_webhook_url: null,
      created_at: '2026-03-02T09:00:00.000000Z',
      updated_at: '2026-03-02T09:00:00.000000Z',
    });
  });

  it('stores a multimodal assistant without pipeline-only settings', async () => {
    await create(api(), multimodalAssistant());
    const data = await read(api(), 1);
    expect(data).toMatchObject({
      mode: 'multimodal',
      type: 'inbound',
      multimodal_model_id: 6,
      llm_model_id: null,
      transcriber_provider_id: null,
      synthesizer_provider_id: 2,
      allow_interruptions: true,
      fillers: false,
    });
  });

  it('stores every optional field as sent', async () => {
    const numberId = await addNumber(api(), 'sip', '+14155550101');
    const body = pipelineAssistant({
      chat_llm_fallback_id: undefined,
      secondary_language_ids: [3, 4],
      knowledgebase_id: 2,
      knowledgebase_mode: 'prompt',
      phone_number_id: numberId,
      tool_ids: [1, 3],
      tools: [{ type: 'end_call', description: 'Hang up when the customer says goodbye' }],
      voice_stability: 0.35,
      voice_similarity: 0.9,
      speech_speed: 1.1,
      llm_temperature: 0.6,
      tts_emotion_enabled: false,
      synthesizer_provider_id: 1,
      transcriber_provider_id: 3,
      allow_interruptions: false,
      fillers: true,
      filler_config: { positive: ['Great!'], question: ['Hmm, let me see.'] },
      record: true,
      enable_noise_cancellation: false,
      wait_for_customer: true,
      max_duration: 900,
      max_silence_duration: 20,
      max_initial_silence_duration: 10,
      ringing_time: 25,
      reengagement_interval: 15,
      reengagement_prompt: 'Are you still there?',
      end_call_on_voicemail: false,
      voice_mail_message: 'Please call us back at your convenience.',
      endpoint_type: 'ai',
      endpoint_sensitivity: 2.5,
      interrupt_sensitivity: 4,
      min_interrupt_words: 3,
      ambient_sound: 'cafe',
      ambient_sound_volume: 0.25,
      is_webhook_active: true,
      webhook_url: 'https://crm.example.test/hooks/calls',
      send_webhook_only_on_completed: false,
      include_recording_in_webhook: false,
      post_call_evaluation: false,
      post_call_schema: [{ name: 'demo_booked', type: 'bool', description: 'Whether a demo was booked' }],
      variables: { company: 'Acme', discount: 15 },
      conversation_inactivity_timeout: 90,
      conversation_ended_retrigger: true,
      conversation_ended_webhook_url: 'https://crm.example.test/hooks/chats',
    });
    delete body.chat_llm_fallback_id;
    const res = await create(api(), body);
    expect(res.status).toBe(201);
    const data = await read(api(), 1);
    for (const [key, value] of Object.entries(body)) expect(data[key], key).toEqual(value);
  });

  it('gives ids from 1 in sequence and a different uuid to each assistant', async () => {
    const a = await create(api(), pipelineAssistant());
    const b = await create(api(), multimodalAssistant());
    expect([a.body.data.id, b.body.data.id]).toEqual([1, 2]);
    expect((await read(api(), 1)).uuid).not.toBe((await read(api(), 2)).uuid);
  });

  it('accepts a voice whose language differs from the assistant language', async () => {
    const res = await create(api(), pipelineAssistant({ voice_id: 3, language_id: 3 }));
    expect(res.status).toBe(201);
  });

  it('accepts UTC and Area/Location/City zones as timezone', async () => {
    expect((await create(api(), pipelineAssistant({ timezone: 'UTC' }))).status).toBe(201);
    expect((await create(api(), pipelineAssistant({ timezone: 'America/Argentina/Buenos_Aires' }))).status).toBe(201);
  });

  it('stores secondary languages without duplicates, the primary allowed', async () => {
    await create(api(), pipelineAssistant({ secondary_language_ids: [1, 3, 3, 4, 1] }));
    expect((await read(api(), 1)).secondary_language_ids).toEqual([1, 3, 4]);
  });

  it('stores variables with a __proto__ key as plain data', async () => {
    const res = await api().post('/user/assistant', undefined, {
      raw: JSON.stringify(pipelineAssistant()).replace(/}$/, ',"variables":{"__proto__":{"polluted":true},"constructor":"x","name":"Ann"}}'),
    });
    expect(res.status).toBe(201);
    const data = await read(api(), 1);
    expect(Object.keys(data.variables).sort()).toEqual(['__proto__', 'constructor', 'name']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads back each built-in tool type as written', async () => {
    const numberId = await addNumber(api(), 'sip', '+14155550102');
    const tools = [
      { type: 'call_transfer', phone_number: '+14155550199', description: 'Transfer to sales', custom: false, warm_transfer: true, warm_transfer_message: 'Connecting you now' },
      { type: 'warm_call_transfer', supervisor_phone: '+14155550198', outbound_phone_id: numberId, description: 'Escalate to a supervisor', caller_id_mode: 'customer_number', hold_music: 'none', hold_message: 'Please hold' },
      { type: 'end_call', description: 'End the call politely' },
      { type: 'dtmf_input', description: 'Press keys in the menu' },
      { type: 'collect_keypad', timeout: 10, stop_key: '*' },
      { type: 'calendar_integration', calendar_api_key: 'cal_live_123', calendar_event_slug: 'demo-30min', description: 'Book a demo' },
    ];
    expect((await create(api(), pipelineAssistant({ tools }))).status).toBe(201);
    expect((await read(api(), 1)).tools).toEqual(tools);
  });
});

contract('create assistant: required fields and types', (api) => {
  it.each(REQUIRED)('rejects a missing %s with "field is required"', async (field) => {
    const body = pipelineAssistant();
    delete body[field];
    expectInvalid(await create(api(), body), { [field]: [`The ${field.replace(/_/g, ' ')} field is required.`] });
    expect(api().sim.db.assistants.size).toBe(0);
  });

  it('lists every missing field of an empty body at once', async () => {
    const res = await create(api(), {});
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(REQUIRED);
    expect(res.body.message).toBe('The name field is required. (and 7 more errors)');
  });

  it.each([
    ['type', 'both', 'The selected type is invalid.'],
    ['mode', 'realtime', 'The selected mode is invalid.'],
    ['knowledgebase_mode', 'vector', 'The selected knowledgebase mode is invalid.'],
    ['endpoint_type', 'manual', 'The selected endpoint type is invalid.'],
    ['ambient_sound', 'beach', 'The selected ambient sound is invalid.'],
    ['timezone', 'Mars/Olympus', 'The timezone must be a valid zone.'],
    ['timezone', 'GMT+1', 'The timezone must be a valid zone.'],
    ['record', 'yes', 'The record field must be true or false.'],
    ['voice_id', 'one', 'The voice id must be an integer.'],
    ['name', 42, 'The name must be a string.'],
    ['secondary_language_ids', 3, 'The secondary language ids must be an array.'],
    ['variables', ['a'], 'The variables must be an object.'],
    ['webhook_url', 'ftp://files.example.test/hook', 'The webhook url format is invalid.'],
    ['conversation_ended_webhook_url', 'not a url', 'The conversation ended webhook url format is invalid.'],
    ['filler_config', { positive: ['x'.repeat(101)] }, 'The filler config.positive.0 may not be greater than 100 characters.'],
  ])('rejects %s = %j', async (field, value, message) => {
    const res = await create(api(), pipelineAssistant({ [field]: value }));
    expect(res.status).toBe(422);
    expect(Object.values(res.body.errors).flat()).toEqual([message]);
  });
});

contract('create assistant: engine mode rules', (api) => {
  it('requires llm_model_id for a pipeline assistant (rule 1)', async () => {
    expectInvalid(await create(api(), pipelineAssistant({ llm_model_id: undefined })), { llm_model_id: [ASSISTANT_MESSAGES.llmModelRequired] });
  });

  it('requires multimodal_model_id for a multimodal assistant (rule 1)', async () => {
    expectInvalid(await create(api(), multimodalAssistant({ multimodal_model_id: undefined })), {
      multimodal_model_id: [ASSISTANT_MESSAGES.multimodalModelRequired],
    });
  });

  it('requires multimodal_model_id for a dualplex assistant (rule 1)', async () => {
    expectInvalid(await create(api(), multimodalAssistant({ mode: 'dualplex', multimodal_model_id: undefined })), {
      multimodal_model_id: [ASSISTANT_MESSAGES.multimodalModelRequired],
    });
  });

  it('accepts a dualplex assistant with a dualplex model and voice', async () => {
    const res = await create(api(), multimodalAssistant({ mode: 'dualplex', voice_id: CATALOG.dualplexOnlyVoice, multimodal_model_id: CATALOG.dualplexModel }));
    expect(res.status).toBe(201);
    expect(res.body.data.mode).toBe('dualplex');
  });

  it('rejects a multimodal model on a dualplex assistant', async () => {
    expectInvalid(await create(api(), multimodalAssistant({ mode: 'dualplex', multimodal_model_id: CATALOG.multimodalModel })), {
      multimodal_model_id: ['The selected multimodal model id is invalid.'],
    });
  });

  it('rejects an llm_model_id that is not an LLM', async () => {
    expectInvalid(await create(api(), pipelineAssistant({ llm_model_id: CATALOG.multimodalModel })), { llm_model_id: ['The selected llm model id is invalid.'] });
  });

  it('rejects an unknown llm_model_id', async () => {
    expectInvalid(await create(api(), pipelineAssistant({ llm_model_id: 999 })), { llm_model_id: ['The selected llm model id is invalid.'] });
  });

  it('rejects a voice incompatible with the pipeline engine', async () => {
    expectInvalid(await create(api(), pipelineAssistant({ voice_id: CATALOG.realtimeVoice })), { voice_id: [ASSISTANT_MESSAGES.voiceIncompatible] });
  });

  it('rejects a dualplex-only voice on a multimodal assistant', async () => {
    expectInvalid(await create(api(), multimodalAssistant({ voice_id: CATALOG.dualplexOnlyVoice })), { voice_id: [ASSISTANT_MESSAGES.voiceIncompatible] });
  });

  it.each(['pipeline', 'multimodal', 'dualplex'])('accepts the all-modes voice in %s mode', async (mode) => {
    const body =
      mode === 'pipeline'
        ? pipelineAssistant({ voice_id: CATALOG.allModesVoice })
        : multimodalAssistant({ mode, voice_id: CATALOG.allModesVoice, multimodal_model_id: mode === 'dualplex' ? CATALOG.dualplexModel : CATALOG.multimodalModel });
    expect((await create(api(), body)).status).toBe(201);
  });

  it('rejects an unknown voice', async () => {
    expectInvalid(await create(api(), pipelineAssistant({ voice_id: 999 })), { voice_id: ['The selected voice id is invalid.'] });
  });

  it('rejects an unknown language and an unknown secondary language', async () => {
    expectInvalid(await create(api(), pipelineAssistant({ language_id: 99, secondary_language_ids: [1, 98] })), {
      language_id: ['The selected language id is invalid.'],
      'secondary_language_ids.1': ['The selected secondary language ids.1 is invalid.'],
    });
  });

  it.each([
    ['llm_model_id', 1],
    ['transcriber_provider_id', 1],
  ])('rejects the pipeline-only %s on a multimodal assistant', async (field, value) => {
    expectInvalid(await create(api(), multimodalAssistant({ [field]: value })), { [field]: [ASSISTANT_MESSAGES.pipelineOnly(field)] });
  });

  it.each([
    ['multimodal_model_id', 6],
    ['chat_llm_fallback_id', 1],
    ['turn_detection_threshold', 0.5],
  ])('rejects the multimodal/dualplex-only %s on a pipeline assistant', async (field, value) => {
    expectInvalid(await create(api(), pipelineAssistant({ [field]: value })), { [field]: [ASSISTANT_MESSAGES.realtimeOnly(field)] });
  });

  it('accepts an LLM fallback and a turn detection threshold on a multimodal assistant', async () => {
    expect((await create(api(), multimodalAssistant({ chat_llm_fallback_id: 2, turn_detection_threshold: 0.4 }))).status).toBe(201);
    expect(await read(api(), 1)).toMatchObject({ chat_llm_fallback_id: 2, turn_detection_threshold: 0.4 });
  });

  it('rejects a fallback that is not an LLM', async () => {
    expectInvalid(await create(api(), multimodalAssistant({ chat_llm_fallback_id: 7 })), { chat_llm_fallback_id: ['The selected chat llm fallback id is invalid.'] });
  });

  it('rejects allow_interruptions false in multimodal mode', async () => {
    expectInvalid(await create(api(), multimodalAssistant({ allow_interruptions: false })), { allow_interruptions: [ASSISTANT_MESSAGES.interruptionsRequired] });
  });

  it('rejects fillers in dualplex mode', async () => {
    expectInvalid(await create(api(), multimodalAssistant({ mode: 'dualplex', multimodal_model_id: 9, fillers: true })), {
      fillers: [ASSISTANT_MESSAGES.pipelineOnly('fillers')],
    });
  });

  it('rejects knowledgebase_mode prompt in multimodal mode and accepts it in pipeline mode', async () => {
    expectInvalid(await create(api(), multimodalAssistant({ knowledgebase_mode: 'prompt' })), { knowledgebase_mode: [ASSISTANT_MESSAGES.knowledgebaseModeFunctionCall] });
    expect((await create(api(), pipelineAssistant({ knowledgebase_mode: 'prompt' }))).status).toBe(201);
  });

  it('selects the language default providers when none is sent', async () => {
    await create(api(), pipelineAssistant({ language_id: 10, voice_id: 14 }));
    expect(await read(api(), 1)).toMatchObject({ synthesizer_provider_id: 4, transcriber_provider_id: 1 });
  });

  it('treats a null provider on create as the language default', async () => {
    await create(api(), pipelineAssistant({ synthesizer_provider_id: null, transcriber_provider_id: null }));
    expect(await read(api(), 1)).toMatchObject({ synthesizer_provider_id: 2, transcriber_provider_id: 2 });
  });

  it('rejects a provider that does not support the language', async () => {
    expectInvalid(await create(api(), pipelineAssistant({ language_id: 10, voice_id: 14, synthesizer_provider_id: 3, transcriber_provider_id: 2 })), {
      synthesizer_provider_id: [ASSISTANT_MESSAGES.providerLanguage('synthesizer')],
      transcriber_provider_id: [ASSISTANT_MESSAGES.providerLanguage('transcriber')],
    });
  });

  it('rejects unknown providers', async () => {
    expectInvalid(await create(api(), pipelineAssistant({ synthesizer_provider_id: 99, transcriber_provider_id: 98 })), {
      synthesizer_provider_id: ['The selected synthesizer provider id is invalid.'],
      transcriber_provider_id: ['The selected transcriber provider id is invalid.'],
    });
  });
});

contract('create assistant: account resources (rules 2 and 3)', (api) => {
  it('accepts an own knowledge base and rejects a foreign one', async () => {
    api().sim.control.accounts.create({ api_key: 'sim_second_key' });
    expect((await create(api(), pipelineAssistant({ knowledgebase_id: 3 }))).status).toBe(201);
    expectInvalid(await create(api(), pipelineAssistant({ knowledgebase_id: 4 })), { knowledgebase_id: ['The selected knowledgebase id is invalid.'] });
  });

  it('rejects a phone number of another account', async () => {
    const other = api().sim.control.accounts.create({ api_key: 'sim_second_key' });
    const foreign = await addNumber(api(), 'sip', '+14155550103', other.id);
    expectInvalid(await create(api(), pipelineAssistant({ phone_number_id: foreign })), { phone_number_id: ['The selected phone number id is invalid.'] });
  });

  it('rejects a caller ID number for an inbound assistant (rule 2)', async () => {
    const callerId = await addNumber(api(), 'caller_id', '+14155550104');
    expectInvalid(await create(api(), multimodalAssistant({ phone_number_id: callerId })), { phone_number_id: [ASSISTANT_MESSAGES.callerIdInbound] });
  });

  it('accepts a caller ID number for an outbound assistant', async () => {
    const callerId = await addNumber(api(), 'caller_id', '+14155550105');
    expect((await create(api(), pipelineAssistant({ phone_number_id: callerId }))).status).toBe(201);
  });

  it('rejects a number already held by another inbound assistant (rule 2)', async () => {
    const sip = await addNumber(api(), 'sip', '+14155550106');
    expect((await create(api(), multimodalAssistant({ phone_number_id: sip }))).status).toBe(201);
    expectInvalid(await create(api(), multimodalAssistant({ name: 'Second line', phone_number_id: sip })), { phone_number_id: [ASSISTANT_MESSAGES.numberTaken] });
  });

  it('lets an outbound assistant share a number held by an inbound assistant', async () => {
    const sip = await addNumber(api(), 'sip', '+14155550107');
    await create(api(), multimodalAssistant({ phone_number_id: sip }));
    expect((await create(api(), pipelineAssistant({ phone_number_id: sip }))).status).toBe(201);
  });

  it('accepts own tools and rejects a foreign tool', async () => {
    api().sim.control.accounts.create({ api_key: 'sim_second_key' });
    expect((await create(api(), pipelineAssistant({ tool_ids: [1, 2, 3] }))).status).toBe(201);
    expectInvalid(await create(api(), pipelineAssistant({ tool_ids: [1, 5] })), { 'tool_ids.1': ['The selected tool ids.1 is invalid.'] });
  });

  it('rejects a repeated tool id', async () => {
    expectInvalid(await create(api(), pipelineAssistant({ tool_ids: [2, 2] })), { 'tool_ids.1': ['The tool ids.1 field has a duplicate value.'] });
  });

  it('accepts as many tools as the plan allows and rejects one more', async () => {
    api().sim.control.accounts.patch(1, { plan: { max_tools: 2 } });
    expect((await create(api(), pipelineAssistant({ tool_ids: [1, 2] }))).status).toBe(201);
    expectInvalid(await create(api(), pipelineAssistant({ tool_ids: [1, 2, 3] })), { tool_ids: ['The tool ids may not have more than 2 items.'] });
  });

  it('rejects a warm transfer whose outbound number is not the account\'s', async () => {
    const tool = { type: 'warm_call_transfer', supervisor_phone: '+14155550198', outbound_phone_id: 77, description: 'Escalate' };
    expectInvalid(await create(api(), pipelineAssistant({ tools: [tool] })), { 'tools.0.outbound_phone_id': ['The selected tools.0.outbound phone id is invalid.'] });
  });
});

contract('create assistant: tools, post-call schema and webhooks', (api) => {
  it.each([
    [{ type: 'teleport' }, { 'tools.0.type': ['The selected tools.0.type is invalid.'] }],
    [{ description: 'no type' }, { 'tools.0.type': ['The tools.0.type field is required.'] }],
    [{ type: 'call_transfer' }, { 'tools.0.phone_number': ['The tools.0.phone number field is required.'] }],
    [{ type: 'call_transfer', phone_number: '555-0199' }, { 'tools.0.phone_number': ['The tools.0.phone number must be a phone number in E.164 format.'] }],
    [
      { type: 'warm_call_transfer' },
      {
        'tools.0.supervisor_phone': ['The tools.0.supervisor phone field is required.'],
        'tools.0.outbound_phone_id': ['The tools.0.outbound phone id field is required.'],
        'tools.0.description': ['The tools.0.description field is required.'],
      },
    ],
    [{ type: 'collect_keypad', stop_key: '0' }, { 'tools.0.stop_key': ['The selected tools.0.stop key is invalid.'] }],
    [
      { type: 'calendar_integration' },
      {
        'tools.0.calendar_api_key': ['The tools.0.calendar api key field is required.'],
        'tools.0.calendar_event_slug': ['The tools.0.calendar event slug field is required.'],
      },
    ],
  ])('rejects the built-in tool %j', async (tool, errors) => {
    expectInvalid(await create(api(), pipelineAssistant({ tools: [tool] })), errors);
  });

  it('rejects a warm transfer with an unknown caller_id_mode', async () => {
    const numberId = await addNumber(api(), 'sip', '+14155550108');
    const tool = { type: 'warm_call_transfer', supervisor_phone: '+14155550198', outbound_phone_id: numberId, description: 'Escalate', caller_id_mode: 'random' };
    expectInvalid(await create(api(), pipelineAssistant({ tools: [tool] })), { 'tools.0.caller_id_mode': ['The selected tools.0.caller id mode is invalid.'] });
  });

  it.each([
    [{ name: 'Goal', type: 'bool', description: 'Goal reached' }, 'post_call_schema.0.name', 'The post call schema.0.name may only contain lowercase letters, numbers and underscores.'],
    [{ name: 'goal', type: 'boolean', description: 'Goal reached' }, 'post_call_schema.0.type', 'The selected post call schema.0.type is invalid.'],
    [{ type: 'bool', description: 'Goal reached' }, 'post_call_schema.0.name', 'The post call schema.0.name field is required.'],
    [{ name: 'goal', type: 'bool' }, 'post_call_schema.0.description', 'The post call schema.0.description field is required.'],
  ])('rejects the post-call schema item %j', async (item, field, message) => {
    expectInvalid(await create(api(), pipelineAssistant({ post_call_schema: [item] })), { [field]: [message] });
  });

  it('rejects two post-call schema items with the same name', async () => {
    const item = { name: 'goal', type: 'bool', description: 'Goal reached' };
    expectInvalid(await create(api(), pipelineAssistant({ post_call_schema: [item, { ...item, type: 'string' }] })), {
      'post_call_schema.1.name': ['The post call schema.1.name field has a duplicate value.'],
    });
  });

  it('requires webhook_url when is_webhook_active is true', async () => {
    expectInvalid(await create(api(), pipelineAssistant({ is_webhook_active: true })), { webhook_url: [ASSISTANT_MESSAGES.webhookUrlRequired] });
    expectInvalid(await create(api(), pipelineAssistant({ is_webhook_active: true, webhook_url: null })), { webhook_url: [ASSISTANT_MESSAGES.webhookUrlRequired] });
  });

  it('stores a webhook URL without activating the webhook', async () => {
    expect((await create(api(), pipelineAssistant({ webhook_url: 'http://localhost:3000/hook' }))).status).toBe(201);
    expect(await read(api(), 1)).toMatchObject({ is_webhook_active: false, webhook_url: 'http://localhost:3000/hook' });
  });
});

contract('create assistant: a rejected create changes nothing', (api) => {
  it('consumes no id and no random draw', async () => {
    expect((await create(api(), pipelineAssistant({ voice_id: 999 }))).status).toBe(422);
    expect((await create(api(), {})).status).toBe(422);
    expect(api().sim.db.assistants.size).toBe(0);
    expect(api().sim.db.assistants.nextId).toBe(1);
    const res = await create(api(), pipelineAssistant());
    expect(res.body.data.id).toBe(1);
    const { createSimulator } = await import('../../src/simulator.js');
    const fresh = createSimulator({ seed: 1, startAt: '2026-03-02T09:00:00Z' });
    await fresh.handle({ method: 'POST', path: '/user/assistant', headers: { authorization: 'Bearer sim_test_key' }, body: JSON.stringify(pipelineAssistant()) });
    expect((await read(api(), 1)).uuid).toBe(fresh.db.assistants.get(1)!.uuid);
  });

  it('keeps the other account\'s data untouched and invisible', async () => {
    api().sim.control.accounts.create({ api_key: 'sim_second_key' });
    await create(api(), pipelineAssistant());
    const other = await api().get('/user/assistants/get', { key: 'sim_second_key' });
    expect(other.body).toEqual({ data: [], current_page: 1, per_page: 10, total: 0, last_page: 1 });
  });
});
