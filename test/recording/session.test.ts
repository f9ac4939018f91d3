/**
 * What drift and from-har share (src/recording/session.ts, compare.ts mapRequestIds): the
 * route's parameters and the body's kind read once, the way the router reads them; ids in
 * a path and a query rewritten by one walk (a malformed escape is text, as the router reads
 * it, not a crash); the upstream's clock re-anchored after every clock move, a restored
 * state included.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bearerToken } from '../../src/core/http.js';
import { drift } from '../../src/index.js';
import { mapRequestIds } from '../../src/recording/compare.js';
import { scenarioFromHar } from '../../src/recording/from-har.js';
import { readHar } from '../../src/recording/har.js';
import { parseUpstream, selectSession } from '../../src/recording/session.js';
import { loadScenario } from '../../src/scenario/load.js';
import { playScenario } from '../../src/scenario/runner.js';
import { createSimulator, ROUTES } from '../../src/simulator.js';
import { playSession, recordInProcess, UPSTREAM_START } from '../support/session.js';

/** The steps of a scenario in one line each: its request, or where it moves the clock. */
function stepLines(yaml: string): string[] {
  return (parse(yaml) as { steps: Record<string, string>[] }).steps.map((s) => s.request ?? `advance_to ${s.advance_to}`);
}

describe('mapRequestIds', () => {
  const swap = (kind: string, value: string, where: string) => `<${kind}:${value}@${where}>`;

  it("writes the route's parameters and the query's id values through swap, and escapes every other value", () => {
    const request = { template: '/user/knowledgebases/:knowledgebaseId/documents/:documentId', params: { knowledgebaseId: '7', documentId: 'a b' }, path: '/user/knowledgebases/7/documents/a%20b', search: 'campaign_id=3&q=%24x+y&label_ids[]=4' };
    expect(mapRequestIds(request, swap)).toEqual({
      path: '/user/knowledgebases/<knowledgebase:7@path>/documents/<document:a b@path>',
      search: 'campaign_id=<campaign:3@query.campaign_id>&q=%24x%20y&label_ids%5B%5D=<label:4@query.label_ids[]>',
    });
  });

  it('leaves a path no route matched as recorded, and an empty query empty', () => {
    expect(mapRequestIds({ template: undefined, params: {}, path: '/user/nowhere/%E0', search: '' }, swap)).toEqual({ path: '/user/nowhere/%E0', search: '' });
  });

  it('escapes a parameter whose kind is not a created one (a catalog id)', () => {
    expect(mapRequestIds({ template: '/user/assistants/voices/:voiceId', params: { voiceId: 'en/US' }, path: '/user/assistants/voices/en%2FUS', search: '' }, swap).path).toBe('/user/assistants/voices/en%2FUS');
  });
});

describe('selectSession', () => {
  it("keeps the router's parameters and whether the body is a form", async () => {
    const upstream = createSimulator({ wire: 'live', startAt: UPSTREAM_START });
    const recorder = recordInProcess(upstream);
    const kb = await recorder.call('POST', '/user/knowledgebases', { body: { name: 'Manual' } });
    await recorder.call('POST', `/user/knowledgebases/${kb.body.data.id}/documents`, { form: { fields: { name: 'FAQ', type: 'txt' }, file: { name: 'faq.txt', bytes: Buffer.from('Open 9 to 5.\n') } } });
    upstream.dispose();
    const { exchanges } = selectSession(readHar(recorder.har()), ROUTES as never, 'api/');
    expect(exchanges.map((e) => ({ operation: e.operation, params: e.params, multipart: e.multipart, requestBody: e.requestBody }))).toEqual([
      { operation: 'POST /user/knowledgebases', params: {}, multipart: false, requestBody: { name: 'Manual' } },
      { operation: 'POST /user/knowledgebases/{knowledgebaseId}/documents', params: { knowledgebaseId: String(kb.body.data.id) }, multipart: true, requestBody: undefined },
    ]);
  });
});

