/**
 * Dialing benchmark (npm run bench:dialer): a 100,000-lead campaign, 10 calls in parallel,
 * outcome mix 40% human, 30% no-answer, 20% voicemail, 10% busy, max_retries 3, run to
 * completion on the virtual clock. Targets: under 10 s wall and under 1.5 GB peak RSS.
 * Prints one JSON line with simulated call attempts per wall second.
 */
import { createLead } from '../src/domain/leads/service.js';
import { createSimulator } from '../src/simulator.js';

const LEADS = Number(process.env.LEADS ?? 100_000);
const auth = { authorization: 'Bearer sim_test_key' };
const sim = createSimulator({ seed: 1, startAt: '2026-03-02T00:00:00Z', accounts: [{ api_key: 'sim_test_key', balance: 1_000_000 }] });
const call = async (method: string, path: string, body: unknown) => {
  const res = await sim.handle({ method, path, headers: auth, body: JSON.stringify(body) });
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
const MIX = [
  ['human', 40],
  ['no-answer', 30],
  ['voicemail', 20],
  ['busy', 10],
] as const;
sim.control.outcomes.set({ rules: MIX.map(([outcome]) => ({ match: { lead_variables: { mix: outcome } }, outcomes: [outcome] })) });
const ctx = sim.accountScope(1)!;
for (let i = 0; i < LEADS; i++) {
  const slot = i % 100;
  const mix = slot < 40 ? 'human' : slot < 70 ? 'no-answer' : slot < 90 ? 'voicemail' : 'busy';
  createLead(ctx, { campaign_id: campaign.data.id, phone_number: `+1212${String(2_000_000 + i).padStart(7, '0')}`, variables: { mix } });
}

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
const started = performance.now();
await call('POST', '/user/campaigns/update-status', { campaign_id: campaign.data.id, action: 'start' });
const ran = await sim.clock.runUntilIdle();
const wallMs = performance.now() - started;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);

const attempts = sim.db.calls.size;
const leads = sim.db.leads.all();
const byStatus: Record<string, number> = {};
for (const lead of leads) byStatus[lead.status] = (byStatus[lead.status] ?? 0) + 1;
const status = sim.db.campaigns.get(campaign.data.id)!.status;
console.log(
  JSON.stringify({
    bench: 'dialer.campaign_100k',
    leads: LEADS,
    call_attempts: attempts,
    clock_events: ran,
    campaign_status: status,
    lead_statuses: byStatus,
    simulated_days: Math.round((sim.clock.now() - Date.parse('2026-03-02T00:00:00Z')) / 86_400_000),
    wall_ms: Math.round(wallMs),
    attempts_per_wall_second: Math.round(attempts / (wallMs / 1000)),
    peak_rss_mb: Math.round(peakRss / 1_048_576),
    target_wall_ms: 10_000,
    target_rss_mb: 1536,
    ok: wallMs < 10_000 && peakRss < 1536 * 1_048_576 && status === 'completed',
  }),
);
