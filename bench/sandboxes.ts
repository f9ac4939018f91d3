/**
 * Sandboxes (issue 35): one server, many simulators.
 *
 * Fairness: a real HTTP server (`createApp(host)` + `createHttpServer`, this process)
 * hosting sandboxes. Sandbox A holds the dialer bench's campaign at `--leads` leads
 * (50,000), started; `POST /__sim/clock/advance {by: 7d}` with A's key runs it to the end
 * (about 310,000 clock events). While that move runs, a client in another process sends
 * `GET /user/me` with sandbox B's key, one request in flight on a keep-alive connection,
 * until A's move has answered. Figure: the p99 of B's latencies, pooled over the rounds (a
 * round's move answers some 80-100 of them, whose own p99 would be their worst), target
 * < 20 ms (issue 44), with the count of B's requests answered meanwhile (0 would make the figure
 * meaningless: then it is missed); baseline: the same client for a second with no move. Also
 * B's p50 against the idle p50 (`p50_ratio`, issue 44: <= 2x). The server's heap is tuned as
 * `voxsim serve` tunes its own (src/cli/server-heap.ts).
 *
 * Slicing cost: the same move with no client, sliced (SLICE_MS, as a host sets it) and
 * unsliced (`sliceMs = Infinity` on that sandbox's simulator), over HTTP alike. Each run's
 * final state (`sim.snapshot()` as JSON, the sandbox's minted key written as one fixed text)
 * must be byte-identical to the unsliced run's: `equal`; unequal exits 1. The ratio is
 * informational (no issue target).
 *
 * Memory: in fresh processes (`--expose-gc`), 200 sandboxes each touched by one
 * `GET /user/me`, and 200 each with one assistant (`POST /user/assistant`): the heap used
 * after GC, per sandbox, in KiB (target <= 256 KiB: informational, no issue target).
 *
 * Alternating rounds (`--rounds`, 5; the order of the kinds reverses every other round),
 * medians, after one untimed move each way at a tenth of the leads (the JIT's warm-up).
 * About 90 s: opt-in (`npm run bench -- --only sandboxes`).
 *
 *   node --expose-gc --import tsx bench/sandboxes.ts                as bench/run.ts runs it
 *   node --expose-gc --import tsx bench/sandboxes.ts --leads 10000  a shorter move
 *   node --expose-gc --import tsx bench/sandboxes.ts --slice-ms 2   A's moves sliced every 2 ms (default SLICE_MS, 0.1)
 *   node --expose-gc --import tsx bench/sandboxes.ts --v8-heap 1    V8's heap defaults (else tuned as voxsim serve tunes its own)
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createApp, createHttpServer } from '../src/adapters/express.js';
import { tuneServerHeap } from '../src/cli/server-heap.js';
import { SLICE_MS } from '../src/core/clock.js';
import { SandboxHost } from '../src/sandboxes/host.js';
import { createSimulator, type Simulator } from '../src/simulator.js';
import { ASSISTANT, DIALER_START, dialerCampaign } from './fixture.js';
import { emit, median, option, round } from './lib.js';

const FILE = fileURLToPath(import.meta.url);
const LEADS = Number(option('leads') ?? 50_000);
const ROUNDS = Number(option('rounds') ?? 5);
/** The slice of sandbox A's sliced moves (default SLICE_MS, as a host sets it): to measure its effect on B's tail. */
const SLICE = Number(option('slice-ms') ?? SLICE_MS);
/** Memory rounds (each a process per kind): the figure is the same every time. */
const MEMORY_ROUNDS = Math.min(ROUNDS, 3);
/** Far enough to finish the campaign: 50,000 leads end after 5.9 virtual days. */
const MOVE = '7d';
/** How long the no-move baseline client runs. */
const BASELINE_MS = 1000;
/** Issue 44 (was 50 ms, issue 35). */
const TARGET_P99_MS = 20;
/** Issue 44: B's p50 during the move within this many times its p50 with no move. */
const TARGET_P50_RATIO = 2;
/** Sandboxes per memory process, and the memory target (informational: the issue sets none). */
const SANDBOXES = 200;
const TARGET_KIB = 256;
/** The minted key in a snapshot, written as this text so that two sandboxes' snapshots compare. */
const KEY_TEXT = 'vsk_BENCH';

