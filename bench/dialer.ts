/**
 * Campaign dialing at scale: a campaign of `--leads` leads (default 100,000), 10 calls in
 * parallel, outcome mix 40% human, 30% no-answer, 20% voicemail, 10% busy, max_retries 3,
 * run to completion on the virtual clock. Baseline: a minimal binary-heap event loop
 * running as many events, each doing a Map update and an allocation, run before and
 * after the campaign in the same process (the median of the runs). Targets: at most 3x
 * that loop; peak RSS under 1.5 GB (the figure that matters at 1,000,000 leads).
 */
import { createLead } from '../src/domain/leads/service.js';
import { createSimulator } from '../src/simulator.js';
import { emit, median, option, round } from './lib.js';
import { AUTH } from './fixture.js';

const LEADS = Number(option('leads') ?? 100_000);
const TARGET_RATIO = 3;
const TARGET_RSS_MB = 1536;

/**
 * The floor a discrete-event engine can reach in JavaScript: a binary heap of
 * (time, seq) events, `events` of them fired, each updating a Map entry with a new
 * object and scheduling its successor while the budget lasts. `width` events are
 * pending at once (the campaign's parallel calls plus waiting retries).
 */
function minimalLoop(events: number, width: number): number {
  const started = performance.now();
  const at: number[] = [];
  const seq: number[] = [];
  const state = new Map<number, { at: number; n: number }>();
  let nextSeq = 0;
  const less = (i: number, j: number) => at[i]! < at[j]! || (at[i] === at[j] && seq[i]! < seq[j]!);
  const swap = (i: number, j: number) => {
    [at[i], at[j]] = [at[j]!, at[i]!];
    [seq[i], seq[j]] = [seq[j]!, seq[i]!];
  };
  const push = (time: number) => {
    at.push(time);
    seq.push(nextSeq++);
    for (let i = at.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!less(i, parent)) break;
      swap(i, parent);
      i = parent;
    }
  };
  const pop = () => {
    const top = { at: at[0]!, seq: seq[0]! };
    const lastAt = at.pop()!;
    const lastSeq = seq.pop()!;
    if (at.length > 0) {
      at[0] = lastAt;
      seq[0] = lastSeq;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < at.length && less(l, m)) m = l;
        if (r < at.length && less(r, m)) m = r;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
    return top;
  };
  for (let i = 0; i < width; i++) push(i * 1000);
  let scheduled = width;
  for (let fired = 0; fired < events; fired++) {
    const event = pop();
    state.set(event.seq % (LEADS + 1), { at: event.at, n: fired });
    if (scheduled < events) {
      push(event.at + 1000 + (event.seq % 7919));
      scheduled++;
    }
  }
  if (state.size === 0) throw new Error('unreachable');
  return performance.now() - started;
}

const sim = createSimulator({ seed: 1, startAt: '2026-03-02T00:00:00Z', accounts: [{ api_key: 'sim_test_key', balance: 1_000_000_000 }] });
const call = async (method: string, path: string, body: unknown) => {
  const res = await sim.handle({ method, path, headers: AUTH, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { data: { id: number } };
};

sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
const assistant = await call('POST', '/user/assistant', {
  name: 'Bench', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'UTC',
  initial_message: 'Hello!', system_prompt: 'Bench.', llm_model_id: 1, phone_number_id: 1,
});
const campaign = await call('POST', '/user/campaign', {
  name: 'Bench', assistant_id: assistant.data.id, max_calls_in_parallel: 10, max_retries: 3, retry_interval: 10,
  allowed_hours_start_time: '00:00', allowed_hours_end_time: '23:59',
});
// The mix by lead variables: one rule per outcome (ARCHITECTURE §4 Scripted outcomes).
const MIX = ['human', 'no-answer', 'voicemail', 'busy'] as const;
sim.control.outcomes.set({ rules: MIX.map((outcome) => ({ match: { lead_variables: { mix: outcome } }, outcomes: [outcome] })) });
const ctx = sim.accountScope(1)!;
const setupStarted = performance.now();
for (let i = 0; i < LEADS; i++) {
  const slot = i % 100;
  const mix = slot < 40 ? 'human' : slot < 70 ? 'no-answer' : slot < 90 ? 'voicemail' : 'busy';
  createLead(ctx, { campaign_id: campaign.data.id, phone_number: `+1212${String(2_000_000 + i).padStart(7, '0')}`, variables: { mix } });
}
const setupMs = performance.now() - setupStarted;
const heapAfterLeads = process.memoryUsage().heapUsed;

// The RSS is read every 10,000 clock events: the run is one long synchronous stretch, so a timer would never fire.
let peakRss = process.memoryUsage.rss();
let fired = 0;
sim.clock.onFired(() => {
  if (++fired % 10_000 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
});
const baselines: number[] = [];
const started = performance.now();
await call('POST', '/user/campaigns/update-status', { campaign_id: campaign.data.id, action: 'start' });
const ran = await sim.clock.runUntilIdle({ maxEvents: Number.MAX_SAFE_INTEGER });
const wallMs = performance.now() - started;
peakRss = Math.max(peakRss, process.memoryUsage.rss());
const heapAfterRun = process.memoryUsage().heapUsed;

const status = sim.db.campaigns.get(campaign.data.id)!.status;
if (status !== 'completed') throw new Error(`the campaign ended ${status}`);
const attempts = sim.db.calls.size;
// The baseline runs as many events, twice after the campaign and once more (alternating would leave the campaign's heap in one side only).
for (let i = 0; i < 3; i++) baselines.push(minimalLoop(ran, 1000));
const baseline = median(baselines);
const ratio = wallMs / baseline;
const name = LEADS >= 1_000_000 ? `${LEADS / 1_000_000}m` : `${LEADS / 1000}k`;
emit({
  bench: `dialer.campaign_${name}`,
  value: Math.round(wallMs),
  unit: 'ms wall to completion',
  baseline: Math.round(baseline),
  baseline_of: `a minimal binary-heap event loop running ${ran} events (a Map update and an allocation each)`,
  ratio: round(ratio, 2),
  target: `<= ${TARGET_RATIO}x`,
  met: ratio <= TARGET_RATIO,
  leads: LEADS,
  call_attempts: attempts,
  clock_events: ran,
  setup_ms: Math.round(setupMs),
  heap_per_lead_bytes: Math.round(heapAfterLeads / LEADS),
  heap_per_call_bytes: Math.round((heapAfterRun - heapAfterLeads) / attempts),
});
emit({
  bench: `dialer.peak_rss_${name}`,
  value: Math.round(peakRss / 1_048_576),
  unit: 'MB peak RSS (whole process, default heap limit)',
  target: `< ${TARGET_RSS_MB} MB`,
  met: peakRss < TARGET_RSS_MB * 1_048_576,
  leads: LEADS,
});
