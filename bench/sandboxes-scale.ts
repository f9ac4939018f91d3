/**
 * Many sandboxes on one server (issue 44): a request's cost and the memory of a long run.
 *
 * Request cost: in fresh processes, a host with 10,000 sandboxes (each made by
 * `host.create`, in memory) and one with 10; `GET /user/me` with one sandbox's key through
 * `host.handle`, one at a time: the p50 of 5,000 after 5,000 not timed (the JIT's warm-up). Target: the p50 with
 * 10,000 within 10% of the p50 with 10 (expiry reads a queue ordered by due time, no walk of
 * every sandbox per request). Alternating processes, `--rounds` (3) each, medians.
 *
 * Memory: a `--state-dir` directory of 10,000 kept sandboxes (one made by the host, its
 * state file and list line written again under 10,000 minted ids and keys: making them one
 * by one would write the list 10,000 times), served by a host with `maxLoadedSandboxes`
 * 100; each sandbox gets one `GET /user/me` in turn (answered as a server answers: once its
 * changes are on disk), the unloading running on the next turn as `voxsim serve` runs it.
 * Figure: the process's peak resident memory (RSS sampled every 250 requests: a tsx process,
 * V8's heap defaults), informational; what it must show is a flat live heap (after full
 * collections: at the end within 10% of after the first 1,000); baseline: the same with
 * `maxLoadedSandboxes` 10,000 (nothing unloaded, as before the limit). One process each
 * (`--rounds` alternating runs, medians).
 *
 *   npm run bench -- --only sandboxes-scale          as bench/run.ts runs it (about 7 minutes)
 *   npx tsx bench/sandboxes-scale.ts --rounds 1      one round each
 *   npx tsx bench/sandboxes-scale.ts --part memory   one of the figures (request, memory, serve)
 *
 * Memory of the real server (`--part serve`, `sandboxes.serve_rss_10k_touched`): the built
 * `voxsim serve --state-dir` (dist/: `npm run build` first) in a process of its own, on a copy
 * of the same directory, with `--max-loaded-sandboxes` 100 and 10,000; one `GET /user/me`
 * per sandbox over HTTP; its resident memory read from /proc (VmHWM: the kernel's peak).
 * Target < 300 MB (issue 44), with the heap as the process tunes it (src/cli/server-heap.ts).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintSandboxId, mintSandboxKey } from '../src/core/sandbox-keys.js';
import { SANDBOX_LIST_FILE, SANDBOX_STATE_DIR, SandboxDirectory } from '../src/sandboxes/durable.js';
import { SandboxHost } from '../src/sandboxes/host.js';
import { createSimulator } from '../src/simulator.js';
import { alternateRuns, emit, median, option, round } from './lib.js';

const FILE = fileURLToPath(import.meta.url);
/** The built command (`npm run build`), as `npx voxsim serve` runs it. */
const BIN = fileURLToPath(new URL('../dist/src/bin.js', import.meta.url));
const ROUNDS = Number(option('rounds') ?? 3);
const MANY = 10_000;
const FEW = 10;
const WARM = 5000;
const TIMED = 5000;
const LOADED = 100;
const TARGET_RATIO = 1.1;
const TARGET_RSS_MB = 300;
const MB = 1024 * 1024;

const gc = (globalThis as { gc?: () => void }).gc;
const get = (key: string) => ({ method: 'GET', path: '/user/me', headers: { authorization: `Bearer ${key}` }, body: null });

/** A child: `GET /user/me` p50 (µs) on a host of `count` sandboxes. */
async function requestProcess(count: number): Promise<void> {
  const host = new SandboxHost(createSimulator({ seed: 1 }), { maxSandboxes: count });
  const keys: string[] = [];
  for (let i = 0; i < count; i++) keys.push((await host.create({ seed: i + 1 })).api_key);
  // The sandbox asked is one in the middle of the table (a walk would pass half of it either way).
  const key = keys[Math.floor(count / 2)]!;
  // The setup's garbage is no request's: a full collection first (the sandboxes bench does the same before each move).
  for (let i = 0; i < 3; i++) gc?.();
  const samples: number[] = [];
  for (let i = 0; i < WARM + TIMED; i++) {
    const started = performance.now();
    const res = await host.handle(get(key));
    const took = performance.now() - started;
    if (res.status !== 200) throw new Error(`GET /user/me: ${res.status}`);
    if (i >= WARM) samples.push(took);
  }
  samples.sort((a, b) => a - b);
  console.log(JSON.stringify({ p50_us: samples[Math.floor(samples.length / 2)]! * 1000, p90_us: samples[Math.floor(samples.length * 0.9)]! * 1000, rss_mb: process.memoryUsage().rss / MB }));
  host.dispose();
}

