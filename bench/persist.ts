/**
 * State-file benchmark (npm run bench): a served simulator holding 100,000 leads and
 * ~220,000 calls, with `--state-file` (change logs, a compaction during the load) against
 * the same server without a state file, in alternating rounds of the same run; medians.
 * One JSON line per figure with the baseline, the ratio and the target:
 *
 *   persist.max_stall_ms             longest event-loop stall while leads are created and a compaction runs (target < 50 ms)
 *   persist.throughput               lead creations per second over HTTP, 8 clients (target ratio >= 0.8)
 *   persist.restart_to_first_answer  start on the state file to the first answer, against a bare start (target < 3000 ms)
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { serve, type RunningServer } from '../src/cli.js';
import { emit, median } from './lib.js';
import { createLead } from '../src/domain/leads/service.js';
import { createSimulator, type SimulatorSnapshot } from '../src/simulator.js';

const LEADS = Number(process.env.LEADS ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LOAD_MS = Number(process.env.LOAD_MS ?? 4_000);
const CLIENTS = 8;
const START = '2026-03-02T00:00:00Z';
const AUTH = { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' };

/** Progress lines (not figures: `npm run bench` counts only lines with `met`). */
function note(line: Record<string, unknown>): void {
  console.log(JSON.stringify(line));
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The state of bench/dialer.ts: a 100k-lead campaign run to completion. */
async function buildState(file: string): Promise<{ leads: number; calls: number; bytes: number }> {
  const sim = createSimulator({ seed: 1, startAt: START, accounts: [{ api_key: 'sim_test_key', balance: 1_000_000 }] });
  const call = async (path: string, body: unknown) => (await sim.handle({ method: 'POST', path, headers: AUTH, body: JSON.stringify(body) })).body as { data: { id: number } };
  sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  const assistant = await call('/user/assistant', {
    name: 'Bench', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'UTC',
    initial_message: 'Hello!', system_prompt: 'Bench.', llm_model_id: 1, phone_number_id: 1,
  });
  const campaign = await call('/user/campaign', {
    name: 'Bench', assistant_id: assistant.data.id, max_calls_in_parallel: 10, max_retries: 3, retry_interval: 10,
    allowed_hours_start_time: '00:00', allowed_hours_end_time: '23:59',
  });
  const mix = ['human', 'no-answer', 'voicemail', 'busy'] as const;
  sim.control.outcomes.set({ rules: mix.map((outcome) => ({ match: { lead_variables: { mix: outcome } }, outcomes: [outcome] })) });
  const ctx = sim.accountScope(1)!;
  for (let i = 0; i < LEADS; i++) {
    const slot = i % 100;
    const m = slot < 40 ? 'human' : slot < 70 ? 'no-answer' : slot < 90 ? 'voicemail' : 'busy';
    createLead(ctx, { campaign_id: campaign.data.id, phone_number: `+1212${String(2_000_000 + i).padStart(7, '0')}`, variables: { mix: m } });
  }
  await call('/user/campaigns/update-status', { campaign_id: campaign.data.id, action: 'start' });
  await sim.clock.runUntilIdle();
  writeFileSync(file, JSON.stringify(sim.snapshot()));
  const result = { leads: sim.db.leads.size, calls: sim.db.calls.size, bytes: statSync(file).size };
  sim.dispose();
  return result;
}

/** The counts of a state built by an earlier run. */
function describeState(file: string): { leads: number; calls: number; bytes: number } {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as SimulatorSnapshot;
  return { leads: snapshot.db.leads!.rows.length, calls: snapshot.db.calls!.rows.length, bytes: statSync(file).size };
}

/** Starts a server and times the start to its first answer. */
async function start(stateFile: string | undefined): Promise<{ running: RunningServer; ms: number }> {
  const t = performance.now();
  const running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: START, quiet: true, ...(stateFile && { stateFile }) });
  const res = await fetch(`${running.url}/__sim/health`);
  await res.text();
  return { running, ms: performance.now() - t };
}

/**
 * CLIENTS clients create leads in a new campaign for LOAD_MS; answers requests per
 * second and the longest event-loop stall (and the 99th percentile).
 */
