/**
 * The dashboard `GET {base}/__sim/ui` (issue 16, item 2) in real headless Chromium
 * (Debian's `chromium`, driven by playwright-core): it loads without console errors,
 * reflects a campaign started through the API and clock moves, its controls move the
 * clock, a failing webhook shows its retry schedule, it stays small and live through a
 * campaign far larger than it renders, and it fits a 1280x800 screen and a phone. The
 * screenshots it takes are docs/screenshots/dashboard-*.png (written there with
 * VOXSIM_UPDATE_SCREENSHOTS=1, else to a temp dir: test/support/processes.ts).
 *
 * Without a browser the tests are skipped with the reason printed (never silently);
 * `.ci/run` installs Chromium. VOXSIM_CHROMIUM names another binary.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src/cli.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { screenshotDir, startServer, type Server } from '../support/processes.js';

const CHROMIUM = process.env.VOXSIM_CHROMIUM ?? '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
const SKIP_REASON = `no Chromium at ${CHROMIUM} (install it with \`apt-get install -y chromium\`, or set VOXSIM_CHROMIUM)`;
if (!HAVE_BROWSER) console.warn(`dashboard browser tests skipped: ${SKIP_REASON}`);

/** The flags this machine's Chromium needs headless and offline (see the env notes). */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** One browser for the file's suites (each test opens pages of its own), launched when first asked for. */
let launched: Promise<Browser> | undefined;
const launchBrowser = () => (launched ??= chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }));
afterAll(async () => {
  await (await launched)?.close();
});
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SHOTS = screenshotDir();
const START = '2026-03-02T09:00:00Z';
const KEY = 'sim_test_key';
const HOOK = 'https://hooks.acme.test/voxsim';
/** Waits of the page: the dashboard reads the overview at most every 250 ms. */
const WAIT = { timeout: 10_000 };

type Json = Record<string, any>;

