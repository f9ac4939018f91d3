/**
 * A shared server that stays small and fast (issue 44, docs/sandboxes.md "Many sandboxes"):
 * idle sandboxes expire by a queue ordered by due time (no walk of every sandbox per
 * request), and under `--state-dir` at most `--max-loaded-sandboxes` simulators stay in
 * memory: the least recently used idle ones are unloaded to their state files and load
 * again, byte-identical, on their next request; a kill at any point of an unload keeps
 * every acknowledged change. Real time is an injected clock (`now`), the unloading runs
 * when the test says (`later`); the kills are of a real child process.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SandboxHost, type SandboxHostOptions } from '../../src/sandboxes/host.js';
import { SandboxDirectory } from '../../src/sandboxes/durable.js';
import { StateStore } from '../../src/state/persist.js';
import { createSimulator } from '../../src/simulator.js';
import { parseServeArgs } from '../../src/cli.js';
import { pipelineAssistant } from '../support/fixtures.js';
import { startServer, stop } from '../support/processes.js';

const START = '2026-03-02T09:00:00Z';
const T0 = Date.parse('2026-11-28T10:00:00Z');

let dir: string;
const dirs: string[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'voxsim-unload-'));
  dirs.push(dir);
});
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** One request through the host, answered as a server answers it: once its changes are on disk (`saved`). */
async function call(host: SandboxHost, method: string, path: string, key?: string, body?: unknown) {
  const request = { method, path, headers: { ...(key !== undefined && { authorization: `Bearer ${key}` }), 'content-type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body) };
  const res = await host.handle(request);
  await host.saved(request);
  return { status: res.status, body: res.body as any };
}

async function ok(host: SandboxHost, method: string, path: string, key?: string, body?: unknown) {
  const res = await call(host, method, path, key, body);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A host whose unloading runs when the test calls `runLater()`, with real time `now`. */
function keptHost(options: SandboxHostOptions & { at?: string } = {}) {
  const later: (() => void)[] = [];
  const clock = { now: T0 };
  const host = new SandboxHost(createSimulator({ seed: 1, startAt: START }), {
    keeper: SandboxDirectory.open(options.at ?? dir),
    simulator: { startAt: START },
    now: () => clock.now,
    later: (run) => (later.push(run), () => undefined),
    ...options,
  });
  const runLater = () => {
    for (const run of later.splice(0)) run();
  };
  return { host, clock, runLater, later };
}

describe('idle sandboxes expire by a queue ordered by due time', () => {
  it('removes each at its own ttl, in due order, and one used since goes at its new due time', async () => {
    let now = T0;
    const host = new SandboxHost(createSimulator({ seed: 1 }), { now: () => now, ttlMs: 60 * 60_000, maxSandboxes: 10 });
    const a = await host.create({ ttl: '30m' });
    const b = await host.create({ ttl: '10m' });
    const c = await host.create({});
    const d = await host.create({ ttl: '20m' });
    now += 9 * 60_000;
    expect((await call(host, 'GET', '/user/me', b.api_key)).status).toBe(200);
    now += 11 * 60_000 - 1;
    // 20m less a ms: d is not due yet, b was used at 9m (due at 19m): gone.
    expect(host.list().map((s) => s.id)).toEqual([a.id, c.id, d.id]);
    now += 1;
    expect(host.list().map((s) => s.id)).toEqual([a.id, c.id]);
    now = T0 + 30 * 60_000;
    expect((await call(host, 'GET', '/user/me', a.api_key)).status).toBe(401);
    expect(host.list().map((s) => ({ id: s.id, expires_at: s.expires_at }))).toEqual([{ id: c.id, expires_at: new Date(T0 + 60 * 60_000).toISOString() }]);
    now = T0 + 60 * 60_000;
    expect(host.size).toBe(0);
  });

  it('does not look at the sandboxes that are not due: a request reads the queue\'s first only', async () => {
    let now = T0;
    const host = new SandboxHost(createSimulator({ seed: 1 }), { now: () => now, maxSandboxes: 300 });
    const made = [];
    for (let i = 0; i < 200; i++) made.push(await host.create({ ttl: '1h' }));
    // A walk of the table would read each sandbox's last use: count the reads of one field over a request.
    let reads = 0;
    for (const s of (host as unknown as { sandboxes: Map<string, { lastUsedAt: number }> }).sandboxes.values()) {
      let value = s.lastUsedAt;
      Object.defineProperty(s, 'lastUsedAt', { get: () => (reads++, value), set: (v: number) => (value = v), configurable: true });
    }
    now += 30 * 60_000;
    expect((await call(host, 'GET', '/user/me', made[5]!.api_key)).status).toBe(200);
    // The used sandbox's own last use (set, then not read again); no other sandbox's.
    expect(reads).toBe(0);
    now = T0 + 60 * 60_000;
    // Due: the first in the queue is looked at, found used at 30m, and goes back in (one read), the others leave.
    expect(host.size).toBe(1);
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(200 * 2 + 2);
  });
});

describe('--max-loaded-sandboxes with --state-dir', () => {
  it('unloads the least recently used idle sandboxes past the limit, after the request, and loads one again byte-identical', async () => {
    const { host, clock, runLater, later } = keptHost({ maxLoadedSandboxes: 2 });
    const a = await host.create({ seed: 3 });
    const b = await host.create({ seed: 4, wire: 'live' });
    await ok(host, 'POST', '/user/assistant', a.api_key, pipelineAssistant({ name: 'kept a' }));
    await ok(host, 'POST', '/__sim/clock/advance', a.api_key, { by: '90m' });
    await ok(host, 'POST', '/user/assistant', b.api_key, pipelineAssistant({ name: 'kept b' }));
    const before = await ok(host, 'GET', '/__sim/state', a.api_key);
    await ok(host, 'GET', '/user/me', b.api_key);
    expect(later).toHaveLength(0);
    clock.now += 1000;
    const c = await host.create({ seed: 5 });
    // Three loaded, the limit two: the unloading waits for its turn (nothing is unloaded inside a request).
    expect([host.loaded(a.id), host.loaded(b.id), host.loaded(c.id)]).toEqual([true, true, true]);
    expect(later).toHaveLength(1);
    runLater();
    // a was used least recently.
    expect([host.loaded(a.id), host.loaded(b.id), host.loaded(c.id)]).toEqual([false, true, true]);
    // The list answers it from what it was when unloaded, without loading it.
    const listed = host.list().find((s) => s.id === a.id)!;
    expect(listed).toMatchObject({ id: a.id, seed: 3, wire: 'spec', now: '2026-03-02T10:30:00Z', expires_at: new Date(T0 + 24 * 3_600_000).toISOString() });
    expect(host.loaded(a.id)).toBe(false);
    // Its next request loads it: the very same state.
    const after = await ok(host, 'GET', '/__sim/state', a.api_key);
    expect(JSON.stringify(after)).toBe(JSON.stringify(before));
    expect(host.loaded(a.id)).toBe(true);
    runLater();
    // Now b was used least recently.
    expect([host.loaded(a.id), host.loaded(b.id), host.loaded(c.id)]).toEqual([true, false, true]);
    expect((await ok(host, 'GET', '/user/assistants/get', b.api_key)).data.map((x: any) => x.name)).toEqual(['kept b']);
    runLater();
    await host.close();
  });

  it('unloads no sandbox in the middle of one of its requests, nor one whose simulator is held (an event stream)', async () => {
    const { host, runLater } = keptHost({ maxLoadedSandboxes: 1 });
    const a = await host.create({});
    const b = await host.create({});
    runLater();
    await ok(host, 'GET', '/user/me', a.api_key);
    runLater();
    expect([host.loaded(a.id), host.loaded(b.id)]).toEqual([true, false]);
    // a's next request is held inside its simulator (as a clock move between two slices is).
    const sims = (host as unknown as { sandboxes: Map<string, { sim?: { handle: (r: unknown) => Promise<unknown> } }> }).sandboxes;
    const simA = sims.get(a.id)!.sim!;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const handle = simA.handle.bind(simA);
    simA.handle = async (request) => (await gate, handle(request));
    const pending = call(host, 'GET', '/user/me', a.api_key);
    await ok(host, 'GET', '/user/me', b.api_key);
    await ok(host, 'GET', '/user/me', b.api_key);
    // a is the least recently used, but answering: b goes instead.
    runLater();
    expect([host.loaded(a.id), host.loaded(b.id)]).toEqual([true, false]);
    release();
    expect((await pending).status).toBe(200);
    // b held by a stream (the event stream asks `controlled`): it stays loaded, the same simulator.
    const held = host.controlled(`Bearer ${b.api_key}`)!;
    await ok(host, 'GET', '/user/me', a.api_key);
    runLater();
    expect([host.loaded(a.id), host.loaded(b.id)]).toEqual([false, true]);
    expect(host.controlled(`Bearer ${b.api_key}`)).toBe(held);
    await host.close();
  });

  it("writes no file but the sandbox's log when it unloads, and a restart reads every sandbox back", async () => {
    const { host, runLater } = keptHost({ maxLoadedSandboxes: 1 });
    const a = await host.create({ seed: 3 });
    await ok(host, 'POST', '/user/assistant', a.api_key, pipelineAssistant({ name: 'one' }));
    const b = await host.create({ seed: 4 });
    await ok(host, 'POST', '/user/assistant', b.api_key, pipelineAssistant({ name: 'two' }));
    const states = { [a.id]: await ok(host, 'GET', '/__sim/state', a.api_key) } as Record<string, unknown>;
    await ok(host, 'GET', '/user/me', b.api_key);
    states[b.id] = await ok(host, 'GET', '/__sim/state', b.api_key);
    const files = () => readdirSync(join(dir, 'sandboxes')).sort();
    const listBefore = readdirSync(dir);
    const shown = files();
    runLater();
    expect(host.loaded(a.id)).toBe(false);
    expect(files()).toEqual(shown);
    expect(readdirSync(dir)).toEqual(listBefore);
    await host.close();
    const again = keptHost();
    for (const s of [a, b]) expect(JSON.stringify(await ok(again.host, 'GET', '/__sim/state', s.api_key))).toBe(JSON.stringify(states[s.id]));
    // After a clean close the unloaded sandbox's line is exact: the list answers it without loading it.
    const first = again.host.list();
    expect(first.map((s) => s.id)).toEqual([a.id, b.id]);
    await again.host.close();
  });

  it('keeps every acknowledged change when the process dies at any point of an unload (the files copied there)', async () => {
    const { host, runLater } = keptHost({ maxLoadedSandboxes: 1 });
    const a = await host.create({ seed: 3 });
    await ok(host, 'POST', '/user/assistant', a.api_key, pipelineAssistant({ name: 'acked' }));
    await ok(host, 'POST', '/__sim/clock/advance', a.api_key, { by: '2h' });
    const acked = await ok(host, 'GET', '/__sim/state', a.api_key);
    await host.create({ seed: 4 });
    // The directory as a kill would leave it: before the release's write, after it, and after the store is closed.
    const copies: string[] = [];
    const copy = () => {
      const to = mkdtempSync(join(tmpdir(), 'voxsim-unload-copy-'));
      dirs.push(to);
      cpSync(dir, to, { recursive: true });
      copies.push(to);
    };
    const release = StateStore.prototype.release;
    const flush = StateStore.prototype.flush;
    const spyRelease = vi.spyOn(StateStore.prototype, 'release').mockImplementation(function (this: StateStore) {
      copy();
      return release.call(this);
    });
    const spyFlush = vi.spyOn(StateStore.prototype, 'flush').mockImplementation(function (this: StateStore) {
      flush.call(this);
      copy();
    });
    runLater();
    spyRelease.mockRestore();
    spyFlush.mockRestore();
    expect(host.loaded(a.id)).toBe(false);
    copy();
    expect(copies.length).toBeGreaterThanOrEqual(3);
    await host.close();
    for (const at of copies) {
      const again = keptHost({ at });
      expect(JSON.stringify(await ok(again.host, 'GET', '/__sim/state', a.api_key))).toBe(JSON.stringify(acked));
      await again.host.close();
    }
  });
});

describe("a kept sandbox's first load after a restart", () => {
  it('writes a mark beside its state file, not the whole list; a restart that finds the mark loads it to list it', async () => {
    const first = keptHost();
    const a = await first.host.create({ seed: 3 });
    const b = await first.host.create({ seed: 4 });
    await first.host.close();
    const second = keptHost();
    const keeper = (second.host as unknown as { options: { keeper: SandboxDirectory } }).options.keeper;
    const writes = vi.spyOn(keeper as unknown as { writeList: () => void }, 'writeList');
    await ok(second.host, 'POST', '/__sim/clock/advance', a.api_key, { by: '3h' });
    expect(writes).not.toHaveBeenCalled();
    expect(readdirSync(join(dir, 'sandboxes')).sort()).toEqual([`${a.id}.json`, `${a.id}.json.loaded`, `${a.id}.json.log.1`, `${b.id}.json`].sort());
    // Killed here (not closed): the list still says a's line is exact, at its old time; the mark says it is not.
    const third = keptHost();
    expect(third.host.list().map((s) => [s.id, s.now])).toEqual([[a.id, '2026-03-02T12:00:00Z'], [b.id, '2026-03-02T09:00:00Z']]);
    expect([third.host.loaded(a.id), third.host.loaded(b.id)]).toEqual([true, false]);
    // A clean close writes the list, exact again, and drops the mark.
    await third.host.close();
    expect(readdirSync(join(dir, 'sandboxes')).filter((name) => name.endsWith('.loaded'))).toEqual([]);
    await second.host.dispose();
  });
});

describe('voxsim serve --max-loaded-sandboxes', () => {
  it('reads the flag (1 to 10000) and refuses anything else', () => {
    expect(parseServeArgs(['--max-loaded-sandboxes', '100'])).toMatchObject({ maxLoadedSandboxes: 100 });
    expect(parseServeArgs([])).not.toHaveProperty('maxLoadedSandboxes');
    for (const bad of ['0', '10001', '1.5', 'many']) {
      expect(() => parseServeArgs(['--max-loaded-sandboxes', bad])).toThrow(`--max-loaded-sandboxes must be a whole number from 1 to 10000, got "${bad}"`);
    }
  });

  it('keeps every acknowledged change of sandboxes unloaded in turn when killed with SIGKILL, at any point', async () => {
    const first = await startServer(['--start', START, '--quiet', '--state-dir', dir, '--max-loaded-sandboxes', '1']);
    const post = async (url: string, path: string, key: string | undefined, body: unknown) => {
      const res = await fetch(`${url}${path}`, { method: 'POST', headers: { ...(key && { authorization: `Bearer ${key}` }), 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${path}: ${res.status}`);
      return res.json() as Promise<any>;
    };
    const sandboxes = [];
    for (let i = 0; i < 3; i++) sandboxes.push(await post(first.url, '/__sim/sandboxes', undefined, { seed: i + 1 }));
    const acked: Record<string, string[]> = {};
    // Each request loads its sandbox and unloads the one before (limit 1): every answer is followed by an unload.
    for (let round = 0; round < 4; round++) {
      for (const s of sandboxes) {
        const name = `${s.id} ${round}`;
        await post(first.url, '/user/assistant', s.api_key, pipelineAssistant({ name }));
        (acked[s.id] ??= []).push(name);
      }
    }
    // One more, unanswered when the kill comes: it may be in the log or not, the acknowledged ones must be.
    void post(first.url, '/user/assistant', sandboxes[0].api_key, pipelineAssistant({ name: 'unacknowledged' })).catch(() => undefined);
    first.child.kill('SIGKILL');
    await first.closed;
    const second = await startServer(['--start', START, '--quiet', '--state-dir', dir, '--max-loaded-sandboxes', '1']);
    try {
      for (const s of sandboxes) {
        const res = await fetch(`${second.url}/user/assistants/get`, { headers: { authorization: `Bearer ${s.api_key}` } });
        const names = ((await res.json()) as any).data.map((x: any) => x.name).filter((n: string) => n !== 'unacknowledged');
        expect(names).toEqual(acked[s.id]);
      }
    } finally {
      await stop(second);
    }
  }, 30_000);
});
