/**
 * Durable sandboxes (issue 35 part 5, docs/sandboxes.md "Durable sandboxes"):
 * `voxsim serve --state-dir DIR` keeps the server's own state and every sandbox across
 * restarts, loads a sandbox on its first use, removes a deleted or expired sandbox's files,
 * and survives `kill -9` with every acknowledged change (a real child process).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SANDBOX_MESSAGES, SandboxHost } from '../../src/adapters/express.js';
import { main, parseServeArgs, serve, type RunningServer } from '../../src/cli.js';
import { errorMessageOf } from '../../src/core/errors.js';
import { DURABLE_MESSAGES, SANDBOX_LIST_FILE, SandboxDirectory } from '../../src/sandboxes/durable.js';
import { createSimulator } from '../../src/simulator.js';
import { captureConsole } from '../support/console.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { startServer, stop } from '../support/processes.js';

const START = '2026-03-02T09:00:00Z';

let dir: string;
let running: RunningServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'voxsim-sandboxes-'));
});
afterEach(async () => {
  await running?.close().catch(() => undefined);
  running = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<RunningServer> {
  running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: START, stateDir: dir, quiet: true });
  return running;
}

async function restart(): Promise<RunningServer> {
  await running!.close();
  running = undefined;
  return start();
}

async function call(url: string, method: string, path: string, key?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(key && { authorization: `Bearer ${key}` }), 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function ok(url: string, method: string, path: string, key?: string, body?: unknown): Promise<any> {
  const res = await call(url, method, path, key, body);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Two sandboxes with changes: an assistant and a clock move in one, a pending clock event and a move in the other. */
async function twoSandboxes(url: string) {
  const a = await ok(url, 'POST', '/__sim/sandboxes', undefined, { name: 'a', seed: 7 });
  const b = await ok(url, 'POST', '/__sim/sandboxes', undefined, { name: 'b', seed: 9, wire: 'live', ttl: '2h' });
  await ok(url, 'POST', '/user/assistant', a.api_key, pipelineAssistant());
  await ok(url, 'POST', '/__sim/clock/advance', a.api_key, { by: '1h' });
  await ok(url, 'POST', '/__sim/accounts', b.api_key, {});
  await ok(url, 'POST', '/__sim/clock/advance', b.api_key, { by: '90m' });
  return { a, b };
}

