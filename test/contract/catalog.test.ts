/**
 * The catalog routes (decisions: Routes the specification names without a path —
 * Voices, Languages, Models, providers, Numbers eligible for an assistant, Knowledge
 * bases, Custom mid-call tools). Expected values are computed from fixtures/*.json.
 */
import { expect, it } from 'vitest';
import knowledgebasesJson from '../../fixtures/knowledgebases.json' with { type: 'json' };
import languagesJson from '../../fixtures/languages.json' with { type: 'json' };
import modelsJson from '../../fixtures/models.json' with { type: 'json' };
import synthesizersJson from '../../fixtures/synthesizer-providers.json' with { type: 'json' };
import toolsJson from '../../fixtures/tools.json' with { type: 'json' };
import transcribersJson from '../../fixtures/transcriber-providers.json' with { type: 'json' };
import voicesJson from '../../fixtures/voices.json' with { type: 'json' };
import { contract, type Api } from '../support/api.js';
import { CATALOG, multimodalAssistant, pipelineAssistant } from '../support/fixtures.js';

/** Creation time of everything the default account starts with (the clock's START). */
const CREATED_AT = '2026-03-02T09:00:00.000000Z';
const SECOND_KEY = 'sim_second_key';

type FixtureVoice = (typeof voicesJson)[number];
type FixtureProvider = (typeof synthesizersJson)[number];

/** A voice as the wire shows it: every fixture field except the internal `modes`. */
function wireVoice({ modes: _modes, ...voice }: FixtureVoice) {
  return voice;
}

function voicesWhere(keep: (v: FixtureVoice) => boolean) {
  return voicesJson.filter(keep).map(wireVoice);
}

function wireProvider({ id, name, code }: FixtureProvider) {
  return { id, name, code };
}

/** The knowledge bases an account starts with, numbered from `firstId`. */
function startingKnowledgebases(firstId: number, createdAt = CREATED_AT) {
  return knowledgebasesJson.map((kb, i) => ({ id: firstId + i, ...kb, assistants_count: 0, created_at: createdAt, updated_at: createdAt }));
}

/** The tools an account starts with, numbered from `firstId`. */
function startingTools(firstId: number, createdAt = CREATED_AT) {
  return toolsJson.map((tool, i) => ({ id: firstId + i, ...tool, created_at: createdAt, updated_at: createdAt }));
}

/** A second account (its knowledge bases and tools get ids 4-6). */
function createSecondAccount(api: Api) {
  return api.sim.control.accounts.create({ name: 'Second Co', email: 'ops@second.test', api_key: SECOND_KEY });
}

