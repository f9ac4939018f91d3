/**
 * Folders, labels, SIP trunks and SMS in scenario files (live-platform Rule 7, C.3-C.5):
 * `given.folders` and `given.labels` are created through the API before the assistants,
 * which name them by `$ref`; `given.sip_trunks` and `given.sms` after the numbers; the
 * shipped scenario checks them in its expectations; a refused item is reported at its line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ScenarioError } from '../../src/scenario/load.js';
import { createSimulator } from '../../src/simulator.js';

const root = new URL('../..', import.meta.url).pathname;
const FILE = join(root, 'scenarios/assistants-in-folders-and-labels.yaml');

it('plays the shipped scenario: folders and labels from given, filed assistants, every expectation met', async () => {
  const sim = createSimulator();
  const run = await sim.loadScenario(FILE);
  expect(run.steps.map((s) => [s.kind, s.ok])).toEqual([
    ['expect_assistant', true],
    ['expect_assistant', true],
    ['request', true],
    ['request', true],
    ['request', true],
    ['request', true],
    ['request', true],
    ['expect_balance', true],
    ['request', true],
    ['request', true],
    ['expect_assistant', true],
    ['expect_assistant', true],
    ['request', true],
  ]);
  expect(run.passed).toBe(true);
  expect(run.refs).toMatchObject({ priority: { id: 1 }, vip: { id: 1 }, callback: { id: 2 }, office: { id: 3, phone_number: '200' }, welcome: { id: 'SMS_1' } });
});

it('fails the scenario when an expectation about the filing does not hold', async () => {
  const text = readFileSync(FILE, 'utf8').replace('label_ids: [$vip, $callback] }', 'label_ids: [$callback, $vip] }');
  const run = await createSimulator().loadScenario(text);
  expect(run.passed).toBe(false);
  expect(run.steps[0]!.mismatches.map((m) => m.path)).toEqual(['assistant.label_ids[0]', 'assistant.label_ids[1]']);
});

it("reports a refused folder at its name's line and path, with the API answer", async () => {
  const text = ['name: clash', 'given:', '  folders:', '    - { name: Sales }', '    - { name: SALES }', ''].join('\n');
  const error = await createSimulator()
    .loadScenario(text)
    .then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ScenarioError);
  expect((error as Error).message).toBe(
    '<scenario>:5: given.folders.1.name: POST /user/folders was refused with 422: {"message":"The name has already been taken.","errors":{"name":["The name has already been taken."]}}',
  );
});

it('sets up labels for another account with key, and an assistant naming a foreign label is refused', async () => {
  const text = [
    'name: foreign label',
    'accounts: [{ api_key: sim_test_key }, { api_key: sim_other_key }]',
    'given:',
    '  labels:',
    '    - { ref: theirs, name: Theirs, key: sim_other_key }',
    '  assistants:',
    '    - { name: Mine, voice_id: 1, language_id: 1, type: outbound, mode: pipeline, llm_model_id: 1, timezone: UTC, initial_message: Hi, system_prompt: Be brief, label_ids: [$theirs] }',
    '',
  ].join('\n');
  const error = (await createSimulator()
    .loadScenario(text)
    .then(() => undefined, (e: unknown) => e)) as Error;
  expect(error.message).toBe(
    '<scenario>:7: given.assistants.0.label_ids.0: POST /user/assistant was refused with 422: {"message":"The selected label ids.0 is invalid.","errors":{"label_ids.0":["The selected label ids.0 is invalid."]}}',
  );
});

it('reports a refused SMS of given at its line, naming the API answer', async () => {
  const text = ['name: no number', 'given:', '  sms:', '    - { from: 99, to: "+4915123456789", body: Hi }', ''].join('\n');
  const error = (await createSimulator()
    .loadScenario(text)
    .then(() => undefined, (e: unknown) => e)) as Error;
  expect(error.message).toBe('<scenario>:4: given.sms.0: POST /user/sms was refused with 400: {"message":"From number not found"}');
});
