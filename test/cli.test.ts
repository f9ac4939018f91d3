/**
 * The `voxsim` command and the README's set-up commands.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { banner, main, parseServeArgs, serve } from '../src/cli.js';
import { VERSION } from '../src/version.js';
import { pipelineAssistant } from './support/fixtures.js';
import { startServer, stop } from './support/processes.js';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string; scripts: Record<string, string>; bin: Record<string, string> };

function capture() {
  const lines: string[] = [];
  return { lines, out: { log: (s: string) => lines.push(s), error: (s: string) => lines.push(s) } as unknown as Console };
}

describe('voxsim serve arguments', () => {
  it('uses the documented defaults', () => {
    expect(parseServeArgs([])).toEqual({ port: 4010, host: '127.0.0.1', seed: 1, basePath: '/api', quiet: false });
  });

  it('reads every flag', () => {
    expect(
      parseServeArgs(['--port', '5000', '--host', '0.0.0.0', '--seed', '9', '--base-path', 'v1/', '--start', '2026-03-02T09:00:00Z', '--admin-token', 'secret', '--speed', '60', '--state-file', 'state.json', '--scenario', 's.yaml', '--quiet']),
    ).toEqual({
      port: 5000,
      host: '0.0.0.0',
      seed: 9,
      basePath: '/v1',
      start: '2026-03-02T09:00:00Z',
      adminToken: 'secret',
      speed: 60,
      stateFile: 'state.json',
      scenario: 's.yaml',
      quiet: true,
    });
  });

  it('takes an empty base path as the root', () => {
    expect(parseServeArgs(['--base-path', '/']).basePath).toBe('');
  });

  it.each([
    [['--port', 'http'], '--port must be a port number'],
    [['--port', '70000'], '--port must be a port number'],
    [['--seed=-1'], '--seed must be a whole number'],
    [['--start', 'tomorrow'], '--start must be an ISO 8601 time'],
    [['--verbose'], "Unknown option '--verbose'"],
  ])('refuses %j', (args, message) => {
    expect(() => parseServeArgs(args)).toThrow(message);
  });
});

describe('voxsim command', () => {
  it('prints the version', async () => {
    const { lines, out } = capture();
    expect(await main(['--version'], out)).toBe(0);
    expect(lines).toEqual([VERSION]);
    expect(VERSION).toBe(pkg.version);
  });

  it('prints usage and fails on an unknown command', async () => {
    const { lines, out } = capture();
    expect(await main(['launch'], out)).toBe(1);
    expect(lines[0]).toContain('Unknown command "launch"');
    expect(lines[0]).toContain('voxsim serve [--port 4010]');
  });

  it('prints usage and fails on bad flags without starting', async () => {
    const { lines, out } = capture();
    expect(await main(['serve', '--port', 'x'], out)).toBe(1);
    expect(lines[0]).toContain('--port must be a port number');
  });

  it('names the URL, the default key and the control prefix in the banner', () => {
    expect(banner('http://127.0.0.1:4010/api')).toBe(
      [
        `voxsim ${VERSION} listening on http://127.0.0.1:4010/api`,
        '  API base URL:  http://127.0.0.1:4010/api',
        '  API key:       sim_test_key   (Authorization: Bearer sim_test_key)',
        '  Control API:   http://127.0.0.1:4010/api/__sim   (try http://127.0.0.1:4010/api/__sim/health)',
      ].join('\n'),
    );
  });

  it('refuses webhook deliveries to itself under any loopback name', async () => {
    const running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: '2026-03-02T09:00:00Z' });
    try {
      const port = new URL(running.url).port;
      for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
        running.sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: `http://${host}:${port}/api/user/me`, payload: {} });
      }
      await running.sim.clock.advance(0);
      const errors = running.sim.webhooks.deliveries().map((d) => d.attempts[0]?.error);
      expect(errors).toEqual(Array(3).fill("refused: the URL is the simulator's own API"));
    } finally {
      await running.close();
    }
  });

  it('serves the API and the control API under the base path', async () => {
    const running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: '2026-03-02T09:00:00Z' });
    try {
      const health = await fetch(`${running.url}/__sim/health`);
      expect(await health.json()).toEqual({ ok: true, version: VERSION, now: '2026-03-02T09:00:00Z' });
      const outside = await fetch(running.url.replace('/api', '/other'));
      expect(outside.status).toBe(404);
      expect(await outside.json()).toEqual({ message: 'The route other could not be found.' });
    } finally {
      await running.close();
    }
  });
});

describe('README set-up commands', () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');

  it('opens with exactly the install+start and install+test commands', () => {
    const block = /^# voxsim\n\n```sh\n([\s\S]*?)```/.exec(readme);
    expect(block).not.toBeNull();
    const commands = block![1]!.trim().split('\n').map((l) => l.replace(/\s+#.*$/, ''));
    expect(commands).toEqual(['npm install && npm start', 'npm install && npm test']);
  });

  it('has CI run the README test command', () => {
    const ci = readFileSync(`${root}.ci/run`, 'utf8');
    expect(ci).toMatch(/^npm install\b/m);
    expect(ci).toMatch(/^npm test\b/m);
  });

  it('starts a server with `npm start` that creates an assistant with the default key', async () => {
    expect(pkg.scripts.start).toBe('node dist/src/bin.js serve');
    const server = await startServer([]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    const res = await fetch(`${server.url}/user/assistant`, {
      method: 'POST',
      headers: { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' },
      body: JSON.stringify(pipelineAssistant({ name: 'Sales' })),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ message: 'Assistant created successfully.', data: { id: 1, name: 'Sales', status: 'inactive', type: 'outbound', mode: 'pipeline' } });
    expect(await stop(server)).toEqual({ code: 0, signal: null });
  });
});