describe('a server with --state-dir, closed and started again', () => {
  it('serves both sandboxes again under their keys, each with every change (its whole state, clock and pending events)', async () => {
    const first = await start();
    const { a, b } = await twoSandboxes(first.url);
    const before = [await ok(first.url, 'GET', '/__sim/state', a.api_key), await ok(first.url, 'GET', '/__sim/state', b.api_key)];
    const second = await restart();
    const after = [await ok(second.url, 'GET', '/__sim/state', a.api_key), await ok(second.url, 'GET', '/__sim/state', b.api_key)];
    expect(after).toStrictEqual(before);
    expect((await ok(second.url, 'GET', '/user/assistants/get', a.api_key)).data.map((x: any) => x.id)).toEqual([1]);
    expect((await ok(second.url, 'GET', '/__sim/clock', b.api_key)).now).toBe('2026-03-02T10:30:00Z');
  });

  it('lists the sandboxes as they were without loading them, and loads one on its first request', async () => {
    const first = await start();
    const { a, b } = await twoSandboxes(first.url);
    const listed = (await ok(first.url, 'GET', '/__sim/sandboxes')).data;
    const second = await restart();
    expect(second.sandboxes.loaded(a.id)).toBe(false);
    const again = (await ok(second.url, 'GET', '/__sim/sandboxes')).data;
    // Same ids, keys, seeds, wires and virtual times; expires_at counts from the restart.
    expect(again.map(({ expires_at: _e, ...s }: any) => s)).toStrictEqual(listed.map(({ expires_at: _e, ...s }: any) => s));
    expect([second.sandboxes.loaded(a.id), second.sandboxes.loaded(b.id)]).toEqual([false, false]);
    await ok(second.url, 'GET', '/user/me', a.api_key);
    expect([second.sandboxes.loaded(a.id), second.sandboxes.loaded(b.id)]).toEqual([true, false]);
  });

  it("loads a sandbox when the admin reads it (GET /__sim/sandboxes/{id}), answering its own now", async () => {
    const first = await start();
    const { b } = await twoSandboxes(first.url);
    const second = await restart();
    const read = await ok(second.url, 'GET', `/__sim/sandboxes/${b.id}`);
    expect(read).toMatchObject({ id: b.id, name: 'b', api_key: b.api_key, seed: 9, wire: 'live', now: '2026-03-02T10:30:00Z' });
    expect(second.sandboxes.loaded(b.id)).toBe(true);
  });

  it("keeps the server's own state in DIR/server.json", async () => {
    const first = await start();
    await ok(first.url, 'POST', '/__sim/clock/advance', undefined, { by: '3h' });
    const second = await restart();
    expect((await ok(second.url, 'GET', '/__sim/clock')).now).toBe('2026-03-02T12:00:00Z');
    expect(existsSync(join(dir, 'server.json'))).toBe(true);
  });

  it("removes a deleted sandbox's files and its line of the list; after a restart its key is unknown", async () => {
    const first = await start();
    const { a, b } = await twoSandboxes(first.url);
    await ok(first.url, 'DELETE', `/__sim/sandboxes/${a.id}`);
    expect(readdirSync(join(dir, 'sandboxes')).filter((name) => name.startsWith(a.id))).toEqual([]);
    const list = JSON.parse(readFileSync(join(dir, SANDBOX_LIST_FILE), 'utf8'));
    expect(list.sandboxes.map((s: any) => s.id)).toEqual([b.id]);
    const second = await restart();
    expect((await call(second.url, 'GET', '/user/me', a.api_key)).status).toBe(401);
    expect((await ok(second.url, 'GET', '/__sim/sandboxes')).data.map((s: any) => s.id)).toEqual([b.id]);
  });

  it('answers 503 naming the file for a sandbox whose state cannot be loaded, and serves the others', async () => {
    const first = await start();
    const { a, b } = await twoSandboxes(first.url);
    await running!.close();
    running = undefined;
    const file = join(dir, 'sandboxes', `${a.id}.json`);
    writeFileSync(file, 'garbage');
    const second = await start();
    const refused = await call(second.url, 'GET', '/user/assistants/get', a.api_key);
    expect(refused.status).toBe(503);
    expect(errorMessageOf(refused.status, refused.body)).toBe(SANDBOX_MESSAGES.unavailable(a.id, DURABLE_MESSAGES.stateNotJson(file, "Unexpected token 'g'")));
    expect((await call(second.url, 'GET', `/__sim/sandboxes/${a.id}`)).status).toBe(503);
    expect((await ok(second.url, 'GET', '/__sim/clock', b.api_key)).now).toBe('2026-03-02T10:30:00Z');
  });
});

