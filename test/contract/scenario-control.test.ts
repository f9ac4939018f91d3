/**
 * POST /__sim/scenario (ARCHITECTURE §6: YAML or JSON -> 200 `{name, refs}`; issue 6,
 * Build 2): the raw body is a scenario's text, loaded without its steps; a broken one is
 * 422 shape B with the located message under `errors.scenario`. Over both transports,
 * and in-process through `sim.control.scenario.load` with the same answers.
 */
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { SimError } from '../../src/core/errors.js';
import { REPLY_MESSAGES } from '../../src/engine/replies.js';
import { contract, type Api } from '../support/api.js';
import type { ScenarioInput } from '../../src/types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const YAML_SCENARIO = `name: a spring campaign ready to start
seed: 7
start: 2026-03-02T08:55:00Z
accounts: [{ api_key: sim_test_key, balance: 20 }]
given:
  phone_numbers: [{ ref: caller, type: sip, phone_number: "+14155550100" }]
  assistants:
    - ref: sales
      name: Sales
      type: outbound
      mode: pipeline
      voice_id: 1
      language_id: 1
      llm_model_id: 1
      timezone: America/New_York
      initial_message: Hi {{first_name}}, this is Ava from Acme.
      system_prompt: You book product demos.
      phone_number_id: $caller
  campaigns:
    - { ref: spring, name: Spring, assistant: sales, max_retries: 2, retry_interval: 60 }
  leads:
    - { ref: ann, campaign: spring, phone_number: "+15551230003", variables: { first_name: Ann } }
outcomes:
  "+15551230003": [voicemail, human]
steps:
  - request: POST /user/campaigns/update-status
    body: { campaign_id: $spring, action: start }
  - run_until_idle: true
