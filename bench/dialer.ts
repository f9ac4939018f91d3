/**
 * Campaign dialing at scale: a campaign of `--leads` leads (default 100,000), 10 calls in
 * parallel, outcome mix 40% human, 30% no-answer, 20% voicemail, 10% busy, max_retries 3,
 * run to completion on the virtual clock. Baseline: a minimal binary-heap event loop
 * running as many events, each doing a Map update and an allocation, in the same process:
 * `--rounds` (3; 1 at a million leads) rounds of a fresh campaign and the loop, medians of
 * each side. Targets: at most 3x that loop; peak RSS under 1.5 GB (the figure that
 * matters at 1,000,000 leads).
 */
import { emit, median, option, round } from './lib.js';
import { dialerCampaign } from './fixture.js';

const LEADS = Number(option('leads') ?? 100_000);
/** Rounds of campaign and loop, alternating: 3 by default, 1 at a million leads (a round is some 30 s there). */
const ROUNDS = Number(option('rounds') ?? (LEADS >= 1_000_000 ? 1 : 3));
if (!Number.isInteger(LEADS) || LEADS < 1) throw new Error(`--leads must be a whole number of at least 1, not ${option('leads')}`);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds must be a whole number of at least 1, not ${option('rounds')}`);
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

/**
 * One round: a fresh simulator with the campaign and its leads, run to completion; the
 * simulator is answered so it stays alive while the loop runs beside it. The first round
 * samples the peak RSS (later rounds would count the garbage of those before).
 */
async function campaignRound(sampleRss: boolean) {
  const { sim, campaignId, addLeads, start } = await dialerCampaign(1_000_000_000);
  const heapBefore = process.memoryUsage().heapUsed;
  const setupStarted = performance.now();
  addLeads(LEADS);
  const setupMs = performance.now() - setupStarted;
  const heapAfterLeads = process.memoryUsage().heapUsed;

  // The RSS is read every 10,000 clock events: the run is one long synchronous stretch, so a timer would never fire.
  let fired = 0;
  if (sampleRss) {
    sim.clock.onFired(() => {
      if (++fired % 10_000 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
    });
  }
  const started = performance.now();
  await start();
  const ran = await sim.clock.runUntilIdle({ maxEvents: Number.MAX_SAFE_INTEGER });
  const wallMs = performance.now() - started;
  if (sampleRss) peakRss = Math.max(peakRss, process.memoryUsage.rss());
  const heapAfterRun = process.memoryUsage().heapUsed;

  const status = sim.db.campaigns.get(campaignId)!.status;
  if (status !== 'completed') throw new Error(`the campaign ended ${status}`);
  const attempts = sim.db.calls.size;
  return { sim, wallMs, ran, attempts, setupMs, heapPerLead: (heapAfterLeads - heapBefore) / LEADS, heapPerCall: (heapAfterRun - heapAfterLeads) / attempts };
}

let peakRss = process.memoryUsage.rss();
// Alternating rounds (the machine's drift hits both sides alike): each round's loop runs right after its
// campaign, while the campaign's simulator is still alive, so both see the same heap. A single round (the
// 1M run) runs the loop three times after it.
const rounds: Omit<Awaited<ReturnType<typeof campaignRound>>, 'sim'>[] = [];
const baselines: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const { sim, ...figures } = await campaignRound(round === 0);
  rounds.push(figures);
  for (let i = 0; i < (ROUNDS === 1 ? 3 : 1); i++) baselines.push(minimalLoop(figures.ran, 1000));
  // Read after the loop: the simulator is not collected before it ran.
  if (sim.db.calls.size !== figures.attempts) throw new Error('the calls changed after the campaign');
}
// Every round runs the same campaign: the counts are the first's (the heap figures too, before any round's garbage).
const { ran, attempts, setupMs, heapPerLead, heapPerCall } = rounds[0]!;
const campaigns = rounds.map((r) => r.wallMs);
const wallMs = median(campaigns);
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
  rounds: ROUNDS,
  campaign_ms_rounds: campaigns.map(Math.round),
  baseline_ms_rounds: baselines.map(Math.round),
  leads: LEADS,
  call_attempts: attempts,
  clock_events: ran,
  setup_ms: Math.round(setupMs),
  heap_per_lead_bytes: Math.round(heapPerLead),
  heap_per_call_bytes: Math.round(heapPerCall),
});
emit({
  bench: `dialer.peak_rss_${name}`,
  value: Math.round(peakRss / 1_048_576),
  unit: 'MB peak RSS (whole process, default heap limit; the first round)',
  target: `< ${TARGET_RSS_MB} MB`,
  met: peakRss < TARGET_RSS_MB * 1_048_576,
  leads: LEADS,
});
