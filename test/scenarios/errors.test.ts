/**
 * A scenario with a mistake gets an error naming the file, the line and the path inside
 * it (issue 6, Build 1): `<file>:<line>: <path>: <message>`, from the loader for the
 * format and from the runner for what only playing reveals (an unknown `$ref`, a `given`
 * resource the API refuses).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScenario, ScenarioError } from '../../src/scenario/load.js';
import { STEP_KINDS } from '../../src/scenario/schema.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';

interface Located {
  file: string;
  line: number | null;
  path: string;
  message: string;
}

function located(error: unknown): Located {
  expect(error).toBeInstanceOf(ScenarioError);
  const { file, line, path, message } = error as ScenarioError;
  return { file, line, path, message };
}

/** The error `loadScenario(text, 'bad.yaml')` throws. */
function loadError(text: string): Located {
  try {
    loadScenario(text, 'bad.yaml');
  } catch (error) {
    return located(error);
  }
  throw new Error('the scenario was accepted');
}

/** The error playing `source` on a fresh simulator rejects with. */
async function playError(source: string): Promise<Located> {
  const sim = createSimulator();
  try {
    await sim.loadScenario(source);
  } catch (error) {
    return located(error);
  } finally {
    sim.dispose();
  }
  throw new Error('the scenario was played');
}

const SALES = `    - ref: sales
      name: Sales
      type: outbound
      mode: pipeline
      voice_id: 1
      language_id: 1
      llm_model_id: 1
      timezone: Europe/Berlin
      initial_message: Hello.
      system_prompt: You book demos.
`;

