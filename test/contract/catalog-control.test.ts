/**
 * A catalog of your own (issue 27, docs/catalog.md): `PUT /__sim/catalog` and `GET
 * /__sim/catalog` (and `sim.control.catalog`), the `catalog` option, `given.catalog`,
 * snapshots and reset; a bad document is refused whole with its field's path.
 */
import { describe, expect, it } from 'vitest';
import { CATALOG_MESSAGES } from '../../src/domain/catalog/document.js';
import { createSimulator } from '../../src/simulator.js';
import { contract, KEY, START, type Api } from '../support/api.js';
import { expectRefused, invalid, invalidField, simRefusal } from '../support/expect.js';
import { pipelineAssistant } from '../support/fixtures.js';

/** A voice the wire's catalog does not have (German, ElevenLabs on the live wire / Aurora Speech on the spec wire). */
const MINA = { id: 9001, name: 'Mina', language_id: 5, gender: 'female', preview_url: null, accent: 'Bavarian', age: 'young', synthesizer_provider_id: 1 };
const EXTEND_MINA = { merge: 'extend' as const, voices: [MINA] };

/** Spec catalog providers whose narrowing below leaves every language's default provider speaking it (Aurora is the default of 8, 11 and 14 only; Nimbus of 2; Verbatim of none). */
const AURORA = { id: 1, name: 'Aurora Speech', code: 'aurora' };
const NIMBUS = { id: 3, name: 'Nimbus TTS', code: 'nimbus', language_ids: [1, 2, 3, 4] };
const ECHO = { id: 1, name: 'Echo Transcribe', code: 'echo' };
const VERBATIM = { id: 3, name: 'Verbatim ASR', code: 'verbatim' };
const SECOND_KEY = 'sim_second_key';

/** `PUT /__sim/catalog` with `body` is refused with 422 shape B of `errors`, and nothing changed. */
const putRefused = (api: Api, body: unknown, errors: Record<string, string[]>) => expectRefused(api, () => api.put('/__sim/catalog', body), 422, invalid(errors));