describe('expired sandboxes of a kept host', () => {
  const listed = () => (JSON.parse(readFileSync(join(dir, SANDBOX_LIST_FILE), 'utf8')) as { sandboxes: { id: string }[] }).sandboxes.map((s) => s.id);
  const get = (host: SandboxHost, key: string) => host.handle({ method: 'GET', path: '/user/me', headers: { authorization: `Bearer ${key}` }, body: null });

  it('leave the list all at once, in one write after the request that saw them due, and their files go', async () => {
    let now = 0;
    const later: (() => void)[] = [];
    const keeper = SandboxDirectory.open(dir);
    const host = new SandboxHost(createSimulator({ seed: 1 }), { keeper, now: () => now, later: (run) => (later.push(run), () => undefined) });
    const a = await host.create({ ttl: '1m' });
    const b = await host.create({ ttl: '1m' });
    const c = await host.create({ ttl: '2m' });
    const writes = vi.spyOn(keeper as unknown as { writeList: () => void }, 'writeList');
    now = 60_000;
    // The request that finds them due answers at once (their keys are unknown from now on) and writes nothing.
    expect((await get(host, a.api_key)).status).toBe(401);
    expect((await get(host, b.api_key)).status).toBe(401);
    expect(host.size).toBe(1);
    expect(writes).not.toHaveBeenCalled();
    expect(listed()).toEqual([a.id, b.id, c.id]);
    // Then, outside any request, one write of the list for both.
    expect(later).toHaveLength(1);
    later.shift()!();
    expect(writes).toHaveBeenCalledTimes(1);
    expect(listed()).toEqual([c.id]);
    expect(readdirSync(join(dir, 'sandboxes')).map((name) => name.split('.')[0])).toEqual([c.id]);
    expect((await get(host, c.api_key)).status).toBe(200);
    await host.close();
  });

  it('leave the list on a later turn of the event loop when nothing else is said (as voxsim serve runs)', async () => {
    let now = 0;
    const host = new SandboxHost(createSimulator({ seed: 1 }), { keeper: SandboxDirectory.open(dir), now: () => now });
    const a = await host.create({ ttl: '1m' });
    now = 60_000;
    expect(host.size).toBe(0);
    expect(listed()).toEqual([a.id]);
    await vi.waitFor(() => expect(listed()).toEqual([]));
    expect(existsSync(join(dir, 'sandboxes', `${a.id}.json`))).toBe(false);
    await host.close();
  });

  it('stay on the list when its write fails, and leave it at a later sweep', async () => {
    let now = 0;
    const later: (() => void)[] = [];
    const reports: string[] = [];
    const host = new SandboxHost(createSimulator({ seed: 1 }), { keeper: SandboxDirectory.open(dir, { report: (r) => reports.push(r.msg) }), now: () => now, later: (run) => (later.push(run), () => undefined) });
    const a = await host.create({ ttl: '1m' });
    const b = await host.create({ ttl: '1h' });
    now = 60_000;
    expect(host.size).toBe(1);
    // The list's temp file cannot be made (a directory stands in its place).
    const blocker = `${join(dir, SANDBOX_LIST_FILE)}.${process.pid}.tmp`;
    mkdirSync(blocker);
    later.shift()!();
    expect([listed(), reports]).toEqual([[a.id, b.id], ['sandbox list not saved']]);
    rmSync(blocker, { recursive: true });
    // The next request's sweep tries again.
    expect((await host.handle({ method: 'GET', path: '/user/me', headers: { authorization: `Bearer ${b.api_key}` }, body: null })).status).toBe(200);
    expect(later).toHaveLength(1);
    later.shift()!();
    expect(listed()).toEqual([b.id]);
    await host.close();
  });

  it('are taken off the list when the host closes before the write came', async () => {
    let now = 0;
    const host = new SandboxHost(createSimulator({ seed: 1 }), { keeper: SandboxDirectory.open(dir), now: () => now, later: () => () => undefined });
    const a = await host.create({ ttl: '1m' });
    now = 60_000;
    expect(host.size).toBe(0);
    expect(listed()).toEqual([a.id]);
    await host.close();
    expect(listed()).toEqual([]);
    expect(existsSync(join(dir, 'sandboxes', `${a.id}.json`))).toBe(false);
  });
});

describe("a kept sandbox's idle time", () => {
  it('counts from the restart, not from its last use before it: the time the server was down is no idleness', async () => {
    let now = Date.parse('2026-11-28T10:00:00Z');
    const first = new SandboxHost(createSimulator({ seed: 1 }), { keeper: SandboxDirectory.open(dir), now: () => now, simulator: { startAt: START } });
    const made = await first.create({ ttl: '10m', name: 'kept' });
    now += 5 * 60_000;
    expect(first.get(made.id).expires_at).toBe('2026-11-28T10:10:00.000Z');
    await first.close();
    // Down for two hours: far past its ttl.
    now = Date.parse('2026-11-28T12:00:00Z');
    const second = new SandboxHost(createSimulator({ seed: 1 }), { keeper: SandboxDirectory.open(dir), now: () => now, simulator: { startAt: START } });
    expect(second.list()).toStrictEqual([{ ...made, expires_at: '2026-11-28T12:10:00.000Z' }]);
    now += 9 * 60_000;
    const used = await second.handle({ method: 'GET', path: '/user/me', headers: { authorization: `Bearer ${made.api_key}` }, body: null });
    expect(used.status).toBe(200);
    expect(second.get(made.id).expires_at).toBe('2026-11-28T12:19:00.000Z');
    now += 10 * 60_000;
    expect(second.size).toBe(0);
    await second.close();
  });
});

