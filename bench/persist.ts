/**
 * State-file benchmark (npm run bench): a served simulator holding 100,000 leads and
 * ~220,000 calls, with `--state-file` (change logs, a compaction during the load) against
 * the same server without a state file, in alternating rounds of the same run; medians.
 * Each server runs in its own process (bench/persist-server.ts) and measures its own
 * event loop; 8 keep-alive clients in this process create leads. After a warm-up, the
 * measured window of the state-file server lasts from the start of a compaction of the
 * whole state until it is done (at least LOAD_MS); the bare server is loaded as long.
 * One JSON line per figure with the baseline, the ratio and the target:
 *
 *   persist.max_stall             longest event-loop stall of the server while leads are created and the compaction runs (target < 50 ms)
 *   persist.throughput            lead creations per server CPU-second in that window, 8 clients (target ratio >= 0.8; the clients' rate beside it)
 *   persist.restart_to_first_answer  `serve()` on the state file to its first answer, against a bare start (target < 3000 ms)
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { logFiles } from '../src/state/persist.js';
import { emit, median } from './lib.js';
import { AUTH as KEYED, stateAt } from './fixture.js';

const LEADS = Number(process.env.LEADS ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LOAD_MS = Number(process.env.LOAD_MS ?? 4_000);
const WARMUP_MS = 1_500;
const CLIENTS = 8;
const AUTH = { ...KEYED, 'content-type': 'application/json' };

/** Progress lines (not figures: `npm run bench` counts only lines with `met`). */
function note(line: Record<string, unknown>): void {
  console.log(JSON.stringify(line));
}

const round1 = (n: number) => Math.round(n * 10) / 10;

interface Served {
  child: ChildProcess;
  url: string;
  startMs: number;
  ask<T>(message: { do: string }): Promise<T>;
}

