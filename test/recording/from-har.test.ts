/**
 * `scenario from-har` in-process (issue 28): the session recorded from a live-wire simulator
 * becomes a scenario that passes the schema and plays green; edited to expect another
 * status, it fails at that step's line.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createSimulator, ROUTES } from '../../src/simulator.js';
import { scenarioFromHar } from '../../src/recording/from-har.js';
import { driveSession, playSession, recordInProcess, UPSTREAM_START } from '../support/session.js';

describe('scenario from-har', () => {
  let yaml: string;
  beforeAll(async () => {
    const upstream = createSimulator({ wire: 'live', startAt: UPSTREAM_START, seed: 3 });
    const recorder = recordInProcess(upstream);
    await driveSession(recorder.call);
    upstream.dispose();
    yaml = scenarioFromHar(recorder.har(), ROUTES as never, { file: 'session.har', wire: 'live' });
  });

  it('writes request steps with refs, clock moves and closed-set expectations', () => {
    const scenario = parse(yaml) as { start: string; wire: string; steps: Record<string, any>[] };
    expect(scenario.start).toBe(UPSTREAM_START);
    expect(scenario.wire).toBe('live');
    const create = scenario.steps.find((s) => s.request === 'POST /user/assistant');
    expect(create).toMatchObject({ refs: { assistant_1: 'data.id' }, expect: { status: 201, body: { data: { status: 'inactive', type: 'outbound', mode: 'pipeline' } } } });
    expect(scenario.steps.map((s) => s.request)).toContain('GET /user/assistant/$assistant_1');
    expect(scenario.steps.find((s) => s.request === 'POST /user/campaign')?.body).toMatchObject({ assistant_id: '$assistant_1' });
    expect(scenario.steps.find((s) => s.request === 'POST /conversations')).toMatchObject({ key: null, body: { assistant_id: '$assistant_uuid_1' } });
    expect(scenario.steps.find((s) => s.file)).toMatchObject({ request: 'POST /user/knowledgebases/$knowledgebase_1/documents', body: { name: 'FAQ', type: 'txt' }, file: { name: 'faq.txt', size: 13 } });
  });

  it('plays green', async () => {
    const run = await playSession(yaml);
    expect(run.steps.filter((s) => !s.ok).map((s) => `${s.location} ${JSON.stringify(s.mismatches)}`)).toEqual([]);
    expect(run.passed).toBe(true);
  });

  it('fails at the line of a step edited to expect another status', async () => {
    const lines = yaml.split('\n');
    const at = lines.findIndex((line) => line.includes('request: POST /user/lead'));
    const statusLine = lines.findIndex((line, i) => i > at && /^\s+status: 200$/.test(line));
    lines[statusLine] = lines[statusLine]!.replace('200', '201');
    const run = await playSession(lines.join('\n'));
    const failed = run.steps.filter((s) => !s.ok);
    expect(failed.map((s) => s.location)).toEqual([`session.yaml:${at + 1}`]);
    expect(failed[0]!.mismatches).toEqual([{ path: 'status', expected: 201, actual: 200 }]);
  });
});