describe('voxsim serve --state-dir at start', () => {
  async function startLines(args: string[]): Promise<{ code: number; lines: string[] }> {
    const { lines, out } = captureConsole();
    const code = await main(['serve', '--port', '0', '--quiet', ...args], out);
    if (code === 0) await new Promise((done) => setImmediate(done));
    return { code, lines };
  }

  it('refuses --state-file with --state-dir as a usage error', async () => {
    const { code, lines } = await startLines(['--state-dir', dir, '--state-file', join(dir, 'x.json')]);
    expect(code).toBe(2);
    expect(lines[0]!.split('\n')[0]).toBe("--state-file and --state-dir cannot be used together: --state-dir keeps the server's own state in DIR/server.json");
  });

  it('refuses an empty --state-dir as a usage error', () => {
    expect(() => parseServeArgs(['--state-dir', ''])).toThrow('--state-dir must name a directory, got ""');
  });

  it('refuses a directory that does not exist with one line naming it', async () => {
    const missing = join(dir, 'nope');
    expect(await startLines(['--state-dir', missing])).toEqual({ code: 2, lines: [`state directory ${missing} does not exist; create it or pass another --state-dir`] });
  });

  it('refuses a damaged sandbox list with one line naming it', async () => {
    writeFileSync(join(dir, SANDBOX_LIST_FILE), '{"format":"voxsim-sandboxes/1","sandboxes":[{"id":"../etc"}]}');
    const { code, lines } = await startLines(['--state-dir', dir]);
    expect({ code, lines }).toEqual({ code: 2, lines: [`sandbox list ${join(dir, SANDBOX_LIST_FILE)} is damaged (at sandboxes[0].id: not a sandbox id); pass another --state-dir`] });
  });

  it('refuses a list whose sandbox has no state file with one line naming the file', async () => {
    const first = await start();
    const { a } = await twoSandboxes(first.url);
    await running!.close();
    running = undefined;
    const file = join(dir, 'sandboxes', `${a.id}.json`);
    rmSync(file);
    expect(await startLines(['--state-dir', dir])).toEqual({ code: 2, lines: [`${DURABLE_MESSAGES.stateMissing(file, a.id)}; pass another --state-dir`] });
  });

  it("refuses a damaged server.json with the state file's line, pointing at --state-dir", async () => {
    writeFileSync(join(dir, 'server.json'), '');
    expect(await startLines(['--state-dir', dir])).toEqual({ code: 2, lines: [`state file ${join(dir, 'server.json')} is empty; pass another --state-dir`] });
  });
});

describe('a voxsim serve --state-dir process killed with SIGKILL', () => {
  it('serves both sandboxes under their keys after a restart, with every acknowledged change', async () => {
    const first = await startServer(['--start', START, '--quiet', '--state-dir', dir]);
    const a = await ok(first.url, 'POST', '/__sim/sandboxes', undefined, { seed: 3 });
    const b = await ok(first.url, 'POST', '/__sim/sandboxes', undefined, { seed: 4 });
    const acked: Record<string, number[]> = { [a.id]: [], [b.id]: [] };
    for (let i = 0; i < 5; i++) {
      for (const s of [a, b]) acked[s.id]!.push((await ok(first.url, 'POST', '/user/assistant', s.api_key, pipelineAssistant({ name: `${s.id} ${i}` }))).data.id);
    }
    const moved = await ok(first.url, 'POST', '/__sim/clock/advance', b.api_key, { by: '2h' });
    first.child.kill('SIGKILL');
    await first.closed;

    const second = await startServer(['--start', START, '--quiet', '--state-dir', dir]);
    try {
      // The list first, before any request loads a sandbox: the list file was written before b's clock moved, so
      // its values there are stale; each in use when killed is loaded to answer its own.
      const listedAgain = (await ok(second.url, 'GET', '/__sim/sandboxes')).data;
      expect(listedAgain).toStrictEqual([
        { ...a, expires_at: expect.any(String) },
        { ...b, now: moved.now, expires_at: expect.any(String) },
      ]);
      expect(moved.now).toBe('2026-03-02T11:00:00Z');
      for (const s of [a, b]) {
        const names = (await ok(second.url, 'GET', '/user/assistants/get', s.api_key)).data.map((x: any) => [x.id, x.name]);
        expect(names).toEqual(acked[s.id]!.map((id, i) => [id, `${s.id} ${i}`]));
      }
      expect((await ok(second.url, 'GET', '/__sim/clock', b.api_key)).now).toBe(moved.now);
    } finally {
      await stop(second);
    }
  }, 30_000);
});