describe('a recorded URL with a malformed percent escape', () => {
  // `%E0` is no UTF-8: the router keeps a path segment as written, and reads a query value as
  // URLSearchParams does (every adapter reads the query with it): U+FFFD.
  async function recorded() {
    const upstream = createSimulator({ wire: 'live', startAt: UPSTREAM_START });
    const recorder = recordInProcess(upstream);
    const statuses = [(await recorder.call('GET', '/user/assistant/%E0')).status, (await recorder.call('GET', '/user/leads?campaign_id=%E0')).status];
    upstream.dispose();
    return { har: recorder.har(), statuses };
  }

  it('is an id drift reports as a missing prerequisite, not a URIError', async () => {
    const { har } = await recorded();
    const report = await drift(har, { wire: 'live' });
    expect(report.missing).toEqual([
      { entry: 1, operation: 'GET /user/assistant/{id}', kind: 'assistant', id: '%E0', where: 'path' },
      { entry: 2, operation: 'GET /user/leads', kind: 'campaign', id: '\uFFFD', where: 'query.campaign_id' },
    ]);
    expect(report.differences).toEqual([]);
  });

  it('is written escaped by from-har, so the scenario sends the router the same id and gets the recorded status', async () => {
    const { har, statuses } = await recorded();
    // No assistant has that id; a campaign id is checked as an integer.
    expect(statuses).toEqual([404, 422]);
    const yaml = scenarioFromHar(har, ROUTES as never, { wire: 'live' });
    expect(stepLines(yaml)).toEqual(['GET /user/assistant/%25E0', 'GET /user/leads?campaign_id=%EF%BF%BD']);
    const run = await playSession(yaml);
    expect(run.steps.map((s) => ({ ok: s.ok, mismatches: s.mismatches }))).toEqual(statuses.map(() => ({ ok: true, mismatches: [] })));
  });
});

describe('from-har on the timeline drift uses', () => {
  it('re-anchors the clock after a recorded PUT /__sim/state that sets it back', async () => {
    const upstream = createSimulator({ wire: 'live', startAt: UPSTREAM_START });
    const recorder = recordInProcess(upstream);
    await recorder.call('GET', '/__sim/clock');
    const snapshot = await recorder.call('GET', '/__sim/state');
    await recorder.call('POST', '/__sim/clock/advance', { body: { by: '2h' } });
    const restored = await recorder.call('PUT', '/__sim/state', { body: snapshot.body });
    // Not the API: the restored snapshot's keys are redacted in the HAR, so a replay has none.
    await recorder.call('GET', '/__sim/clock');
    await recorder.call('GET', '/__sim/clock');
    upstream.dispose();
    expect(restored.body.now).toBe(UPSTREAM_START);
    const har = recorder.har();
    // The last request half an hour (of wall time) after the one before it.
    const last = har.log.entries.at(-1)!;
    last.startedDateTime = new Date(Date.parse(last.startedDateTime) + 30 * 60_000).toISOString();
    const yaml = scenarioFromHar(har, ROUTES as never, { wire: 'live' });
    // Exchanges are 20 ms apart: after the restore the clock is 09:00 again, 20 ms later the next read, then half an hour.
    expect(stepLines(yaml)).toEqual(['GET /__sim/clock', 'GET /__sim/state', 'POST /__sim/clock/advance', 'PUT /__sim/state', 'GET /__sim/clock', 'advance_to 2026-03-02T09:30:00.040Z', 'GET /__sim/clock']);
    const sim = createSimulator();
    try {
      const run = await playScenario(sim, loadScenario(yaml, 'session.yaml'));
      expect(run.steps.filter((s) => !s.ok).map((s) => `${s.location} ${JSON.stringify(s.mismatches)}`)).toEqual([]);
      expect(new Date(sim.clock.now()).toISOString()).toBe('2026-03-02T09:30:00.040Z');
    } finally {
      sim.dispose();
    }
  });
});

describe('the upstream and the bearer token, read once', () => {
  it('parses the upstream to its URL and the text messages name it by', () => {
    expect(parseUpstream('https://api.example.com/api/?x=1#top')).toEqual({ url: new URL('https://api.example.com/api'), text: 'https://api.example.com/api' });
    expect(parseUpstream('http://127.0.0.1:4010').text).toBe('http://127.0.0.1:4010');
    expect(() => parseUpstream('ftp://x')).toThrow('--upstream must be an http or https URL, got "ftp://x"');
  });

  it('reads the token of a bearer header only', () => {
    expect([bearerToken('Bearer sim_test_key'), bearerToken('bearer  k1 '), bearerToken('Basic a2V5'), bearerToken('Bearer a b'), bearerToken(undefined)]).toEqual(['sim_test_key', 'k1', undefined, undefined, undefined]);
  });
});
