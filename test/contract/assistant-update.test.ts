/**
 * PUT /user/assistant/{id} (spec: Update rules; decisions: Mode change in an update,
 * Mode change defaults).
 */
import { expect, it } from 'vitest';
import { ASSISTANT_MESSAGES } from '../../src/domain/assistants/errors.js';
import { contract, type Api } from '../support/api.js';
import { multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';

async function createOne(api: Api, body = pipelineAssistant()): Promise<number> {
  const res = await api.post('/user/assistant', body);
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function read(api: Api, id: number) {
  return (await api.get(`/user/assistant/${id}`)).body.data;
}

contract('update assistant', (api) => {
  it('answers 200 with the update record', async () => {
    const id = await createOne(api());
    const res = await api().put(`/user/assistant/${id}`, { name: 'Renamed' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Assistant updated successfully.', data: { id, name: 'Renamed', status: 'inactive', type: 'outbound', mode: 'pipeline' } });
  });

  it('keeps every omitted field and moves updated_at to the clock', async () => {
    const id = await createOne(api());
    const before = await read(api(), id);
    await api().sim.clock.advance('90m');
    await api().put(`/user/assistant/${id}`, { name: 'Renamed' });
    const after = await read(api(), id);
    expect(after).toEqual({ ...before, name: 'Renamed', updated_at: '2026-03-02T10:30:00.000000Z' });
  });

  it('accepts an empty body and changes nothing but updated_at', async () => {
    const id = await createOne(api());
    const before = await read(api(), id);
    expect((await api().put(`/user/assistant/${id}`, {})).status).toBe(200);
    expect(await read(api(), id)).toEqual(before);
  });

  it.each([
    ['chat_llm_fallback_id', null, 'multimodal'],
    ['turn_detection_threshold', null, 'multimodal'],
    ['knowledgebase_id', null, 'pipeline'],
    ['phone_number_id', null, 'pipeline'],
    ['max_initial_silence_duration', null, 'pipeline'],
    ['reengagement_prompt', null, 'pipeline'],
    ['voice_mail_message', null, 'pipeline'],
    ['min_interrupt_words', null, 'pipeline'],
    ['webhook_url', null, 'pipeline'],
    ['conversation_inactivity_timeout', null, 'pipeline'],
    ['conversation_ended_webhook_url', null, 'pipeline'],
    ['filler_config', null, 'pipeline'],
  ])('clears %s with null', async (field, _null, mode) => {
    const numberId = api().sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550111' }).id;
    const set: Record<string, unknown> = {
      chat_llm_fallback_id: 2,
      turn_detection_threshold: 0.3,
      knowledgebase_id: 1,
      phone_number_id: numberId,
      max_initial_silence_duration: 15,
      reengagement_prompt: 'Still there?',
      voice_mail_message: 'Call us back.',
      min_interrupt_words: 2,
      webhook_url: 'https://crm.example.test/hook',
      conversation_inactivity_timeout: 45,
      conversation_ended_webhook_url: 'https://crm.example.test/ended',
      filler_config: { neutral: ['Okay.'] },
    };
    const id = await createOne(api(), mode === 'pipeline' ? pipelineAssistant({ [field]: set[field] }) : multimodalAssistant({ [field]: set[field] }));
    expect((await read(api(), id))[field]).toEqual(set[field]);
    expect((await api().put(`/user/assistant/${id}`, { [field]: null })).status).toBe(200);
    expect((await read(api(), id))[field]).toBeNull();
  });

  it('sets the providers back to the language default with null', async () => {
    const id = await createOne(api(), pipelineAssistant({ synthesizer_provider_id: 1, transcriber_provider_id: 3 }));
    await api().put(`/user/assistant/${id}`, { synthesizer_provider_id: null, transcriber_provider_id: null });
    expect(await read(api(), id)).toMatchObject({ synthesizer_provider_id: 2, transcriber_provider_id: 2 });
  });

  it.each(['name', 'voice_id', 'type', 'mode', 'record', 'max_duration', 'tools'])('rejects null for %s, which cannot be cleared', async (field) => {
    const id = await createOne(api());
    const res = await api().put(`/user/assistant/${id}`, { [field]: null });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });

  it.each([
    ['secondary_language_ids', [3, 4], [5]],
    ['tool_ids', [1, 2], [3]],
    ['tools', [{ type: 'end_call' }, { type: 'dtmf_input' }], [{ type: 'collect_keypad', timeout: 3 }]],
    ['variables', { a: 1, b: 2 }, { c: 3 }],
    ['post_call_schema', [{ name: 'one', type: 'string', description: 'First' }, { name: 'two', type: 'number', description: 'Second' }], [{ name: 'three', type: 'bool', description: 'Third' }]],
    ['filler_config', { positive: ['Great'], negative: ['Oh no'] }, { question: ['Let me check'] }],
  ])('replaces %s entirely', async (field, first, second) => {
    const id = await createOne(api(), pipelineAssistant({ [field]: first }));
    await api().put(`/user/assistant/${id}`, { [field]: second });
    expect((await read(api(), id))[field]).toEqual(second);
  });

  it.each(['secondary_language_ids', 'tool_ids', 'tools', 'post_call_schema'])('clears %s with an empty array', async (field) => {
    const values: Record<string, unknown> = {
      secondary_language_ids: [3],
      tool_ids: [1],
      tools: [{ type: 'end_call' }],
      post_call_schema: [{ name: 'goal', type: 'bool', description: 'Goal' }],
    };
    const id = await createOne(api(), pipelineAssistant({ [field]: values[field] }));
    await api().put(`/user/assistant/${id}`, { [field]: [] });
    expect((await read(api(), id))[field]).toEqual([]);
  });

  it('resets mode-specific settings to the new mode\'s defaults on a change to multimodal', async () => {
    const id = await createOne(api(), pipelineAssistant({ llm_model_id: 3, transcriber_provider_id: 3, synthesizer_provider_id: 1, fillers: true, knowledgebase_mode: 'prompt', voice_id: 27 }));
    const res = await api().put(`/user/assistant/${id}`, { mode: 'multimodal' });
    expect(res.status).toBe(200);
    expect(await read(api(), id)).toMatchObject({
      mode: 'multimodal',
      llm_model_id: null,
      multimodal_model_id: 6,
      chat_llm_fallback_id: null,
      turn_detection_threshold: null,
      synthesizer_provider_id: 2,
      transcriber_provider_id: null,
      fillers: false,
      knowledgebase_mode: 'function_call',
      allow_interruptions: true,
    });
  });

  it('takes the first dualplex model on a change to dualplex', async () => {
    const id = await createOne(api(), multimodalAssistant({ multimodal_model_id: 7, chat_llm_fallback_id: 2, turn_detection_threshold: 0.2 }));
    await api().put(`/user/assistant/${id}`, { mode: 'dualplex' });
    expect(await read(api(), id)).toMatchObject({ mode: 'dualplex', multimodal_model_id: 9, chat_llm_fallback_id: null, turn_detection_threshold: null });
  });

  it('lets values sent with the mode change win over the defaults', async () => {
    const id = await createOne(api(), pipelineAssistant({ voice_id: 27 }));
    await api().put(`/user/assistant/${id}`, { mode: 'multimodal', multimodal_model_id: 8, turn_detection_threshold: 0.9 });
    expect(await read(api(), id)).toMatchObject({ mode: 'multimodal', multimodal_model_id: 8, turn_detection_threshold: 0.9 });
  });

  it('takes the default LLM and the language providers on a change to pipeline', async () => {
    const id = await createOne(api(), multimodalAssistant({ voice_id: 27 }));
    await api().put(`/user/assistant/${id}`, { mode: 'pipeline' });
    expect(await read(api(), id)).toMatchObject({ mode: 'pipeline', llm_model_id: 1, multimodal_model_id: null, transcriber_provider_id: 2, synthesizer_provider_id: 2 });
  });

  it('rejects a mode change the voice does not suit and keeps the assistant as it was', async () => {
    const id = await createOne(api());
    const before = await read(api(), id);
    const res = await api().put(`/user/assistant/${id}`, { mode: 'multimodal' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ voice_id: [ASSISTANT_MESSAGES.voiceIncompatible] });
    expect(await read(api(), id)).toEqual(before);
  });

  it('rejects a pipeline-only setting on a multimodal assistant', async () => {
    const id = await createOne(api(), multimodalAssistant());
    const res = await api().put(`/user/assistant/${id}`, { llm_model_id: 2, fillers: true, allow_interruptions: false });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      llm_model_id: [ASSISTANT_MESSAGES.pipelineOnly('llm_model_id')],
      fillers: [ASSISTANT_MESSAGES.pipelineOnly('fillers')],
      allow_interruptions: [ASSISTANT_MESSAGES.interruptionsRequired],
    });
  });

  it('moves to the new language\'s default provider when the old one does not speak it', async () => {
    const id = await createOne(api(), pipelineAssistant({ synthesizer_provider_id: 3, transcriber_provider_id: 3 }));
    await api().put(`/user/assistant/${id}`, { language_id: 10 });
    expect(await read(api(), id)).toMatchObject({ language_id: 10, synthesizer_provider_id: 4, transcriber_provider_id: 1 });
  });

  it('keeps a provider that speaks the new language', async () => {
    const id = await createOne(api(), pipelineAssistant({ synthesizer_provider_id: 1, transcriber_provider_id: 1 }));
    await api().put(`/user/assistant/${id}`, { language_id: 12 });
    expect(await read(api(), id)).toMatchObject({ language_id: 12, synthesizer_provider_id: 1, transcriber_provider_id: 1 });
  });

  it('requires a webhook URL when the webhook is switched on', async () => {
    const id = await createOne(api());
    const res = await api().put(`/user/assistant/${id}`, { is_webhook_active: true });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ webhook_url: [ASSISTANT_MESSAGES.webhookUrlRequired] });
  });

  it('refuses to remove the webhook URL of an active webhook', async () => {
    const id = await createOne(api(), pipelineAssistant({ is_webhook_active: true, webhook_url: 'https://crm.example.test/hook' }));
    const res = await api().put(`/user/assistant/${id}`, { webhook_url: null });
    expect(res.status).toBe(422);
    expect((await read(api(), id)).webhook_url).toBe('https://crm.example.test/hook');
  });

  it('lets an inbound assistant keep its own number', async () => {
    const sip = api().sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550112' }).id;
    const id = await createOne(api(), multimodalAssistant({ phone_number_id: sip }));
    expect((await api().put(`/user/assistant/${id}`, { name: 'Front desk', phone_number_id: sip })).status).toBe(200);
  });

  it('refuses a type change to inbound while holding a caller ID number', async () => {
    const callerId = api().sim.control.phoneNumbers.add({ account_id: 1, type: 'caller_id', phone_number: '+14155550113' }).id;
    const id = await createOne(api(), pipelineAssistant({ phone_number_id: callerId }));
    const res = await api().put(`/user/assistant/${id}`, { type: 'inbound' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ phone_number_id: [ASSISTANT_MESSAGES.callerIdInbound] });
    expect((await read(api(), id)).type).toBe('outbound');
  });

  it('answers 404 shape A for a missing assistant', async () => {
    const res = await api().put('/user/assistant/41', { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Assistant not found.' });
  });

  it('validates the body before looking the assistant up', async () => {
    const res = await api().put('/user/assistant/41', { max_duration: 5 });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ max_duration: ['The max duration must be between 20 and 1200.'] });
  });
});
