/**
 * Every account's fixtures (decisions: Fixtures for every account; live-platform C.1
 * Fixtures): knowledge bases with their documents, tools, senders and templates. They are
 * written when one of their tables is first used, and must be exactly what writing them
 * at the account's creation gives: the same ids, times and names, whatever happened in
 * between (the clock moved, the account was renamed, more accounts came).
 */
import { describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator.js';

const START = '2026-03-02T09:00:00Z';
const FIXTURE_TABLES = ['knowledgebases', 'knowledgebase_documents', 'tools', 'msgapp_senders', 'msgapp_templates'];

function fixtureRows(sim: Simulator) {
  const db = sim.snapshot().db;
  return Object.fromEntries(FIXTURE_TABLES.map((name) => [name, db[name]]));
}

/** What happens between the creation of the default account and the first read of its fixtures. */
async function meanwhile(sim: Simulator): Promise<void> {
  await sim.clock.advance('1h');
  sim.control.accounts.patch(1, { name: 'Renamed Account' });
  sim.control.accounts.create({ api_key: 'sim_second_key', name: 'Second Account' });
  await sim.clock.advance('1h');
}

describe('account fixtures', () => {
  it('are the rows writing them at each account creation gives, read after the clock moved, a rename and a second account', async () => {
    const eager = createSimulator({ seed: 3, startAt: START });
    // Reading a fixture table writes the queued fixtures: here, before anything else happens.
    expect(eager.db.tools.size).toBe(3);
    await meanwhile(eager);
    expect(eager.db.tools.size).toBe(6);

    const lazy = createSimulator({ seed: 3, startAt: START });
    await meanwhile(lazy);
    expect(fixtureRows(lazy)).toEqual(fixtureRows(eager));
  });

  it('are in a snapshot taken before anything read them, with their tables\' sequences', () => {
    const db = createSimulator({ seed: 3, startAt: START }).snapshot().db;
    expect(FIXTURE_TABLES.map((name) => [db[name]!.seq, db[name]!.rows.length])).toEqual([
      [3, 3],
      [20, 20],
      [3, 3],
      [2, 2],
      [4, 4],
    ]);
  });

  it('keep the creation time and the name the account had then', async () => {
    const sim = createSimulator({ seed: 3, startAt: START });
    await meanwhile(sim);
    const res = await sim.handle({ method: 'GET', path: '/user/knowledgebases', headers: { authorization: 'Bearer sim_test_key' } });
    const created = (res.body as { data: { created_at: string }[] }).data.map((kb) => kb.created_at);
    expect(created).toEqual(['2026-03-02T09:00:00.000000Z', '2026-03-02T09:00:00.000000Z', '2026-03-02T09:00:00.000000Z']);
    const senders = sim.db.senders.where('account', 1).map((s) => s.display_name);
    expect(senders).toEqual(['Voxsim Test Account Support', 'Voxsim Test Account Sales']);
    expect(sim.db.senders.where('account', 2).map((s) => s.display_name)).toEqual(['Second Account Support', 'Second Account Sales']);
  });

  it('give ids after the rows written before them in the same tables', async () => {
    const sim = createSimulator({ seed: 3, startAt: START });
    const created = await sim.handle({ method: 'POST', path: '/user/knowledgebases', headers: { authorization: 'Bearer sim_test_key' }, body: JSON.stringify({ name: 'Mine' }) });
    // The account's three fixture knowledge bases came first.
    expect((created.body as { data: { id: number } }).data.id).toBe(4);
    expect(sim.db.knowledgebases.where('account', 1).map((kb) => kb.name).at(-1)).toBe('Mine');
  });

  it('are written once after a reset, for the accounts the reset re-creates', () => {
    const sim = createSimulator({ seed: 3, startAt: START });
    sim.control.accounts.create({ api_key: 'sim_second_key' });
    sim.reset();
    expect(sim.db.accounts.size).toBe(1);
    expect(sim.db.knowledgebases.size).toBe(3);
    expect(sim.db.documents.size).toBe(20);
    expect(sim.db.tools.size).toBe(3);
    expect(sim.db.senders.size).toBe(2);
    expect(sim.db.templates.size).toBe(4);
  });

  it('still queued are replaced by a restored snapshot, not added to it', async () => {
    const source = createSimulator({ seed: 3, startAt: START });
    const deleted = await source.handle({ method: 'DELETE', path: '/user/tools/1', headers: { authorization: 'Bearer sim_test_key' } });
    expect(deleted.status).toBe(200);
    const saved = source.snapshot();
    const target = createSimulator({ seed: 3, startAt: START });
    target.restore(saved);
    expect(target.db.tools.all().map((t) => t.id)).toEqual([2, 3]);
    expect(fixtureRows(target)).toEqual(fixtureRows(source));
  });
});