/** Writes a `--state-dir` directory of `count` kept sandboxes, copies of one made by a host. */
async function keptDirectory(count: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'voxsim-bench-sandboxes-'));
  const host = new SandboxHost(createSimulator({ seed: 1 }), { keeper: SandboxDirectory.open(dir) });
  const made = await host.create({ seed: 1 });
  await host.close();
  const list = JSON.parse(readFileSync(join(dir, SANDBOX_LIST_FILE), 'utf8')) as { sandboxes: Record<string, unknown>[] };
  const line = list.sandboxes[0]!;
  const state = readFileSync(join(dir, SANDBOX_STATE_DIR, `${made.id}.json`), 'utf8');
  rmSync(join(dir, SANDBOX_STATE_DIR), { recursive: true });
  mkdirSync(join(dir, SANDBOX_STATE_DIR));
  const sandboxes = [];
  for (let i = 0; i < count; i++) {
    const id = mintSandboxId();
    const key = mintSandboxKey();
    writeFileSync(join(dir, SANDBOX_STATE_DIR, `${id}.json`), state.replaceAll(made.api_key, key));
    sandboxes.push({ ...line, id, api_key: key });
  }
  writeFileSync(join(dir, SANDBOX_LIST_FILE), `${JSON.stringify({ ...list, sandboxes }, null, 1)}\n`);
  return dir;
}

/** A child: peak RSS (MB) while every kept sandbox of `dir` is touched in turn, `maxLoaded` of them in memory at most. */
async function memoryProcess(dir: string, maxLoaded: number): Promise<void> {
  const keeper = SandboxDirectory.open(dir);
  const host = new SandboxHost(createSimulator({ seed: 1 }), { keeper, maxSandboxes: MANY, maxLoadedSandboxes: maxLoaded });
  const keys = keeper.kept.map((s) => s.key);
  let peak = 0;
  let afterFirst = 0;
  let heapAfterFirst = 0;
  // The heap in use after full collections: what the sandboxes hold, without the garbage not collected yet.
  const liveHeap = () => {
    for (let i = 0; i < 2; i++) gc?.();
    return process.memoryUsage().heapUsed / MB;
  };
  const started = performance.now();
  for (let i = 0; i < keys.length; i++) {
    const request = get(keys[i]!);
    const res = await host.handle(request);
    await host.saved(request);
    if (res.status !== 200) throw new Error(`GET /user/me: ${res.status} ${JSON.stringify(res.body)}`);
    // The unloading runs on a later turn of the event loop, as in `voxsim serve` (its requests come from sockets).
    await new Promise((resolve) => setImmediate(resolve));
    if (i % 250 === 249) {
      const rss = process.memoryUsage().rss / MB;
      peak = Math.max(peak, rss);
      if (i === 999) {
        afterFirst = rss;
        heapAfterFirst = liveHeap();
      }
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
  const end = process.memoryUsage().rss / MB;
  const loaded = keys.length === 0 ? 0 : keeper.kept.filter((s) => host.loaded(s.id)).length;
  console.log(JSON.stringify({ peak_mb: Math.max(peak, end), after_1000_mb: afterFirst, end_mb: end, heap_after_1000_mb: heapAfterFirst, heap_end_mb: liveHeap(), heap_total_end_mb: process.memoryUsage().heapTotal / MB, external_end_mb: process.memoryUsage().external / MB, array_buffers_end_mb: process.memoryUsage().arrayBuffers / MB, loaded_at_end: loaded, ms: performance.now() - started }));
  host.dispose();
}

/**
 * The built `voxsim serve` (dist/, a process of its own, as a shared server runs) on a copy of
 * `dir`, `--max-loaded-sandboxes maxLoaded`: one `GET /user/me` per kept sandbox in turn over
 * HTTP (keep-alive, one in flight). Its resident memory is read from /proc (VmRSS every 250
 * requests, VmHWM, the kernel's peak, at the end).
 */
async function serverMemoryRun(dir: string, maxLoaded: number): Promise<Record<string, number>> {
  const copy = mkdtempSync(join(tmpdir(), 'voxsim-bench-serve-'));
  cpSync(dir, copy, { recursive: true });
  const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--quiet', '--state-dir', copy, '--max-loaded-sandboxes', String(maxLoaded)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /API base URL:\s+(\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      server.on('exit', (code) => reject(new Error(`voxsim serve exited ${code} before listening`)));
    });
    const status = (field: string) => Number(/(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(field))!)![1]) / 1024;
    const list = JSON.parse(readFileSync(join(copy, SANDBOX_LIST_FILE), 'utf8')) as { sandboxes: { api_key: string }[] };
    const keys = list.sandboxes.map((s) => s.api_key);
    let afterFirst = 0;
    const started = performance.now();
    const rssAtStart = status('VmRSS');
    for (let i = 0; i < keys.length; i++) {
      const res = await fetch(`${url}/user/me`, { headers: { authorization: `Bearer ${keys[i]}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET /user/me: ${res.status}`);
      if (i === 999) afterFirst = status('VmRSS');
    }
    const ms = performance.now() - started;
    return { peak_mb: status('VmHWM'), start_mb: rssAtStart, after_1000_mb: afterFirst, end_mb: status('VmRSS'), ms };
  } finally {
    server.kill('SIGKILL');
    rmSync(copy, { recursive: true, force: true });
  }
}

