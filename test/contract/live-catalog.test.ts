/**
 * The live catalog (live-platform G.1): under `wire: 'live'` the catalog routes answer, and
 * assistant validation accepts, the live platform's languages, voices, models and providers;
 * the spec wire keeps today's catalog (test/contract/catalog.test.ts).
 */
import { expect, it } from 'vitest';
import { contract } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';

const LIVE = { wire: 'live' } as const;

/** The documented voices, with every field the docs give and the decisions for the rest. */
const DOCUMENTED_VOICES = {
  1: { id: 1, name: 'Alloy', language_id: 1, gender: 'female', preview_url: 'https://cdn.openai.com/API/voice-previews/alloy.flac', accent: null, age: 'Middle aged', synthesizer_provider_id: null },
  10: { id: 10, name: 'Zephyr', language_id: 1, gender: 'female', preview_url: 'https://gstatic.com/aistudio/voices/samples/Zephyr.wav', accent: null, age: 'Middle aged', synthesizer_provider_id: 1 },
  11: { id: 11, name: 'Puck', language_id: 1, gender: 'male', preview_url: 'https://gstatic.com/aistudio/voices/samples/Puck.wav', accent: null, age: 'Middle aged', synthesizer_provider_id: 1 },
  13: { id: 13, name: 'Susi', language_id: 5, gender: 'female', preview_url: null, accent: null, age: 'Middle aged', synthesizer_provider_id: 1 },
  41: { id: 41, name: 'Harry', language_id: 1, gender: 'male', preview_url: null, accent: null, age: 'Middle aged', synthesizer_provider_id: 1 },
  1994: { id: 1994, name: 'Christian Plasa', language_id: 5, gender: 'male', preview_url: null, accent: null, age: 'Middle aged', synthesizer_provider_id: 1 },
};

/** The Famulor Skill's onboarding payload (live-platform G.1): a German pipeline assistant. */
function germanAssistant(voiceId: number) {
  return {
    name: 'Empfang',
    voice_id: voiceId,
    language_id: 5,
    type: 'inbound',
    mode: 'pipeline',
    timezone: 'Europe/Berlin',
    initial_message: 'Guten Tag, wie kann ich helfen?',
    system_prompt: 'Du nimmst Anrufe für die Praxis entgegen.',
    synthesizer_provider_id: 1,
    llm_model_id: 2,
  };
}

const ids = (rows: { id: number }[]) => rows.map((r) => r.id);

contract(
  'live G.1: the catalog routes',
  (api) => {
    it('lists voices 1, 10, 11, 13, 41 and 1994 with the documented fields, in id order', async () => {
      const res = await api().get('/user/assistants/voices');
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual([1, 4, 8, 10, 11, 12, 13, 41, 1994]);
      for (const voice of Object.values(DOCUMENTED_VOICES)) expect(res.body).toContainEqual(voice);
      for (const voice of res.body) expect(Object.keys(voice)).toEqual(['id', 'name', 'language_id', 'gender', 'preview_url', 'accent', 'age', 'synthesizer_provider_id']);
    });

    it('lists every voice for each mode: every live voice suits every mode (G.1, corrected)', async () => {
      for (const mode of ['pipeline', 'multimodal', 'dualplex']) {
        expect(ids((await api().get('/user/assistants/voices', { query: { mode } })).body), mode).toEqual([1, 4, 8, 10, 11, 12, 13, 41, 1994]);
      }
      const english = await api().get('/user/assistants/voices', { query: { mode: 'multimodal', language_id: 1 } });
      expect(ids(english.body)).toEqual([1, 4, 8, 10, 11, 12, 41]);
      expect(english.body[0]).toStrictEqual(DOCUMENTED_VOICES[1]);
    });

    it('filters voices by language: German gives Susi and Christian Plasa', async () => {
      const res = await api().get('/user/assistants/voices', { query: { language_id: 5 } });
      expect(res.body).toStrictEqual([DOCUMENTED_VOICES[13], DOCUMENTED_VOICES[1994]]);
    });

    it('lists the ten documented languages with their iso_2 codes', async () => {
      const res = await api().get('/user/assistants/languages');
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual([
        { id: 1, name: 'English', iso_2: 'en' },
        { id: 2, name: 'Romanian', iso_2: 'ro' },
        { id: 3, name: 'French', iso_2: 'fr' },
        { id: 4, name: 'Spanish', iso_2: 'es' },
        { id: 5, name: 'German', iso_2: 'de' },
        { id: 6, name: 'Lithuanian', iso_2: 'lt' },
        { id: 7, name: 'Italian', iso_2: 'it' },
        { id: 8, name: 'Arabic', iso_2: 'ar' },
        { id: 9, name: 'Portuguese', iso_2: 'pt' },
        { id: 10, name: 'Danish', iso_2: 'da' },
      ]);
    });

    it('lists the LLM models by default and the realtime models, with codes, per type', async () => {
      const realtime = [
        { id: 1, name: 'GPT-4o', code: 'gpt-4o-realtime' },
        { id: 4, name: 'GPT Realtime', code: 'gpt-realtime' },
      ];
      expect((await api().get('/user/assistants/models')).body).toStrictEqual([
        { id: 1, name: 'GPT-4o-mini' },
        { id: 2, name: 'GPT-4.1-mini' },
        { id: 7, name: 'GPT-4o' },
        { id: 12, name: 'Gemini 2.5 Flash Lite' },
      ]);
      expect((await api().get('/user/assistants/models', { query: { type: 'multimodal' } })).body).toStrictEqual(realtime);
      expect((await api().get('/user/assistants/models', { query: { type: 'dualplex' } })).body).toStrictEqual(realtime);
    });

    it('lists the synthesizer providers; filtered by German, ElevenLabs and Cartesia as in the docs', async () => {
      const elevenlabs = { id: 1, name: 'ElevenLabs', code: 'elevenlabs' };
      const cartesia = { id: 3, name: 'Cartesia', code: 'cartesia' };
      expect((await api().get('/user/assistants/synthesizer-providers')).body).toStrictEqual([elevenlabs, { id: 2, name: 'Azure', code: 'azure' }, cartesia]);
      expect((await api().get('/user/assistants/synthesizer-providers', { query: { language_id: 5 } })).body).toStrictEqual([elevenlabs, cartesia]);
    });

    it('lists the transcriber providers Deepgram, Azure and Gladia', async () => {
      expect((await api().get('/user/assistants/transcriber-providers', { query: { language_id: 5 } })).body).toStrictEqual([
        { id: 1, name: 'Deepgram', code: 'deepgram' },
        { id: 2, name: 'Azure', code: 'azure' },
        { id: 3, name: 'Gladia', code: 'gladia' },
      ]);
    });
  },
  LIVE,
);