/** Starts a server process (bench/persist-server.ts) on `file`; resolves once it answers, with its start to first answer. */
function start(mode: 'state' | 'bare', file: string): Promise<Served> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./persist-server.ts', import.meta.url)), mode, file], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // One question at a time: each answer goes to the oldest waiting question.
  const waiting: ((message: unknown) => void)[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${mode} server exited ${code}`)));
    child.on('message', (message: { ready?: true; url: string; startMs: number }) => {
      if (!message.ready) return void waiting.shift()?.(message);
      resolve({
        child,
        url: message.url,
        startMs: message.startMs,
        ask: <T>(question: { do: string }) =>
          new Promise<T>((answer) => {
            waiting.push(answer as (message: unknown) => void);
            child.send(question);
          }),
      });
    });
  });
}

function close(served: Served): Promise<void> {
  return new Promise((resolve) => {
    served.child.removeAllListeners('exit');
    served.child.once('exit', () => resolve());
    served.child.send({ do: 'close' });
  });
}

function post(agent: Agent, url: string, body: unknown): Promise<{ status: number; body: string }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...AUTH, 'content-length': Buffer.byteLength(text) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * CLIENTS clients create leads in a new campaign until `until()` resolves; answers the
 * requests per second after a warm-up (not counted), from when the server starts measuring.
 */
async function load(served: Served, until: () => Promise<unknown>): Promise<{ rps: number; ms: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const campaign = JSON.parse((await post(agent, `${served.url}/user/campaign`, { name: 'Load', assistant_id: 1 })).body) as { data: { id: number } };
  let n = 0;
  let stop = false;
  const client = async (c: number) => {
    for (let i = 0; !stop; i++) {
      const res = await post(agent, `${served.url}/user/lead`, { campaign_id: campaign.data.id, phone_number: `+1646${c}${String(i).padStart(6, '0')}` });
      if (res.status !== 200) throw new Error(`lead create answered ${res.status}: ${res.body}`);
      n++;
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  // A warm-up, not measured: both servers settle (the restore's garbage, the first requests' compilation) alike.
  await sleep(WARMUP_MS);
  await served.ask({ do: 'measure' });
  const counted = n;
  const t = performance.now();
  await until();
  stop = true;
  await Promise.all(clients);
  const ms = performance.now() - t;
  agent.destroy();
  return { rps: (n - counted) / (ms / 1000), ms };
}

interface Report {
  maxStallMs: number;
  p99StallMs: number;
  maxOwnMs: number;
  p99OwnMs: number;
  compactMs: number;
  cpuMs: number;
}

/** Requests answered per CPU-second of the server process in the measured window. */
function perCpuSecond(s: { rps: number; ms: number; cpuMs: number }): number {
  return (s.rps * s.ms) / s.cpuMs;
}

/** One side of a round: start, load (through the compaction, or for `windowMs`), report. */
async function side(mode: 'state' | 'bare', file: string, windowMs?: number) {
  const served = await start(mode, file);
  try {
    // The state server's window lasts until its compaction is done (at least LOAD_MS); the bare one's as long.
    const until = mode === 'state' ? () => Promise.all([served.ask({ do: 'compacted' }), sleep(LOAD_MS)]) : () => sleep(windowMs ?? LOAD_MS);
    const { rps, ms } = await load(served, until);
    const report = await served.ask<Report>({ do: 'report' });
    return { startMs: served.startMs, rps, ms, ...report };
  } finally {
    await close(served);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'voxsim-bench-persist-'));
try {
  // BASE=file keeps the built state there (and reuses it when it exists) between runs.
  const base = process.env.BASE ?? join(dir, 'base.json');
  const built = await stateAt(base, LEADS);
  note({ bench: 'persist.state', leads: built.leads, calls: built.calls, snapshot_mb: round1(built.bytes / 1_048_576) });
  type Side = Awaited<ReturnType<typeof side>>;
  const rounds: { q: Side; b: Side }[] = [];
  let windowMs = LOAD_MS;
  for (let round = 0; round < ROUNDS; round++) {
    const stateFile = join(dir, `state-${round}.json`);
    copyFileSync(base, stateFile);
    const withState = async () => {
      // With the state file: restart on it, then load while the whole state is compacted into a new snapshot.
      const p = await side('state', stateFile);
      windowMs = p.ms;
      return p;
    };
    // The same server without a state file, holding the same state, loaded as long as the last compaction window.
    const without = () => side('bare', base, windowMs);
    // Which side goes first alternates (the bare side of an odd round takes the last round's window).
    const p = round % 2 === 0 ? await withState() : undefined;
    const b = await without();
    const q = p ?? (await withState());
    rmSync(stateFile, { force: true });
    for (const log of logFiles(stateFile)) rmSync(log.path, { force: true });
    rounds.push({ q, b });
    note({
      bench: 'persist.round', round, restart_ms: Math.round(q.startMs), bare_start_ms: Math.round(b.startMs),
      own_ms: round1(q.maxOwnMs), bare_own_ms: round1(b.maxOwnMs), wall_ms: round1(q.maxStallMs), bare_wall_ms: round1(b.maxStallMs),
      rps_per_cpu_s: Math.round(perCpuSecond(q)), bare_rps_per_cpu_s: Math.round(perCpuSecond(b)), rps: Math.round(q.rps), bare_rps: Math.round(b.rps),
      window_ms: Math.round(q.ms), compact_ms: Math.round(q.compactMs),
    });
  }
  /** The median over the rounds of one figure of the state-file side (`q`) or the bare one (`b`). */
  const med = (which: 'q' | 'b', figure: (s: Side) => number) => median(rounds.map((r) => figure(r[which])));
  const line = (bench: string, value: number, unit: string, baseline: number, baselineOf: string, target: string, met: boolean, extra: Record<string, unknown> = {}) =>
    emit({ bench, value: round1(value), unit, baseline: round1(baseline), baseline_of: baselineOf, ratio: Math.round((value / baseline) * 100) / 100, target, met, rounds: ROUNDS, ...extra });
  // The stall is the server's own (the lateness of a tick less the time its thread waited
  // for a CPU); the wall-clock lateness, which adds that wait, is printed beside it.
  const stall = med('q', (s) => s.maxOwnMs);
  line('persist.max_stall', stall, 'ms', med('b', (s) => s.maxOwnMs), 'the same server without a state file', 'value < 50 ms', stall < 50, {
    compaction_ms: Math.round(med('q', (s) => s.compactMs)),
    p99_ms: round1(med('q', (s) => s.p99OwnMs)),
    baseline_p99_ms: round1(med('b', (s) => s.p99OwnMs)),
    wall_ms: round1(med('q', (s) => s.maxStallMs)),
    baseline_wall_ms: round1(med('b', (s) => s.maxStallMs)),
  });
  // Requests per server CPU-second (as the HTTP bench): on a shared machine the clients do
  // not saturate the server, and what a request costs the server, the compaction that runs
  // through the window charged to the requests of that window, is what a saturated server's
  // throughput follows. The rate the clients saw is beside it.
  const rps = med('q', perCpuSecond);
  const bareRps = med('b', perCpuSecond);
  line('persist.throughput', rps, 'req/cpu-s', bareRps, 'the same server without a state file', 'ratio >= 0.8', rps / bareRps >= 0.8, {
    clients: CLIENTS,
    wall_rps: Math.round(med('q', (s) => s.rps)),
    baseline_wall_rps: Math.round(med('b', (s) => s.rps)),
  });
  const restart = med('q', (s) => s.startMs);
  line('persist.restart_to_first_answer', restart, 'ms', med('b', (s) => s.startMs), 'a bare start', 'value < 3000 ms', restart < 3000);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
