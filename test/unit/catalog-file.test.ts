/**
 * Catalog files (`voxsim serve --catalog FILE`, issue 27) read by the scenario loader's
 * parser: located messages as `PUT /__sim/catalog` words them, and the request body's depth
 * limit (src/scenario/load.ts parseLocatedText, refuseTooDeep).
 */
import { describe, expect, it } from 'vitest';
import { CatalogFileError, loadCatalogText } from '../../src/scenario/catalog-file.js';
import { createSimulator } from '../../src/simulator.js';

/** The error `loadCatalogText` throws for `text` (on the spec wire), as its class and message. */
function refusal(text: string): [string, string] {
  try {
    loadCatalogText(text, 'catalog.yaml', 'spec');
  } catch (error) {
    return [(error as Error).constructor.name, (error as Error).message];
  }
  throw new Error('the catalog was taken');
}

const VOICE = '{ id: 9001, name: Mina, gender: female, preview_url: null, accent: null, age: null, synthesizer_provider_id: 1';

describe('loadCatalogText', () => {
  it('takes a sound document as written', () => {
    expect(loadCatalogText(`merge: extend\nvoices:\n  - ${VOICE}, language_id: 5 }\n`, 'catalog.yaml', 'live')).toStrictEqual({
      merge: 'extend',
      voices: [{ id: 9001, name: 'Mina', gender: 'female', preview_url: null, accent: null, age: null, synthesizer_provider_id: 1, language_id: 5 }],
    });
  });

  it('names an unknown key at its line with the closest key', () => {
    expect(refusal('merge: extend\nvoices:\n  - id: 1\n    nme: x\n')).toEqual(['CatalogFileError', 'catalog.yaml:4: voices.0.nme: The nme field is not allowed; did you mean `name`?']);
  });

  it('words a field rule as the API does, without suggesting a word for an enum', () => {
    expect(refusal(`voices:\n  - ${VOICE}, language_id: de }\n`)).toEqual(['CatalogFileError', 'catalog.yaml:2: voices.0.language_id: The voices.0.language id must be an integer.']);
    expect(refusal('merge: extnd\n')).toEqual(['CatalogFileError', 'catalog.yaml:1: merge: The selected merge is invalid.']);
  });

  it("names a reference the wire's catalog lacks at its line", () => {
    expect(refusal(`merge: extend\nvoices:\n  - ${VOICE}, language_id: 99 }\n`)).toEqual([
      'CatalogFileError',
      'catalog.yaml:3: voices.0.language_id: The selected voices.0.language id is no language of the catalog.',
    ]);
  });

  it('refuses a second document at its line, and a syntax error at its own', () => {
    expect(refusal('merge: extend\n---\nvoices: []\n')).toEqual(['CatalogFileError', 'catalog.yaml:2: Source contains multiple documents; please use YAML.parseAllDocuments()']);
    expect(refusal('merge: extend\nvoices: [\n')).toEqual(['CatalogFileError', 'catalog.yaml:3: Flow sequence in block collection must be sufficiently indented and end with a ]']);
  });

  it('refuses flow nesting deeper than a request body before parsing it', () => {
    expect(refusal(`voices: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`)).toEqual(['CatalogFileError', 'catalog.yaml:1: The catalog may not nest more than 64 levels deep.']);
  });

  it('refuses block nesting far past the limit before composing it, at the line of its 257th level, the same in any thread', () => {
    // `voices` is level 1; sequence i (from 0) is level i + 2, at line i + 2. 5,000 levels overflowed the composer on a cold main thread but not in a warm worker.
    const text = `voices:\n${Array.from({ length: 5000 }, (_, i) => `${' '.repeat(i + 1)}-`).join('\n')} 1\n`;
    expect(refusal(text)).toEqual(['CatalogFileError', 'catalog.yaml:257: The catalog may not nest more than 64 levels deep.']);
  });

  it('names a key too deep as PUT /__sim/catalog names it, underscores as spaces', async () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const message = 'The synthesizer providers may not nest more than 64 levels deep.';
    expect(refusal(`synthesizer_providers: ${deep(64)}\n`)).toEqual(['CatalogFileError', `catalog.yaml:1: synthesizer_providers: ${message}`]);
    const sim = createSimulator();
    const put = await sim.handle({ method: 'PUT', path: '/__sim/catalog', headers: { 'content-type': 'application/json' }, body: `{"synthesizer_providers": ${deep(64)}}` });
    sim.dispose();
    expect(put).toStrictEqual({ status: 422, body: { message, errors: { synthesizer_providers: [message] } } });
  });

  it('refuses data nested deeper than a request body at the top-level key it is under', () => {
    const text = `voices:\n${Array.from({ length: 70 }, (_, i) => `${'  '.repeat(i + 1)}- `).join('\n')}\n`;
    expect(refusal(text)).toEqual(['CatalogFileError', 'catalog.yaml:65: voices: The voices may not nest more than 64 levels deep.']);
  });
});