describe('loadScenario errors', () => {
  it('names an unknown key of a step, at its own line', () => {
    const text = 'name: x\nsteps:\n  - advance: 1m\n    by: 2\n';
    expect(() => loadScenario(text, 'bad.yaml')).toThrow('bad.yaml:4: steps.0.by: The by field is not allowed.');
  });

  it('accepts a scenario of only a name, with no steps', () => {
    const loaded = loadScenario('name: just a name\n', 'ok.yaml');
    expect(loaded.file).toBe('ok.yaml');
    expect(loaded.scenario.name).toBe('just a name');
    expect(loaded.steps).toEqual([]);
  });

  it('names line 1 and the path name for a missing name', () => {
    expect(loadError('seed: 1\nstart: 2026-03-02T09:00:00Z\nsteps: []\n')).toEqual({
      file: 'bad.yaml',
      line: 1,
      path: 'name',
      message: 'bad.yaml:1: name: The name field is required.',
    });
  });

  it('names the line of the name for an empty name', () => {
    expect(loadError('seed: 1\nname: ""\n')).toEqual({
      file: 'bad.yaml',
      line: 2,
      path: 'name',
      message: 'bad.yaml:2: name: The name field is required.',
    });
  });

  it('refuses a document that is not a mapping at line 1', () => {
    expect(loadError('- advance: 1m\n- advance: 2m\n')).toEqual({
      file: 'bad.yaml',
      line: 1,
      path: '',
      message: 'bad.yaml:1: A scenario is a mapping with at least a name.',
    });
  });

  it('names the step with two actions and both actions', () => {
    expect(loadError('name: two actions\nsteps:\n  - advance: 1m\n  - advance: 2m\n    run_until_idle: true\n')).toEqual({
      file: 'bad.yaml',
      line: 4,
      path: 'steps.1',
      message: 'bad.yaml:4: steps.1: A step takes one action; this one has advance and run_until_idle.',
    });
  });

  it('names the step with no known action and lists the actions', () => {
    expect(loadError('name: no action\nsteps:\n  - advance: 1m\n  - wait: 1m\n')).toEqual({
      file: 'bad.yaml',
      line: 4,
      path: 'steps.1',
      message: `bad.yaml:4: steps.1: A step needs one of: ${STEP_KINDS.join(', ')}.`,
    });
  });

  it('names the field of a step with a value of the wrong type', () => {
    expect(loadError('name: bad type\nsteps:\n  - advance: 1m\n  - advance: [1]\n')).toEqual({
      file: 'bad.yaml',
      line: 4,
      path: 'steps.1.advance',
      message: 'bad.yaml:4: steps.1.advance: The selected advance is invalid.',
    });
  });

  it('refuses a request with an unknown method and shows the expected form', () => {
    expect(loadError('name: bad method\nseed: 1\nsteps:\n  - request: FETCH /x\n')).toEqual({
      file: 'bad.yaml',
      line: 4,
      path: 'steps.0.request',
      message: 'bad.yaml:4: steps.0.request: The request must be "METHOD /path", e.g. "POST /user/campaigns/update-status".',
    });
  });

  it('names the line of a YAML syntax error', () => {
    expect(loadError('name: syntax\nseed: 7\nstart: a: b\nsteps: []\n')).toEqual({
      file: 'bad.yaml',
      line: 3,
      path: '',
      message: 'bad.yaml:3: Nested mappings are not allowed in compact mappings',
    });
  });

  it('names the line of a repeated key', () => {
    expect(loadError('name: repeated\nseed: 7\nseed: 8\n')).toEqual({
      file: 'bad.yaml',
      line: 3,
      path: '',
      message: 'bad.yaml:3: Map keys must be unique',
    });
  });

  it('refuses seed -1 at its line', () => {
    expect(loadError('name: negative seed\nseed: -1\nsteps: []\n')).toEqual({
      file: 'bad.yaml',
      line: 2,
      path: 'seed',
      message: 'bad.yaml:2: seed: The seed must be at least 0.',
    });
  });

  it('accepts the seed edges 0 and 2147483647', () => {
    expect(loadScenario('name: zero\nseed: 0\n', 'ok.yaml').scenario.seed).toBe(0);
    expect(loadScenario('name: top\nseed: 2147483647\n', 'ok.yaml').scenario.seed).toBe(2147483647);
  });

  it('refuses seed 2147483648 at its line', () => {
    expect(loadError('name: big seed\nseed: 2147483648\n')).toEqual({
      file: 'bad.yaml',
      line: 2,
      path: 'seed',
      message: 'bad.yaml:2: seed: The seed may not be greater than 2147483647.',
    });
  });

  it('names the line of a bad ref name deep in given', () => {
    expect(loadError('name: bad ref\ngiven:\n  campaigns:\n    - name: Spring\n      ref: 1spring\n')).toEqual({
      file: 'bad.yaml',
      line: 5,
      path: 'given.campaigns.0.ref',
      message: 'bad.yaml:5: given.campaigns.0.ref: The ref must be a name of letters, digits, _ and -.',
    });
  });

  it('names the line inside a JSON text', () => {
    expect(loadError('{\n  "name": "json",\n  "seed": -1\n}\n')).toEqual({
      file: 'bad.yaml',
      line: 3,
      path: 'seed',
      message: 'bad.yaml:3: seed: The seed must be at least 0.',
    });
  });

  it('names no line for an object, which has none', () => {
    let error: unknown;
    try {
      loadScenario({ name: 'object', seed: -1 }, 'object');
    } catch (caught) {
      error = caught;
    }
    expect(located(error)).toEqual({ file: 'object', line: null, path: 'seed', message: 'object: seed: The seed must be at least 0.' });
  });
});

