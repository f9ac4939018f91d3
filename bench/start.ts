/**
 * Start and restart of the standalone server as a user runs it (issue 29 items 2 and 3):
 * the built `voxsim serve` (dist/src/bin.js) in a fresh Node process, timed from the spawn
 * to its first answer (`GET /api/__sim/health` answered, once it printed its URL).
 * The restart's line also gives the time to the first page of calls, which reads the
 * restored data (`first_calls_page_ms`): the rows a restore leaves are made on first use.
 *
 *   start.serve            `voxsim serve` against a bare Express 5 app (bench/bare-express.mjs)
 *                          started the same way and asked the same; 9 alternating rounds,
 *                          medians. Target <= 2x.
 *   start.restart_100k     `voxsim serve --state-file` on the state of a finished 100k-lead
 *                          campaign (bench/fixture.ts buildState: ~220k calls, ~210 MB)
 *                          against reading and `JSON.parse`-ing that file, timed inside a
 *                          fresh process (the read and the parse alone, without Node's own
 *                          start, which the restart includes); 3 alternating rounds, medians.
 *                          Target <= 1.5x.
 *
 * `voxsim` turns Node's compile cache on (src/bin.ts): the first round fills it, later
 * rounds read it, as a user's later starts do. Each line also carries the start without
 * it (NODE_DISABLE_COMPILE_CACHE=1: a first start after an install), `without_compile_cache_ms`.
 *
 * BASE=file keeps the built state there and reuses it when it exists.
 */
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { alternate, emit, median, option, round, timeFigure } from './lib.js';
import { AUTH, stateAt } from './fixture.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'dist/src/bin.js');
const BARE = join(ROOT, 'bench/bare-express.mjs');
const LEADS = Number(option('leads') ?? 100_000);

if (!existsSync(BIN)) throw new Error('dist/src/bin.js is missing: run npm run build first');

/** The status of a GET of `url` (node:http, not fetch: fetch's first request to a new origin costs some 40 ms of the client's own). */
function statusOf(url: string, headers: Record<string, string> = {}): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
}

/**
 * Milliseconds from spawning `node args` to its first answer on the health route; the
 * process is then stopped with `stop`. With `callsPage`, the time from the spawn to the
 * first page of calls answered next is pushed there.
 */
async function firstAnswer(args: string[], stop: NodeJS.Signals = 'SIGTERM', env: NodeJS.ProcessEnv = process.env, callsPage?: number[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
        if (url) resolve(url);
      });
      child.once('exit', (code) => reject(new Error(`node ${args.join(' ')} exited ${code} before it listened: ${out}`)));
    });
    const status = await statusOf(`${base}/__sim/health`);
    if (status !== 200) throw new Error(`health answered ${status}`);
    const first = performance.now() - started;
    if (callsPage) {
      const page = await statusOf(`${base}/user/calls?per_page=15`, AUTH);
      if (page !== 200) throw new Error(`the calls page answered ${page}`);
      callsPage.push(performance.now() - started);
    }
    return first;
  } finally {
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(stop);
    await exited;
  }
}

/** Milliseconds a fresh process takes to read `file` and JSON.parse it (timed inside it). */
function readAndParse(file: string): number {
  const code = `const { readFileSync } = require('node:fs'); const t = performance.now(); JSON.parse(readFileSync(${JSON.stringify(file)}, 'utf8')); console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' }).trim());
}

const serve = ['dist/src/bin.js', 'serve', '--port', '0', '--quiet'];
/** The command as it runs without Node's compile cache (which it turns on: src/bin.ts), for the lines' context. */
const uncached = { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' };
const started = await alternate(9, () => firstAnswer(serve), () => firstAnswer([BARE]));
const uncachedTimes: number[] = [];
for (let i = 0; i < 5; i++) uncachedTimes.push(await firstAnswer(serve, 'SIGTERM', uncached));
const startedUncached = median(uncachedTimes);
emit(timeFigure('start.serve', started, {
  unit: 'ms to first answer',
  baselineOf: 'a bare Express 5 app started the same way',
  limit: 2,
  without_compile_cache_ms: round(startedUncached, 1),
}));

const dir = mkdtempSync(join(tmpdir(), 'voxsim-bench-start-'));
try {
  const base = process.env.BASE ?? join(dir, 'base.json');
  const snapshot = await stateAt(base, LEADS);
  // One copy, read by both sides: a server killed once it answered changes nothing in it
  // (a stop by SIGTERM would save the state again, and a fresh copy per round would leave
  // the file's pages still being written while the next side reads them).
  const file = join(dir, 'state.json');
  copyFileSync(base, file);
  const callsPage: number[] = [];
  const restart = await alternate(
    3,
    () => firstAnswer([...serve, '--state-file', file], 'SIGKILL', process.env, callsPage),
    () => readAndParse(file),
  );
  const restartUncached: number[] = [];
  for (let i = 0; i < 2; i++) restartUncached.push(await firstAnswer([...serve, '--state-file', file], 'SIGKILL', uncached));
  emit(timeFigure('start.restart_100k', restart, {
    unit: 'ms to first answer',
    baselineOf: 'reading and JSON.parse-ing the same state file in a fresh process',
    limit: 1.5,
    without_compile_cache_ms: round(median(restartUncached), 1),
    bare_start_ms: round(started.subject, 1),
    first_calls_page_ms: round(median(callsPage), 1),
    leads: snapshot.leads,
    calls: snapshot.calls,
    state_mb: round(snapshot.bytes / 1_048_576, 1),
  }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
