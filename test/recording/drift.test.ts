/**
 * drift in-process (issue 28): a session recorded from a live-wire simulator replays with no
 * difference on the live wire, and with the known spec/live differences, each at its path,
 * on the spec wire; ids the platform assigned map to voxsim's; an id never created is a
 * missing prerequisite that `given` seeds.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../src/simulator.js';
import { drift, type DriftReport } from '../../src/index.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { driveSession, KEY, recordInProcess, UPSTREAM_START } from '../support/session.js';

/** A live-wire upstream whose ids are ahead of a fresh simulator's (two assistants and a knowledge base made before the session). */
async function recordedSession() {
  const upstream = createSimulator({ wire: 'live', startAt: UPSTREAM_START, seed: 5 });
  const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  for (const name of ['Old one', 'Old two']) await upstream.handle({ method: 'POST', path: '/user/assistant', headers: auth, body: JSON.stringify(pipelineAssistant({ name }, 'live')) });
  await upstream.handle({ method: 'POST', path: '/user/knowledgebases', headers: auth, body: JSON.stringify({ name: 'Old' }) });
  const recorder = recordInProcess(upstream);
  const ids = await driveSession(recorder.call);
  upstream.dispose();
  return { har: recorder.har(), ids };
}

describe('drift of an in-process recording', () => {
  let har: object;
  let live: DriftReport;
  beforeAll(async () => {
    ({ har } = await recordedSession());
    live = await drift(har, { wire: 'live' });
  });

  it('replays every exchange of the session on the live wire with no difference', () => {
    expect(live.differences).toEqual([]);
    expect(live.missing).toEqual([]);
    expect(live.exchanges.length).toBe(live.entries);
    expect(live.exchanges.every((e) => e.outcome === 'same')).toBe(true);
  });

  it('starts the clock where the upstream clock stood and moves it as the upstream did', () => {
    expect(live.start).toBe(UPSTREAM_START);
    const advance = live.exchanges.filter((e) => e.operation === 'POST /__sim/clock/advance');
    // Each exchange 20 ms of wall time after the one before, as recorded; the 30 minutes came from the upstream's clock move.
    expect(advance.map((e) => e.at)).toEqual([expect.stringMatching(/^2026-03-02T09:00:00\.\d+Z$/), expect.stringMatching(/^2026-03-02T09:30:00\.\d+Z$/)]);
  });

  it('sums the exchanges per operation', () => {
    expect(live.operations.find((o) => o.operation === 'POST /user/lead')).toEqual({ operation: 'POST /user/lead', exchanges: 3, same: 3, different: 0, missing_prerequisites: 0 });
    expect(live.operations.find((o) => o.operation === 'GET /user/assistant/{id}')).toMatchObject({ exchanges: 1, same: 1 });
  });

  it('lists the known spec/live differences with their paths on the spec wire', async () => {
    const spec = await drift(har, { wire: 'spec' });
    const at = (operation: string) => spec.differences.filter((d) => d.operation === operation).map((d) => `${d.kind} ${d.path}`);
    // D.1: the live paginator's keys.
    expect(at('GET /user/calls')).toEqual(expect.arrayContaining(['missing $.first_page_url', 'missing $.links']));
    // D.2: the transcript as a list; H.1: the live wire's built-in status and summary; D.3: 0/1 integers and live-only keys of the assistant.
    expect(at('GET /user/calls/{id}')).toEqual(['type $.transcript', 'missing $.variables.status', 'missing $.variables.summary', 'type $.evaluation', 'type $.carrier_cost', 'type $.total_cost']);
    expect(at('GET /user/assistant/{id}')).toEqual(expect.arrayContaining(['type $.data.fillers', 'missing $.data.engine_id']));
    // D.4: the knowledge base's status_label; the spec wire's counts.
    expect(at('POST /user/knowledgebases')).toEqual(['missing $.data.status_label', 'extra $.data.documents_count', 'extra $.data.assistants_count']);
    // Nothing else differs: no status, no closed-set value.
    expect(spec.differences.filter((d) => d.kind === 'status' || d.kind === 'value')).toEqual([]);
  });

  it('reports an id used but never created as a missing prerequisite, and given seeds it', async () => {
    const upstream = createSimulator({ wire: 'live', startAt: UPSTREAM_START });
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    for (const name of ['A', 'B', 'C']) await upstream.handle({ method: 'POST', path: '/user/assistant', headers: auth, body: JSON.stringify(pipelineAssistant({ name }, 'live')) });
    const recorder = recordInProcess(upstream);
    await recorder.call('GET', '/user/assistant/3');
    await recorder.call('POST', '/user/campaign', { body: { name: 'C', assistant_id: 3 } });
    const without = await drift(recorder.har(), { wire: 'live' });
    expect(without.differences).toEqual([]);
    expect(without.missing.map((m) => `${m.entry} ${m.kind} ${m.id} ${m.where}`)).toEqual(['1 assistant 3 path', '2 assistant 3 body.assistant_id']);
    expect(without.operations.map((o) => o.missing_prerequisites)).toEqual([1, 1]);
    const seeded = await drift(recorder.har(), { wire: 'live', given: { name: 'seed', given: { assistants: [pipelineAssistant({ name: 'C' }, 'live')] } } });
    expect(seeded.missing).toEqual([]);
    expect(seeded.differences).toEqual([]);
  });
});

describe('drift of a HAR written by a browser', () => {
  // Exported from a browser's dev tools: the page, a font (base64), a CORS preflight, a
  // blocked request, and the console's API calls (a JSON `text` request body, answers as
  // text and as base64), against a platform whose ids are ahead of a fresh simulator's.
  const har = readFileSync(new URL('./browser-session.har', import.meta.url), 'utf8');

  it('replays the platform entries and counts the others', async () => {
    const report = await drift(har, { file: 'browser-session.har' });
    expect(report.entries).toBe(8);
    expect(report.ignored).toEqual({ count: 4, reasons: { 'outside /api': 2, 'OPTIONS (not an operation)': 1, 'no answer (status 0)': 1 } });
    expect(report.exchanges.map((e) => `${e.entry} ${e.operation} ${e.outcome}`)).toEqual([
      '4 POST /user/assistant same',
      '5 GET /user/assistant/{id} same',
      '6 PUT /user/assistant/{id} same',
      '7 GET /user/me same',
    ]);
    expect(report.differences).toEqual([]);
  });

  it('replays the platform ids onto voxsim ids (the recorded assistant 3 is voxsim 1)', async () => {
    const report = await drift(har);
    expect(report.exchanges[1]!.path).toBe('/user/assistant/3');
    expect(report.exchanges[1]!.voxsim_status).toBe(200);
  });
});

describe('docs/recording.md', () => {
  it('shows the drift report screenshot that the browser test takes', () => {
    const doc = readFileSync(new URL('../../docs/recording.md', import.meta.url), 'utf8');
    expect([...doc.matchAll(/!\[[^\]]+\]\(([^)]+)\)/g)].map((m) => m[1])).toEqual(['screenshots/drift-report.png']);
    expect(readFileSync(new URL('../../docs/screenshots/drift-report.png', import.meta.url)).subarray(1, 4).toString()).toBe('PNG');
  });
});