describe('unknown keys at every level', () => {
  it.each([
    ['top level', 'name: x\noutcome:\n  "+15551230003": [human]\n', 2, 'outcome', 'The outcome field is not allowed; did you mean `outcomes`?'],
    ['given', 'name: x\ngiven:\n  phone_number: []\n', 3, 'given.phone_number', 'The phone_number field is not allowed; did you mean `phone_numbers`?'],
    ['a given phone number', 'name: x\ngiven:\n  phone_numbers:\n    - type: sip\n      phone_numbr: "+14155550100"\n', 5, 'given.phone_numbers.0.phone_numbr', 'The phone_numbr field is not allowed; did you mean `phone_number`?'],
    ['a given conversation', 'name: x\ngiven:\n  conversations:\n    - assistant: $sales\n      mesages: [Hi]\n', 5, 'given.conversations.0.mesages', 'The mesages field is not allowed; did you mean `messages`?'],
    ['a given assistant', 'name: x\ngiven:\n  assistants:\n    - ref: sales\n      name: Sales\n      system_promt: You sell.\n', 6, 'given.assistants.0.system_promt', 'The system_promt field is not allowed; did you mean `system_prompt`?'],
    ['a given campaign', 'name: x\ngiven:\n  campaigns:\n    - assistant: $sales\n      retry_on_voicmail: true\n', 5, 'given.campaigns.0.retry_on_voicmail', 'The retry_on_voicmail field is not allowed; did you mean `retry_on_voicemail`?'],
    ['a given lead', 'name: x\ngiven:\n  leads:\n    - campaign: $spring\n      phone_numbr: "+15551230042"\n', 5, 'given.leads.0.phone_numbr', 'The phone_numbr field is not allowed; did you mean `phone_number`?'],
    ['a reply rule\'s when', 'name: x\nreplies:\n  - { when: { regex: hi, flag: i }, reply: hello }\n', 3, 'replies.0.when.flag', 'The flag field is not allowed; did you mean `flags`?'],
    ['a given sender', 'name: x\ngiven:\n  senders:\n    - id: 1\n      onlin: true\n', 5, 'given.senders.0.onlin', 'The onlin field is not allowed; did you mean `online`?'],
    ['an account', 'name: x\naccounts:\n  - api_kye: k\n', 3, 'accounts.0.api_kye', 'The api_kye field is not allowed; did you mean `api_key`?'],
    ['an account plan', 'name: x\naccounts:\n  - api_key: sim_test_key\n    plan:\n      max_campaign: 3\n', 5, 'accounts.0.plan.max_campaign', 'The max_campaign field is not allowed; did you mean `max_campaigns`?'],
    ['account rates', 'name: x\naccounts:\n  - api_key: sim_test_key\n    rates: { ai_per_minut: 1 }\n', 4, 'accounts.0.rates.ai_per_minut', 'The ai_per_minut field is not allowed; did you mean `ai_per_minute`?'],
    ['an outcome object of a number', 'name: x\noutcomes:\n  "+15551230003":\n    - voicemail\n    - { kind: human, talk_secs: 30 }\n', 5, 'outcomes.+15551230003.1.talk_secs', 'The talk_secs field is not allowed; did you mean `talk_seconds`?'],
    ['an outcome object of a rule', 'name: x\noutcomes:\n  - outcomes:\n      - kind: human\n        ring_second: 3\n', 5, 'outcomes.0.outcomes.0.ring_second', 'The ring_second field is not allowed; did you mean `ring_seconds`?'],
    ['a transcript line', 'name: x\noutcomes:\n  "+15551230003":\n    - transcript:\n        - { role: customer, content: hi, contnet: x }\n', 5, 'outcomes.+15551230003.0.transcript.0.contnet', 'The contnet field is not allowed; did you mean `content`?'],
    ['a reply function call', 'name: x\nreplies:\n  - when: hi\n    reply: hello\n    function_calls:\n      - name: lookup\n        reslt: 1\n', 7, 'replies.0.function_calls.0.reslt', 'The reslt field is not allowed; did you mean `result`?'],
    ['an outcome rule match', 'name: x\noutcomes:\n  - match: { phone_numbr: "+1555" }\n    outcomes: [human]\n', 3, 'outcomes.0.match.phone_numbr', 'The phone_numbr field is not allowed; did you mean `phone_number`?'],
    ['a reply rule', 'name: x\nreplies:\n  - { when: hi, reply: hello, set_variable: {} }\n', 3, 'replies.0.set_variable', 'The set_variable field is not allowed; did you mean `set_variables`?'],
    ['a webhook failure', 'name: x\nwebhook_failures:\n  - { with: timeout, tims: 2 }\n', 3, 'webhook_failures.0.tims', 'The tims field is not allowed; did you mean `times`?'],
    ['a step option', 'name: x\nsteps:\n  - request: GET /user/me\n    bdy: {}\n', 4, 'steps.0.bdy', 'The bdy field is not allowed; did you mean `body`?'],
    ['a request expectation', 'name: x\nsteps:\n  - request: GET /user/me\n    expect:\n      statuss: 200\n', 5, 'steps.0.expect.statuss', 'The statuss field is not allowed; did you mean `status`?'],
    ['run_until_idle options', 'name: x\nsteps:\n  - run_until_idle: { max_event: 3 }\n', 3, 'steps.0.run_until_idle.max_event', 'The max_event field is not allowed; did you mean `max_events`?'],
    ['a customer message', 'name: x\nsteps:\n  - customer_message:\n      from: "+1555"\n      txt: hi\n', 5, 'steps.0.customer_message.txt', 'The txt field is not allowed; did you mean `text`?'],
  ])('refuses an unknown key of %s at its line, suggesting the close key', (_, text, line, path, message) => {
    expect(loadError(text)).toEqual({ file: 'bad.yaml', line, path, message: `bad.yaml:${line}: ${path}: ${message}` });
  });

  it('suggests nothing when no known key is close', () => {
    expect(loadError('name: x\ncolour: blue\n').message).toBe('bad.yaml:2: colour: The colour field is not allowed.');
  });

  it('suggests the close step action for a step with none', () => {
    expect(loadError('name: x\nsteps:\n  - expect_call: { count: 1 }\n').message).toBe(
      `bad.yaml:3: steps.0: A step needs one of: ${STEP_KINDS.join(', ')}; did you mean \`expect_calls\`?`,
    );
  });

  it('reports an unreadable start at the start key', () => {
    expect(loadError('name: x\nseed: 1\nstart: next monday\n')).toEqual({
      file: 'bad.yaml',
      line: 3,
      path: 'start',
      message: 'bad.yaml:3: start: The start must be an ISO 8601 time, e.g. 2026-03-02T09:00:00Z.',
    });
  });

  it.each(['+275760-09-12T00:00:00Z', '9999-01-01T00:00:01Z', '1969-12-31T23:59:59Z'])('refuses start %s, outside the clock range, at the start key', (start) => {
    expect(loadError(`name: x\nseed: 1\nstart: "${start}"\n`)).toEqual({
      file: 'bad.yaml',
      line: 3,
      path: 'start',
      message: 'bad.yaml:3: start: The start must be a time from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z.',
    });
  });

  it('accepts a start at either edge of the clock range', () => {
    expect(loadScenario('name: x\nstart: 1970-01-01T00:00:00Z\n', 'ok.yaml').scenario.start).toBe('1970-01-01T00:00:00Z');
    expect(loadScenario('name: x\nstart: 9999-01-01T00:00:00Z\n', 'ok.yaml').scenario.start).toBe('9999-01-01T00:00:00Z');
  });

  it('accepts an ISO 8601 start with or without seconds and zone', () => {
    expect(loadScenario('name: x\nstart: 2026-03-02T09:00:00Z\n', 'ok.yaml').scenario.start).toBe('2026-03-02T09:00:00Z');
    expect(loadScenario('name: x\nstart: 2026-03-02T09:00\n', 'ok.yaml').scenario.start).toBe('2026-03-02T09:00');
  });

  it('refuses an unknown key in sim.loadScenario text before changing the simulator', async () => {
    expect(await playError('name: x\nstart: 2026-03-02T09:00:00Z\nsteps: []\nstep: []\n')).toEqual({
      file: '<scenario>',
      line: 4,
      path: 'step',
      message: '<scenario>:4: step: The step field is not allowed; did you mean `steps`?',
    });
  });
});

