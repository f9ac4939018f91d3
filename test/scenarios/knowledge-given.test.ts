/**
 * Knowledge bases, documents and tools in a scenario's `given` (live-platform Rule 7):
 * created through the API in order (knowledge bases with their documents, then tools,
 * then the assistants that name them), refs for all three, file documents sent as
 * forms, and the format closed at the file's own level.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ScenarioError } from '../../src/scenario/load.js';
import { createSimulator, type Simulator } from '../../src/simulator.js';

let sim: Simulator;
beforeEach(() => {
  sim = createSimulator({ seed: 1 });
});
afterEach(() => sim.dispose());

const get = async (path: string) => (await sim.handle({ method: 'GET', path, headers: { authorization: 'Bearer sim_test_key' } })).body as any;

async function playError(source: string): Promise<ScenarioError> {
  try {
    await sim.loadScenario(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return error as ScenarioError;
  }
  throw new Error('the scenario was played');
}

it('creates knowledge bases with their documents and tools, and names them by ref', async () => {
  const run = await sim.loadScenario(`name: kb
given:
  knowledgebases:
    - ref: faq
      name: FAQ
      documents:
        - { ref: page, name: Page, type: website, url: "https://www.example.test/" }
        - { ref: manual, name: Manual, type: txt, file: { name: manual.txt, content: "Opening hours" } }
        - { name: Blank, type: docx, file: { size: 0 } }
  tools:
    - { ref: lookup, name: lookup_order, description: Looks orders up., endpoint: "https://crm.example.test/", method: GET }
`);
  expect(run.refs).toMatchObject({ faq: { id: 4 }, page: { id: 21 }, manual: { id: 22 }, lookup: { id: 4 } });
  expect((await get('/user/knowledgebases/4/documents')).data.map((d: any) => [d.name, d.type])).toEqual([
    ['Page', 'website'],
    ['Manual', 'txt'],
    ['Blank', 'docx'],
  ]);
  const stored = sim.snapshot().db.knowledgebase_documents!.rows.filter((d) => d.id >= 22) as unknown as { file_name: string; file_size: number }[];
  expect(stored.map((d) => [d.file_name, d.file_size])).toEqual([
    ['manual.txt', 13],
    ['document', 0],
  ]);
  expect((await get('/user/tools/4')).name).toBe('lookup_order');
});

it('reports a refused document at its item', async () => {
  const error = await playError(`name: kb
given:
  knowledgebases:
    - name: FAQ
      documents:
        - { name: Manual, type: pdf }
`);
  expect(error).toMatchObject({ line: 6, path: 'given.knowledgebases.0.documents.0' });
  expect(error.message).toContain('was refused with 422: {"message":"A file is required for this document type."');
});

it('refuses an unknown key of a file at its line', async () => {
  const error = await playError(`name: kb
given:
  knowledgebases:
    - name: FAQ
      documents:
        - name: Manual
          type: pdf
          file: { name: a.pdf, bytes: 10 }
`);
  expect(error).toMatchObject({ line: 8 });
  expect(error.message).toContain('bytes');
});

it('reports the sixth tool at its item with the plan text', async () => {
  const tool = '    - { name: extra, description: More., endpoint: "https://crm.example.test/", method: GET }\n';
  const error = await playError(`name: tools\ngiven:\n  tools:\n${tool.repeat(3)}`);
  expect(error).toMatchObject({ path: 'given.tools.2' });
  expect(error.message).toContain('You have reached your plan limit of 5 mid call tools.');
});