const gc = (globalThis as { gc?: () => void }).gc;
const p = (samples: readonly number[], share: number): number => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * share))]!;

/** Node's flags for a child: this process's (the tsx loader), its `--cpu-prof` profile named for the child. */
function childArgv(name: string): string[] {
  return process.execArgv.map((arg, i, all) => (all[i - 1] === '--cpu-prof-name' ? `sandboxes-${name}.cpuprofile` : arg));
}

// ---------------------------------------------------------------------------------------
// The client process: `GET /user/me` in a loop, one in flight, between 'start' and 'stop'.

interface ClientStart {
  start: { port: number; key: string };
}

async function clientProcess(): Promise<void> {
  let agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let stopping = false;
  const get = (port: number, key: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/api/user/me', agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`GET /user/me: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
  process.on('message', (message: ClientStart | 'stop' | 'exit') => {
    if (message === 'stop') stopping = true;
    else if (message === 'exit') {
      agent.destroy();
      process.disconnect();
    } else {
      void (async () => {
        const { port, key } = message.start;
        stopping = false;
        // A new connection each time: the server's keep-alive timeout may have closed the last one during a setup.
        agent.destroy();
        agent = new Agent({ keepAlive: true, maxSockets: 1 });
        await get(port, key); // the connection opened, not measured
        process.send!('running');
        const latencies: number[] = [];
        while (!stopping) {
          const started = performance.now();
          await get(port, key);
          latencies.push(performance.now() - started);
        }
        process.send!({ latencies });
      })();
    }
  });
}

// ---------------------------------------------------------------------------------------
// The memory process: heap after GC per sandbox.

async function memoryProcess(kind: 'touched' | 'assistant'): Promise<void> {
  if (!gc) throw new Error('the memory process needs --expose-gc');
  const host = new SandboxHost(createSimulator({ seed: 1 }), { maxSandboxes: SANDBOXES + 1 });
  const ask = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await host.handle({ method, path, headers: { authorization: `Bearer ${key}` }, body: body === undefined ? null : JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  const { phone_number_id: _number, ...assistant } = ASSISTANT;
  const make = async () => {
    const { api_key } = await host.create({ start: DIALER_START });
    await ask(api_key, 'GET', '/user/me');
    if (kind === 'assistant') await ask(api_key, 'POST', '/user/assistant', assistant);
  };
  // One first (not counted): what the first sandbox builds once for all (schemas, catalogs) is no sandbox's.
  await make();
  const heap = () => {
    for (let i = 0; i < 3; i++) gc!();
    return process.memoryUsage().heapUsed;
  };
  const before = heap();
  for (let i = 0; i < SANDBOXES; i++) await make();
  const after = heap();
  if (host.size !== SANDBOXES + 1) throw new Error(`the host holds ${host.size} sandboxes`);
  console.log(JSON.stringify({ kib: (after - before) / SANDBOXES / 1024 }));
}

function memoryRound(kind: 'touched' | 'assistant'): Promise<number> {
  const child = spawn(process.execPath, [...childArgv(`memory-${kind}`), '--expose-gc', FILE, '--memory', kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve((JSON.parse(out.trim().split('\n').at(-1)!) as { kib: number }).kib) : reject(new Error(`memory process (${kind}) exited ${code}`)))),
  );
}

// ---------------------------------------------------------------------------------------
// The server and the rounds.

type Kind = 'loaded' | 'sliced' | 'unsliced' | 'idle';

async function main(): Promise<void> {
  if (!Number.isInteger(LEADS) || LEADS < 1) throw new Error(`--leads must be a whole number of at least 1, not ${option('leads')}`);
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds must be a whole number of at least 1, not ${option('rounds')}`);

  // Memory first, in processes of their own (alternating kinds), before this one's heap grows.
  const memory = { touched: [] as number[], assistant: [] as number[] };
  for (let i = 0; i < MEMORY_ROUNDS; i++) {
    const kinds = i % 2 === 0 ? (['touched', 'assistant'] as const) : (['assistant', 'touched'] as const);
    for (const kind of kinds) memory[kind].push(await memoryRound(kind));
  }

  // The heap as `voxsim serve` tunes its own (src/cli/server-heap.ts); `--v8-heap` leaves V8's defaults.
  if (option('v8-heap') === undefined) tuneServerHeap();
  const host = new SandboxHost(createSimulator({ seed: 1 }), { maxSandboxes: 10 });
  const server = createHttpServer(createApp(host, { basePath: '/api' }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const b = await host.create({ seed: 2, start: DIALER_START });
  const client: ChildProcess = fork(FILE, ['--client'], { execArgv: childArgv('client'), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let finished = false;
  client.on('exit', (code) => {
    if (finished) return;
    console.error(`sandboxes: the client process exited ${code}`);
    process.exit(1);
  });
  const next = () => new Promise<unknown>((resolve) => client.once('message', resolve));

  /** Runs `during` while the client sends B's requests; answers B's latencies. */
  const withClient = async (during: () => Promise<void>): Promise<number[]> => {
    client.send({ start: { port, key: b.api_key } } satisfies ClientStart);
    await next(); // 'running'
    await during();
    const answered = next();
    client.send('stop');
    return ((await answered) as { latencies: number[] }).latencies;
  };

  const advance = (key: string) =>
    new Promise<string>((resolve, reject) => {
      const body = JSON.stringify({ by: MOVE });
      // A connection of its own: a kept-alive one may be closed by the server's keep-alive timeout during the next setup.
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/__sim/clock/advance', agent: false, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`advance: ${res.statusCode} ${Buffer.concat(chunks).toString()}`))));
      });
      req.on('error', reject);
      req.end(body);
    });

  /** A fresh sandbox A with the campaign started: its move timed over HTTP (with B's client when `loaded`), its final state hashed. */
  const move = async (kind: Exclude<Kind, 'idle'>, leads = LEADS): Promise<{ ms: number; latencies: number[]; state: string; events: number }> => {
    const a = await host.create({ seed: 1, start: DIALER_START });
    const sim: Simulator = host.controlled(`Bearer ${a.api_key}`)!;
    sim.clock.sliceMs = kind === 'unsliced' ? Infinity : SLICE;
    const { campaignId, addLeads, start } = await dialerCampaign(1_000_000_000, { sim, key: a.api_key });
    addLeads(leads);
    await start();
    gc?.(); // the setup's garbage is no side's
    let ms = 0;
    let answer = '';
    const timed = async () => {
      const started = performance.now();
      answer = await advance(a.api_key);
      ms = performance.now() - started;
    };
    const latencies = kind === 'loaded' ? await withClient(timed) : (await timed(), []);
    const status = sim.db.campaigns.get(campaignId)!.status;
    if (status !== 'completed') throw new Error(`the campaign ended ${status} after ${MOVE}`);
    const state = createHash('sha256').update(JSON.stringify(sim.snapshot()).replaceAll(a.api_key, KEY_TEXT)).digest('hex');
    host.delete(a.id);
    return { ms, latencies, state, events: (JSON.parse(answer) as { ran: number }).ran };
  };

  // B's latencies of every round, pooled: a round's move answers some 100 requests, whose p99 would be their worst.
  const latencies = { loaded: [] as number[], idle: [] as number[] };
  const p99 = { loaded: [] as number[], idle: [] as number[] };
  const during: number[] = [];
  const maxMs: number[] = [];
  const moves = { loaded: [] as number[], sliced: [] as number[], unsliced: [] as number[] };
  const states = { loaded: [] as string[], sliced: [] as string[], unsliced: [] as string[] };
  let events = 0;
  // Not counted: a tenth of the campaign once each way, so that no side's first round pays for the JIT's warm-up.
  await move('loaded', Math.ceil(LEADS / 10));
  await move('unsliced', Math.ceil(LEADS / 10));
  for (let i = 0; i < ROUNDS; i++) {
    const kinds: Kind[] = ['loaded', 'sliced', 'unsliced', 'idle'];
    for (const kind of i % 2 === 0 ? kinds : kinds.reverse()) {
      if (kind === 'idle') {
        gc?.();
        const idle = await withClient(() => new Promise((resolve) => setTimeout(resolve, BASELINE_MS)));
        latencies.idle.push(...idle);
        p99.idle.push(p(idle, 0.99));
        continue;
      }
      const result = await move(kind);
      moves[kind].push(result.ms);
      states[kind].push(result.state);
      events = result.events;
      if (kind === 'loaded') {
        latencies.loaded.push(...result.latencies);
        p99.loaded.push(p(result.latencies, 0.99));
        during.push(result.latencies.length);
        maxMs.push(Math.max(0, ...result.latencies));
      }
    }
  }
  finished = true;
  client.send('exit');
  server.close();
  host.dispose();

  // Every run's final state is the first unsliced run's (the same campaign, seed and move).
  const reference = states.unsliced[0]!;
  const equal = [...states.loaded, ...states.sliced, ...states.unsliced].every((s) => s === reference);
  const value = p(latencies.loaded, 0.99);
  const baseline = p(latencies.idle, 0.99);
  emit({
    bench: 'sandboxes.fairness_p99',
    value: round(value, 2),
    unit: `ms p99 of another sandbox's GET /user/me over HTTP during a ${LEADS / 1000}k-lead campaign's move`,
    baseline: round(baseline, 2),
    baseline_of: 'the same requests with no move running',
    ratio: round(value / baseline, 2),
    target: `< ${TARGET_P99_MS} ms, > 0 requests answered during the move, the p50 <= ${TARGET_P50_RATIO}x the idle p50`,
    met: value < TARGET_P99_MS && Math.min(...during) > 0 && equal && p(latencies.loaded, 0.5) / p(latencies.idle, 0.5) <= TARGET_P50_RATIO,
    rounds: ROUNDS,
    requests: latencies.loaded.length,
    p50_ms: round(p(latencies.loaded, 0.5), 2),
    // Issue 44: the p50 within 2x of an idle server's.
    baseline_p50_ms: round(p(latencies.idle, 0.5), 2),
    p50_ratio: round(p(latencies.loaded, 0.5) / p(latencies.idle, 0.5), 2),
    p50_target: `<= ${TARGET_P50_RATIO}x the idle p50`,
    p50_met: p(latencies.loaded, 0.5) / p(latencies.idle, 0.5) <= TARGET_P50_RATIO,
    p90_ms: round(p(latencies.loaded, 0.9), 2),
    baseline_requests: latencies.idle.length,
    p99_ms_rounds: p99.loaded.map((v) => round(v, 2)),
    baseline_p99_ms_rounds: p99.idle.map((v) => round(v, 2)),
    max_ms_rounds: maxMs.map((v) => round(v, 1)),
    requests_during_move_rounds: during,
    move_ms_rounds: moves.loaded.map(Math.round),
    clock_events: events,
    equal,
  });
  const sliced = median(moves.sliced);
  const unsliced = median(moves.unsliced);
  emit({
    bench: 'sandboxes.slicing_cost',
    value: Math.round(sliced),
    unit: `ms wall of the move (POST /__sim/clock/advance over HTTP), sliced every ${SLICE} ms, no other request`,
    baseline: Math.round(unsliced),
    baseline_of: 'the same move unsliced (sliceMs = Infinity)',
    ratio: round(sliced / unsliced, 2),
    // No issue target for the cost: the figure is informational; what must hold is the final state.
    target: 'the same final state (the ratio informational)',
    met: equal,
    sliced_ms_rounds: moves.sliced.map(Math.round),
    unsliced_ms_rounds: moves.unsliced.map(Math.round),
    equal,
  });
  for (const [kind, what] of [['touched', 'one GET /user/me'], ['assistant', 'one assistant created']] as const) {
    const kib = median(memory[kind]);
    emit({
      bench: `sandboxes.memory_${kind === 'touched' ? 'idle' : 'assistant'}`,
      value: round(kib, 1),
      unit: `KiB heap per sandbox (${SANDBOXES} sandboxes with ${what}, heap used after GC, fresh process)`,
      target: `<= ${TARGET_KIB} KiB (informational)`,
      met: kib <= TARGET_KIB,
      kib_rounds: memory[kind].map((v) => round(v, 1)),
    });
  }
  if (!equal) {
    console.error(`sandboxes: the final states differ (sliced, loaded or unsliced runs of the same campaign): ${JSON.stringify(states)}`);
    process.exitCode = 1;
  }
}

const memoryKind = option('memory');
if (process.argv.includes('--client')) await clientProcess();
else if (memoryKind === 'touched' || memoryKind === 'assistant') await memoryProcess(memoryKind);
else await main();