describe('keys of expectations', () => {
  /** A scenario of one step, the step on line 3. */
  const step = (text: string) => `name: x\nsteps:\n  - ${text}\n`;

  it.each([
    ['expect_lead', 'expect_lead: { phone_number: "+15551230003", stauts: completed }', 'steps.0.expect_lead.stauts', 'The stauts field is not allowed; did you mean `status`?'],
    ['expect_leads', 'expect_leads: { cont: 2 }', 'steps.0.expect_leads.cont', 'The cont field is not allowed; did you mean `count`?'],
    ['expect_calls', 'expect_calls: { where: { answerd_by: machine }, status: ended }', 'steps.0.expect_calls.where.answerd_by', 'The answerd_by field is not allowed; did you mean `answered_by`?'],
    ['expect_campaign', 'expect_campaign: { campaign: spring, stats: completed }', 'steps.0.expect_campaign.stats', 'The stats field is not allowed; did you mean `status`?'],
    ['expect_assistant', 'expect_assistant: { assistant: sales, labl_ids: [] }', 'steps.0.expect_assistant.labl_ids', 'The labl_ids field is not allowed; did you mean `label_ids`?'],
    ['expect_knowledgebase', 'expect_knowledgebase: { knowledgebase: faq, documents: { where: { stauts: failed } } }', 'steps.0.expect_knowledgebase.documents.where.stauts', 'The stauts field is not allowed; did you mean `status`?'],
    ['expect_tool', 'expect_tool: { tool: lookup, nme: Lookup }', 'steps.0.expect_tool.nme', 'The nme field is not allowed; did you mean `name`?'],
    ['expect_conversation', 'expect_conversation: { conversation: chat, history: [{ rol: assistant }] }', 'steps.0.expect_conversation.history.0.rol', 'The rol field is not allowed; did you mean `role`?'],
    ['expect_deliveries', 'expect_deliveries: { sate: failed }', 'steps.0.expect_deliveries.sate', 'The sate field is not allowed; did you mean `state`?'],
    ['expect_events', 'expect_events: { type: campaign.idle, reasn: outside_window }', 'steps.0.expect_events.reasn', 'The reasn field is not allowed; did you mean `reason`?'],
    ['expect_balance', 'expect_balance: { totl_balance: 3 }', 'steps.0.expect_balance.totl_balance', 'The totl_balance field is not allowed; did you mean `total_balance`?'],
  ])('refuses an unknown key of %s when loading, at its line, suggesting the close key', (_, text, path, message) => {
    expect(loadError(step(text))).toEqual({ file: 'bad.yaml', line: 3, path, message: `bad.yaml:3: ${path}: ${message}` });
  });

  it('refuses a misspelt key of a collection even where no item could be selected', () => {
    expect(loadError(step('expect_calls: { where: { answerd_by: machine }, status: no-such-status }')).path).toBe('steps.0.expect_calls.where.answerd_by');
  });

  it('refuses a key of another event type than the one the step names', () => {
    expect(loadError(step('expect_events: { type: campaign.status, reason: outside_window }')).message).toBe(
      'bad.yaml:3: steps.0.expect_events.reason: The reason field is not allowed.',
    );
  });

  it('refuses an unknown event type, suggesting the close one', () => {
    expect(loadError(step('expect_events: { type: campaign.idel, count: 1 }')).message).toBe(
      'bad.yaml:3: steps.0.expect_events.type: The selected type is invalid; did you mean `campaign.idle`?',
    );
  });

  it("refuses a value that is none of the field's words, suggesting the close one", () => {
    expect(loadError(step('expect_campaign: { campaign: spring, status: complete }')).message).toBe(
      'bad.yaml:3: steps.0.expect_campaign.status: The selected status is invalid; did you mean `completed`?',
    );
  });

  it("refuses a value in a list of values per item that is none of the field's words", () => {
    expect(loadError(step('expect_calls: { status: [ended, complete] }')).message).toBe(
      'bad.yaml:3: steps.0.expect_calls.status.1: The selected status.1 is invalid; did you mean `completed`?',
    );
  });

  it("refuses a value in where that is none of the field's words", () => {
    expect(loadError(step('expect_calls: { where: { answered_by: machine }, status: no-such-status }')).message).toBe(
      'bad.yaml:3: steps.0.expect_calls.status: The selected status is invalid.',
    );
  });

  it('names the line of a nested key on a line of its own', () => {
    const text = 'name: x\nsteps:\n  - expect_conversation:\n      conversation: chat\n      history:\n        - role: assistant\n          contnet: Hi\n';
    expect(loadError(text)).toMatchObject({ line: 7, path: 'steps.0.expect_conversation.history.0.contnet' });
  });

  it('accepts a where and fields naming any field of the record, and any key under an open field', () => {
    const loaded = loadScenario(step('expect_calls: { where: { answered_by: machine, variables: { tier: gold } }, count: 1, variables: [{ demo_booked: false }] }'), 'ok.yaml');
    expect(loaded.steps[0]!.value).toEqual({ expect_calls: { where: { answered_by: 'machine', variables: { tier: 'gold' } }, count: 1, variables: [{ demo_booked: false }] } });
  });

  it("accepts a field of the live wire's record", () => {
    expect(loadScenario(step('expect_knowledgebase: { knowledgebase: faq, status: active, status_label: Ready }'), 'ok.yaml').steps).toHaveLength(1);
  });

  it('accepts every data key of the event type the step names', () => {
    expect(loadScenario(step('expect_events: { type: call.status, where: { ended: true }, answered_by: human, total_cost: 0.1 }'), 'ok.yaml').steps).toHaveLength(1);
  });

  it('requires the key that chooses the record of a single-record expectation', () => {
    expect(loadError(step('expect_campaign: { status: completed }')).message).toBe('bad.yaml:3: steps.0.expect_campaign.campaign: The campaign field is required.');
  });

  it('accepts count 0 and refuses count -1', () => {
    expect(loadScenario(step('expect_deliveries: { count: 0 }'), 'ok.yaml').steps).toHaveLength(1);
    expect(loadError(step('expect_deliveries: { count: -1 }')).message).toBe('bad.yaml:3: steps.0.expect_deliveries.count: The count must be at least 0.');
  });
});

