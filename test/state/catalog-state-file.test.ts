/**
 * The catalog document in the state file (issue 27): a catalog put in force is logged
 * before the answer and restored at the next start; the restored server answers it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serve } from '../../src/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'voxsim-catalog-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MINA = { id: 9001, name: 'Mina', language_id: 5, gender: 'female', preview_url: null, accent: null, age: 'young', synthesizer_provider_id: 1 };

describe('the catalog in the state file', () => {
  it('keeps a catalog put in force through a restart, and a later reset to none', async () => {
    const stateFile = join(dir, 'state.json');
    const options = { port: 0, host: '127.0.0.1', seed: 5, basePath: '/api', stateFile, wire: 'live' as const };
    const first = await serve(options);
    const put = await fetch(`${first.url}/__sim/catalog`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ merge: 'extend', voices: [MINA] }) });
    expect(put.status).toBe(200);
    await first.close();

    const second = await serve(options);
    const voices = (await (await fetch(`${second.url}/user/assistants/voices?language_id=5`, { headers: { authorization: 'Bearer sim_test_key' } })).json()) as { id: number }[];
    expect(voices.map((v) => v.id)).toEqual([13, 1994, 9001]);
    expect((await fetch(`${second.url}/__sim/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    await second.close();

    const third = await serve(options);
    const after = (await (await fetch(`${third.url}/__sim/catalog`)).json()) as { voices: { id: number }[] };
    expect(after.voices.map((v) => v.id)).toEqual([1, 4, 8, 10, 11, 12, 13, 41, 1994]);
    await third.close();
  });
});
