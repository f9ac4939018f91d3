/**
 * `voxsim drift --catalog FILE` (issues 27 and 28): a session recorded against an upstream
 * whose account has a catalog of its own (a voice and an LLM no fixture has) drifts on a
 * fresh simulator with the wire's catalog, at the operations that use them, and replays
 * alike with the same catalog document. A bad catalog file is one line naming the file and
 * its line, and exit 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { DriftReport } from '../../src/index.js';
import { CUSTOM_CATALOG_YAML } from '../support/custom-catalog.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { startServer, stop, voxsim, waitForStdout, type Server } from '../support/processes.js';
import { httpCall, UPSTREAM_START } from '../support/session.js';
import { captureConsole } from '../support/console.js';

const dir = mkdtempSync(join(tmpdir(), 'voxsim-drift-catalog-'));
const catalog = join(dir, 'catalog.yaml');
const har = join(dir, 'session.har');
let upstream: Server;

beforeAll(async () => {
  writeFileSync(catalog, CUSTOM_CATALOG_YAML);
  upstream = await startServer(['--wire', 'live', '--catalog', catalog, '--quiet', '--start', UPSTREAM_START]);
  const proxy = voxsim(['record', '--upstream', upstream.url, '--out', har, '--port', '0']);
  const call = httpCall((await waitForStdout(proxy, /Point your client at:\s+(\S+)/, 'the proxy URL'))[1]!);
  expect((await call('GET', '/user/assistants/voices?language_id=5')).status).toBe(200);
  const created = await call('POST', '/user/assistant', { body: pipelineAssistant({ name: 'Mina', voice_id: 9001, language_id: 5, llm_model_id: 40 }, 'live') });
  expect(created.status).toBe(201);
  expect((await call('GET', `/user/assistant/${created.body.data.id}`)).status).toBe(200);
  await stop(proxy, 'SIGINT');
  await stop(upstream);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('voxsim drift --catalog', () => {
  it('lists the catalog differences without the account catalog: the assistant on its voice and model is refused (exit 1)', async () => {
    const { out, text } = captureConsole();
    expect(await main(['drift', har, '--wire', 'live', '--json'], out)).toBe(1);
    const report = JSON.parse(text()) as DriftReport;
    expect(report.differences).toContainEqual(expect.objectContaining({ operation: 'POST /user/assistant', kind: 'status', path: 'status', recorded: 201, voxsim: 422 }));
    // What the refused creation did not make is a prerequisite the read is missing, not drift.
    expect(report.missing.map((m) => m.kind)).toEqual(['assistant']);
  });

  it('replays alike with the same catalog document (exit 0)', async () => {
    const { out, text } = captureConsole();
    expect(await main(['drift', har, '--wire', 'live', '--catalog', catalog], out)).toBe(0);
    expect(text()).toContain('No drift: 3 exchanges answered alike.');
  });

  it('refuses a bad catalog file with one line naming the file and its line (exit 2)', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, CUSTOM_CATALOG_YAML.replace('language_id: 5', 'language_id: 999'));
    const { out, text } = captureConsole();
    expect(await main(['drift', har, '--wire', 'live', '--catalog', bad], out)).toBe(2);
    expect(text()).toMatch(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:6: voices\\.0\\.language_id: .+$`));
    expect(text().split('\n')).toHaveLength(1);
  });

  it('refuses a catalog file that does not exist with one line (exit 2)', async () => {
    const { out, text } = captureConsole();
    expect(await main(['drift', har, '--catalog', join(dir, 'nope.yaml')], out)).toBe(2);
    expect(text()).toBe(`${join(dir, 'nope.yaml')}: the --catalog file cannot be read (ENOENT)`);
  });
});
