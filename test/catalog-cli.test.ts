/**
 * `voxsim serve --catalog FILE` and `voxsim catalog pull` (issue 27): a catalog pulled from
 * a server started with a custom catalog serves the same catalog answers, byte for byte;
 * a bad catalog file, a refused pull and an unreachable platform are one line and exit 2.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, startServer, voxsim, within, type Server } from './support/processes.js';
import { CUSTOM_CATALOG_YAML } from './support/custom-catalog.js';

const dir = mkdtempSync(join(tmpdir(), 'voxsim-catalog-'));
const KEY = 'sim_test_key';


/** The catalog answers a client reads: every route, and every filter the document encodes. */
const CATALOG_REQUESTS = [
  '/user/assistants/voices',
  '/user/assistants/voices?mode=pipeline',
  '/user/assistants/voices?mode=multimodal',
  '/user/assistants/voices?mode=dualplex',
  '/user/assistants/voices?language_id=5',
  '/user/assistants/languages',
  '/user/assistants/models',
  '/user/assistants/models?type=multimodal',
  '/user/assistants/models?type=dualplex',
  '/user/assistants/synthesizer-providers',
  '/user/assistants/synthesizer-providers?language_id=1',
  '/user/assistants/synthesizer-providers?language_id=5',
  '/user/assistants/transcriber-providers',
  '/user/assistants/transcriber-providers?language_id=5',
];

async function answers(server: Server): Promise<string[]> {
  return Promise.all(CATALOG_REQUESTS.map(async (path) => (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${KEY}` } })).text()));
}

afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('voxsim catalog pull, then voxsim serve --catalog', () => {
  it('serves the same catalog answers byte for byte, and the custom voice is taken by assistant creation', async () => {
    const custom = join(dir, 'custom.yaml');
    writeFileSync(custom, CUSTOM_CATALOG_YAML);
    const source = await startServer(['--wire', 'live', '--catalog', custom, '--quiet']);
    const pulled = join(dir, 'pulled.json');
    const pull = voxsim(['catalog', 'pull', '--from', source.url, '--key', KEY, '--out', pulled]);
    expect(await within(pull.closed, 'the pull')).toEqual({ code: 0, signal: null });
    const doc = JSON.parse(readFileSync(pulled, 'utf8'));
    expect(doc.merge).toBe('replace');
    expect(doc.voices.at(-1)).toStrictEqual({ id: 9001, name: 'Mina', language_id: 5, gender: 'female', preview_url: 'https://voices.example.test/mina.mp3', accent: 'Bavarian', age: 'young', synthesizer_provider_id: 3, modes: ['pipeline', 'multimodal', 'dualplex'] });

    // The pulled file on the other wire: it replaces that wire's catalog whole.
    const copy = await startServer(['--catalog', pulled, '--quiet']);
    expect(await answers(copy)).toStrictEqual(await answers(source));
    const created = await fetch(`${copy.url}/user/assistant`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Mina', voice_id: 9001, language_id: 5, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin', initial_message: 'Hallo!', system_prompt: 'Be brief.', llm_model_id: 40 }),
    });
    expect(created.status).toBe(201);
  });

  it('refuses a bad catalog file with exit 2 and one line naming the file and line', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, CUSTOM_CATALOG_YAML.replace('    language_id: 5', '    language_id: 99'));
    const proc = voxsim(['serve', '--port', '0', '--catalog', bad]);
    expect(await within(proc.closed, 'exit')).toEqual({ code: 2, signal: null });
    expect(proc.stderr().trim()).toBe(`catalog file ${bad}:6: voices.0.language_id: The selected voices.0.language id is no language of the catalog; pass another --catalog`);
  });

  it('refuses an unknown key of a catalog file at its line', async () => {
    const bad = join(dir, 'misspelt.json');
    writeFileSync(bad, '{\n  "voices": [],\n  "langauges": []\n}\n');
    const proc = voxsim(['serve', '--port', '0', '--catalog', bad]);
    expect(await within(proc.closed, 'exit')).toEqual({ code: 2, signal: null });
    expect(proc.stderr().trim()).toBe(`catalog file ${bad}:3: langauges: The langauges field is not allowed; did you mean \`languages\`?; pass another --catalog`);
  });

  it('answers a pull the platform refuses with one line and exit 2', async () => {
    const source = await startServer(['--quiet']);
    const pull = voxsim(['catalog', 'pull', '--from', source.url, '--key', 'wrong_key']);
    expect(await within(pull.closed, 'the pull')).toEqual({ code: 2, signal: null });
    expect(pull.stderr().trim()).toBe(`voxsim catalog pull: GET ${source.url}/user/assistants/languages was refused with 401: Unauthenticated.`);
    expect(pull.stdout()).toBe('');
  });

  it('answers a pull from a platform it cannot reach with one line and exit 2', async () => {
    // A port that was free a moment ago: nothing listens on it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const pull = voxsim(['catalog', 'pull', '--from', `http://127.0.0.1:${port}/api`, '--key', KEY]);
    expect(await within(pull.closed, 'the pull')).toEqual({ code: 2, signal: null });
    expect(pull.stderr().trim()).toBe(`voxsim catalog pull: cannot reach http://127.0.0.1:${port}/api/user/assistants/languages (ECONNREFUSED)`);
  });
});
