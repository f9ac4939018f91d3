/**
 * The rows a restore leaves are put in when a table is first used (core/store.ts
 * `Table.ready`); a server puts them in while it is idle, a slice per turn of its event
 * loop (cli.ts `unpackWhenIdle`), after its start on a state file and after each
 * `PUT /__sim/state`, so that they take their compact form without waiting for a request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serve } from '../../src/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'voxsim-unpack-idle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const AUTH = { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' };
const ASSISTANT = { name: 'Front desk', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin', initial_message: 'Hello!', system_prompt: 'Be brief.', llm_model_id: 1 };

/** Turns of the event loop until `done`, at most `turns` of them. */
async function turnsUntil(done: () => boolean, turns = 1000): Promise<number> {
  for (let n = 0; n < turns; n++) {
    if (done()) return n;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`not done after ${turns} turns of the event loop`);
}

describe('a server restored from a snapshot', () => {
  it('puts the restored rows in while idle, at its start and after PUT /__sim/state, answering as before', async () => {
    const stateFile = join(dir, 'state.json');
    const options = { port: 0, host: '127.0.0.1', seed: 5, basePath: '/api', stateFile, quiet: true };
    const first = await serve(options);
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${first.url}/user/assistant`, { method: 'POST', headers: AUTH, body: JSON.stringify({ ...ASSISTANT, name: `Desk ${i}` }) });
      expect(res.status).toBe(201);
    }
    const list = async (url: string) => (await (await fetch(`${url}/user/assistants/get`, { headers: AUTH })).json()) as { data: { name: string }[] };
    const before = await list(first.url);
    await first.close();

    const second = await serve(options);
    // Restored before it listened; what was not put in yet is put in within a few turns, with no request.
    const waiting = second.sim.db.rowsWaiting;
    await turnsUntil(() => second.sim.db.rowsWaiting === 0);
    expect(waiting).toBeGreaterThan(30);
    expect(second.sim.db.assistants.waiting).toBe(0);
    expect(await list(second.url)).toEqual(before);

    const snapshot = second.sim.snapshot();
    await second.close();

    // A snapshot put in force over HTTP, on a server without a state file (a state file's log observes its tables, which take their rows at once).
    const third = await serve({ ...options, stateFile: undefined });
    const put = await fetch(`${third.url}/__sim/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(snapshot) });
    expect(put.status).toBe(200);
    await turnsUntil(() => third.sim.db.rowsWaiting === 0);
    expect(await list(third.url)).toEqual(before);
    await third.close();
  });
});
