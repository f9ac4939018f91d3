/** Simulators the benches measure: an account with an assistant, a campaign and `calls` call records; the state file of a finished campaign. */
import type { CallStatus } from '../src/core/vocabulary.js';
import { callRow } from '../src/domain/calls/row.js';
import { createLead } from '../src/domain/leads/service.js';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createSimulator, type Simulator } from '../src/simulator.js';

export const START = '2026-03-02T09:00:00Z';
export const AUTH = { authorization: 'Bearer sim_test_key' };
/** The dialer campaign's clock start. */
export const DIALER_START = '2026-03-02T00:00:00Z';

export const ASSISTANT = {
  name: 'Bench Assistant', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'UTC',
  initial_message: 'Hello!', system_prompt: 'You are a benchmark.', llm_model_id: 1, phone_number_id: 1,
};

export interface Seeded {
  sim: Simulator;
  assistantId: number;
  campaignId: number;
  leadIds: number[];
}

/** A simulator answering with a JSON body, failing loudly on an error status (`auth`: the headers, default AUTH). */
export async function call(sim: Simulator, method: string, path: string, body?: unknown, auth: Record<string, string> = AUTH): Promise<{ data: { id: number } }> {
  const res = await sim.handle({ method, path, headers: auth, body: body === undefined ? null : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { data: { id: number } };
}

const STATUS_MIX: CallStatus[] = ['completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'no-answer', 'no-answer', 'busy', 'failed'];

/**
 * An account with `calls` finished campaign calls, ten seconds apart from START (so they
 * span days and date filters cut them), a status mix of 60% completed, 20% no-answer,
 * 10% busy, 10% failed, every tenth one inbound, to 10,000 distinct numbers.
 */
export async function seededCalls(calls: number, leads = 10): Promise<Seeded> {
  const sim = createSimulator({ seed: 1, startAt: START, accounts: [{ api_key: 'sim_test_key', balance: 1_000_000 }] });
  sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  const assistant = await call(sim, 'POST', '/user/assistant', ASSISTANT);
  const campaign = await call(sim, 'POST', '/user/campaign', { name: 'Bench', assistant_id: assistant.data.id });
  const ctx = sim.accountScope(1)!;
  const leadIds: number[] = [];
  for (let i = 0; i < leads; i++) {
    leadIds.push(createLead(ctx, { campaign_id: campaign.data.id, phone_number: `+1212${String(2_000_000 + i).padStart(7, '0')}`, variables: { n: i } }).id);
  }
  const start = Date.parse(START);
  for (let i = 0; i < calls; i++) {
    const created = start + i * 10_000;
    const inbound = i % 10 === 9;
    ctx.calls.insertRow((id, accountId) =>
      callRow(id, {
        account_id: accountId,
        assistant_id: assistant.data.id,
        assistant_name: ASSISTANT.name,
        campaign_id: inbound ? null : campaign.data.id,
        campaign_name: inbound ? null : 'Bench',
        type: inbound ? 'inbound' : 'outbound',
        assistant_phone_number: '+14155550100',
        client_phone_number: `+1212${String(3_000_000 + (i % 10_000)).padStart(7, '0')}`,
        status: STATUS_MIX[i % STATUS_MIX.length]!,
        duration: 42,
        transcript: 'Assistant: Hello!\nCustomer: Hi.',
        variables: { goal: true },
        evaluation: { ok: true },
        created_at: created,
        updated_at: created + 42_000,
        ended_at: created + 42_000,
      }),
    );
  }
  return { sim, assistantId: assistant.data.id, campaignId: campaign.data.id, leadIds };
}

/**
 * The dialer bench's campaign (and the state file's): 10 calls in parallel, 3 retries,
 * open all day, outcomes by each lead's `mix` variable (one rule per outcome: ARCHITECTURE
 * §4 Scripted outcomes). `addLeads(n)` adds n leads: 40% human, 30% no-answer, 20%
 * voicemail, 10% busy; `start()` starts the campaign. `on`: a simulator made elsewhere (a
 * sandbox's, bench/sandboxes.ts) whose first account has the key `key`, given the balance here.
 */
export async function dialerCampaign(balance: number, on?: { sim: Simulator; key: string }): Promise<{ sim: Simulator; campaignId: number; addLeads(n: number): void; start(): Promise<unknown> }> {
  const sim = on?.sim ?? createSimulator({ seed: 1, startAt: DIALER_START, accounts: [{ api_key: 'sim_test_key', balance }] });
  if (on) sim.control.accounts.patch(1, { balance });
  const auth = on ? { authorization: `Bearer ${on.key}` } : AUTH;
  sim.control.phoneNumbers.add({ account_id: 1, type: 'sip', phone_number: '+14155550100' });
  const assistant = await call(sim, 'POST', '/user/assistant', { ...ASSISTANT, name: 'Bench', system_prompt: 'Bench.' }, auth);
  const campaign = await call(sim, 'POST', '/user/campaign', {
    name: 'Bench', assistant_id: assistant.data.id, max_calls_in_parallel: 10, max_retries: 3, retry_interval: 10,
    allowed_hours_start_time: '00:00', allowed_hours_end_time: '23:59',
  }, auth);
  const mixes = ['human', 'no-answer', 'voicemail', 'busy'] as const;
  sim.control.outcomes.set({ rules: mixes.map((outcome) => ({ match: { lead_variables: { mix: outcome } }, outcomes: [outcome] })) });
  const ctx = sim.accountScope(1)!;
  const campaignId = campaign.data.id;
  return {
    sim,
    campaignId,
    addLeads(n: number) {
      for (let i = 0; i < n; i++) {
        const slot = i % 100;
        const mix = slot < 40 ? 'human' : slot < 70 ? 'no-answer' : slot < 90 ? 'voicemail' : 'busy';
        createLead(ctx, { campaign_id: campaignId, phone_number: `+1212${String(2_000_000 + i).padStart(7, '0')}`, variables: { mix } });
      }
    },
    start: () => call(sim, 'POST', '/user/campaigns/update-status', { campaign_id: campaignId, action: 'start' }, auth),
  };
}

/**
 * The state file of the persistence and restart benches: the dialer bench's campaign of
 * `leads` leads run to completion, its snapshot written to `file` (100k leads: ~220k
 * calls, ~210 MB).
 */
export async function buildState(file: string, leads: number): Promise<{ leads: number; calls: number; bytes: number }> {
  const { sim, addLeads, start } = await dialerCampaign(1_000_000);
  addLeads(leads);
  await start();
  await sim.clock.runUntilIdle();
  writeFileSync(file, JSON.stringify(sim.snapshot()));
  const result = { leads: sim.db.leads.size, calls: sim.db.calls.size, bytes: statSync(file).size };
  sim.dispose();
  return result;
}

/**
 * The state file of the persistence and restart benches at `file` with its counts: built
 * there (`buildState`), or read when an earlier run left it (BASE=file keeps it).
 */
export async function stateAt(file: string, leads: number): Promise<{ leads: number; calls: number; bytes: number }> {
  if (!existsSync(file)) return buildState(file, leads);
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as { db: Record<string, { rows: unknown[] }> };
  return { leads: snapshot.db.leads!.rows.length, calls: snapshot.db.calls!.rows.length, bytes: statSync(file).size };
}
