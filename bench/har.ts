/**
 * `voxsim record`'s cost per exchange as its HAR file grows (issue 34): HarWriter.add (the
 * entry built from the exchange, redacted, written to the file) on a file that holds 10,000
 * entries, against the same on a file that holds 100 (same exchanges, ~720 bytes an entry).
 * The two files are written in turns of 20 exchanges (which one goes first alternates), so
 * a burst of load from others on the shared machine hits both alike: 200 turns each, the
 * figure is each side's median turn. The far file grows from 10,000 to 14,000 entries; the
 * near one is started again (untimed) whenever it reaches 300. The file is appended to (one
 * positional write per exchange): target <= 1.5x. Before issue 34 it was written whole
 * after each exchange, so the far side cost in proportion to its file.
 *
 *   node --expose-gc --import tsx bench/har.ts                  10,000 entries (as bench/run.ts runs it)
 *   node --expose-gc --import tsx bench/har.ts --entries 2000   another far point
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarWriter, type RecordedExchange } from '../src/recording/har-writer.js';
import { emit, median, option, round } from './lib.js';

/** Exchanges in a turn, turns per side. */
const TURN = 20;
const TURNS = 200;
const NEAR = 100;
/** The near file is started again once it holds NEAR + NEAR_SPAN entries. */
const NEAR_SPAN = 200;
const FAR = Number(option('entries') ?? 10_000);
const START = Date.parse('2026-03-02T09:00:00Z');

/** The value below which a share `p` of the samples lie. */
const percentile = (samples: readonly number[], p: number): number => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * p))]!;

/** The n-th exchange: a lead read, the same size for every n below 100,000. */
function exchange(n: number): RecordedExchange {
  const id = String(n).padStart(5, '0');
  return {
    startedAt: START + n * 20,
    durationMs: 5,
    method: 'GET',
    url: `https://platform.example.test/api/user/leads/${id}`,
    requestHeaders: [
      ['Accept', 'application/json'],
      ['Authorization', 'Bearer sk_bench_key_0001'],
    ],
    requestBody: null,
    status: 200,
    statusText: 'OK',
    responseHeaders: [['Content-Type', 'application/json']],
    responseBody: Buffer.from(JSON.stringify({ data: { id: 100_000 + n, phone_number: '+14155550100', name: `Lead ${id}`, status: 'active' } })),
  };
}

/** A writer on a new file holding `entries` exchanges (written untimed). */
function filled(dir: string, name: string, entries: number): HarWriter {
  const writer = new HarWriter(join(dir, name), 'bench', { _voxsim: { upstream: 'https://platform.example.test/api', base_path: '/api' } });
  writer.write();
  for (let n = 0; n < entries; n++) writer.add(exchange(n));
  return writer;
}

/** The mean µs of `count` adds to `writer`, its exchanges numbered on from its count. */
function turn(writer: HarWriter, count: number): number {
  const first = writer.count;
  const started = performance.now();
  for (let n = first; n < first + count; n++) writer.add(exchange(n));
  return ((performance.now() - started) * 1000) / count;
}


const dir = mkdtempSync(join(tmpdir(), 'voxsim-bench-har-'));
try {
  const far = filled(dir, 'far.har', FAR);
  let near = filled(dir, 'near-0.har', NEAR);
  let nearFiles = 1;
  const farTurns: number[] = [];
  const nearTurns: number[] = [];
  // One turn each, not counted: the JIT warms up on both.
  turn(far, TURN);
  turn(near, TURN);
  for (let i = 0; i < TURNS; i++) {
    if (near.count >= NEAR + NEAR_SPAN) {
      near.close();
      (globalThis as { gc?: () => void }).gc?.();
      near = filled(dir, `near-${nearFiles++}.har`, NEAR);
    }
    if (i % 2 === 0) {
      farTurns.push(turn(far, TURN));
      nearTurns.push(turn(near, TURN));
    } else {
      nearTurns.push(turn(near, TURN));
      farTurns.push(turn(far, TURN));
    }
  }
  near.close();
  far.close();
  const farBytes = statSync(far.file).size;
  if ((JSON.parse(readFileSync(far.file, 'utf8')) as { log: { entries: unknown[] } }).log.entries.length !== far.count) throw new Error('the HAR file does not hold every exchange');
  const [value, baseline] = [median(farTurns), median(nearTurns)];
  const ratio = value / baseline;
  emit({
    bench: `har.append_at_${FAR}`,
    value: round(value, 1),
    unit: 'µs per exchange',
    baseline: round(baseline, 1),
    baseline_of: `the same exchange on a file of ${NEAR}-${NEAR + NEAR_SPAN} entries, in alternating turns of ${TURN}`,
    ratio: round(ratio, 2),
    target: '<= 1.5x',
    met: ratio <= 1.5,
    turns: TURNS,
    far_entries: `${FAR}-${far.count}`,
    far_file_bytes: farBytes,
    p90: round(percentile(farTurns, 0.9), 1),
    baseline_p90: round(percentile(nearTurns, 0.9), 1),
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
