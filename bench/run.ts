/**
 * Benchmarks (npm run bench). Each prints one JSON line with the figure, the same-run
 * baseline and the ratio; targets are checked here, never by timed unit tests.
 *
 *   createSimulator           mean ms per simulator (target < 5 ms)
 *   roundtrip.core            assistant create + list through sim.handle
 *   roundtrip.msw             the same through MSW handlers vs a bare MSW handler answering the same JSON (target ratio < 1.5)
 *   roundtrip.express         the same through the Express app vs a bare Express route answering the same JSON
 *   leads.filtered_page       GET /user/leads with filters over 50,000 leads of one campaign, inside the core (target < 5 ms)
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { createApp } from '../src/adapters/express.js';
import { handlers } from '../src/adapters/msw.js';
import { createLead } from '../src/domain/leads/service.js';
import { createSimulator } from '../src/simulator.js';

const AUTH = { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' };
const ASSISTANT = JSON.stringify({
  name: 'Bench Assistant',
  voice_id: 1,
  language_id: 1,
  type: 'outbound',
  mode: 'pipeline',
  timezone: 'Europe/Berlin',
  initial_message: 'Hello!',
  system_prompt: 'You are a benchmark.',
  llm_model_id: 1,
});
const START = '2026-03-02T09:00:00Z';

function emit(line: Record<string, unknown>): void {
  console.log(JSON.stringify(line));
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((s, x) => s + x, 0) / samples.length;
  return { mean_ms: round(mean), p50_ms: round(sorted[Math.floor(sorted.length * 0.5)]!), p95_ms: round(sorted[Math.floor(sorted.length * 0.95)]!) };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

async function time(fn: () => Promise<unknown> | unknown, iterations: number, warmup = Math.ceil(iterations / 5)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return samples;
}

/** Runs `subject` and `baseline` in alternating blocks so drift hits both alike. */
async function compare(subject: () => Promise<unknown>, baseline: () => Promise<unknown>, iterations: number) {
  const s: number[] = [];
  const b: number[] = [];
  const block = 50;
  await time(subject, 0, 50);
  await time(baseline, 0, 50);
  for (let done = 0; done < iterations; done += block) {
    s.push(...(await time(subject, block, 0)));
    b.push(...(await time(baseline, block, 0)));
  }
  return { subject: stats(s), baseline: stats(b) };
}

async function benchCreateSimulator(): Promise<void> {
  const samples = await time(() => createSimulator({ seed: 1, startAt: START }), 500, 50);
  const s = stats(samples);
  emit({ bench: 'createSimulator', ...s, target_ms: 5, ok: s.mean_ms < 5 });
}

async function benchCore(): Promise<void> {
  const sim = createSimulator({ seed: 1, startAt: START });
  const samples = await time(async () => {
    await sim.handle({ method: 'POST', path: '/user/assistant', headers: AUTH, body: ASSISTANT });
    await sim.handle({ method: 'GET', path: '/user/assistants/get', headers: AUTH, query: { per_page: '10' } });
  }, 2000);
  emit({ bench: 'roundtrip.core', ...stats(samples), unit: 'create + list' });
}

/** The JSON the simulator answers, so a bare baseline can return the very same bytes. */
async function sampleBodies(): Promise<{ created: string; list: string }> {
  const sim = createSimulator({ seed: 1, startAt: START });
  for (let i = 0; i < 10; i++) await sim.handle({ method: 'POST', path: '/user/assistant', headers: AUTH, body: ASSISTANT });
  const created = await sim.handle({ method: 'POST', path: '/user/assistant', headers: AUTH, body: ASSISTANT });
  const list = await sim.handle({ method: 'GET', path: '/user/assistants/get', headers: AUTH, query: { per_page: '10' } });
  return { created: JSON.stringify(created.body), list: JSON.stringify(list.body) };
}

function roundTrip(base: string) {
  return async () => {
    const a = await fetch(`${base}/user/assistant`, { method: 'POST', headers: AUTH, body: ASSISTANT });
    await a.text();
    const b = await fetch(`${base}/user/assistants/get?per_page=10`, { headers: AUTH });
    await b.text();
  };
}