describe('keys nested in given resources', () => {
  it("refuses a key nested in a field that the route's body does not have, at its line", () => {
    const text = `name: x\ngiven:\n  assistants:\n${SALES}      post_call_schema:\n        - name: booked\n          typ: bool\n          description: Booked a demo\n`;
    expect(loadError(text)).toEqual({
      file: 'bad.yaml',
      line: 16,
      path: 'given.assistants.0.post_call_schema.0.typ',
      message: 'bad.yaml:16: given.assistants.0.post_call_schema.0.typ: The typ field is not allowed; did you mean `type`?',
    });
    expect(text.split('\n')[15]).toBe('          typ: bool');
  });

  it("refuses a key nested in a document's field", () => {
    const text = 'name: x\ngiven:\n  knowledgebases:\n    - name: FAQ\n      documents:\n        - { name: Site, type: website, links: [{ lnk: "https://example.test" }] }\n';
    expect(loadError(text).message).toBe('bad.yaml:6: given.knowledgebases.0.documents.0.links.0.lnk: The lnk field is not allowed; did you mean `link`?');
  });

  it('accepts any key under an open field such as a lead\'s variables', () => {
    const text = 'name: x\ngiven:\n  leads:\n    - { campaign: spring, phone_number: "+15551230003", variables: { first_name: Ann, tier: { level: gold } } }\n';
    expect(loadScenario(text, 'ok.yaml').scenario.given?.leads).toHaveLength(1);
  });
});

