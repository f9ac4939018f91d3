/**
 * The drift report's HTML page (issue 28, `voxsim drift --html`) in real headless Chromium
 * (Debian's `chromium`, driven by playwright-core, as the dashboard is tested): a
 * self-contained page that loads nothing else, shows the verdict, the table per operation
 * and each differing exchange with its JSON paths. The screenshot it takes is
 * docs/screenshots/drift-report.png (docs/recording.md shows it: the top 1280x1200 of the page; written there with
 * VOXSIM_UPDATE_SCREENSHOTS=1, else to a temp dir: test/support/processes.ts).
 *
 * Without a browser the tests are skipped with the reason printed (never silently).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { createSimulator } from '../../src/simulator.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { screenshotDir } from '../support/processes.js';
import { driveSession, KEY, recordInProcess, UPSTREAM_START } from '../support/session.js';
import { writeFileSync } from 'node:fs';
import { captureConsole } from '../support/console.js';

const CHROMIUM = process.env.VOXSIM_CHROMIUM ?? '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
const SKIP_REASON = `no Chromium at ${CHROMIUM} (install it with \`apt-get install -y chromium\`, or set VOXSIM_CHROMIUM)`;
if (!HAVE_BROWSER) console.warn(`drift report browser tests skipped: ${SKIP_REASON}`);
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SHOTS = screenshotDir();

describe.skipIf(!HAVE_BROWSER)(`drift report in headless Chromium${HAVE_BROWSER ? '' : ` (skipped: ${SKIP_REASON})`}`, () => {
  let browser: Browser;
  let dir: string;
  let page: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxsim-drift-html-'));
    // A live-wire session replayed on the spec wire (the known differences), and one request on an assistant made before the recording.
    const upstream = createSimulator({ wire: 'live', startAt: UPSTREAM_START });
    await upstream.handle({ method: 'POST', path: '/user/assistant', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(pipelineAssistant({ name: 'Made before' }, 'live')) });
    const recorder = recordInProcess(upstream);
    await driveSession(recorder.call);
    await recorder.call('GET', '/user/assistant/1');
    upstream.dispose();
    const har = join(dir, 'session.har');
    writeFileSync(har, JSON.stringify(recorder.har()));
    page = join(dir, 'drift.html');
    const { lines, out } = captureConsole();
    expect(await main(['drift', har, '--wire', 'spec', '--html', page], out)).toBe(1);
    expect(lines.at(-1)).toBe(`HTML report: ${page}`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the verdict, the operations and each difference at its path, loading nothing else, and takes the docs screenshot', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const tab = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    const problems: string[] = [];
    const requests: string[] = [];
    tab.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(m.text()));
    tab.on('pageerror', (e) => problems.push(e.message));
    tab.on('request', (r) => requests.push(r.url()));
    await tab.goto(`file://${page}`);
    expect(await tab.locator('[data-testid=verdict]').innerText()).toMatch(/^\d+ differences in \d+ of 25 exchanges; 1 not replayed \(missing prerequisites: seed them with --given\)\.$/);
    const row = (operation: string) => tab.locator(`[data-testid=operations] tr[data-operation="${operation}"] td`).allInnerTexts();
    expect(await row('POST /user/lead')).toEqual(['POST /user/lead', '3', '3', '0', '0']);
    expect(await row('GET /user/assistant/{id}')).toEqual(['GET /user/assistant/{id}', '2', '0', '1', '1']);
    const fillers = tab.locator('details', { hasText: 'GET /user/assistant/' }).locator('tr', { hasText: '$.data.fillers' });
    expect((await fillers.locator('td').allInnerTexts()).map((t) => t.trim())).toEqual(['$.data.fillers', 'type', 'number', 'boolean']);
    expect(await tab.locator('h2', { hasText: 'Missing prerequisites' }).count()).toBe(1);
    expect(requests).toEqual([`file://${page}`]);
    expect(problems).toEqual([]);
    await tab.screenshot({ path: `${SHOTS}/drift-report.png`, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: 1200 } });
    await tab.close();
  });
});