async function benchMsw(bodies: { created: string; list: string }): Promise<void> {
  const base = 'https://bench.voxsim.test/api';
  const sim = createSimulator({ seed: 1, startAt: START });
  const simHandlers = handlers(sim, { baseUrl: base });
  const bare = [
    http.post(`${base}/user/assistant`, () => new HttpResponse(bodies.created, { status: 201, headers: { 'content-type': 'application/json' } })),
    http.get(`${base}/user/assistants/get`, () => new HttpResponse(bodies.list, { headers: { 'content-type': 'application/json' } })),
  ];
  const server = setupServer();
  server.listen({ onUnhandledFrame: 'error' });
  const run = roundTrip(base);
  const result = await compare(
    async () => {
      server.resetHandlers(...simHandlers);
      await run();
    },
    async () => {
      server.resetHandlers(...bare);
      await run();
    },
    2000,
  );
  server.close();
  const ratio = round(result.subject.mean_ms / result.baseline.mean_ms);
  emit({ bench: 'roundtrip.msw', ...result.subject, baseline: result.baseline, ratio, target_ratio: 1.5, ok: ratio < 1.5 });
}

function listen(app: ReturnType<typeof createApp>): Promise<{ server: Server; base: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api` }));
  });
}

async function benchExpress(bodies: { created: string; list: string }): Promise<void> {
  const sim = createSimulator({ seed: 1, startAt: START });
  const subject = await listen(createApp(sim, { basePath: '/api' }));
  const bareApp = express();
  bareApp.post('/api/user/assistant', (_req, res) => void res.status(201).type('application/json').send(bodies.created));
  bareApp.get('/api/user/assistants/get', (_req, res) => void res.type('application/json').send(bodies.list));
  const bare = await listen(bareApp);
  const result = await compare(roundTrip(subject.base), roundTrip(bare.base), 2000);
  for (const { server } of [subject, bare]) {
    server.closeAllConnections();
    server.close();
  }
  const ratio = round(result.subject.mean_ms / result.baseline.mean_ms);
  emit({ bench: 'roundtrip.express', ...result.subject, baseline: result.baseline, ratio });
}

async function benchLeads(): Promise<void> {
  const sim = createSimulator({ seed: 1, startAt: START });
  const auth = { authorization: 'Bearer sim_test_key' };
  const assistant = await sim.handle({ method: 'POST', path: '/user/assistant', headers: auth, body: ASSISTANT });
  const campaign = await sim.handle({
    method: 'POST',
    path: '/user/campaign',
    headers: auth,
    body: JSON.stringify({ name: 'Bench', assistant_id: (assistant.body as { data: { id: number } }).data.id }),
  });
  const campaignId = (campaign.body as { data: { id: number } }).data.id;
  const ctx = sim.accountScope(1)!;
  const LEADS = 50_000;
  const setup = performance.now();
  for (let i = 0; i < LEADS; i++) {
    createLead(ctx, { campaign_id: campaignId, phone_number: `+1415${String(2_000_000 + i).padStart(7, '0')}`, variables: { n: i } });
    // Leads are created over a few days so date filters have something to cut.
    if (i % 10_000 === 9_999) await sim.clock.advance('1d');
  }
  const setupMs = performance.now() - setup;
  for (const lead of sim.db.leads.all()) if (lead.id % 3 === 0) sim.db.leads.update(lead.id, { status: 'completed' });
  const query = { campaign_id: String(campaignId), status: 'created', phone_number: '41520', date_from: '2026-03-03', per_page: '15', page: '3' };
  const check = await sim.handle({ method: 'GET', path: '/user/leads', headers: auth, query });
  const page = check.body as { total: number; data: unknown[] };
  const samples = await time(() => sim.handle({ method: 'GET', path: '/user/leads', headers: auth, query }), 200, 20);
  const s = stats(samples);
  emit({ bench: 'leads.filtered_page', leads: LEADS, matched: page.total, returned: page.data.length, ...s, setup_ms: round(setupMs), target_ms: 5, ok: s.mean_ms < 5 });
}

const bodies = await sampleBodies();
await benchCreateSimulator();
await benchCore();
await benchMsw(bodies);
await benchExpress(bodies);
await benchLeads();
