/**
 * The published JSON Schema of the scenario format (issue 6, Build 1):
 * `scenario.schema.json` is the output of `voxsim scenario schema` and is up to date with
 * the zod schema; the library's files keep to it (required `name`, known top-level keys,
 * one step kind per step with only that kind's options).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { scenarioJsonSchema, STEP_KINDS } from '../../src/scenario/schema.js';

const root = new URL('../..', import.meta.url).pathname;
const FILES = readdirSync(join(root, 'scenarios'))
  .filter((name) => /\.ya?ml$/.test(name))
  .sort();

interface StepVariant {
  type: string;
  required: string[];
  properties: Record<string, unknown>;
  additionalProperties: boolean;
}

interface PublishedSchema {
  $id: string;
  $schema: string;
  type: string;
  required: string[];
  properties: Record<string, unknown> & { steps: { type: string; items: { anyOf: StepVariant[] } } };
}

const published = JSON.parse(readFileSync(join(root, 'scenario.schema.json'), 'utf8')) as PublishedSchema;
const variants = published.properties.steps.items.anyOf;

function voxsim(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/src/bin.js', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('scenario.schema.json', () => {
  it('is the current JSON Schema of the format', () => {
    expect(published).toEqual(JSON.parse(JSON.stringify(scenarioJsonSchema(), null, 2)));
  });

  it('is a draft 2020-12 object schema that requires name', () => {
    expect(published).toMatchObject({
      $id: 'urn:voxsim:scenario',
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['name'],
    });
  });

  it('lists the top-level keys of the format', () => {
    expect(Object.keys(published.properties).sort()).toEqual(
      ['accounts', 'description', 'given', 'msgapp_outcomes', 'name', 'outcomes', 'replies', 'seed', 'start', 'steps', 'webhook_failures', 'wire'].sort(),
    );
  });

  it('has one closed step variant per step kind, requiring its action key', () => {
    expect(published.properties.steps.type).toBe('array');
    expect(variants.map((v) => v.required)).toEqual(STEP_KINDS.map((kind) => [kind]));
    for (const variant of variants) {
      expect(variant.type).toBe('object');
      expect(variant.additionalProperties).toBe(false);
      expect(Object.keys(variant.properties)).toContain(variant.required[0]);
    }
  });

  it('forbids unknown keys at the top level, in given and in its items', () => {
    const json = published as unknown as { additionalProperties: unknown; properties: Record<string, any> };
    expect(json.additionalProperties).toBe(false);
    const given = json.properties.given;
    expect(given.additionalProperties).toBe(false);
    for (const key of ['phone_numbers', 'conversations', 'senders']) expect(given.properties[key].items.additionalProperties).toBe(false);
    expect(json.properties.accounts.items.additionalProperties).toBe(false);
    expect(json.properties.webhook_failures.items.additionalProperties).toBe(false);
  });

  it('closes every object but the maps whose keys are the author\'s own', () => {
    /** The objects that take any key, and why (JSON pointers into the published file). */
    const open: Record<string, string> = {
      '#/properties/given/properties/conversations/items/properties/variables': "a conversation's start variables",
      '#/properties/outcomes/anyOf/0/items/properties/match/properties/lead_variables': 'the lead variables an outcome rule matches',
      '#/properties/outcomes/anyOf/1': 'outcome sequences by phone number',
      '#/properties/msgapp_outcomes/anyOf/1': 'delivery outcome sequences by recipient (live-platform H.4)',
      '#/properties/steps/items/anyOf/0/properties/refs': 'ref names a request step gives to ids of its answer',
    };
    const found: string[] = [];
    const walk = (node: unknown, pointer: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${pointer}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const schema = node as Record<string, unknown>;
      if ((schema.type === 'object' || 'properties' in schema) && schema.additionalProperties !== false) found.push(pointer);
      for (const [key, value] of Object.entries(schema)) walk(value, `${pointer}/${key}`);
    };
    walk(published, '#');
    expect(found).toEqual(Object.keys(open));
  });

  it('forbids unknown keys in the request expectation', () => {
    const request = variants.find((v) => v.required[0] === 'request')! as unknown as { properties: { expect: { additionalProperties: unknown } } };
    expect(request.properties.expect.additionalProperties).toBe(false);
  });

  it('gives the request step its options', () => {
    const request = variants.find((v) => v.required[0] === 'request')!;
    expect(Object.keys(request.properties).sort()).toEqual(['body', 'expect', 'file', 'key', 'refs', 'request']);
  });
});

describe('voxsim scenario schema', () => {
  let result: { code: number | null; stdout: string; stderr: string };
  beforeAll(async () => {
    result = await voxsim(['scenario', 'schema']);
  });

  it('exits 0 and prints the same JSON as the published file', () => {
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(published);
  });

  it('prints the file byte for byte, as npm run schema writes it', () => {
    expect(result.stdout).toBe(readFileSync(join(root, 'scenario.schema.json'), 'utf8'));
  });
});

describe('the library against the schema', () => {
  it.each(FILES)('%s has a name, known top-level keys and one known step kind per step', (name) => {
    const text = readFileSync(join(root, 'scenarios', name), 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../scenario.schema.json');
    const data = parse(text) as Record<string, unknown> & { steps?: Record<string, unknown>[] };
    for (const key of published.required) expect(data).toHaveProperty(key);
    expect(typeof data.name).toBe('string');
    expect(Object.keys(published.properties)).toEqual(expect.arrayContaining(Object.keys(data)));
    expect(Array.isArray(data.steps)).toBe(true);
    data.steps!.forEach((step, i) => {
      const matching = variants.filter((v) => v.required.every((key) => key in step));
      expect({ step: i, kinds: matching.map((v) => v.required[0]) }).toEqual({ step: i, kinds: [expect.any(String)] });
      const allowed = Object.keys(matching[0]!.properties);
      expect({ step: i, unknown: Object.keys(step).filter((key) => !allowed.includes(key)) }).toEqual({ step: i, unknown: [] });
    });
  });
});