describe('clock steps name their keys', () => {
  it('refuses an advance that is not a duration when loading, naming advance at its line', () => {
    expect(loadError('name: x\nsteps:\n  - advance: soon\n')).toEqual({
      file: 'bad.yaml',
      line: 3,
      path: 'steps.0.advance',
      message: 'bad.yaml:3: steps.0.advance: The advance must be a duration in milliseconds or with units (90s, 15m, 2h, 3d).',
    });
  });

  it('accepts an advance of exactly ten years in milliseconds and refuses one more', () => {
    expect(loadScenario('name: x\nsteps:\n  - advance: 315576000000\n', 'ok.yaml').steps).toHaveLength(1);
    expect(loadError('name: x\nsteps:\n  - advance: 315576000001\n').message).toBe(
      'bad.yaml:3: steps.0.advance: The advance may move the clock at most ten years (3652.5 days) ahead.',
    );
  });

  it('refuses an advance_to that is not ISO 8601 when loading, naming advance_to at its line', () => {
    expect(loadError('name: x\nsteps:\n  - advance: 1m\n  - advance_to: next tuesday\n')).toEqual({
      file: 'bad.yaml',
      line: 4,
      path: 'steps.1.advance_to',
      message: 'bad.yaml:4: steps.1.advance_to: The advance_to must be an ISO 8601 time, e.g. 2026-03-02T09:00:00Z.',
    });
  });
});

