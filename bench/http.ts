/**
 * HTTP throughput: `GET /user/calls?per_page=15` and `PUT /user/leads/{id}` through the
 * Express adapter, each server in its own process, against bare Express 5 serving the
 * same bytes (bare `express.json()` for the PUT). 20 keep-alive connections from this
 * process. The figure is the server's CPU time per request (read from the server process
 * around each round), as requests per CPU-second: on a machine shared by several people
 * the client cannot saturate the server, and the CPU a request costs is what a saturated
 * server's throughput follows. Alternating rounds, medians. Targets: GET >= 0.75x, PUT
 * >= 0.9x of bare Express.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { alternate, emit, median, round } from './lib.js';

const CONNECTIONS = 20;
const ROUND_MS = 1500;
const ROUNDS = 5;
const PUT_BODY = JSON.stringify({ variables: { note: 'bench' } });

interface Served {
  child: ChildProcess;
  port: number;
}

function serve(mode: 'sim' | 'bare', env: Record<string, string> = {}): Promise<Served> {
  // Under `--cpu-prof` each server writes a profile of its own (http-sim, http-bare) when it is stopped.
  const execArgv = process.execArgv.map((arg, i, all) => (all[i - 1] === '--cpu-prof-name' ? `http-${mode}.cpuprofile` : arg));
  const child = spawn(process.execPath, [...execArgv, new URL('./http-server.ts', import.meta.url).pathname, mode], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${mode} server exited ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, port: Number(line) }));
  });
}

function once(port: number, method: string, path: string, agent: Agent, body?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { authorization: 'Bearer sim_test_key', ...(body !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`${method} ${path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function cpuMicros(port: number): Promise<number> {
  return Number(await once(port, 'GET', '/__bench/cpu', new Agent()));
}

/** Requests per server CPU-second over ROUND_MS with CONNECTIONS requests in flight. */
async function load(port: number, method: string, path: string, body?: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const cpuBefore = await cpuMicros(port);
  let done = 0;
  const until = performance.now() + ROUND_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        await once(port, method, path, agent, body);
        done++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  // The CPU read itself costs the same on both sides and is left in.
  const cpuSeconds = ((await cpuMicros(port)) - cpuBefore) / 1e6;
  wall.push(done / seconds);
  return done / cpuSeconds;
}

/** The client-side rate of each round, for the record. */
let wall: number[] = [];

const sim = await serve('sim');
const GET = '/api/user/calls?per_page=15';
const PUT = '/api/user/leads/1';
const bytes = { get: await once(sim.port, 'GET', GET, new Agent()), put: await once(sim.port, 'PUT', PUT, new Agent(), PUT_BODY) };
const bare = await serve('bare', { BENCH_BYTES: JSON.stringify(bytes) });
if ((await once(bare.port, 'GET', GET, new Agent())) !== bytes.get) throw new Error('the bare server answers other bytes');

const figures = [
  { bench: 'http.get_calls_page', method: 'GET', path: GET, body: undefined, target: 0.75, baseline: 'bare Express 5 in its own process serving the same bytes' },
  { bench: 'http.put_lead', method: 'PUT', path: PUT, body: PUT_BODY, target: 0.9, baseline: 'bare Express 5 + express.json() in its own process answering the same bytes' },
];
try {
  for (const f of figures) {
    await load(sim.port, f.method, f.path, f.body);
    await load(bare.port, f.method, f.path, f.body);
    wall = [];
    const result = await alternate(ROUNDS, () => load(sim.port, f.method, f.path, f.body), () => load(bare.port, f.method, f.path, f.body));
    const ratio = result.subject / result.baseline;
    emit({
      bench: f.bench,
      value: Math.round(result.subject),
      unit: 'requests per server CPU-second',
      connections: CONNECTIONS,
      client_req_per_s: Math.round(median(wall)),
      baseline: Math.round(result.baseline),
      baseline_of: f.baseline,
      ratio: round(ratio, 2),
      target: `>= ${f.target}x`,
      met: ratio >= f.target,
      bytes: Buffer.byteLength(f.method === 'GET' ? bytes.get : bytes.put),
    });
  }
} finally {
  for (const s of [sim, bare]) {
    s.child.removeAllListeners('exit');
    s.child.kill();
  }
}