contract(
  'live G.1: assistants validated against the live catalog',
  (api) => {
    it("creates the Skill's German pipeline assistant with voice 1994, language 5, provider 1 and model 2", async () => {
      const res = await api().post('/user/assistant', germanAssistant(1994));
      expect(res.status).toBe(201);
      expect(res.body).toStrictEqual({ message: 'Assistant created successfully', data: { id: 1, name: 'Empfang', status: 'inactive', type: 'inbound', mode: 'pipeline' } });
      const read = (await api().get('/user/assistant/1')).body.data;
      expect(read).toMatchObject({ voice_id: 1994, language_id: 5, llm_model_id: 2, synthesizer_provider_id: 1, transcriber_provider_id: 1, synthesizer_id: 1, transcriber_id: 1, language: 'de' });
    });

    it('creates the same assistant with voice 13 (Susi)', async () => {
      expect((await api().post('/user/assistant', germanAssistant(13))).status).toBe(201);
      expect((await api().get('/user/assistant/1')).body.data.voice_id).toBe(13);
    });

    it('refuses a voice that only the spec catalog has (27) as invalid, changing nothing', async () => {
      const res = await api().post('/user/assistant', germanAssistant(27));
      expect(res.status).toBe(422);
      expect(res.body).toStrictEqual({ message: 'Validation failed', errors: { voice_id: ['The selected voice id is invalid.'] } });
      expect((await api().get('/user/assistants')).body).toEqual([]);
    });

    it('takes Alloy (no synthesizer) in pipeline and multimodal, and Harry (41, ElevenLabs) in multimodal', async () => {
      const pipeline = await api().post('/user/assistant', pipelineAssistant({ voice_id: 1 }, 'live'));
      expect(pipeline.status).toBe(201);
      expect(pipeline.body.data).toMatchObject({ id: 1, mode: 'pipeline' });
      const realtime = (voice_id: number) => ({ ...pipelineAssistant({ voice_id, mode: 'multimodal', multimodal_model_id: 1 }, 'live'), llm_model_id: undefined });
      expect((await api().post('/user/assistant', realtime(1))).body.data).toMatchObject({ id: 2, mode: 'multimodal' });
      expect((await api().post('/user/assistant', realtime(41))).body.data).toMatchObject({ id: 3, mode: 'multimodal' });
      expect((await api().get('/user/assistant/3')).body.data.voice_id).toBe(41);
    });

    it('moves a pipeline assistant with voice 10 to multimodal without changing its voice', async () => {
      await api().post('/user/assistant', pipelineAssistant({ voice_id: 10 }, 'live'));
      const res = await api().put('/user/assistant/1', { mode: 'multimodal', multimodal_model_id: 1 });
      expect(res.status).toBe(200);
      expect((await api().get('/user/assistant/1')).body.data).toMatchObject({ mode: 'multimodal', voice_id: 10, llm_model_id: null });
    });

    it('keeps model ids per type: LLM 7 exists, multimodal 7 does not', async () => {
      const body = { ...pipelineAssistant({ voice_id: 1, mode: 'multimodal', multimodal_model_id: 7 }, 'live'), llm_model_id: undefined };
      expect((await api().post('/user/assistant', body)).body.errors).toStrictEqual({ multimodal_model_id: ['The selected multimodal model id is invalid.'] });
      expect((await api().post('/user/assistant', pipelineAssistant({ llm_model_id: 7 }, 'live'))).status).toBe(201);
    });

    it('refuses Azure as the synthesizer of a German assistant: it speaks English only', async () => {
      const res = await api().post('/user/assistant', { ...germanAssistant(13), synthesizer_provider_id: 2 });
      expect(res.body.errors).toStrictEqual({ synthesizer_provider_id: ["The selected synthesizer provider does not support the assistant's language."] });
    });
  },
  LIVE,
);

