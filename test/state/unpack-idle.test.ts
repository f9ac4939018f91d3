/**
 * The rows a restore leaves are put in when a table is first used (core/store.ts
 * `Table.ready`); a server puts them in while it is idle, a slice per turn of its event
 * loop (src/cli/serve.ts `unpackWhenIdle`), after its start on a state file and after each
 * `PUT /__sim/state`, so that they take their compact form without waiting for a request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src/cli.js';
import { KEY, START } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'voxsim-unpack-idle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const AUTH = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

/** The server a test runs (one at a time), closed after it even when an assertion fails. */
let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});
const start = async (options: Parameters<typeof serve>[0]) => (running = await serve(options));
const closeRunning = async () => {
  await running?.close();
  running = undefined;
};

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
    const options = { port: 0, host: '127.0.0.1', seed: 5, basePath: '/api', start: START, stateFile, quiet: true };
    const first = await start(options);
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${first.url}/user/assistant`, { method: 'POST', headers: AUTH, body: JSON.stringify(pipelineAssistant({ name: `Desk ${i}` })) });
      expect(res.status).toBe(201);
    }
    const list = async (url: string) => (await (await fetch(`${url}/user/assistants/get`, { headers: AUTH })).json()) as { data: { name: string }[] };
    const before = await list(first.url);
    await closeRunning();

    const second = await start(options);
    // Restored before it listened; what was not put in yet is put in within a few turns, with no request.
    const waiting = second.sim.db.rowsWaiting;
    await turnsUntil(() => second.sim.db.rowsWaiting === 0);
    expect(waiting).toBeGreaterThan(30);
    expect(second.sim.db.assistants.waiting).toBe(0);
    expect(await list(second.url)).toEqual(before);

    const snapshot = second.sim.snapshot();
    await closeRunning();

    // A snapshot put in force over HTTP, on a server without a state file (a state file's log observes its tables, which take their rows at once).
    const third = await start({ ...options, stateFile: undefined });
    const put = await fetch(`${third.url}/__sim/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(snapshot) });
    expect(put.status).toBe(200);
    await turnsUntil(() => third.sim.db.rowsWaiting === 0);
    expect(await list(third.url)).toEqual(before);
  });
});