`;

const JSON_SCENARIO = JSON.stringify(
  {
    name: 'a draft campaign from JSON',
    seed: 3,
    start: '2026-03-02T10:00:00Z',
    given: {
      assistants: [
        {
          ref: 'support',
          name: 'Support',
          type: 'outbound',
          mode: 'pipeline',
          voice_id: 1,
          language_id: 1,
          llm_model_id: 1,
          timezone: 'Europe/Berlin',
          initial_message: 'Hello.',
          system_prompt: 'You answer questions.',
        },
      ],
      campaigns: [{ ref: 'autumn', name: 'Autumn', assistant: 'support' }],
    },
  },
  null,
  2,
);

/** A scenario whose third line has a negative seed. */
const BROKEN = 'name: broken\nstart: 2026-03-02T08:55:00Z\nseed: -1\n';
const BROKEN_MESSAGE = '<scenario>:3: seed: The seed must be at least 0.';

function postYaml(api: Api, text: string) {
  return api.post('/__sim/scenario', undefined, { raw: text, headers: { 'content-type': 'application/yaml' } });
}

function postJson(api: Api, text: string) {
  return api.post('/__sim/scenario', undefined, { raw: text, headers: { 'content-type': 'application/json' } });
}

const YAML_REFS = {
  caller: { id: 1, phone_number: '+14155550100' },
  sales: { id: 1, uuid: expect.stringMatching(UUID) },
  spring: { id: 1 },
  ann: { id: 1, phone_number: '+15551230003' },
};

contract('control: load a scenario', (api) => {
  it('answers 200 with the name and refs of a YAML scenario', async () => {
    const res = await postYaml(api(), YAML_SCENARIO);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ name: 'a spring campaign ready to start', refs: YAML_REFS });
  });

  it('creates the given campaign through the API, in draft', async () => {
    await postYaml(api(), YAML_SCENARIO);
    const res = await api().get('/user/campaigns');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([expect.objectContaining({ id: 1, name: 'Spring', status: 'draft', max_retries: 2, retry_interval: 60 })]);
  });

  it('gives the sales ref the uuid of the created assistant', async () => {
    const { body } = await postYaml(api(), YAML_SCENARIO);
    const res = await api().get('/user/assistant/1');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: 1, name: 'Sales', uuid: body.refs.sales.uuid });
  });

  it('does not play the steps: the campaign is not started and no call is made', async () => {
    await postYaml(api(), YAML_SCENARIO);
    const calls = await api().get('/user/calls');
    expect(calls.status).toBe(200);
    expect(calls.body).toMatchObject({ data: [], total: 0 });
    const leads = await api().get('/user/leads');
    expect(leads.body.data).toEqual([expect.objectContaining({ id: 1, phone_number: '+15551230003', status: 'created' })]);
  });

  it('moves the clock to the scenario start with nothing pending', async () => {
    await postYaml(api(), YAML_SCENARIO);
    const res = await api().get('/__sim/clock');
    expect(res.body).toMatchObject({ now: '2026-03-02T08:55:00Z', now_ms: Date.parse('2026-03-02T08:55:00Z'), pending_events: 0 });
  });

  it('sets the scenario outcome script', async () => {
    await postYaml(api(), YAML_SCENARIO);
    const res = await api().get('/__sim/outcomes');
    expect(res.body).toStrictEqual({ rules: [{ match: { phone_number: '+15551230003' }, outcomes: ['voicemail', 'human'] }] });
  });

  it('applies the scenario account balance to the default account', async () => {
    await postYaml(api(), YAML_SCENARIO);
    const res = await api().get('/__sim/accounts');
    expect(res.body.data).toEqual([expect.objectContaining({ api_key: 'sim_test_key', balance: 20 })]);
  });

  it('answers 200 with the name and refs of a JSON scenario', async () => {
    const res = await postJson(api(), JSON_SCENARIO);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ name: 'a draft campaign from JSON', refs: { support: { id: 1, uuid: expect.stringMatching(UUID) }, autumn: { id: 1 } } });
    const campaigns = await api().get('/user/campaigns');
    expect(campaigns.body).toEqual([expect.objectContaining({ id: 1, name: 'Autumn', status: 'draft' })]);
  });

  it('replaces what a first scenario created with what a second one gives', async () => {
    await postYaml(api(), YAML_SCENARIO);
    await postJson(api(), JSON_SCENARIO);
    const res = await api().get('/user/campaigns');
    expect(res.body).toEqual([expect.objectContaining({ id: 1, name: 'Autumn' })]);
  });

  it('answers the same as the YAML for the scenario written as JSON', async () => {
    const yamlAnswer = await postYaml(api(), YAML_SCENARIO);
    const jsonAnswer = await postJson(api(), JSON.stringify(parse(YAML_SCENARIO)));
    expect(jsonAnswer.status).toBe(200);
    expect(jsonAnswer.body).toStrictEqual(yamlAnswer.body);
  });

  it('rejects a broken scenario with 422 shape B naming the line and the path', async () => {
    const res = await postYaml(api(), BROKEN);
    expect(res.status).toBe(422);
    expect(res.body).toStrictEqual({ message: BROKEN_MESSAGE, errors: { scenario: [BROKEN_MESSAGE] } });
    expect(res.body.errors.scenario[0].startsWith('<scenario>:3:')).toBe(true);
  });

  it('rejects a broken JSON scenario naming its line', async () => {
    const res = await postJson(api(), '{\n  "name": "broken",\n  "steps": [\n    { "advance": "1m", "run_until_idle": true }\n  ]\n}');
    expect(res.status).toBe(422);
    const message = '<scenario>:4: steps.0: A step takes one action; this one has advance and run_until_idle.';
    expect(res.body).toStrictEqual({ message, errors: { scenario: [message] } });
  });

  it('rejects a YAML syntax error with 422 naming its line', async () => {
    const res = await postYaml(api(), 'name: syntax\nseed: 7\nstart: a: b\n');
    expect(res.status).toBe(422);
    const message = '<scenario>:3: Nested mappings are not allowed in compact mappings';
    expect(res.body).toStrictEqual({ message, errors: { scenario: [message] } });
  });

  /** The answer to a scenario nested too deep: 422 shape B with the body depth limit's text at `where`. */
  const tooDeep = (where: string, attribute = 'scenario') => {
    const message = `<scenario>:${where}The ${attribute} may not nest more than 64 levels deep.`;
    return { message, errors: { scenario: [message] } };
  };
  /** `given:` holding `levels` nested flow sequences, in YAML. */
  const deepGiven = (levels: number) => `name: deep\ngiven: ${'['.repeat(levels)}${']'.repeat(levels)}\n`;

  it('rejects a JSON scenario nested 2,500,000 deep with the 64-level message at its line, before parsing it, changing nothing', async () => {
    await postYaml(api(), YAML_SCENARIO);
    const before = JSON.stringify(api().sim.snapshot());
    const started = performance.now();
    const res = await postJson(api(), `{"name":"deep","given":${'['.repeat(2_500_000)}${']'.repeat(2_500_000)}}`);
    expect({ status: res.status, body: res.body }).toStrictEqual({ status: 422, body: tooDeep('1: ') });
    // The YAML parser took a minute over this body; the check before it reads the text once.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(JSON.stringify(api().sim.snapshot())).toBe(before);
  });

  it('rejects YAML flow collections nested 100,000 deep with the same message at their line', async () => {
    const res = await postYaml(api(), deepGiven(100_000));
    expect({ status: res.status, body: res.body }).toStrictEqual({ status: 422, body: tooDeep('2: ') });
  });

  /** `replies:` holding `levels` block sequences, each on its own line and indented one more. */
  const deepBlock = (levels: number) => `name: deep\nreplies:\n${Array.from({ length: levels }, (_, i) => `${' '.repeat(i + 1)}-`).join('\n')} 1\n`;

  it('rejects block nesting past 256 levels before composing it, at the line of its 257th level, and 256 on its top-level key', async () => {
    // The scenario is level 1; sequence i (from 0) is level i + 2, at line i + 3.
    const deep = await postYaml(api(), deepBlock(256));
    expect({ status: deep.status, body: deep.body }).toStrictEqual({ status: 422, body: tooDeep('258: ') });
    // Compact sequences (`- - - 1`) nest on one line.
    const far = await postYaml(api(), `name: deep\nreplies:\n  ${'- '.repeat(5000)}1\n`);
    expect({ status: far.status, body: far.body }).toStrictEqual({ status: 422, body: tooDeep('3: ') });
    // 255 sequences reach level 256: composed, then refused where the 65th level is (sequence 63, line 66).
    const composed = await postYaml(api(), deepBlock(255));
    expect({ status: composed.status, body: composed.body }).toStrictEqual({ status: 422, body: tooDeep('66: replies: ', 'replies') });
  });

  it('takes a scenario 64 levels deep (the scenario itself the first) and refuses 65 on its top-level key, at the line of the deepest level', async () => {
    // `given` is level 2: n sequences in it reach level n + 1. The schema refuses a list as `given`, not its depth.
    expect((await postYaml(api(), deepGiven(63))).body.message).toBe('<scenario>:2: given: The given must be an object.');
    const res = await postYaml(api(), `name: deep\nreplies:\n  - when: hi\n    reply: hello\n    set_variables: ${'{a: '.repeat(62)}1${'}'.repeat(62)}\n`);
    expect({ status: res.status, body: res.body }).toStrictEqual({ status: 422, body: tooDeep('5: replies: ', 'replies') });
    expect((await postYaml(api(), `name: deep\nreplies:\n  - when: hi\n    reply: hello\n    set_variables: ${'{a: '.repeat(61)}1${'}'.repeat(61)}\n`)).status).toBe(200);
  });

  it('rejects reply rules whose regex can backtrack catastrophically, at the line of the rule', async () => {
    const res = await postYaml(api(), 'name: slow\nreplies:\n  - when: { regex: "^(a+)+$" }\n    reply: hi\n');
    const message = `<scenario>:3: replies.0.when.regex: ${REPLY_MESSAGES.catastrophicRegex.replace(':attribute', 'regex')}`;
    expect({ status: res.status, body: res.body }).toStrictEqual({ status: 422, body: { message, errors: { scenario: [message] } } });
  });

  it('rejects an empty body with 422 at line 1', async () => {
    const res = await postYaml(api(), '');
    expect(res.status).toBe(422);
    const message = '<scenario>:1: A scenario is a mapping with at least a name.';
    expect(res.body).toStrictEqual({ message, errors: { scenario: [message] } });
  });

  it('rejects a given resource the API refuses with 422 naming the item line', async () => {
    const res = await postYaml(api(), 'name: refused\ngiven:\n  assistants:\n    - ref: a\n      name: A\n');
    expect(res.status).toBe(422);
    expect(res.body.errors.scenario).toHaveLength(1);
    expect(res.body.errors.scenario[0]).toMatch(/^<scenario>:4: given\.assistants\.0: POST \/user\/assistant was refused with 422: \{/);
    expect(res.body.message).toBe(res.body.errors.scenario[0]);
  });

  it('keeps the running state when the scenario is rejected by the loader', async () => {
    await postYaml(api(), YAML_SCENARIO);
    await postYaml(api(), BROKEN);
    const res = await api().get('/user/campaigns');
    expect(res.body).toEqual([expect.objectContaining({ id: 1, name: 'Spring', status: 'draft' })]);
  });

  it('loads the same scenario in-process with the same answer as over HTTP', async () => {
    const http = await postYaml(api(), YAML_SCENARIO);
    const inProcess = await api().sim.control.scenario.load(YAML_SCENARIO);
    expect(inProcess).toStrictEqual(http.body);
  });

  it('loads a scenario object in-process', async () => {
    const answer = await api().sim.control.scenario.load(parse(JSON_SCENARIO) as ScenarioInput);
    expect(answer).toStrictEqual({ name: 'a draft campaign from JSON', refs: { support: { id: 1, uuid: expect.stringMatching(UUID) }, autumn: { id: 1 } } });
  });

  it('throws the same 422 shape B in-process for a broken scenario', async () => {
    let caught: unknown;
    try {
      await api().sim.control.scenario.load(BROKEN);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SimError);
    expect((caught as SimError).status).toBe(422);
    expect((caught as SimError).body).toStrictEqual({ message: BROKEN_MESSAGE, errors: { scenario: [BROKEN_MESSAGE] } });
  });
});

contract('control: a scenario body is text, never a file', (api) => {
  it('does not read a file whose path is sent as the body', async () => {
    const res = await api().post('/__sim/scenario', undefined, { raw: 'scenarios/voicemail-then-human.yaml', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(422);
    expect(res.body.errors.scenario).toEqual(['<scenario>:1: A scenario is a mapping with at least a name.']);
    expect((await api().get('/user/campaigns')).body).toEqual([]);
  });

  it('loads a one-line scenario whose name ends in .yaml', async () => {
    const res = await api().post('/__sim/scenario', undefined, { raw: 'name: notes.yaml', headers: { 'content-type': 'application/yaml' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'notes.yaml', refs: {} });
  });

  it('keeps the earlier state when a given resource is refused', async () => {
    await api().post('/user/assistant', { name: 'Kept', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'UTC', initial_message: 'Hi', system_prompt: 'x', llm_model_id: 1 });
    const before = (await api().get('/user/assistants/get')).body;
    const res = await api().post('/__sim/scenario', undefined, { raw: 'name: broken\ngiven:\n  assistants:\n    - { name: Missing fields }\n', headers: { 'content-type': 'application/yaml' } });
    expect(res.status).toBe(422);
    expect(res.body.errors.scenario[0]).toMatch(/^<scenario>:4: given\.assistants\.0: POST \/user\/assistant was refused with 422/);
    expect((await api().get('/user/assistants/get')).body).toEqual(before);
  });
});
