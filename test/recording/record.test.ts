/**
 * Issue 28 end to end: `voxsim record` in front of a second voxsim on the live wire (the real
 * platform is not reachable here), a whole session driven through it, then `voxsim drift`
 * (no difference on the live wire; the known spec/live differences on the spec wire) and
 * `voxsim scenario from-har` (green with `scenario run`; an edited status fails at its
 * line). The proxy forwards a 5 MB multipart upload and a 404 unchanged and redacts the key
 * everywhere in the file; bad inputs are one line and exit 2.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { drift, readHar, recordHar, type DriftReport } from '../../src/index.js';
import { startServer, stop, voxsim, waitForStdout, type Server, type Voxsim } from '../support/processes.js';
import { driveSession, httpCall, KEY, multipart, UPSTREAM_START } from '../support/session.js';
import { captureConsole } from '../support/console.js';

let dir: string;
let upstream: Server;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'voxsim-record-'));
  upstream = await startServer(['--wire', 'live', '--quiet', '--start', UPSTREAM_START, '--seed', '4'], { shared: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a session recorded through voxsim record', () => {
  const har = () => join(dir, 'session.har');
  let proxy: Voxsim;
  let live: DriftReport;

  beforeAll(async () => {
    // Resources made before the recording: the upstream's ids are ahead of a fresh simulator's.
    const direct = httpCall(upstream.url);
    await direct('POST', '/user/knowledgebases', { body: { name: 'Made before' } });
    proxy = voxsim(['record', '--upstream', upstream.url, '--out', har(), '--port', '0']);
    const url = (await waitForStdout(proxy, /Point your client at:\s+(\S+)/, 'the proxy URL'))[1]!;
    await driveSession(httpCall(url));
    await stop(proxy, 'SIGINT');
    live = await drift(readFileSync(har(), 'utf8'), { wire: 'live', file: har() });
  });

  it('prints where to point the client and how to stop, and the count when stopped', () => {
    expect(proxy.stdout()).toMatch(/recording http:\/\/127\.0\.0\.1:\d+\/api\n {2}Point your client at: {2}http:\/\/127\.0\.0\.1:\d+\/api/);
    expect(proxy.stdout()).toContain('Stop with Ctrl-C');
    expect(proxy.stdout()).toContain(`Recorded 24 exchanges to ${har()}.`);
  });

  it('writes a HAR 1.2 file with every exchange, the key redacted', () => {
    const text = readFileSync(har(), 'utf8');
    const log = JSON.parse(text).log;
    expect(log.version).toBe('1.2');
    expect(log.entries).toHaveLength(24);
    expect(text).not.toContain(KEY);
    expect(log.entries[1].request.headers).toContainEqual({ name: 'authorization', value: '<redacted>' });
  });

  it('replays on the live wire with no difference (voxsim drift exits 0)', async () => {
    expect(live.differences).toEqual([]);
    expect(live.missing).toEqual([]);
    const { out, text } = captureConsole();
    expect(await main(['drift', har(), '--wire', 'live'], out)).toBe(0);
    expect(text()).toMatch(/^POST \/user\/lead {2,}3 {2,}3 {2,}0 {2,}0$/m);
    expect(text()).toContain('No drift: 24 exchanges answered alike.');
  });

  it('lists the known spec/live differences with their paths on the spec wire (exit 1, --json)', async () => {
    const { out, text } = captureConsole();
    expect(await main(['drift', har(), '--wire', 'spec', '--json'], out)).toBe(1);
    const report = JSON.parse(text()) as DriftReport;
    const paths = report.differences.map((d) => `${d.operation} ${d.kind} ${d.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'GET /user/assistant/{id} type $.data.fillers',
        'GET /user/assistant/{id} missing $.data.engine_id',
        'GET /user/calls missing $.links',
        'GET /user/calls/{id} type $.transcript',
        'GET /user/calls/{id} type $.total_cost',
        'POST /user/knowledgebases missing $.data.status_label',
      ]),
    );
    expect(report.differences.filter((d) => d.kind === 'status')).toEqual([]);
  });

  it('becomes a scenario that runs green, and fails at the line of an edited status', async () => {
    const yaml = join(dir, 'session.yaml');
    const written = captureConsole();
    expect(await main(['scenario', 'from-har', har(), '--wire', 'live', '--out', yaml], written.out)).toBe(0);
    const run = captureConsole();
    expect(await main(['scenario', 'run', yaml], run.out)).toBe(0);
    expect(run.text()).toContain('1 passed, 0 failed');
    const lines = readFileSync(yaml, 'utf8').split('\n');
    const at = lines.findIndex((line) => line.includes('request: POST /user/campaign'));
    const status = lines.findIndex((line, i) => i > at && /^\s+status: 201$/.test(line));
    lines[status] = lines[status]!.replace('201', '422');
    writeFileSync(yaml, lines.join('\n'));
    const failed = captureConsole();
    expect(await main(['scenario', 'run', yaml], failed.out)).toBe(1);
    expect(failed.text()).toContain('status: expected 422, got 201');
    expect(failed.text()).toContain(`at ${yaml}:${at + 1}`);
  });
});

describe('the recording proxy', () => {
  let echo: HttpServer;
  let echoUrl: string;
  beforeAll(async () => {
    // An upstream that answers with the sha-256 and length of what it received.
    echo = createServer((req, res) => {
      const hash = createHash('sha256');
      let length = 0;
      req.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        length += chunk.length;
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'echo' });
        res.end(JSON.stringify({ sha256: hash.digest('hex'), length, type: req.headers['content-type'], path: req.url }));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/api`;
  });
  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  it('forwards a 5 MB multipart upload byte for byte and records it', async () => {
    const out = join(dir, 'upload.har');
    const proxy = await recordHar({ upstream: echoUrl, out });
    try {
      const file = randomBytes(5 * 1024 * 1024);
      const { type, bytes } = multipart({ name: 'Manual', type: 'pdf' }, { name: 'manual.pdf', bytes: file });
      const res = await fetch(`${proxy.url}/user/knowledgebases/1/documents?page=1`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': type }, body: new Uint8Array(bytes) });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-upstream')).toBe('echo');
      expect(await res.json()).toEqual({ sha256: createHash('sha256').update(bytes).digest('hex'), length: bytes.length, type, path: '/api/user/knowledgebases/1/documents?page=1' });
      const [recorded] = readHar(readFileSync(out, 'utf8'), out);
      expect(Buffer.from(recorded!.requestBytes!).equals(bytes)).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('forwards a 5 MB upload to a voxsim upstream, which creates the document', async () => {
    const proxy = await recordHar({ upstream: upstream.url });
    try {
      const { type, bytes } = multipart({ name: 'Manual', type: 'pdf' }, { name: 'manual.pdf', bytes: randomBytes(5 * 1024 * 1024) });
      const kb = await (await fetch(`${proxy.url}/user/knowledgebases`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Uploads' }) })).json();
      const res = await fetch(`${proxy.url}/user/knowledgebases/${kb.data.id}/documents`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': type }, body: new Uint8Array(bytes) });
      expect(res.status).toBe(201);
      expect((await res.json()).data).toMatchObject({ name: 'Manual', type: 'pdf' });
      expect(proxy.har().log.entries.map((e) => e.response.status)).toEqual([201, 201]);
    } finally {
      await proxy.close();
    }
  });

  it('forwards a 404 unchanged: status, headers and body', async () => {
    const proxy = await recordHar({ upstream: upstream.url });
    try {
      const path = '/user/assistant/999999';
      const [direct, proxied] = await Promise.all([upstream.url, proxy.url].map((base) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${KEY}` } })));
      expect(proxied!.status).toBe(404);
      expect(await proxied!.text()).toBe(await direct!.text());
      expect(proxied!.headers.get('content-type')).toBe(direct!.headers.get('content-type'));
      const [entry] = proxy.har().log.entries;
      expect(entry!.response.status).toBe(404);
      expect(JSON.parse(entry!.response.content.text!)).toEqual({ message: 'Assistant not found' });
    } finally {
      await proxy.close();
    }
  });

  it('redacts the key everywhere: headers, cookies, query strings and bodies', async () => {
    const out = join(dir, 'secrets.har');
    const proxy = await recordHar({ upstream: upstream.url, out });
    try {
      const headers = { authorization: `Bearer ${KEY}`, cookie: 'session=abc123' };
      await fetch(`${proxy.url}/user/me?api_key=${KEY}&page=1`, { headers });
      // The control API shows the accounts' keys in its answer.
      await fetch(`${proxy.url}/__sim/accounts`, { headers });
      const text = readFileSync(out, 'utf8');
      expect(text).not.toContain(KEY);
      expect(text).not.toContain('abc123');
      const entries = JSON.parse(text).log.entries;
      expect(entries[0].request.url).toMatch(/\?api_key=%3Credacted%3E&page=1$/);
      expect(entries[0].request.headers).toEqual(expect.arrayContaining([{ name: 'authorization', value: '<redacted>' }, { name: 'cookie', value: '<redacted>' }]));
      expect(JSON.parse(entries[1].response.content.text).data[0].api_key).toBe('<redacted>');
    } finally {
      await proxy.close();
    }
  });

  it('leaves a complete HAR with every exchange answered when the proxy process is killed (SIGKILL)', async () => {
    const out = join(dir, 'killed.har');
    const proxy = voxsim(['record', '--upstream', upstream.url, '--out', out, '--port', '0', '--quiet']);
    const url = (await waitForStdout(proxy, /Point your client at:\s+(\S+)/, 'the proxy URL'))[1]!;
    const statuses: number[] = [];
    for (const path of ['/user/me', '/user/assistant', '/user/nowhere']) statuses.push((await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${KEY}` } })).status);
    expect(await stop(proxy, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    const entries = JSON.parse(readFileSync(out, 'utf8')).log.entries as { request: { url: string }; response: { status: number } }[];
    expect(entries.map((e) => [new URL(e.request.url).pathname, e.response.status])).toEqual([
      ['/api/user/me', statuses[0]],
      ['/api/user/assistant', statuses[1]],
      ['/api/user/nowhere', statuses[2]],
    ]);
  });

  it('answers 502 in shape A naming an upstream that cannot be reached, and records it', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/api`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const proxy = await recordHar({ upstream: gone });
    try {
      const res = await fetch(`${proxy.url}/user/me`);
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ message: `The upstream ${gone} cannot be reached (ECONNREFUSED).` });
      expect(proxy.har().log.entries[0]!.response.status).toBe(502);
    } finally {
      await proxy.close();
    }
  });
});

describe('bad input is one line and exit 2', () => {
  it('names the file and the entry of a HAR that cannot be read', async () => {
    const file = join(dir, 'bad.har');
    writeFileSync(file, JSON.stringify({ log: { version: '1.2', entries: [{ startedDateTime: '2026-03-02T09:00:00Z', request: { method: 'GET', url: 'http://x.test/api/user/me', headers: [] }, response: { status: 200, headers: [], content: {} } }, { startedDateTime: '2026-03-02T09:00:01Z', request: { method: 'GET', url: '/api/user/me', headers: [] }, response: { status: 200, headers: [], content: {} } }] } }));
    for (const argv of [['drift', file], ['scenario', 'from-har', file]]) {
      const { out, lines } = captureConsole();
      expect(await main(argv, out)).toBe(2);
      expect(lines).toEqual([`${file}: entry 2: request.url: must be an absolute URL`]);
    }
    writeFileSync(file, '{"log": ');
    const { out, lines } = captureConsole();
    expect(await main(['drift', file], out)).toBe(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${file}: not JSON`));
    const missing = captureConsole();
    expect(await main(['drift', join(dir, 'nothing.har')], missing.out)).toBe(2);
    expect(missing.lines).toEqual([`${join(dir, 'nothing.har')}: no such file`]);
  });

  it('refuses bad flags with the usage', async () => {
    for (const [argv, message] of [
      [['drift'], 'No HAR file given.'],
      [['drift', 'a.har', '--wire', 'beta'], '--wire must be one of spec, live, got "beta"'],
      [['record', '--out', 'a.har'], '--upstream is required'],
      [['record', '--upstream', 'ftp://x', '--out', 'a.har'], '--upstream must be an http or https URL'],
      [['record', '--upstream', 'http://x.test', '--out', 'a.har', '--host', '0.0.0.0'], '--admin-token is required when binding to 0.0.0.0'],
    ] as const) {
      const { out, text } = captureConsole();
      expect(await main([...argv], out)).toBe(2);
      expect(text()).toContain(message);
      expect(text()).toContain('Usage: voxsim');
    }
  });

  it('refuses an upstream that cannot be reached before listening', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/api`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { out, lines } = captureConsole();
    expect(await main(['record', '--upstream', gone, '--out', join(dir, 'never.har'), '--port', '0'], out)).toBe(2);
    expect(lines).toEqual([`upstream ${gone} cannot be reached (ECONNREFUSED); check --upstream`]);
  });
});
