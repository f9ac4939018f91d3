/**
 * A server restarting on its state file builds its simulator with `simulatorToRestore`
 * (no accounts first: the snapshot's replace them; issue 29). Restored, it must be the
 * simulator `createSimulator` + `restore` gives: the same state, the same answers, and a
 * reset that builds the options' accounts.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator, simulatorToRestore } from '../../src/simulator.js';
import { KEY, START } from '../support/api.js';
import { pipelineAssistant } from '../support/fixtures.js';

const AUTH = { authorization: `Bearer ${KEY}` };

describe('simulatorToRestore', () => {
  it('restores to the state, the answers and the reset of createSimulator + restore', async () => {
    const source = createSimulator({ seed: 3, startAt: START, accounts: [{ api_key: KEY, name: 'Acme' }, { name: 'Other' }] });
    const created = await source.handle({ method: 'POST', path: '/user/assistant', headers: AUTH, body: JSON.stringify(pipelineAssistant({ name: 'Front desk', type: 'inbound' })) });
    expect(created.status).toBe(201);
    const snapshot = source.snapshot();

    const options = { seed: 3, startAt: START };
    const usual = createSimulator(options);
    usual.restore(structuredClone(snapshot), { owned: true });
    const restarted = simulatorToRestore(options);
    // Nothing was built before the restore: no account, so no fixtures either.
    expect(restarted.db.accounts.size).toBe(0);
    restarted.restore(structuredClone(snapshot), { owned: true });

    expect(JSON.stringify(restarted.snapshot())).toBe(JSON.stringify(usual.snapshot()));
    const list = { method: 'GET', path: '/user/assistants', headers: AUTH, query: {} };
    const [a, b] = [await usual.handle(list), await restarted.handle(list)];
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(JSON.stringify(b.body)).toContain('"name":"Front desk"');

    // A reset builds the options' accounts (the default one), as any simulator's does.
    usual.reset();
    restarted.reset();
    expect(restarted.db.accounts.size).toBe(1);
    expect(JSON.stringify(restarted.snapshot())).toBe(JSON.stringify(usual.snapshot()));
  });
});