async function api(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** An assistant on a sip number (webhooks to HOOK when `webhook`), and a campaign of `leads` numbers. */
async function campaign(url: string, leads: string[], options: { webhook?: boolean; name?: string; parallel?: number; campaign?: Json } = {}) {
  const numbers = (await api(url, 'GET', '/user/phone-numbers/all')).body.data as Json[];
  const number = numbers[0] ?? (await api(url, 'POST', '/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: '+14155550100' })).body;
  const assistant = await api(url, 'POST', '/user/assistant', pipelineAssistant({ phone_number_id: number.id, ...(options.webhook && { is_webhook_active: true, webhook_url: HOOK }) }));
  expect(assistant.status).toBe(201);
  const created = await api(url, 'POST', '/user/campaign', {
    name: options.name ?? 'Spring renewals',
    assistant_id: assistant.body.data.id,
    max_calls_in_parallel: options.parallel ?? 3,
    retry_interval: 10,
    ...options.campaign,
  });
  expect(created.status).toBe(201);
  for (const phone_number of leads) expect((await api(url, 'POST', '/user/lead', { campaign_id: created.body.data.id, phone_number })).status).toBe(200);
  return created.body.data.id as number;
}

const start = async (url: string, id: number) => expect((await api(url, 'POST', '/user/campaigns/update-status', { campaign_id: id, action: 'start' })).status).toBe(200);

/** Mostly human answers, with a voicemail, a busy line and no answer among them (for the screenshots). */
const sceneNumbers = (n: number) => Array.from({ length: n }, (_, i) => `+1415${300 + i}${['4444', '0003', '8888', '0001', '5555', '0002', '7777'][i % 7]}`);

/** Numbers ending in the magic suffixes (busy, no-answer, voicemail) and human ones, in turn. */
const mixedNumbers = (n: number) => Array.from({ length: n }, (_, i) => `+1415${200 + i}${['0001', '0002', '0003', '4444', '8888'][i % 5]}`);

describe.skipIf(!HAVE_BROWSER)(`dashboard in headless Chromium${HAVE_BROWSER ? '' : ` (skipped: ${SKIP_REASON})`}`, () => {
  let browser: Browser;
  let server: Server;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    [browser, server] = await Promise.all([launchBrowser(), startServer(['--quiet', '--start', START], { shared: true })]);
  });

  /** A fresh simulator and a page at `viewport` that records console errors and page errors. */
  async function open(viewport = DESKTOP): Promise<Page> {
    expect((await api(server.url, 'POST', '/__sim/reset', {})).status).toBe(200);
    page = await browser.newPage({ viewport, deviceScaleFactor: 1 });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    await page.goto(`${server.url}/__sim/ui`);
    await page.locator('[data-testid=connection]', { hasText: 'live' }).waitFor(WAIT);
    return page;
  }
  const text = (selector: string) => page.locator(selector).first().innerText();
  const waitText = (selector: string, hasText: string | RegExp) => page.locator(selector, { hasText }).first().waitFor(WAIT);

  beforeEach(() => {
    problems = [];
  });
  afterEach(async () => {
    await page?.close();
  });

  it('loads without console errors and shows the clock, the account and empty panels', async () => {
    await open();
    await waitText('[data-testid=clock-time]', 'Mon 2026-03-02 09:00:00 UTC');
    expect(await text('[data-testid=clock-meta]')).toBe('manual · 0 pending events');
    expect(await text('[data-testid=account-1]')).toMatch(/^1\s+Voxsim Test Account\s+\$100\.00\s+10$/);
    expect(await text('#campaigns-body')).toBe('No campaign yet.');
    expect(await text('#deliveries-body')).toBe('No delivery yet.');
    // Everything came from this server: the page has no other origin to load from.
    const response = await page.request.get(`${server.url}/__sim/ui`);
    expect(response.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(problems).toEqual([]);
  });

  it('reflects a campaign started through the API and a clock advance', async () => {
    await open();
    const id = await campaign(server.url, mixedNumbers(10));
    await start(server.url, id);
    await waitText(`[data-testid=campaign-${id}] [data-testid=campaign-status]`, 'in-progress');
    expect(await text(`[data-testid=campaign-${id}] [data-testid=leads-created]`)).toBe('created 10');
    expect(await text(`[data-testid=campaign-${id}] [data-testid=in-flight]`)).toBe('in flight 0 / 3');
    // The dialer runs when the clock moves: three calls in flight, the limit.
    expect((await api(server.url, 'POST', '/__sim/clock/advance', { by: '2s' })).status).toBe(200);
    await waitText(`[data-testid=campaign-${id}] [data-testid=in-flight]`, 'in flight 3 / 3');
    expect(await text(`[data-testid=campaign-${id}] [data-testid=leads-scheduled]`)).toBe('scheduled 7');
    expect(await text(`[data-testid=campaign-${id}] [data-testid=leads-processing]`)).toBe('processing 3');

    expect((await api(server.url, 'POST', '/__sim/clock/advance', { by: '30m' })).status).toBe(200);
    const overview = (await api(server.url, 'GET', '/__sim/overview')).body;
    const leads = overview.campaigns.data[0].leads as Record<string, number>;
    await waitText('[data-testid=clock-time]', 'Mon 2026-03-02 09:30:02 UTC');
    for (const [state, count] of Object.entries(leads).filter(([, n]) => n > 0)) {
      await waitText(`[data-testid=campaign-${id}] [data-testid=leads-${state}]`, `${state} ${count}`);
    }
    expect(leads.completed).toBeGreaterThan(0);
    // The calls timeline: the newest call first, with its outcome and, once ended, its cost.
    const latest = overview.calls.latest[0];
    await waitText(`[data-testid=call-${latest.id}]`, latest.client_phone_number);
    const ended = overview.calls.latest.find((c: Json) => c.ended_at !== null && c.total_cost > 0);
    expect(await text(`[data-testid=call-${ended.id}] [data-testid=call-cost]`)).toBe(`$${ended.total_cost.toFixed(2)}`);
    expect(problems).toEqual([]);
  });

  it('moves the clock with its controls: advance buttons, a typed duration, run until idle, realtime speed', async () => {
    await open();
    await page.getByTestId('advance-1h').click();
    await waitText('[data-testid=clock-time]', 'Mon 2026-03-02 10:00:00 UTC');
    expect((await api(server.url, 'GET', '/__sim/clock')).body.now).toBe('2026-03-02T10:00:00Z');

    await page.getByTestId('advance-by').fill('1d2h');
    await page.getByTestId('advance-submit').click();
    await waitText('[data-testid=clock-time]', 'Tue 2026-03-03 12:00:00 UTC');

    const id = await campaign(server.url, mixedNumbers(4));
    await start(server.url, id);
    // The page shows the started campaign's events first, so the idle text below is the run's, not the one before the start.
    await waitText('[data-testid=clock-meta]', /manual · [1-9][\d,]* pending events?/);
    await page.getByTestId('run-until-idle').click();
    await waitText('[data-testid=clock-meta]', 'manual · 0 pending events');
    expect((await api(server.url, 'GET', '/__sim/clock')).body.pending_events).toBe(0);
    await waitText(`[data-testid=campaign-${id}] [data-testid=campaign-status]`, 'completed');

    await page.getByTestId('speed').selectOption('60');
    await waitText('[data-testid=clock-meta]', 'realtime ×60');
    expect((await api(server.url, 'GET', '/__sim/clock')).body).toMatchObject({ mode: 'realtime', speed: 60 });
    await page.getByTestId('speed').selectOption('manual');
    await waitText('[data-testid=clock-meta]', 'manual');
    expect((await api(server.url, 'GET', '/__sim/clock')).body).toMatchObject({ mode: 'manual' });
    expect(problems).toEqual([]);
  });

  it('shows a failing webhook with every attempt, its status and the next retry time', async () => {
    await open();
    expect((await api(server.url, 'POST', '/__sim/webhooks/failures', { url: HOOK, times: 2, with: 503 })).status).toBe(201);
    const id = await campaign(server.url, ['+14155554444'], { webhook: true });
    await start(server.url, id);
    // Run until the post-call webhook has failed twice and waits for its second retry.
    for (let i = 0; i < 60; i++) {
      const [delivery] = (await api(server.url, 'GET', '/__sim/webhooks/deliveries')).body.data;
      if (delivery?.attempts.length === 2) break;
      await api(server.url, 'POST', '/__sim/clock/advance', { by: '20s' });
    }
    const [delivery] = (await api(server.url, 'GET', '/__sim/webhooks/deliveries')).body.data;
    expect(delivery).toMatchObject({ state: 'pending', attempts: [{ status: 503 }, { status: 503 }] });
    const hms = (iso: string) => iso.slice(11, 19);
    await waitText(`[data-testid=delivery-${delivery.id}] [data-testid=delivery-state]`, 'pending');
    await page.locator(`[data-testid=delivery-${delivery.id}] [data-testid=attempt]`).nth(1).waitFor(WAIT);
    const chips = await page.locator(`[data-testid=delivery-${delivery.id}] [data-testid=attempt]`).allInnerTexts();
    expect(chips).toEqual([`1. ${hms(delivery.attempts[0].at)} 503`, `2. ${hms(delivery.attempts[1].at)} 503`]);
    // The second retry comes 60 s after the second attempt; the countdown reads the simulator's clock.
    expect(Date.parse(delivery.next_attempt_at) - Date.parse(delivery.attempts[1].at)).toBe(60_000);
    const wait = (Date.parse(delivery.next_attempt_at) - Date.parse((await api(server.url, 'GET', '/__sim/clock')).body.now)) / 1000;
    const countdown = wait >= 60 ? `${Math.floor(wait / 60)}m ${String(wait % 60).padStart(2, '0')}s` : `${wait}s`;
    expect(await text(`[data-testid=delivery-${delivery.id}] [data-testid=next-retry]`)).toBe(`next retry ${hms(delivery.next_attempt_at)} (in ${countdown})`);
    // The retry goes out, the receiver (not reachable here) fails it too: a third attempt appears.
    await api(server.url, 'POST', '/__sim/clock/advance', { by: '2m' });
    await page.locator(`[data-testid=delivery-${delivery.id}] [data-testid=attempt]`).nth(2).waitFor(WAIT);
    expect(problems).toEqual([]);
  });

  it('shows a request refused by the API with its error message', async () => {
    await open();
    expect((await api(server.url, 'POST', '/user/campaign', { name: 'No assistant' })).status).toBe(422);
    await waitText('[data-testid=request-error]', 'The assistant id field is required.');
    expect(problems).toEqual([]);
  });

  it('asks for the admin token when the server has one, and works with it', async () => {
    // The same server code as `voxsim serve --admin-token s3cret`, in this process (quicker to start).
    const guarded = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: START, quiet: true, adminToken: 's3cret' });
    page = await browser.newPage({ viewport: DESKTOP });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    await page.goto(`${guarded.url}/__sim/ui`);
    await page.locator('#token-dialog[open]').waitFor(WAIT);
    await page.fill('#token-input', 's3cret');
    await page.click('#token-form button');
    await page.locator('[data-testid=connection]', { hasText: 'live' }).waitFor(WAIT);
    await waitText('[data-testid=clock-time]', 'Mon 2026-03-02 09:00:00 UTC');
    // The token in the URL's fragment (never sent to the server) works too.
    const second = await browser.newPage({ viewport: DESKTOP });
    await second.goto(`${guarded.url}/__sim/ui#token=s3cret`);
    await second.locator('[data-testid=connection]', { hasText: 'live' }).waitFor(WAIT);
    expect(second.url()).toBe(`${guarded.url}/__sim/ui`);
    await second.close();
    await page.close();
    await guarded.close();
    expect(problems).toEqual([]);
  });

  it('fits a 1280x800 screen and a phone, and takes the README screenshots', async () => {
    for (const [name, viewport] of [
      ['dashboard-1280x800', DESKTOP],
      ['dashboard-phone-390x844', PHONE],
    ] as const) {
      await open(viewport);
      // The receiver is down: every post-call delivery fails and is retried.
      await api(server.url, 'POST', '/__sim/webhooks/failures', { url: HOOK, times: 1000, with: 503 });
      const spring = await campaign(server.url, sceneNumbers(60), { webhook: true, parallel: 5 });
      const weekend = await campaign(server.url, mixedNumbers(12), {
        name: 'Weekend promo',
        campaign: { allowed_days: ['saturday', 'sunday'], allowed_hours_start_time: '10:00', allowed_hours_end_time: '16:00', timezone: 'Europe/Berlin' },
      });
      await start(server.url, spring);
      await start(server.url, weekend);
      await api(server.url, 'POST', '/user/msgapp/send', { sender_id: 1, template_id: 2, recipient_phone: '+14155550177', variables: {} });
      await api(server.url, 'POST', '/__sim/clock/advance', { by: '14m' });
      await api(server.url, 'POST', '/__sim/msgapp/inbound', { sender_id: 1, from: '+14155550177', text: 'Can we move it to Thursday?', name: 'Dana' });
      await api(server.url, 'POST', '/user/lead', { campaign_id: spring, phone_number: 'not a number' });
      await api(server.url, 'POST', '/__sim/clock/advance', { by: '2m' });
      await waitText('[data-testid=clock-time]', 'Mon 2026-03-02 09:16:00 UTC');
      // Saturday 10:00 in Berlin is 09:00 UTC, the dashboard's time.
      await waitText(`[data-testid=campaign-${weekend}] [data-testid=window]`, 'opens Sat Mar 7 09:00 UTC');
      await waitText('[data-testid=request-error]', 'The phone number is not a valid phone number.');
      await page.locator('[data-testid=session-1]', { hasText: 'left' }).waitFor(WAIT);
      // Nothing sticks out sideways, and the controls are on screen.
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
      expect(widths.page).toBeLessThanOrEqual(widths.view);
      for (const id of ['advance-1h', 'run-until-idle', 'speed']) expect(await page.getByTestId(id).isVisible()).toBe(true);
      const box = (await page.getByTestId('run-until-idle').boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: viewport === PHONE });
      await page.close();
    }
    expect(existsSync(`${SHOTS}/dashboard-1280x800.png`) && existsSync(`${SHOTS}/dashboard-phone-390x844.png`)).toBe(true);
    expect(problems).toEqual([]);
  });
});

