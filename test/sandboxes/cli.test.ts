/**
 * `voxsim sandbox create|list|delete` and serve's sandbox flags (issue 35), against a real
 * `serve()` in this process; the server is `--url` (issue 45), `--server` its other name.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandHelp, main, parseServeArgs, serve, type RunningServer } from '../../src/cli.js';
import { SANDBOX_CLI_MESSAGES } from '../../src/cli/sandbox.js';
import { DEFAULT_API_KEY } from '../../src/domain/accounts/schema.js';
import { SANDBOX_MESSAGES } from '../../src/sandboxes/host.js';
import { createSimulator } from '../../src/simulator.js';
import { captureConsole } from '../support/console.js';
import { voxsim, within } from '../support/processes.js';

const ADMIN = 'admin-secret';
let running: RunningServer;

beforeAll(async () => {
  running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: '2026-03-02T09:00:00Z', adminToken: ADMIN, maxSandboxes: 2, openSandboxes: true });
});
afterAll(() => running.close());

async function run(...argv: string[]) {
  const console = captureConsole();
  const code = await main(argv, console.out);
  return { code, lines: console.lines };
}

/** A sandbox's answer to `method path` with its own key. */
async function asSandbox(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${running.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The same request on a fresh simulator made as the server makes a sandbox (its start), with `seed` and `wire`. */
async function onFresh(options: { seed: number; wire: 'spec' | 'live' }, method: string, path: string, body?: unknown) {
  const sim = createSimulator({ ...options, startAt: '2026-03-02T09:00:00Z' });
  const res = await sim.handle({ method, path, headers: { authorization: `Bearer ${DEFAULT_API_KEY}` }, body: body === undefined ? null : JSON.stringify(body) });
  sim.dispose();
  return { status: res.status, body: res.body as Record<string, unknown> };
}

describe('voxsim sandbox', () => {
  it('creates a sandbox with --url and prints its key alone, which the server then answers', async () => {
    const { code, lines } = await run('sandbox', 'create', '--url', running.url);
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^vsk_[0-9a-f]{24}$/);
    const me = await asSandbox(lines[0]!, 'GET', '/user/me');
    expect(me.status).toBe(200);
    // The server's own start: a sandbox starts where the server's clock started.
    expect((await asSandbox(lines[0]!, 'GET', '/__sim/clock')).body.now).toBe('2026-03-02T09:00:00Z');
    expect((await run('sandbox', 'delete', '--key', lines[0]!, '--url', running.url)).code).toBe(0);
  });

  it('gives the sandbox the --seed and --wire it was created with: its record says so and its answers are those of that seed and wire', async () => {
    const key = (await run('sandbox', 'create', '--url', running.url, '--seed', '7', '--wire', 'live')).lines[0]!;
    try {
      expect((await asSandbox(key, 'GET', '/__sim/sandbox')).body).toMatchObject({ seed: 7, wire: 'live' });
      // An account made without a name gets a generated name and email: the seed's (its key carries the sandbox's prefix).
      const generated = ({ body }: { body: unknown }) => ({ name: (body as { name: string }).name, email: (body as { email: string }).email });
      const account = await asSandbox(key, 'POST', '/__sim/accounts', {});
      expect(account.status).toBe(201);
      expect(generated(account)).toStrictEqual(generated(await onFresh({ seed: 7, wire: 'live' }, 'POST', '/__sim/accounts', {})));
      expect(generated(account)).not.toStrictEqual(generated(await onFresh({ seed: 1, wire: 'live' }, 'POST', '/__sim/accounts', {})));
      // An invalid assistant is refused in the wire's words ("Validation failed" on the live one).
      const refused = await asSandbox(key, 'POST', '/user/assistant', {});
      expect(refused).toStrictEqual(await onFresh({ seed: 7, wire: 'live' }, 'POST', '/user/assistant', {}));
      expect(refused.body.message).toBe('Validation failed');
      expect((await onFresh({ seed: 7, wire: 'spec' }, 'POST', '/user/assistant', {})).body.message).not.toBe('Validation failed');
    } finally {
      expect((await run('sandbox', 'delete', '--key', key, '--url', running.url)).code).toBe(0);
    }
  });

  it('takes --server, the first name of --url, on create, list and delete', async () => {
    const key = (await run('sandbox', 'create', '--server', running.url, '--name', 'old-flag')).lines[0]!;
    const listed = await run('sandbox', 'list', '--server', running.url, '--admin-token', ADMIN, '--json');
    const [sandbox] = JSON.parse(listed.lines[0]!) as { id: string; name: string; api_key: string }[];
    expect(sandbox).toMatchObject({ name: 'old-flag', api_key: key });
    expect(await run('sandbox', 'delete', sandbox!.id, '--server', running.url, '--admin-token', ADMIN)).toStrictEqual({ code: 0, lines: [`deleted ${sandbox!.id}`] });
  });

  it('refuses --url and --server together in one line with the usage, exit 2', async () => {
    const both = await run('sandbox', 'list', '--url', running.url, '--server', running.url);
    expect(both).toStrictEqual({ code: 2, lines: [`--url and --server are one option; give it once\n\n${commandHelp('sandbox list')}`] });
  });

  it('prints a key from the built command too: voxsim sandbox create --url URL', async () => {
    const proc = voxsim(['sandbox', 'create', '--url', running.url, '--seed', '3']);
    expect(await within(proc.closed, 'exit')).toEqual({ code: 0, signal: null });
    expect(proc.stderr()).toBe('');
    const key = proc.stdout().trim();
    expect(key).toMatch(/^vsk_[0-9a-f]{24}$/);
    expect((await asSandbox(key, 'GET', '/__sim/sandbox')).body).toMatchObject({ seed: 3, wire: 'spec' });
    expect((await run('sandbox', 'delete', '--key', key, '--url', running.url)).code).toBe(0);
  });

  it('prints the whole sandbox with --json, lists it for the admin, and deletes it by id', async () => {
    const made = await run('sandbox', 'create', '--url', running.url, '--name', 'ci-7', '--json');
    const sandbox = JSON.parse(made.lines[0]!);
    expect(sandbox).toMatchObject({ name: 'ci-7', seed: 1, wire: 'spec', now: '2026-03-02T09:00:00Z' });
    const listed = await run('sandbox', 'list', '--url', running.url, '--admin-token', ADMIN);
    expect(listed.code).toBe(0);
    expect(listed.lines[0]!.split('\n')[0]).toMatch(/^ID\s+NAME\s+KEY\s+NOW\s+WIRE\s+EXPIRES$/);
    expect(listed.lines[0]).toContain(`${sandbox.id}  ci-7`);
    const json = await run('sandbox', 'list', '--server', running.url, '--admin-token', ADMIN, '--json');
    expect(JSON.parse(json.lines[0]!).map((s: { id: string }) => s.id)).toEqual([sandbox.id]);
    expect(await run('sandbox', 'delete', sandbox.id, '--server', running.url, '--admin-token', ADMIN)).toStrictEqual({ code: 0, lines: [`deleted ${sandbox.id}`] });
    expect((await run('sandbox', 'list', '--server', running.url, '--admin-token', ADMIN)).lines).toEqual(['no sandboxes']);
  });

  it("prints the server's refusal as one line and exits 2", async () => {
    expect(await run('sandbox', 'list', '--server', running.url)).toStrictEqual({ code: 2, lines: [SANDBOX_CLI_MESSAGES.refused('list', 401, 'Unauthenticated.')] });
    const keys = [(await run('sandbox', 'create', '--server', running.url)).lines[0]!, (await run('sandbox', 'create', '--server', running.url)).lines[0]!];
    expect(await run('sandbox', 'create', '--server', running.url)).toStrictEqual({ code: 2, lines: [SANDBOX_CLI_MESSAGES.refused('create', 403, SANDBOX_MESSAGES.limit(2))] });
    for (const key of keys) expect((await run('sandbox', 'delete', '--key', key, '--server', running.url)).code).toBe(0);
    const bad = await run('sandbox', 'create', '--server', running.url, '--ttl', '5s');
    expect(bad).toStrictEqual({ code: 2, lines: [SANDBOX_CLI_MESSAGES.refused('create', 422, SANDBOX_MESSAGES.ttl)] });
  });

  it('names a server it cannot reach in one line, exit 2', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/api`;
    await new Promise((done) => probe.close(done));
    const { code, lines } = await run('sandbox', 'list', '--server', url, '--admin-token', ADMIN);
    expect(code).toBe(2);
    expect(lines).toEqual([SANDBOX_CLI_MESSAGES.unreachable('list', url, 'ECONNREFUSED')]);
  });

  it('refuses bad flags with the usage, exit 2', async () => {
    const seed = await run('sandbox', 'create', '--seed', 'x');
    expect(seed.code).toBe(2);
    expect(seed.lines[0]).toMatch(/^--seed must be a whole number from 0 to 2147483647, got "x"\n\nUsage: voxsim sandbox create/);
    expect((await run('sandbox', 'delete')).lines[0]).toMatch(/^give the sandbox id \(with the admin token\) or --key KEY/);
    expect((await run('sandbox', 'remove')).lines[0]).toMatch(/^Unknown sandbox command "remove"/);
    expect((await run('sandbox', 'create', '--sed', '1')).lines[0]).toMatch(/^unknown option --sed; did you mean --seed\?/);
  });
});

describe('voxsim serve sandbox flags', () => {
  it('reads --max-sandboxes, --sandbox-ttl, --open-sandboxes and --shard', () => {
    expect(parseServeArgs(['--max-sandboxes', '0', '--sandbox-ttl', '90m', '--open-sandboxes', '--shard', 'east-1'])).toMatchObject({
      maxSandboxes: 0,
      sandboxTtlMs: 90 * 60 * 1000,
      openSandboxes: true,
      shard: 'east-1',
    });
    expect(parseServeArgs(['--sandbox-ttl', '60000']).sandboxTtlMs).toBe(60_000);
  });

  it('refuses values out of their ranges with one clear line', () => {
    expect(() => parseServeArgs(['--max-sandboxes=-1'])).toThrow('--max-sandboxes must be a whole number from 0 to 10000, got "-1"');
    expect(() => parseServeArgs(['--max-sandboxes', '10001'])).toThrow('--max-sandboxes must be a whole number from 0 to 10000');
    expect(() => parseServeArgs(['--sandbox-ttl', '59s'])).toThrow('--sandbox-ttl must be a duration from 1m to 365d (90m, 2h, 7d), got "59s"');
    expect(() => parseServeArgs(['--sandbox-ttl', '366d'])).toThrow('--sandbox-ttl must be a duration');
    expect(() => parseServeArgs(['--sandbox-ttl', 'soon'])).toThrow('--sandbox-ttl must be a duration');
    expect(() => parseServeArgs(['--shard', 'East'])).toThrow('--shard must be 1-32 lowercase letters, digits or dashes');
  });
});
