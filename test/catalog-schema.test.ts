/**
 * The published JSON Schema of catalog documents (issue 27): `catalog.schema.json` is the
 * output of `voxsim catalog schema` (`npm run schema`), up to date with the zod schema,
 * and shipped in the package; the live catalog fixture keeps to it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { catalogJsonSchema } from '../src/domain/catalog/document.js';

const ROOT = new URL('..', import.meta.url).pathname;
const published = JSON.parse(readFileSync(join(ROOT, 'catalog.schema.json'), 'utf8')) as Record<string, unknown>;

describe('catalog.schema.json', () => {
  it('is the current JSON Schema of catalog documents', () => {
    expect(published).toEqual(JSON.parse(JSON.stringify(catalogJsonSchema())));
    expect(published).toMatchObject({ $id: 'urn:voxsim:catalog', title: 'voxsim catalog', $schema: 'https://json-schema.org/draft/2020-12/schema' });
  });

  it('takes the live catalog fixture and refuses a voice without a name', () => {
    const validate = new Ajv2020({ strict: false }).compile(published);
    const live = JSON.parse(readFileSync(join(ROOT, 'fixtures/live-catalog.json'), 'utf8')) as { voices: Record<string, unknown>[] };
    expect(validate(live)).toBe(true);
    expect(validate({ voices: [{ ...live.voices[0], name: undefined }] })).toBe(false);
  });

  it('is shipped in the package', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; scripts: Record<string, string> };
    expect(pkg.files).toContain('catalog.schema.json');
    expect(pkg.scripts.schema).toContain('catalog schema > catalog.schema.json');
  });
});