describe('steps refused while playing name their keys', () => {
  /** The failed steps of playing `text` on a fresh simulator: where, and what failed. */
  async function failedSteps(text: string) {
    const sim = createSimulator();
    try {
      const run = await sim.loadScenario(text);
      return run.steps.filter((step) => !step.ok).map((step) => ({ location: step.location, mismatches: step.mismatches }));
    } finally {
      sim.dispose();
    }
  }

  it('names advance_to when the time is before the clock, at the step', async () => {
    expect(await failedSteps('name: x\nstart: 2026-03-02T09:00:00Z\nsteps:\n  - advance_to: 2026-03-01T09:00:00Z\n')).toEqual([
      { location: '<scenario>:4', mismatches: [{ path: 'step', expected: 'to run', actual: 'The advance_to may not be before the current simulated time.' }] },
    ]);
  });

  it('names advance_to when the time is more than ten years ahead, at the step', async () => {
    expect(await failedSteps('name: x\nstart: 2026-03-02T09:00:00Z\nsteps:\n  - advance_to: 2036-03-03T09:00:00Z\n')).toEqual([
      { location: '<scenario>:4', mismatches: [{ path: 'step', expected: 'to run', actual: 'The advance_to may move the clock at most ten years (3652.5 days) ahead.' }] },
    ]);
  });

  it('names sender when a customer message names no sender, at the step', async () => {
    expect(await failedSteps('name: x\nsteps:\n  - customer_message: { sender: 99, from: "+15551230003", text: Hi }\n')).toEqual([
      { location: '<scenario>:3', mismatches: [{ path: 'step', expected: 'to run', actual: 'The selected sender is invalid.' }] },
    ]);
  });
});

describe('given refusals point at the field', () => {
  it('names the line and path of the field the API refuses', async () => {
    const text = `name: x\ngiven:\n  assistants:\n${SALES.replace('language_id: 1', 'language_id: 999')}`;
    const error = await playError(text);
    expect(error).toMatchObject({ line: 9, path: 'given.assistants.0.language_id' });
    expect(text.split('\n')[8]).toBe('      language_id: 999');
    expect(error.message).toBe(
      '<scenario>:9: given.assistants.0.language_id: POST /user/assistant was refused with 422: {"message":"The selected language id is invalid.","errors":{"language_id":["The selected language id is invalid."]}}',
    );
  });

  it("names a campaign's assistant for a refusal of its assistant_id", async () => {
    const text = `name: x\ngiven:\n  assistants:\n${SALES}  campaigns:\n    - name: Spring\n      assistant: 1.5\n`;
    expect(await playError(text)).toMatchObject({ line: 16, path: 'given.campaigns.0.assistant' });
  });

  it("names a lead's campaign for a refusal of its campaign_id", async () => {
    const text = 'name: x\ngiven:\n  leads:\n    - phone_number: "+15551230003"\n      campaign: 2.5\n';
    expect(await playError(text)).toMatchObject({ line: 5, path: 'given.leads.0.campaign' });
  });

  it('names the phone_number of a refused number', async () => {
    expect(await playError('name: x\ngiven:\n  phone_numbers:\n    - type: sip\n      phone_number: not a number\n')).toEqual({
      file: '<scenario>',
      line: 5,
      path: 'given.phone_numbers.0.phone_number',
      message: '<scenario>:5: given.phone_numbers.0.phone_number: The number was refused: The phone number must be a valid phone number in E.164 format.',
    });
  });

  it("names a sender's assistant, in the scenario's words, for a refused assistant", async () => {
    expect(await playError('name: x\ngiven:\n  senders:\n    - id: 1\n      assistant: "0"\n')).toEqual({
      file: '<scenario>',
      line: 5,
      path: 'given.senders.0.assistant',
      message: '<scenario>:5: given.senders.0.assistant: The sender was refused: The assistant must be an integer.',
    });
  });

  it('names the item when the refusal names no field the item writes', async () => {
    const text = `name: x\ngiven:\n  assistants:\n${SALES.replace('      voice_id: 1\n', '')}`;
    expect(await playError(text)).toMatchObject({ line: 4, path: 'given.assistants.0' });
  });
});

