/**
 * Durable state files (issue 13, item 1 and its Must-show lines): every change
 * acknowledged to a client survives `kill -9` of the server; a server killed mid-campaign
 * and restarted finishes with the same histories as an uninterrupted run; change logs cut
 * off by a kill are read up to the cut, damaged ones refuse the start with one line.
 *
 * Real servers are spawned from the built CLI (`dist/src/bin.js`) and driven with fetch;
 * the log format checks run `main()` in-process. Nothing sleeps on the simulated side:
 * the steady writes run for a bounded count of acknowledged requests.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp, createHttpServer } from '../../src/adapters/express.js';
import { main, serve, type RunningServer } from '../../src/cli.js';
import { createLead } from '../../src/domain/leads/service.js';
import { createSimulator, type SimulatorSnapshot } from '../../src/simulator.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { startServer as startVoxsimServer, stop, waitForStdout } from '../support/processes.js';
import { captureConsole } from '../support/console.js';

const START = '2026-03-02T09:00:00Z';
const KEY = 'sim_test_key';
const CALLER = '+14155550100';
const SUFFIXES = ['0001', '0002', '0003', '4444', '8888'];
const LEAD_NUMBERS = Array.from({ length: 30 }, (_, i) => `+1415${200 + i}${SUFFIXES[i % SUFFIXES.length]}`);

const startServer = (args: string[]) => startVoxsimServer(['--start', START, '--seed', '5', '--quiet', ...args]);

interface Answer {
  status: number;
  body: any;
}
type Call = (method: string, path: string, body?: unknown) => Promise<Answer>;

function httpClient(url: string): Call {
  return async (method, path, body) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}

async function ok(call: Call, method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'voxsim-durable-'));
}

/** Every page of a list route (per_page 100). */
async function allPages(call: Call, path: string): Promise<any[]> {
  const rows: any[] = [];
  for (let page = 1; ; page++) {
    const body = await ok(call, 'GET', `${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
    rows.push(...body.data);
    if (page >= body.last_page) return rows;
  }
}

describe('a server killed with SIGKILL in the middle of steady writes', () => {
  let dir: string;
  let acked: { id: number; phone_number: string }[];
  let lastAdvance: string;
  let restored: SimulatorSnapshot;
  let clockAfter: any;
  let filesAtKill: string[];

  beforeAll(async () => {
    dir = tempDir();
    const stateFile = join(dir, 'state.json');
    // A small compaction threshold: snapshots are rewritten many times while the writes go on.
    const first = await startServer(['--state-file', stateFile, '--compact-after', '16kb']);
    const api = httpClient(first.url);
    const number = await ok(api, 'POST', '/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: CALLER });
    const assistant = await ok(api, 'POST', '/user/assistant', pipelineAssistant({ phone_number_id: number.id }));
    const campaign = await ok(api, 'POST', '/user/campaign', { name: 'Steady', assistant_id: assistant.data.id });
    acked = [];
    lastAdvance = START;
    let next = 0;
    let killed = false;
    // Four clients create leads back to back; a fifth moves the clock. The kill comes while requests are in flight.
    const writer = async () => {
      while (!killed) {
        const phone = `+1646555${String(next++).padStart(4, '0')}`;
        try {
          const res = await api('POST', '/user/lead', { campaign_id: campaign.data.id, phone_number: phone });
          if (res.status === 200) acked.push({ id: res.body.data.id, phone_number: res.body.data.phone_number });
        } catch {
          return; // The connection died with the server: that request was never acknowledged.
        }
      }
    };
    const mover = async () => {
      while (!killed) {
        try {
          const res = await api('POST', '/__sim/clock/advance', { by: '1m' });
          if (res.status === 200) lastAdvance = res.body.now;
        } catch {
          return;
        }
      }
    };
    const clients = [writer(), writer(), writer(), writer(), mover()];
    while (acked.length < 250) await new Promise((resolve) => setTimeout(resolve, 5));
    killed = true;
    first.child.kill('SIGKILL');
    await first.closed;
    await Promise.all(clients);
    filesAtKill = readdirSync(dir);

    const second = await startServer(['--state-file', stateFile]);
    const api2 = httpClient(second.url);
    restored = await ok(api2, 'GET', '/__sim/state');
    clockAfter = await ok(api2, 'GET', '/__sim/clock');
    await stop(second);
  }, 60_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('was killed with SIGKILL after compactions, leaving a snapshot and change logs', () => {
    expect(filesAtKill).toContain('state.json');
    expect(filesAtKill.some((name) => /^state\.json\.log\.\d+$/.test(name))).toBe(true);
    // Compactions ran: the first log (begun at the first start) was folded away.
    expect(filesAtKill).not.toContain('state.json.log.2');
  });

  it('finds every acknowledged lead after the restart, as it was acknowledged', () => {
    const leads = new Map((restored.db.leads!.rows as unknown as { id: number; phone_number: string }[]).map((l) => [l.id, l.phone_number]));
    const missing = acked.filter((l) => leads.get(l.id) !== l.phone_number);
    expect(acked.length).toBeGreaterThanOrEqual(250);
    expect(missing).toEqual([]);
  });

  it('finds the clock at least where the last acknowledged move left it', () => {
    expect(Date.parse(clockAfter.now)).toBeGreaterThanOrEqual(Date.parse(lastAdvance));
    expect(Date.parse(lastAdvance)).toBeGreaterThan(Date.parse(START));
  });
});

describe('a server killed with SIGKILL mid-campaign, between clock moves, and restarted', () => {
  let dir: string;
  let receiver: HttpServer;
  let hook: string;
  let reference: { calls: any[]; leads: any[]; deliveries: any[] };
  let resumed: typeof reference;

  /** A campaign of 30 leads whose assistant posts every call to the receiver. */
  async function setUp(call: Call): Promise<number> {
    const number = await ok(call, 'POST', '/__sim/phone-numbers', { account_id: 1, type: 'sip', phone_number: CALLER });
    const assistant = await ok(call, 'POST', '/user/assistant', pipelineAssistant({ phone_number_id: number.id, is_webhook_active: true, webhook_url: hook }));
    const campaign = await ok(call, 'POST', '/user/campaign', { name: 'Staging', assistant_id: assistant.data.id, max_calls_in_parallel: 2, retry_interval: 10 });
    for (const phone of LEAD_NUMBERS) await ok(call, 'POST', '/user/lead', { campaign_id: campaign.data.id, phone_number: phone });
    await ok(call, 'POST', '/user/campaigns/update-status', { campaign_id: campaign.data.id, action: 'start' });
    return campaign.data.id as number;
  }

  /** The histories compared: every call, every lead, every delivery (without its real-time durations). */
  async function histories(call: Call, campaignId: number) {
    const deliveries = (await ok(call, 'GET', '/__sim/webhooks/deliveries')).data.map((d: any) => ({
      ...d,
      attempts: d.attempts.map(({ duration_ms: _, ...attempt }: any) => attempt),
    }));
    return { calls: await allPages(call, '/user/calls'), leads: await allPages(call, `/user/leads?campaign_id=${campaignId}`), deliveries };
  }

  const MOVES_BEFORE = ['10m', '15m'];
  const MOVES_AFTER = ['20m'];

  beforeAll(async () => {
    dir = tempDir();
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    // The uninterrupted run: the same server, the same requests and clock moves, no kill.
    const plain = await startServer([]);
    const api0 = httpClient(plain.url);
    const id0 = await setUp(api0);
    for (const by of [...MOVES_BEFORE, ...MOVES_AFTER]) await ok(api0, 'POST', '/__sim/clock/advance', { by });
    await ok(api0, 'POST', '/__sim/clock/run-until-idle', {});
    reference = await histories(api0, id0);
    await stop(plain);

    const stateFile = join(dir, 'state.json');
    const first = await startServer(['--state-file', stateFile]);
    const api1 = httpClient(first.url);
    const id1 = await setUp(api1);
    for (const by of MOVES_BEFORE) await ok(api1, 'POST', '/__sim/clock/advance', { by });
    first.child.kill('SIGKILL');
    await first.closed;
    const second = await startServer(['--state-file', stateFile]);
    const api2 = httpClient(second.url);
    for (const by of MOVES_AFTER) await ok(api2, 'POST', '/__sim/clock/advance', { by });
    await ok(api2, 'POST', '/__sim/clock/run-until-idle', {});
    resumed = await histories(api2, id1);
    await stop(second);
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('has a reference run with retries, finished leads and delivered webhooks', () => {
    expect(reference.calls.length).toBeGreaterThan(LEAD_NUMBERS.length);
    expect(reference.leads.every((l) => l.status === 'completed' || l.status === 'reached-max-retries')).toBe(true);
    expect(reference.deliveries.length).toBeGreaterThan(0);
    expect(reference.deliveries.every((d) => d.state === 'delivered' && d.response.body === '{"received":true}')).toBe(true);
  });

  it('finishes with the same call list', () => {
    expect(resumed.calls).toStrictEqual(reference.calls);
  });

  it('finishes with the same leads and statuses', () => {
    expect(resumed.leads).toStrictEqual(reference.leads);
  });

  it('finishes with the same webhook deliveries', () => {
    expect(resumed.deliveries).toStrictEqual(reference.deliveries);
  });
});

describe('a server whose state file directory is removed while it runs, then killed with SIGKILL', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('acknowledges a change only once it is on disk (the whole state written again), and restarts with it', async () => {
    const stateFile = join(dir, 'state', 'state.json');
    mkdirSync(join(dir, 'state'));
    // Not --quiet: the warning is a line among the request lines.
    const first = await startVoxsimServer(['--start', START, '--seed', '5', '--state-file', stateFile]);
    rmSync(join(dir, 'state'), { recursive: true, force: true });
    const created = await ok(httpClient(first.url), 'POST', '/__sim/accounts', { api_key: 'sim_after_removal' });
    expect(created.api_key).toBe('sim_after_removal');
    // Written before the answer; read once the pipe has brought it.
    await waitForStdout(first, /"msg":"state file rewritten"/, 'the warning');
    const lines = first.stdout().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string });
    expect(lines.filter((line) => line.msg !== 'request')).toEqual([{ level: 'warn', msg: 'state file rewritten', file: stateFile, error: 'ENOENT' }]);
    expect(await stop(first, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(readdirSync(join(dir, 'state'))).toEqual(['state.json']);
    const second = await startServer(['--state-file', stateFile]);
    expect((await ok(httpClient(second.url), 'GET', '/__sim/accounts')).data.map((a: { api_key: string }) => a.api_key)).toEqual(['sim_test_key', 'sim_after_removal']);
    await stop(second);
  });
});

describe('change logs on start (voxsim serve --state-file)', () => {
  let dir: string;
  let stateFile: string;
  let running: RunningServer | undefined;
  const options = () => ({ port: 0, host: '127.0.0.1', seed: 5, basePath: '/api', start: START, stateFile, quiet: true });

  /** A state file with a snapshot and one log holding the creation of `sim_logged_key`. */
  async function leaveLog(): Promise<string> {
    running = await serve(options());
    const res = await fetch(`${running.url}/__sim/accounts`, { method: 'POST', body: JSON.stringify({ api_key: 'sim_logged_key' }) });
    expect(res.status).toBe(201);
    // Left as a kill would leave it: the log stays, no final snapshot. The simulator is not
    // disposed: that empties its clock's queue, a change its state file would still write.
    running.server.closeAllConnections();
    running.server.close();
    running = undefined;
    const log = join(dir, 'state.json.log.2');
    expect(readFileSync(log, 'utf8').split('\n')).toHaveLength(3);
    return log;
  }

  async function startLines(): Promise<{ code: number; lines: string[] }> {
    const { lines, out } = captureConsole();
    const code = await main(['serve', '--port', '0', '--quiet', '--state-file', stateFile], out);
    return { code, lines };
  }

  beforeEach(() => {
    dir = tempDir();
    stateFile = join(dir, 'state.json');
  });
  afterEach(async () => {
    await running?.close().catch(() => undefined);
    running = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores the snapshot and the changes logged after it', async () => {
    await leaveLog();
    running = await serve(options());
    expect(running.sim.control.accounts.list().data.map((a) => a.api_key)).toEqual(['sim_test_key', 'sim_logged_key']);
  });

  it('ignores a last line cut off by a kill, keeping every whole record before it', async () => {
    const log = await leaveLog();
    appendFileSync(log, '{"tables":{"accounts":{"seq":3,"put":[{"id":3,"api_k');
    running = await serve(options());
    expect(running.sim.control.accounts.list().data.map((a) => a.api_key)).toEqual(['sim_test_key', 'sim_logged_key']);
  });

  it('refuses a damaged line in the middle of a log with one line naming the log and the line, exit 2', async () => {
    const log = await leaveLog();
    const [header, record] = readFileSync(log, 'utf8').split('\n');
    writeFileSync(log, `${header}\n{"tables":{"accou\n${record}\n`);
    expect(await startLines()).toEqual({ code: 2, lines: [`state log ${log} is damaged at line 2 (Unterminated string in JSON at position 17); pass another --state-file`] });
  });

  it('refuses a log line that is JSON but not a record', async () => {
    const log = await leaveLog();
    appendFileSync(log, '[1,2]\n');
    expect(await startLines()).toEqual({ code: 2, lines: [`state log ${log} is damaged at line 3 (not a record); pass another --state-file`] });
  });

  it('refuses a log naming a table voxsim does not have', async () => {
    const log = await leaveLog();
    appendFileSync(log, '{"tables":{"robots":{"seq":1,"put":[{"id":1}]}}}\n');
    expect(await startLines()).toEqual({ code: 2, lines: [`state log ${log} is damaged at line 3 (unknown table "robots"); pass another --state-file`] });
  });

  it('refuses a log that is not a voxsim change log', async () => {
    await leaveLog();
    const log = join(dir, 'state.json.log.7');
    writeFileSync(log, '{"format":"other/1"}\n');
    expect(await startLines()).toEqual({ code: 2, lines: [`state log ${log} is not a voxsim change log (no "format": "voxsim-log/1" on its first line); pass another --state-file`] });
  });

  it('refuses logs whose snapshot is missing', async () => {
    const log = await leaveLog();
    rmSync(stateFile);
    expect(await startLines()).toEqual({ code: 2, lines: [`state file ${stateFile} is missing but its change log ${log} is there; restore the file or remove its logs`] });
  });

  it('refuses a log record nesting 300,000 levels deep with one line naming the log, the line and the path, exit 2', async () => {
    const log = await leaveLog();
    appendFileSync(log, `{"tables":{"accounts":{"seq":3,"put":[{"id":3,"deep":${'['.repeat(300_000)}${']'.repeat(300_000)}}]}}}\n`);
    expect(await startLines()).toEqual({
      code: 2,
      lines: [`state log ${log} is damaged at line 3 (at tables.accounts.put.0.deep.0.0.0.…: The record may not nest more than 128 levels deep); pass another --state-file`],
    });
  });

  it('refuses a log row that breaks the snapshot, naming the damaged field', async () => {
    const log = await leaveLog();
    appendFileSync(log, '{"tables":{"accounts":{"seq":3,"put":[{"id":-3}]}}}\n');
    expect(await startLines()).toEqual({ code: 2, lines: [`state file ${stateFile} is a damaged voxsim snapshot (at db.accounts.rows: must hold objects with an id from 1 to 9007199254740991 (item 0, counted from 0, does not)); pass another --state-file`] });
  });
});

describe('voxsim serve --scenario and --compact-after at start', () => {
  async function startLines(args: string[]): Promise<{ code: number; lines: string[] }> {
    const { lines, out } = captureConsole();
    const code = await main(['serve', '--port', '0', '--quiet', ...args], out);
    return { code, lines };
  }

  it('refuses a scenario file that does not exist with one line naming it, exit 2', async () => {
    expect(await startLines(['--scenario', 'missing.yaml'])).toEqual({ code: 2, lines: [`scenario file ${join(process.cwd(), 'missing.yaml')} does not exist; pass another --scenario`] });
  });

  it('refuses a scenario file that is a directory', async () => {
    const dir = tempDir();
    const file = join(dir, 'dir.yaml');
    try {
      mkdirSync(file);
      expect(await startLines(['--scenario', file])).toEqual({ code: 2, lines: [`scenario file ${file} cannot be read (it is a directory); pass another --scenario`] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a scenario that is not valid with its file:line in one line', async () => {
    const dir = tempDir();
    const file = join(dir, 'bad.yaml');
    try {
      writeFileSync(file, 'name: Bad\nsteps: 12\n');
      const { code, lines } = await startLines(['--scenario', file]);
      expect(code).toBe(2);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^scenario file ${file}:2: steps: `));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses --compact-after below 1kb or not a size, as a usage error', async () => {
    for (const value of ['1023', 'lots']) {
      const { code, lines } = await startLines(['--compact-after', value]);
      expect(code).toBe(2);
      expect(lines[0]!.split('\n')[0]).toBe(`--compact-after must be a size of at least 1kb (bytes, or with kb / mb), got "${value}"`);
    }
  });
});

describe('PUT /__sim/state body limit', () => {
  let server: HttpServer | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server?.closeAllConnections();
    server = undefined;
  });

  async function listen(sim: ReturnType<typeof createSimulator>, stateBodyLimit?: number): Promise<string> {
    server = createHttpServer(createApp(sim, { basePath: '/api', ...(stateBodyLimit !== undefined && { stateBodyLimit }) }));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/api`;
  }

  it('takes a snapshot larger than the 5 MB of API bodies (default 256 MB)', async () => {
    const big = createSimulator({ seed: 3, startAt: START });
    const post = async (path: string, body: unknown) => (await big.handle({ method: 'POST', path, headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) })).body as any;
    const assistant = await post('/user/assistant', pipelineAssistant());
    const campaign = (await post('/user/campaign', { name: 'Big', assistant_id: assistant.data.id })).data;
    const ctx = big.accountScope(1)!;
    for (let i = 0; i < 1500; i++) createLead(ctx, { campaign_id: campaign.id, phone_number: `+1212555${String(i).padStart(4, '0')}`, variables: { note: 'x'.repeat(4000) } });
    const text = JSON.stringify(big.snapshot());
    expect(text.length).toBeGreaterThan(5 * 1024 * 1024);
    const sim = createSimulator({ seed: 3, startAt: START });
    const url = await listen(sim);
    const res = await fetch(`${url}/__sim/state`, { method: 'PUT', body: text });
    expect(res.status).toBe(200);
    expect(sim.db.leads.size).toBe(1500);
    // API bodies keep their own limit.
    const api = await fetch(`${url}/user/lead`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: 'x'.repeat(5 * 1024 * 1024 + 1) });
    expect({ status: api.status, body: await api.json() }).toStrictEqual({ status: 413, body: { message: 'The request body may not be larger than 5 MB.' } });
  });

  it('answers 413 JSON past its limit and changes nothing; a body at the limit is read', async () => {
    const sim = createSimulator({ seed: 3, startAt: START });
    const before = JSON.stringify(sim.snapshot());
    const url = await listen(sim, 64 * 1024);
    const over = await fetch(`${url}/__sim/state`, { method: 'PUT', body: 'x'.repeat(64 * 1024 + 1) });
    expect({ status: over.status, body: await over.json() }).toStrictEqual({ status: 413, body: { message: 'The request body may not be larger than 64 KB.' } });
    const at = await fetch(`${url}/__sim/state`, { method: 'PUT', body: `{"format":"voxsim-snapshot/1"${' '.repeat(64 * 1024 - 30)}}` });
    expect(at.status).toBe(422);
    expect(JSON.stringify(sim.snapshot())).toBe(before);
  });
});