async function load(running: RunningServer): Promise<{ rps: number; maxStallMs: number; p99StallMs: number; ms: number }> {
  const campaign = (await (await fetch(`${running.url}/user/campaign`, { method: 'POST', headers: AUTH, body: JSON.stringify({ name: 'Load', assistant_id: 1 }) })).json()) as { data: { id: number } };
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  let n = 0;
  let stop = false;
  const client = async (c: number) => {
    for (let i = 0; !stop; i++) {
      const res = await fetch(`${running.url}/user/lead`, { method: 'POST', headers: AUTH, body: JSON.stringify({ campaign_id: campaign.data.id, phone_number: `+1646${c}${String(i).padStart(6, '0')}` }) });
      await res.text();
      if (res.status !== 200) throw new Error(`lead create answered ${res.status}`);
      n++;
    }
  };
  histogram.enable();
  const t = performance.now();
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
  stop = true;
  await Promise.all(clients);
  const ms = performance.now() - t;
  histogram.disable();
  // The histogram holds the delay past the 5 ms resolution timer, in nanoseconds.
  return { rps: n / (ms / 1000), maxStallMs: histogram.max / 1e6, p99StallMs: histogram.percentile(99) / 1e6, ms };
}

const dir = mkdtempSync(join(tmpdir(), 'voxsim-bench-persist-'));
try {
  // BASE=file keeps the built state there (and reuses it when it exists) between runs.
  const base = process.env.BASE ?? join(dir, 'base.json');
  const built = existsSync(base) ? describeState(base) : await buildState(base);
  note({ bench: 'persist.state', leads: built.leads, calls: built.calls, snapshot_mb: round1(built.bytes / 1_048_576) });
  const persisted = { p99: [] as number[], stall: [] as number[], rps: [] as number[], restart: [] as number[], compactMs: [] as number[] };
  const bare = { p99: [] as number[], stall: [] as number[], rps: [] as number[], restart: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    // With the state file: restart on it, then load while the logs are compacted into a new snapshot.
    const stateFile = join(dir, `state-${round}.json`);
    copyFileSync(base, stateFile);
    const p = await start(stateFile);
    persisted.restart.push(p.ms);
    // The compaction starts with the load and runs through its window; it is let finish after.
    const t = performance.now();
    const compaction = p.running.compact();
    const withState = await load(p.running);
    await compaction;
    const compactMs = performance.now() - t;
    persisted.stall.push(withState.maxStallMs);
    persisted.p99.push(withState.p99StallMs);
    persisted.rps.push(withState.rps);
    persisted.compactMs.push(compactMs);
    await p.running.close();
    rmSync(stateFile, { force: true });

    // The same server without a state file, holding the same state.
    const b = await start(undefined);
    bare.restart.push(b.ms);
    b.running.sim.restore(JSON.parse(readFileSync(base, 'utf8')) as SimulatorSnapshot, { owned: true });
    const without = await load(b.running);
    bare.stall.push(without.maxStallMs);
    bare.p99.push(without.p99StallMs);
    bare.rps.push(without.rps);
    await b.running.close();
    note({ bench: 'persist.round', round, restart_ms: Math.round(p.ms), bare_start_ms: Math.round(b.ms), stall_ms: round1(withState.maxStallMs), bare_stall_ms: round1(without.maxStallMs), rps: Math.round(withState.rps), bare_rps: Math.round(without.rps), compact_ms: Math.round(compactMs) });
  }
  const line = (bench: string, value: number, unit: string, baseline: number, baselineOf: string, target: string, met: boolean, extra: Record<string, unknown> = {}) =>
    emit({ bench, value: round1(value), unit, baseline: round1(baseline), baseline_of: baselineOf, ratio: Math.round((value / baseline) * 100) / 100, target, met, rounds: ROUNDS, ...extra });
  const stall = median(persisted.stall);
  line('persist.max_stall', stall, 'ms', median(bare.stall), 'the same server without a state file', 'value < 50 ms', stall < 50, {
    compaction_ms: Math.round(median(persisted.compactMs)),
    p99_ms: round1(median(persisted.p99)),
    baseline_p99_ms: round1(median(bare.p99)),
  });
  const rps = median(persisted.rps);
  const bareRps = median(bare.rps);
  line('persist.throughput', rps, 'req/s', bareRps, 'the same server without a state file', 'ratio >= 0.8', rps / bareRps >= 0.8, { clients: CLIENTS });
  const restart = median(persisted.restart);
  line('persist.restart_to_first_answer', restart, 'ms', median(bare.restart), 'a bare start', 'value < 3000 ms', restart < 3000);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