function child(args: string[]): Promise<Record<string, number>> {
  const proc = spawn(process.execPath, [...process.execArgv, '--expose-gc', FILE, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) =>
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>) : reject(new Error(`${args.join(' ')} exited ${code}`)))),
  );
}

async function main(): Promise<void> {
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds must be a whole number of at least 1, not ${option('rounds')}`);
  const part = option('part');
  if (part !== undefined && !['request', 'memory', 'serve'].includes(part)) throw new Error(`--part is request, memory or serve, not ${part}`);
  if (part === undefined || part === 'request') await requestFigure();
  if (part === undefined || part === 'memory') await memoryFigure();
  if (part === undefined || part === 'serve') await serverMemoryFigure();
}

async function requestFigure(): Promise<void> {
  const { subjects: many, baselines: few } = await alternateRuns(ROUNDS, () => child(['--requests', String(MANY)]), () => child(['--requests', String(FEW)]));
  const p50 = { many: many.map((r) => r.p50_us!), few: few.map((r) => r.p50_us!) };
  const p90 = { many: many.map((r) => r.p90_us!), few: few.map((r) => r.p90_us!) };
  const value = median(p50.many);
  const baseline = median(p50.few);
  emit({
    bench: 'sandboxes.request_p50_10k',
    value: round(value, 1),
    unit: `µs p50 of GET /user/me through the host (in process) with ${MANY.toLocaleString('en')} sandboxes`,
    baseline: round(baseline, 1),
    baseline_of: `the same with ${FEW} sandboxes`,
    ratio: round(value / baseline, 3),
    target: `<= ${TARGET_RATIO}x`,
    met: value / baseline <= TARGET_RATIO,
    p50_us_rounds: p50.many.map((v) => round(v, 1)),
    baseline_p50_us_rounds: p50.few.map((v) => round(v, 1)),
    p90_us: round(median(p90.many), 1),
    baseline_p90_us: round(median(p90.few), 1),
  });

}

async function serverMemoryFigure(): Promise<void> {
  const dir = await keptDirectory(MANY);
  try {
    const { subjects, baselines } = await alternateRuns(ROUNDS, () => serverMemoryRun(dir, LOADED), () => serverMemoryRun(dir, MANY));
    const runs = { limited: subjects, unlimited: baselines };
    const peak = median(runs.limited.map((r) => r.peak_mb!));
    const unlimited = median(runs.unlimited.map((r) => r.peak_mb!));
    emit({
      bench: 'sandboxes.serve_rss_10k_touched',
      value: Math.round(peak),
      unit: `MB peak RSS (VmHWM) of the built voxsim serve --state-dir while ${MANY.toLocaleString('en')} kept sandboxes get one GET /user/me each over HTTP, --max-loaded-sandboxes ${LOADED}`,
      baseline: Math.round(unlimited),
      baseline_of: `the same with --max-loaded-sandboxes ${MANY.toLocaleString('en')} (none unloaded)`,
      ratio: round(peak / unlimited, 2),
      target: `< ${TARGET_RSS_MB} MB`,
      met: peak < TARGET_RSS_MB,
      peak_mb_rounds: runs.limited.map((r) => Math.round(r.peak_mb!)),
      start_mb_rounds: runs.limited.map((r) => Math.round(r.start_mb!)),
      after_1000_mb_rounds: runs.limited.map((r) => Math.round(r.after_1000_mb!)),
      end_mb_rounds: runs.limited.map((r) => Math.round(r.end_mb!)),
      touch_s_rounds: runs.limited.map((r) => round(r.ms! / 1000, 1)),
      baseline_peak_mb_rounds: runs.unlimited.map((r) => Math.round(r.peak_mb!)),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function memoryFigure(): Promise<void> {
  const dir = await keptDirectory(MANY);
  try {
    const { subjects, baselines } = await alternateRuns(ROUNDS, () => child(['--memory', dir, String(LOADED)]), () => child(['--memory', dir, String(MANY)]));
    const runs = { limited: subjects, unlimited: baselines };
    const peak = median(runs.limited.map((r) => r.peak_mb!));
    const unlimited = median(runs.unlimited.map((r) => r.peak_mb!));
    emit({
      bench: 'sandboxes.rss_10k_touched',
      value: Math.round(peak),
      unit: `MB peak RSS while ${MANY.toLocaleString('en')} kept sandboxes (--state-dir) get one GET /user/me each in turn, at most ${LOADED} loaded`,
      baseline: Math.round(unlimited),
      baseline_of: `the same with at most ${MANY.toLocaleString('en')} loaded (none unloaded)`,
      ratio: round(peak / unlimited, 2),
      // The resident-memory target is the server's (sandboxes.serve_rss_10k_touched: the process as `voxsim serve`
      // tunes its heap, without tsx); here the live heap must stay flat: at the end within 10% of after the first 1,000.
      target: `informational (the < ${TARGET_RSS_MB} MB target is sandboxes.serve_rss_10k_touched's); the live heap flat: at the end <= 1.1x after 1,000`,
      met: runs.limited.every((r) => r.heap_end_mb! <= r.heap_after_1000_mb! * 1.1),
      after_1000_mb_rounds: runs.limited.map((r) => Math.round(r.after_1000_mb!)),
      end_mb_rounds: runs.limited.map((r) => Math.round(r.end_mb!)),
      live_heap_after_1000_mb_rounds: runs.limited.map((r) => Math.round(r.heap_after_1000_mb!)),
      live_heap_end_mb_rounds: runs.limited.map((r) => Math.round(r.heap_end_mb!)),
      heap_total_end_mb_rounds: runs.limited.map((r) => Math.round(r.heap_total_end_mb!)),
      external_end_mb_rounds: runs.limited.map((r) => Math.round(r.external_end_mb!)),
      peak_mb_rounds: runs.limited.map((r) => Math.round(r.peak_mb!)),
      loaded_at_end: runs.limited[0]!.loaded_at_end,
      touch_s_rounds: runs.limited.map((r) => round(r.ms! / 1000, 1)),
      baseline_peak_mb_rounds: runs.unlimited.map((r) => Math.round(r.peak_mb!)),
      baseline_touch_s_rounds: runs.unlimited.map((r) => round(r.ms! / 1000, 1)),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const requests = option('requests');
const memory = option('memory');
if (requests !== undefined) await requestProcess(Number(requests));
else if (memory !== undefined) await memoryProcess(memory, Number(process.argv[process.argv.indexOf('--memory') + 2]));
else await main();