async function addNumber(api: Api, type: 'sip' | 'caller_id', phone_number: string, account_id = 1): Promise<number> {
  const res = await api.post('/__sim/phone-numbers', { account_id, type, phone_number });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

async function createAssistant(api: Api, body: Record<string, unknown>): Promise<number> {
  const res = await api.post('/user/assistant', body);
  expect(res.status).toBe(201);
  return res.body.data.id as number;
}

contract('catalog: voices', (api) => {
  it('lists every voice with the wire fields and without the internal modes', async () => {
    const res = await api().get('/user/assistants/voices');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(voicesJson.map(wireVoice));
    expect(res.body).toHaveLength(27);
    for (const voice of res.body) expect(voice).not.toHaveProperty('modes');
  });

  it('lists only the voices that suit the pipeline mode', async () => {
    const res = await api().get('/user/assistants/voices', { query: { mode: 'pipeline' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(voicesWhere((v) => v.modes.includes('pipeline')));
    expect(res.body.map((v: { id: number }) => v.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 27]);
  });

  it('lists only the voices that suit the multimodal mode', async () => {
    const res = await api().get('/user/assistants/voices', { query: { mode: 'multimodal' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(voicesWhere((v) => v.modes.includes('multimodal')));
    expect(res.body.map((v: { id: number }) => v.id)).toEqual([19, 20, 21, 22, 23, 24, 27]);
  });

  it('lists only the voices that suit the dualplex mode', async () => {
    const res = await api().get('/user/assistants/voices', { query: { mode: 'dualplex' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(voicesWhere((v) => v.modes.includes('dualplex')));
    expect(res.body.map((v: { id: number }) => v.id)).toEqual([19, 20, 21, 22, 25, 26, 27]);
  });

  it('lists only the voices of a language', async () => {
    const res = await api().get('/user/assistants/voices', { query: { language_id: 2 } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(voicesWhere((v) => v.language_id === 2));
    expect(res.body.map((v: { id: number }) => v.id)).toEqual([3, 4, 21, 25]);
  });

  it('applies the mode and the language together', async () => {
    const res = await api().get('/user/assistants/voices', { query: { mode: 'dualplex', language_id: 2 } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(voicesWhere((v) => v.modes.includes('dualplex') && v.language_id === 2));
    expect(res.body.map((v: { id: number }) => v.id)).toEqual([21, 25]);
  });

  it('answers an empty array for a language without voices', async () => {
    const res = await api().get('/user/assistants/voices', { query: { language_id: 999 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('rejects an unknown mode with 422 shape B on mode', async () => {
    const res = await api().get('/user/assistants/voices', { query: { mode: 'bogus' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected mode is invalid.', errors: { mode: ['The selected mode is invalid.'] } });
  });

  it('rejects a language id that is not an integer with 422 shape B on language_id', async () => {
    const res = await api().get('/user/assistants/voices', { query: { language_id: 'abc' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The language id must be an integer.', errors: { language_id: ['The language id must be an integer.'] } });
  });

  it('rejects a fractional language id with 422 shape B on language_id', async () => {
    const res = await api().get('/user/assistants/voices', { query: { language_id: '1.5' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ language_id: ['The language id must be an integer.'] });
  });
});

contract('catalog: languages', (api) => {
  it('lists every language as {id, name, iso_2}', async () => {
    const res = await api().get('/user/assistants/languages');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(languagesJson.map(({ id, name, iso_2 }) => ({ id, name, iso_2 })));
  });

  it('offers at least ten languages, English (US) first', async () => {
    const res = await api().get('/user/assistants/languages');
    expect(res.body.length).toBeGreaterThanOrEqual(10);
    expect(res.body[0]).toStrictEqual({ id: CATALOG.englishUs, name: 'English (US)', iso_2: 'en' });
  });
});

contract('catalog: models', (api) => {
  const llm = modelsJson.filter((m) => m.type === 'llm').map(({ id, name }) => ({ id, name }));
  const withCode = (type: string) => modelsJson.filter((m) => m.type === type).map(({ id, name, code }) => ({ id, name, code }));

  it('lists the LLM models without a code by default', async () => {
    const res = await api().get('/user/assistants/models');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(llm);
    expect(res.body.map((m: { id: number }) => m.id)).toEqual([1, 2, 3, 4, 5]);
    for (const model of res.body) expect(model).not.toHaveProperty('code');
  });

  it('lists the same LLM models for type=llm', async () => {
    const res = await api().get('/user/assistants/models', { query: { type: 'llm' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(llm);
  });

  it('lists the multimodal models with their code', async () => {
    const res = await api().get('/user/assistants/models', { query: { type: 'multimodal' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(withCode('multimodal'));
    expect(res.body[0]).toStrictEqual({ id: CATALOG.multimodalModel, name: 'Vox Realtime 1', code: 'vx-realtime-1' });
  });

  it('lists the dualplex models with their code', async () => {
    const res = await api().get('/user/assistants/models', { query: { type: 'dualplex' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(withCode('dualplex'));
    expect(res.body.map((m: { id: number }) => m.id)).toEqual([CATALOG.dualplexModel, 10]);
  });

  it('rejects an unknown type with 422 shape B on type', async () => {
    const res = await api().get('/user/assistants/models', { query: { type: 'pipeline' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected type is invalid.', errors: { type: ['The selected type is invalid.'] } });
  });
});

contract('catalog: synthesizer providers', (api) => {
  it('lists every synthesizer provider as {id, name, code}', async () => {
    const res = await api().get('/user/assistants/synthesizer-providers');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(synthesizersJson.map(wireProvider));
    for (const provider of res.body) expect(provider).not.toHaveProperty('language_ids');
  });

  it('lists only the synthesizer providers that support a language', async () => {
    const res = await api().get('/user/assistants/synthesizer-providers', { query: { language_id: 5 } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(synthesizersJson.filter((p) => p.language_ids.includes(5)).map(wireProvider));
    expect(res.body.map((p: { id: number }) => p.id)).toEqual([1, 2, 4]);
  });

  it('answers an empty array for a language no synthesizer supports', async () => {
    const res = await api().get('/user/assistants/synthesizer-providers', { query: { language_id: 999 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('rejects a language id that is not an integer with 422 shape B', async () => {
    const res = await api().get('/user/assistants/synthesizer-providers', { query: { language_id: 'en' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The language id must be an integer.', errors: { language_id: ['The language id must be an integer.'] } });
  });
});

contract('catalog: transcriber providers', (api) => {
  it('lists every transcriber provider as {id, name, code}', async () => {
    const res = await api().get('/user/assistants/transcriber-providers');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(transcribersJson.map(wireProvider));
    for (const provider of res.body) expect(provider).not.toHaveProperty('language_ids');
  });

  it('lists only the transcriber providers that support a language', async () => {
    const res = await api().get('/user/assistants/transcriber-providers', { query: { language_id: 5 } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(transcribersJson.filter((p) => p.language_ids.includes(5)).map(wireProvider));
    expect(res.body.map((p: { id: number }) => p.id)).toEqual([1, 2]);
  });

  it('lists only the universal transcriber for a language only it supports', async () => {
    const res = await api().get('/user/assistants/transcriber-providers', { query: { language_id: 10 } });
    expect(res.body).toStrictEqual([wireProvider(transcribersJson.find((p) => p.id === CATALOG.universalTranscriber)!)]);
  });

  it('rejects a language id that is not an integer with 422 shape B', async () => {
    const res = await api().get('/user/assistants/transcriber-providers', { query: { language_id: 'x1' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The language id must be an integer.', errors: { language_id: ['The language id must be an integer.'] } });
  });
});

contract('catalog: numbers eligible for an assistant', (api) => {
  /**
   * Four numbers of the default account: a free sip number, a caller-ID number, a sip
   * number held by an inbound assistant and a sip number held by an outbound assistant.
   */
  async function numberSet() {
    const free = await addNumber(api(), 'sip', '+14155550123');
    const callerId = await addNumber(api(), 'caller_id', '+14155550124');
    const inboundHeld = await addNumber(api(), 'sip', '+14155550125');
    const outboundHeld = await addNumber(api(), 'sip', '+14155550126');
    await createAssistant(api(), multimodalAssistant({ phone_number_id: inboundHeld }));
    await createAssistant(api(), pipelineAssistant({ phone_number_id: outboundHeld }));
    return {
      free: { id: free, phone_number: '+14155550123', country_code: 'US', type_label: 'SIP trunk', is_available: true },
      callerId: { id: callerId, phone_number: '+14155550124', country_code: 'US', type_label: 'Caller ID', is_available: true },
      inboundHeld: { id: inboundHeld, phone_number: '+14155550125', country_code: 'US', type_label: 'SIP trunk', is_available: false },
      outboundHeld: { id: outboundHeld, phone_number: '+14155550126', country_code: 'US', type_label: 'SIP trunk', is_available: false },
    };
  }

  it('answers an empty array when the account has no numbers', async () => {
    const res = await api().get('/user/assistants/phone-numbers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('shows a number as {id, phone_number, country_code, type_label, is_available}', async () => {
    const id = await addNumber(api(), 'sip', '+442071838750');
    const res = await api().get('/user/assistants/phone-numbers');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual([{ id, phone_number: '+442071838750', country_code: 'GB', type_label: 'SIP trunk', is_available: true }]);
  });

  it('excludes caller-ID numbers and numbers held by an inbound assistant for type=inbound', async () => {
    const n = await numberSet();
    const res = await api().get('/user/assistants/phone-numbers', { query: { type: 'inbound' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual([n.free, n.outboundHeld]);
  });

  it('lists every number of the account for type=outbound', async () => {
    const n = await numberSet();
    const res = await api().get('/user/assistants/phone-numbers', { query: { type: 'outbound' } });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual([n.free, n.callerId, n.inboundHeld, n.outboundHeld]);
  });

  it('lists every number of the account without a type', async () => {
    const n = await numberSet();
    const res = await api().get('/user/assistants/phone-numbers');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual([n.free, n.callerId, n.inboundHeld, n.outboundHeld]);
  });

  it('marks a number unavailable while an outbound assistant holds it, and available again once released', async () => {
    const number = await addNumber(api(), 'caller_id', '+14155550124');
    const assistant = await createAssistant(api(), pipelineAssistant({ phone_number_id: number }));
    const held = await api().get('/user/assistants/phone-numbers');
    expect(held.body).toStrictEqual([{ id: number, phone_number: '+14155550124', country_code: 'US', type_label: 'Caller ID', is_available: false }]);
    expect((await api().put(`/user/assistant/${assistant}`, { phone_number_id: null })).status).toBe(200);
    const released = await api().get('/user/assistants/phone-numbers');
    expect(released.body[0].is_available).toBe(true);
  });

  it('shows only the numbers of the caller account', async () => {
    createSecondAccount(api());
    const own = await addNumber(api(), 'sip', '+14155550123');
    await addNumber(api(), 'sip', '+14155550199', 2);
    const res = await api().get('/user/assistants/phone-numbers');
    expect(res.body.map((n: { id: number }) => n.id)).toEqual([own]);
    const other = await api().get('/user/assistants/phone-numbers', { key: SECOND_KEY });
    expect(other.body).toStrictEqual([{ id: own + 1, phone_number: '+14155550199', country_code: 'US', type_label: 'SIP trunk', is_available: true }]);
  });

  it('rejects an unknown type with 422 shape B on type', async () => {
    const res = await api().get('/user/assistants/phone-numbers', { query: { type: 'both' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The selected type is invalid.', errors: { type: ['The selected type is invalid.'] } });
  });
});

contract('catalog: knowledge bases', (api) => {
  it('lists the three starting knowledge bases in {data}', async () => {
    const res = await api().get('/user/knowledgebases');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: startingKnowledgebases(1) });
  });

  it('stamps the starting knowledge bases with the account creation time', async () => {
    const res = await api().get('/user/knowledgebases');
    expect(res.body.data[0].created_at).toBe('2026-03-02T09:00:00.000000Z');
    expect(res.body.data[0].updated_at).toBe('2026-03-02T09:00:00.000000Z');
  });

  it('stamps the knowledge bases of an account created later with that later time', async () => {
    await api().sim.control.clock.advance({ by: '1h' });
    createSecondAccount(api());
    const res = await api().get('/user/knowledgebases', { key: SECOND_KEY });
    expect(res.body).toStrictEqual({ data: startingKnowledgebases(4, '2026-03-02T10:00:00.000000Z') });
  });

  it('counts the assistants that use each knowledge base', async () => {
    await createAssistant(api(), pipelineAssistant({ knowledgebase_id: 1 }));
    await createAssistant(api(), pipelineAssistant({ knowledgebase_id: 1 }));
    await createAssistant(api(), multimodalAssistant({ knowledgebase_id: 2 }));
    await createAssistant(api(), pipelineAssistant());
    const res = await api().get('/user/knowledgebases');
    expect(res.body.data.map((kb: { assistants_count: number }) => kb.assistants_count)).toEqual([2, 1, 0]);
  });

  it('stops counting an assistant once it is deleted', async () => {
    const id = await createAssistant(api(), pipelineAssistant({ knowledgebase_id: 3 }));
    expect((await api().get('/user/knowledgebases/3')).body.data.assistants_count).toBe(1);
    expect((await api().del(`/user/assistant/${id}`)).status).toBe(200);
    expect((await api().get('/user/knowledgebases/3')).body.data.assistants_count).toBe(0);
  });

  it('shows one knowledge base in {data}', async () => {
    const res = await api().get('/user/knowledgebases/2');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: startingKnowledgebases(1)[1] });
  });

  it('shows the assistants count on one knowledge base', async () => {
    await createAssistant(api(), pipelineAssistant({ knowledgebase_id: 2 }));
    const res = await api().get('/user/knowledgebases/2');
    expect(res.body).toStrictEqual({ data: { ...startingKnowledgebases(1)[1], assistants_count: 1 } });
  });

  it('gives a second account its own three knowledge bases, ids 4 to 6', async () => {
    createSecondAccount(api());
    const res = await api().get('/user/knowledgebases', { key: SECOND_KEY });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ data: startingKnowledgebases(4) });
  });

  it('does not count the assistants of another account', async () => {
    createSecondAccount(api());
    await createAssistant(api(), pipelineAssistant({ knowledgebase_id: 1 }));
    const res = await api().get('/user/knowledgebases/4', { key: SECOND_KEY });
    expect(res.body.data.assistants_count).toBe(0);
  });

  it('answers a missing knowledge base with 404 shape A', async () => {
    const res = await api().get('/user/knowledgebases/99');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Knowledge base not found.' });
  });
});

contract('catalog: tools', (api) => {
  it('lists the three starting tools as a bare array', async () => {
    const res = await api().get('/user/tools');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(startingTools(1));
  });

  it('shows every tool field, headers and schema included', async () => {
    const res = await api().get('/user/tools');
    expect(Object.keys(res.body[0]).sort()).toEqual(
      ['created_at', 'description', 'endpoint', 'headers', 'id', 'method', 'name', 'schema', 'timeout', 'updated_at'],
    );
    expect(res.body[0].headers).toEqual(toolsJson[0]!.headers);
    expect(res.body[0].schema).toEqual(toolsJson[0]!.schema);
  });

  it('shows one tool as an object', async () => {
    const res = await api().get('/user/tools/3');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(startingTools(1)[2]);
  });

  it('gives a second account its own three tools, ids 4 to 6', async () => {
    createSecondAccount(api());
    const res = await api().get('/user/tools', { key: SECOND_KEY });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(startingTools(4));
  });

  it('answers a missing tool with 404 shape A', async () => {
    const res = await api().get('/user/tools/99');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Tool not found.' });
  });
});