describe('errors met while playing', () => {
  let dir: string | undefined;
  let sim: Simulator | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
    sim?.dispose();
    sim = undefined;
  });

  it('names the line of an unknown $ref in given and the refs known so far', async () => {
    const text = `name: unknown ref\ngiven:\n  assistants:\n${SALES}  campaigns:\n    - ref: spring\n      name: Spring\n      assistant: $nope\n`;
    expect(await playError(text)).toEqual({
      file: '<scenario>',
      line: 17,
      path: 'given.campaigns.0.assistant',
      message: '<scenario>:17: given.campaigns.0.assistant: Unknown ref "$nope" (refs so far: sales).',
    });
    expect(text.split('\n')[16]).toBe('      assistant: $nope');
  });

  it('names the line of an unknown $ref in a step body', async () => {
    const text = 'name: unknown ref in a step\nsteps:\n  - advance: 1m\n  - request: POST /user/campaigns/update-status\n    body:\n      campaign_id: $spring\n      action: start\n';
    expect(await playError(text)).toEqual({
      file: '<scenario>',
      line: 6,
      path: 'steps.1.body.campaign_id',
      message: '<scenario>:6: steps.1.body.campaign_id: Unknown ref "$spring" (refs so far: none).',
    });
  });

  it('names the line of a given item the API refuses, with the refusal', async () => {
    const text = `name: refused assistant\ngiven:\n  assistants:\n${SALES}    - ref: support\n      name: Support\n      type: inbound\n`;
    const error = await playError(text);
    expect(error).toMatchObject({ file: '<scenario>', line: 14, path: 'given.assistants.1' });
    expect(text.split('\n')[13]).toBe('    - ref: support');
    expect(error.message.startsWith('<scenario>:14: given.assistants.1: POST /user/assistant was refused with 422: ')).toBe(true);
    const refusal = JSON.parse(error.message.slice(error.message.indexOf('422: ') + 5)) as { message: string; errors: Record<string, string[]> };
    expect(refusal.errors).toEqual({
      voice_id: ['The voice id field is required.'],
      language_id: ['The language id field is required.'],
      mode: ['The mode field is required.'],
      timezone: ['The timezone field is required.'],
      initial_message: ['The initial message field is required.'],
      system_prompt: ['The system prompt field is required.'],
    });
  });

  it('names the file path when the scenario is read from a file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxsim-errors-'));
    const file = join(dir, 'bad-ref.yaml');
    writeFileSync(file, 'name: unknown ref\nsteps:\n  - expect_campaign: { campaign: $nope, status: draft }\n');
    expect(await playError(file)).toEqual({
      file,
      line: 3,
      path: 'steps.0.expect_campaign.campaign',
      message: `${file}:3: steps.0.expect_campaign.campaign: Unknown ref "$nope" (refs so far: none).`,
    });
  });

  it('refuses through sim.loadScenario before changing the simulator', async () => {
    sim = createSimulator({ seed: 1, startAt: '2026-01-01T00:00:00Z' });
    await expect(sim.loadScenario('name: bad\nstart: 2026-03-02T09:00:00Z\nseed: -1\n')).rejects.toThrow('<scenario>:3: seed: The seed must be at least 0.');
    expect(sim.control.clock.get().now).toBe('2026-01-01T00:00:00Z');
  });
});