contract('control: PUT and GET /__sim/catalog', (api) => {
  it('answers the wire catalog as a whole document with every implied field', async () => {
    const res = await api().get('/__sim/catalog');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['merge', 'languages', 'voices', 'models', 'synthesizer_providers', 'transcriber_providers']);
    expect(res.body.merge).toBe('replace');
    expect(res.body.voices).toHaveLength(27);
    expect(res.body.voices[0]).toStrictEqual({ id: 1, name: 'Ava', language_id: 1, gender: 'female', preview_url: 'https://cdn.voxsim.test/voices/ava.mp3', accent: 'American', age: 'young', synthesizer_provider_id: 2, modes: ['pipeline'] });
    expect(res.body.languages[0]).toStrictEqual({ id: 1, name: 'English (US)', iso_2: 'en', default_synthesizer_provider_id: 2, default_transcriber_provider_id: 2 });
    expect(res.body.models.dualplex).toStrictEqual([{ id: 9, name: 'Duet 1', code: 'vx-duplex-1' }, { id: 10, name: 'Duet 1 Mini', code: 'vx-duplex-1-mini' }]);
  });

  it('extends the catalog by id: the new voice is listed, filtered and taken by assistant creation', async () => {
    const res = await api().put('/__sim/catalog', EXTEND_MINA);
    expect(res.status).toBe(200);
    // A voice given without modes suits every mode (live-platform G.1, corrected).
    expect(res.body.voices.at(-1)).toStrictEqual({ ...MINA, modes: ['pipeline', 'multimodal', 'dualplex'] });
    const voices = (await api().get('/user/assistants/voices', { query: { language_id: 5 } })).body;
    expect(voices.map((v: { id: number }) => v.id)).toEqual([9, 9001]);
    expect(voices[1]).toStrictEqual(MINA);
    expect((await api().get('/user/assistants/voices', { query: { mode: 'multimodal' } })).body.map((v: { id: number }) => v.id)).toContain(9001);
    const created = await api().post('/user/assistant', pipelineAssistant({ voice_id: 9001, language_id: 5 }));
    expect(created.status).toBe(201);
    expect((await api().get('/user/assistant/1')).body.data).toMatchObject({ voice_id: 9001, synthesizer_provider_id: 4 });
  });

  it('replaces an entry of the same id and keeps the others', async () => {
    await api().put('/__sim/catalog', { merge: 'extend', languages: [{ id: 5, name: 'Deutsch', iso_2: 'de' }] });
    const languages = (await api().get('/user/assistants/languages')).body;
    expect(languages).toHaveLength(14);
    expect(languages[4]).toStrictEqual({ id: 5, name: 'Deutsch', iso_2: 'de' });
  });

  it('replaces a whole table and keeps the tables left out', async () => {
    const models = { llm: [{ id: 40, name: 'House LLM' }], multimodal: [{ id: 1, name: 'House Realtime', code: 'house-rt' }] };
    expect((await api().put('/__sim/catalog', { models })).status).toBe(200);
    expect((await api().get('/user/assistants/models')).body).toStrictEqual([{ id: 40, name: 'House LLM' }]);
    expect((await api().get('/user/assistants/models', { query: { type: 'multimodal' } })).body).toStrictEqual([{ id: 1, name: 'House Realtime', code: 'house-rt' }]);
    expect((await api().get('/user/assistants/models', { query: { type: 'dualplex' } })).body).toHaveLength(2);
    expect((await api().get('/user/assistants/voices')).body).toHaveLength(27);
    expect((await api().post('/user/assistant', pipelineAssistant({ llm_model_id: 40 }))).status).toBe(201);
  });

  it('mirrors the routes in-process: sim.control.catalog.set and get', async () => {
    const answer = api().sim.control.catalog.set(EXTEND_MINA);
    expect(answer).toStrictEqual(api().sim.control.catalog.get());
    expect((await api().get('/__sim/catalog')).body).toStrictEqual(answer);
  });

  it('changes nothing when the document it answered is put back', async () => {
    await api().put('/__sim/catalog', EXTEND_MINA);
    const whole = (await api().get('/__sim/catalog')).text;
    expect((await api().put('/__sim/catalog', JSON.parse(whole))).text).toBe(whole);
  });

  it('refuses an unknown top-level key with the closest key, changing nothing', async () => {
    await putRefused(api(), { voice: [MINA] }, { voice: ['The voice field is not allowed; did you mean voices?'] });
  });

  it('refuses a field of the wrong type on its path', async () => {
    await putRefused(api(), { voices: [{ ...MINA, language_id: 'de' }] }, { 'voices.0.language_id': ['The voices.0.language id must be an integer.'] });
  });

  it('refuses a voice of a language the catalog lacks on its path', async () => {
    await putRefused(api(), { merge: 'extend', voices: [{ ...MINA, language_id: 99 }] }, { 'voices.0.language_id': ['The selected voices.0.language id is no language of the catalog.'] });
  });

  it('refuses an id twice in a table', async () => {
    await putRefused(api(), { voices: [MINA, MINA] }, { 'voices.1.id': ['The voices.1.id has the id of an entry before it (ids are unique in a table).'] });
  });

  it('refuses an id twice in an extending table, where the merge would keep only the last', async () => {
    await putRefused(api(), { merge: 'extend', voices: [MINA, { ...MINA, name: 'Mina Two' }], models: { llm: [{ id: 40, name: 'A' }, { id: 41, name: 'B' }, { id: 40, name: 'C' }] } }, {
      'voices.1.id': ['The voices.1.id has the id of an entry before it (ids are unique in a table).'],
      'models.llm.2.id': ['The models.llm.2.id has the id of an entry before it (ids are unique in a table).'],
    });
  });

  it("takes an extending entry with the id of the wire's own entry: it replaces that entry", async () => {
    const res = await api().put('/__sim/catalog', { merge: 'extend', models: { llm: [{ id: 1, name: 'House LLM' }] } });
    expect(res.status).toBe(200);
    expect(res.body.models.llm.filter((m: { id: number }) => m.id === 1)).toStrictEqual([{ id: 1, name: 'House LLM' }]);
  });

  it("names a kept entry of the wire's catalog that a replaced table leaves without its language", async () => {
    await putRefused(api(), { languages: [{ id: 1, name: 'English', iso_2: 'en' }] }, {
      voices: ["The voices 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 21, 25 kept from the wire's catalog name entries this catalog lacks; give voices too."],
      synthesizer_providers: ["The synthesizer providers 1, 2, 3, 4 kept from the wire's catalog name entries this catalog lacks; give synthesizer_providers too."],
      transcriber_providers: ["The transcriber providers 1, 2, 3 kept from the wire's catalog name entries this catalog lacks; give transcriber_providers too."],
    });
  });

  it('refuses a document that removes ids existing assistants use, naming the assistants', async () => {
    await api().post('/user/assistant', pipelineAssistant());
    await api().post('/user/assistant', pipelineAssistant({ name: 'Second' }));
    const body = { voices: [MINA], models: { llm: [{ id: 40, name: 'House LLM' }] } };
    const before = (await api().get('/__sim/catalog')).text;
    const res = await api().put('/__sim/catalog', { ...body, languages: undefined });
    expect(res.status).toBe(422);
    expect(res.body.errors).toStrictEqual({
      voices: [CATALOG_MESSAGES.inUse('voice', 1, [1, 2])],
      'models.llm': [CATALOG_MESSAGES.inUse('llm model', 1, [1, 2])],
    });
    expect(res.body.errors.voices).toEqual(['The voice 1 is used by assistants 1, 2 and may not be removed.']);
    expect((await api().get('/__sim/catalog')).text).toBe(before);
  });

  it("refuses narrowing a synthesizer's languages under assistants of every account that speak a dropped one, naming them, changing nothing", async () => {
    await api().post('/__sim/accounts', { api_key: SECOND_KEY });
    expect((await api().post('/user/assistant', pipelineAssistant({ language_id: 3, synthesizer_provider_id: 1 }))).status).toBe(201);
    expect((await api().post('/user/assistant', pipelineAssistant({ language_id: 3, synthesizer_provider_id: 1 }), { key: SECOND_KEY })).status).toBe(201);
    const before = (await api().get('/__sim/catalog')).text;
    await putRefused(api(), { merge: 'extend', synthesizer_providers: [{ ...AURORA, language_ids: [1, 8, 11, 14] }] }, {
      'synthesizer_providers.0.language_ids': [CATALOG_MESSAGES.unspoken('synthesizer provider', 1, [1, 2], 3)],
    });
    expect(CATALOG_MESSAGES.unspoken('synthesizer provider', 1, [1, 2], 3)).toBe('The synthesizer provider 1 is used by assistants 1, 2 of language 3 and must keep speaking it.');
    expect((await api().get('/__sim/catalog')).text).toBe(before);
  });

  it("refuses narrowing a pipeline assistant's transcriber's languages, on the entry's path", async () => {
    expect((await api().post('/user/assistant', pipelineAssistant({ language_id: 3, transcriber_provider_id: 3 }))).status).toBe(201);
    const before = (await api().get('/__sim/catalog')).text;
    await putRefused(api(), { merge: 'extend', transcriber_providers: [ECHO, { ...VERBATIM, language_ids: [1, 2] }] }, {
      'transcriber_providers.1.language_ids': ['The transcriber provider 3 is used by assistant 1 of language 3 and must keep speaking it.'],
    });
    expect((await api().get('/__sim/catalog')).text).toBe(before);
  });

  it("refuses a voice whose modes leave out an assistant's mode, on the entry's path", async () => {
    expect((await api().post('/user/assistant', pipelineAssistant())).status).toBe(201);
    const ava = (await api().get('/__sim/catalog')).body.voices[0];
    await putRefused(api(), { merge: 'extend', voices: [{ ...ava, modes: ['dualplex'] }] }, {
      'voices.0.modes': ['The voice 1 is used by assistant 1 in pipeline mode and must keep suiting it.'],
    });
  });

  it('names the table when the entry that stops fitting is one the document leaves to the wire', async () => {
    await api().put('/__sim/catalog', { merge: 'extend', synthesizer_providers: [{ ...NIMBUS, language_ids: [1, 2, 3, 4, 5] }] });
    expect((await api().post('/user/assistant', pipelineAssistant({ language_id: 5, synthesizer_provider_id: 3 }))).status).toBe(201);
    await putRefused(api(), {}, { synthesizer_providers: [CATALOG_MESSAGES.unspoken('synthesizer provider', 3, [1], 5)] });
  });

  it("takes a narrowing that keeps every user's primary language (secondary languages need only exist)", async () => {
    expect((await api().post('/user/assistant', pipelineAssistant({ language_id: 1, secondary_language_ids: [3], synthesizer_provider_id: 1 }))).status).toBe(201);
    const res = await api().put('/__sim/catalog', { merge: 'extend', synthesizer_providers: [{ ...AURORA, language_ids: [1, 8, 11, 14] }] });
    expect(res.status).toBe(200);
    expect(res.body.synthesizer_providers[0]).toStrictEqual({ ...AURORA, language_ids: [1, 8, 11, 14] });
    expect((await api().put('/user/assistant/1', { name: 'Still valid' })).status).toBe(200);
  });

  it('takes a narrowing of a provider no assistant uses', async () => {
    expect((await api().post('/user/assistant', pipelineAssistant({ language_id: 3 }))).status).toBe(201);
    expect((await api().get('/user/assistant/1')).body.data.synthesizer_provider_id).toBe(2);
    const res = await api().put('/__sim/catalog', { merge: 'extend', synthesizer_providers: [{ ...AURORA, language_ids: [1, 8, 11, 14] }] });
    expect(res.status).toBe(200);
    expect((await api().get('/user/assistants/synthesizer-providers', { query: { language_id: 3 } })).body.map((p: { id: number }) => p.id)).toStrictEqual([2, 3]);
  });

  it('goes back to the wire catalog on reset', async () => {
    await api().put('/__sim/catalog', EXTEND_MINA);
    await api().post('/__sim/reset', {});
    expect((await api().get('/user/assistants/voices')).body).toHaveLength(27);
  });

  it('is kept in a snapshot and restored with it', async () => {
    await api().put('/__sim/catalog', EXTEND_MINA);
    const state = (await api().get('/__sim/state')).body;
    expect(state.catalog).toStrictEqual(EXTEND_MINA);
    await api().post('/__sim/reset', {});
    expect((await api().put('/__sim/state', state)).status).toBe(200);
    expect((await api().get('/user/assistants/voices')).body.at(-1)).toStrictEqual(MINA);
  });

  it('refuses a snapshot whose catalog breaks a rule, changing nothing', async () => {
    const state = (await api().get('/__sim/state')).body;
    const res = await api().put('/__sim/state', { ...state, catalog: { merge: 'extend', voices: [{ ...MINA, synthesizer_provider_id: 77 }] } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toStrictEqual({ 'catalog.voices.0.synthesizer_provider_id': ['The snapshot is damaged at catalog.voices.0.synthesizer_provider_id: The selected voices.0.synthesizer provider id is no synthesizer provider of the catalog.'] });
    expect((await api().get('/user/assistants/voices')).body).toHaveLength(27);
  });
});

contract(
  'control: a catalog of your own on the live wire',
  (api) => {
    it('extends the live catalog, and a restart-free reset returns to the option catalog', async () => {
      const voices = (await api().get('/user/assistants/voices')).body.map((v: { id: number }) => v.id);
      expect(voices).toEqual([1, 4, 8, 10, 11, 12, 13, 41, 1994, 9001]);
      await api().put('/__sim/catalog', {});
      expect((await api().get('/user/assistants/voices')).body).toHaveLength(9);
      await api().post('/__sim/reset', {});
      expect((await api().get('/user/assistants/voices')).body).toHaveLength(10);
    });
  },
  { wire: 'live', catalog: EXTEND_MINA },
);

describe('createSimulator({ catalog })', () => {
  it("refuses a document that breaks a rule with PUT /__sim/catalog's SimError, its message naming the option and the field", async () => {
    const option = () => createSimulator({ startAt: START, catalog: { voices: [{ ...MINA, language_id: 99 }] } });
    expect(option).toThrow('catalog.voices.0.language_id: The selected voices.0.language id is no language of the catalog.');
    expect(await simRefusal(option)).toStrictEqual({ status: 422, body: invalidField('voices.0.language_id', 'The selected voices.0.language id is no language of the catalog.') });
  });
});

contract('scenario given.catalog', (api) => {
  it('puts the catalog in force before the assistants that use it', async () => {
    const run = await api().sim.loadScenario({
      name: 'own catalog',
      wire: 'live',
      given: { catalog: EXTEND_MINA, assistants: [{ ref: 'mina', ...pipelineAssistant({ voice_id: 9001, language_id: 5 }, 'live') }] },
    });
    expect(run.passed).toBe(true);
    expect((await api().get('/user/assistant/1')).body.data.voice_id).toBe(9001);
  });

  it('reports a bad catalog at its line in the file', async () => {
    const text = ['name: bad catalog', 'given:', '  catalog:', '    merge: extend', '    voices:', '      - id: 9001', '        name: Mina', '        language_id: 99', '        gender: female', '        preview_url: null', '        accent: null', '        age: null', '        synthesizer_provider_id: 1', ''].join('\n');
    await expect(api().sim.loadScenario(text)).rejects.toThrow('<scenario>:8: given.catalog.voices.0.language_id: The catalog was refused: The selected voices.0.language id is no language of the catalog.');
  });
});

/** A voice of language 12 and synthesizer 4: the spec catalog has both, the live one neither. */
const NOOR = { id: 9002, name: 'Noor', language_id: 12, gender: 'female', preview_url: null, accent: null, age: 'young', synthesizer_provider_id: 4 };
const EXTEND_NOOR = { merge: 'extend' as const, voices: [NOOR] };
/** docs/catalog.md "One document, two wires": EXTEND_NOOR on the live wire. */
const NOOR_ON_LIVE = "The catalog document does not fit the live wire's catalog: voices.0.language_id: The selected voices.0.language id is no language of the catalog.";
const NOOR_REFUSED = invalidField('wire', NOOR_ON_LIVE);

contract(
  'control: a catalog document checked for one wire, reset to another',
  (api) => {
    it('refuses a reset to a wire whose catalog the document does not fit, changing nothing', async () => {
      expect((await api().post('/user/assistant', pipelineAssistant({ voice_id: 9002, language_id: 12 }))).status).toBe(201);
      await expectRefused(api(), () => api().post('/__sim/reset', { wire: 'live' }), 422, NOOR_REFUSED);
      expect(api().sim.wire).toBe('spec');
      expect((await api().get('/user/assistant/1')).body.data).toMatchObject({ id: 1, voice_id: 9002, language_id: 12 });
    });

    it('resets to its own wire with the document', async () => {
      expect((await api().post('/__sim/reset', { wire: 'spec' })).status).toBe(200);
      expect((await api().get('/user/assistants/voices', { query: { language_id: 12 } })).body.map((v: { id: number }) => v.id)).toStrictEqual([16, 9002]);
    });
  },
  { catalog: EXTEND_NOOR },
);

describe('a catalog document on another wire than it was checked for', () => {
  it('refuses sim.reset({ wire }) with the SimError of POST /__sim/reset, changing nothing', async () => {
    const sim = createSimulator({ startAt: START, catalog: EXTEND_NOOR });
    const before = JSON.stringify(sim.snapshot());
    expect(await simRefusal(() => sim.reset({ wire: 'live' }))).toStrictEqual({ status: 422, body: NOOR_REFUSED });
    expect(JSON.stringify(sim.snapshot())).toBe(before);
    expect(sim.wire).toBe('spec');
    expect(sim.catalogs.of('spec').voice(9002)?.name).toBe('Noor');
  });

  it('resets to another wire the document fits, the document applied to that wire', () => {
    const sim = createSimulator({ startAt: START, catalog: EXTEND_MINA });
    sim.reset({ wire: 'live' });
    expect(sim.control.catalog.get().voices.map((v) => v.id)).toEqual([1, 4, 8, 10, 11, 12, 13, 41, 1994, 9001]);
  });

  it('refuses a request answered in a wire the document does not fit where it reads the catalog', async () => {
    const sim = createSimulator({ startAt: START, catalog: EXTEND_NOOR });
    const get = (path: string, wire?: 'live') => sim.handle({ method: 'GET', path, headers: { authorization: `Bearer ${KEY}` }, body: null, ...(wire && { wire }) });
    expect(await get('/user/assistants/voices?language_id=12', 'live')).toStrictEqual({ status: 422, body: NOOR_REFUSED });
    // The simulator's own wire still answers with the document.
    const own = await get('/user/assistants/voices?language_id=12');
    expect(own.status).toBe(200);
    expect((own.body as { id: number }[]).map((v) => v.id)).toStrictEqual([16, 9002]);
  });

  it('answers a request in another wire the document fits with the document applied to that wire', async () => {
    const sim = createSimulator({ startAt: START, catalog: EXTEND_MINA });
    const res = await sim.handle({ method: 'GET', path: '/user/assistants/voices?language_id=5', headers: { authorization: `Bearer ${KEY}` }, body: null, wire: 'live' });
    expect(res).toStrictEqual({ status: 200, body: [
      { id: 13, name: 'Susi', language_id: 5, gender: 'female', preview_url: null, accent: null, age: 'Middle aged', synthesizer_provider_id: 1 },
      { id: 1994, name: 'Christian Plasa', language_id: 5, gender: 'male', preview_url: null, accent: null, age: 'Middle aged', synthesizer_provider_id: 1 },
      MINA,
    ] });
  });
});