contract(
  'live G.1 extended: a new language is spoken by the providers that speak every language',
  (api) => {
    const elevenlabs = { id: 1, name: 'ElevenLabs', code: 'elevenlabs' };
    const cartesia = { id: 3, name: 'Cartesia', code: 'cartesia' };

    it('lists ElevenLabs and Cartesia (not Azure, English only) and every transcriber for it', async () => {
      expect((await api().get('/user/assistants/synthesizer-providers', { query: { language_id: 11 } })).body).toStrictEqual([elevenlabs, cartesia]);
      expect((await api().get('/user/assistants/transcriber-providers', { query: { language_id: 11 } })).body).toStrictEqual([
        { id: 1, name: 'Deepgram', code: 'deepgram' },
        { id: 2, name: 'Azure', code: 'azure' },
        { id: 3, name: 'Gladia', code: 'gladia' },
      ]);
    });

    it('gives it the first providers that speak it as its defaults', async () => {
      const catalog = (await api().get('/__sim/catalog')).body;
      expect(catalog.languages.at(-1)).toStrictEqual({ id: 11, name: 'Dutch', iso_2: 'nl', default_synthesizer_provider_id: 1, default_transcriber_provider_id: 1 });
      expect(catalog.synthesizer_providers).toStrictEqual([
        { ...elevenlabs, language_ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
        { id: 2, name: 'Azure', code: 'azure', language_ids: [1] },
        { ...cartesia, language_ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
      ]);
    });
  },
  { wire: 'live', catalog: { merge: 'extend', languages: [{ id: 11, name: 'Dutch', iso_2: 'nl' }] } },
);

contract(
  'live G.1 and G.3: a catalog of your own may restrict a voice to some modes, refused with the reference\'s texts',
  (api) => {
    it('lists the restricted voice only for its modes', async () => {
      expect(ids((await api().get('/user/assistants/voices', { query: { mode: 'multimodal' } })).body)).not.toContain(10);
      expect(ids((await api().get('/user/assistants/voices', { query: { mode: 'pipeline' } })).body)).toContain(10);
    });

    it('refuses it on create in another mode with the create page\'s text, changing nothing', async () => {
      const body = { ...pipelineAssistant({ voice_id: 10, mode: 'multimodal', multimodal_model_id: 1 }, 'live'), llm_model_id: undefined };
      const res = await api().post('/user/assistant', body);
      expect(res.status).toBe(422);
      expect(res.body).toStrictEqual({ message: 'Validation failed', errors: { voice_id: ['The selected voice is not compatible with the chosen engine type.'] } });
      expect((await api().get('/user/assistants')).body).toEqual([]);
    });

    it('refuses a move to another mode on update with the update page\'s text, changing nothing', async () => {
      await api().post('/user/assistant', pipelineAssistant({ voice_id: 10 }, 'live'));
      const res = await api().put('/user/assistant/1', { mode: 'dualplex', multimodal_model_id: 1 });
      expect(res.status).toBe(422);
      expect(res.body).toStrictEqual({ message: 'Validation failed', errors: { voice_id: ['The selected voice is not compatible with the selected engine type.'] } });
      expect((await api().get('/user/assistant/1')).body.data).toMatchObject({ mode: 'pipeline', voice_id: 10 });
    });
  },
  { wire: 'live', catalog: { merge: 'extend', voices: [{ id: 10, name: 'Zephyr', language_id: 1, gender: 'female', preview_url: 'https://gstatic.com/aistudio/voices/samples/Zephyr.wav', accent: null, age: 'Middle aged', synthesizer_provider_id: 1, modes: ['pipeline'] }] } },
);

contract('live G.1 on the default wire: the spec catalog is unchanged', (api) => {
  it('refuses voice 1994, which only the live catalog has', async () => {
    const res = await api().post('/user/assistant', germanAssistant(1994));
    expect(res.status).toBe(422);
    expect(res.body.errors.voice_id).toEqual(['The selected voice id is invalid.']);
  });

  it('still lists the 27 fixture voices', async () => {
    expect((await api().get('/user/assistants/voices')).body).toHaveLength(27);
  });
});