describe.skipIf(!HAVE_BROWSER)(`dashboard during a large campaign${HAVE_BROWSER ? '' : ` (skipped: ${SKIP_REASON})`}`, () => {
  let browser: Browser;
  let running: RunningServer;
  const logged: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: START, quiet: true, streamBuffer: 256 * 1024 }, (line) => logged.push(line));
  });
  afterAll(async () => {
    await running?.close();
  });

  it('stays small and live through a 10,000-lead run: counts, not rows, and it catches up after a drop', async () => {
    const sim = running.sim;
    const handle = (method: string, path: string, body: unknown) =>
      sim.handle({ method, path, headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) }) as Promise<{ status: number; body: Json }>;
    sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
    // Enough money for 10,000 calls, every one answered by a human.
    sim.control.accounts.patch(1, { balance: 100_000 });
    sim.control.outcomes.forCampaign(1, ['human']);
    expect((await handle('POST', '/user/assistant', pipelineAssistant({ phone_number_id: 1 }))).status).toBe(201);
    expect((await handle('POST', '/user/campaign', { name: 'Big', assistant_id: 1, max_calls_in_parallel: 10 })).status).toBe(201);
    for (let i = 0; i < 10_000; i++) await handle('POST', '/user/lead', { campaign_id: 1, phone_number: `+1415${String(1_000_000 + i)}` });
    expect((await handle('POST', '/user/campaigns/update-status', { campaign_id: 1, action: 'start' })).status).toBe(200);

    const page = await browser.newPage({ viewport: DESKTOP });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${running.url}/__sim/ui`);
    await page.locator('[data-testid=connection]', { hasText: 'live' }).waitFor(WAIT);
    await page.locator('[data-testid=leads-created]', { hasText: 'created 10,000' }).waitFor(WAIT);
    // The page reads slowly (its network throttled to 2 kB/s) while the whole campaign runs:
    // about 70,000 events (some 14 MB) in one burst, far more than the stream's buffer
    // (256 KiB here) and the sockets hold. The server drops the page as a slow consumer.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 2_000, uploadThroughput: 1_000_000 });
    const run = await sim.control.clock.runUntilIdle();
    expect(run.ran).toBeGreaterThan(30_000);
    expect(logged.map((line) => JSON.parse(line).msg)).toContain('stream consumer dropped');
    // Back to full speed, it reconnects, reads the overview again and shows where things are.
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.locator('[data-testid=leads-completed]', { hasText: 'completed 10,000' }).waitFor({ timeout: 30_000 });
    await page.locator('[data-testid=campaign-status]', { hasText: 'completed' }).waitFor(WAIT);
    await page.locator('[data-testid=connection]', { hasText: 'live' }).waitFor(WAIT);
    const dom = await page.evaluate(() => ({
      nodes: document.querySelectorAll('main *').length,
      calls: document.querySelectorAll('#calls-body .row').length,
      feed: document.querySelectorAll('#events-body .row').length,
    }));
    expect(dom.calls).toBe(40);
    expect(dom.feed).toBeLessThanOrEqual(80);
    expect(dom.nodes).toBeLessThan(2_000);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
