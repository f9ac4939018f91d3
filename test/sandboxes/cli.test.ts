/**
 * `voxsim sandbox create|list|delete` and serve's sandbox flags (issue 35), against a real
 * `serve()` in this process.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, parseServeArgs, serve, type RunningServer } from '../../src/cli.js';
import { SANDBOX_CLI_MESSAGES } from '../../src/cli/sandbox.js';
import { SANDBOX_MESSAGES } from '../../src/sandboxes/host.js';
import { captureConsole } from '../support/console.js';

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

describe('voxsim sandbox', () => {
  it('creates a sandbox and prints its key alone, which the server then answers', async () => {
    const { code, lines } = await run('sandbox', 'create', '--server', running.url, '--seed', '7', '--wire', 'live');
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^vsk_[0-9a-f]{24}$/);
    const me = await fetch(`${running.url}/user/me`, { headers: { authorization: `Bearer ${lines[0]}` } });
    expect(me.status).toBe(200);
    // The server's own start: a sandbox starts where the server's clock started.
    const clock = await (await fetch(`${running.url}/__sim/clock`, { headers: { authorization: `Bearer ${lines[0]}` } })).json();
    expect(clock.now).toBe('2026-03-02T09:00:00Z');
    expect((await run('sandbox', 'delete', '--key', lines[0]!, '--server', running.url)).code).toBe(0);
  });

  it('prints the whole sandbox with --json, lists it for the admin, and deletes it by id', async () => {
    const made = await run('sandbox', 'create', '--server', running.url, '--name', 'ci-7', '--json');
    const sandbox = JSON.parse(made.lines[0]!);
    expect(sandbox).toMatchObject({ name: 'ci-7', seed: 1, wire: 'spec', now: '2026-03-02T09:00:00Z' });
    const listed = await run('sandbox', 'list', '--server', running.url, '--admin-token', ADMIN);
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
