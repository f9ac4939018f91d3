/**
 * `npm run bench`: runs each benchmark in its own process (so one's heap and RSS do not
 * weigh on another's) and prints their JSON lines, then one summary line.
 *
 *   npm run bench                          every bench, 100,000 leads for the dialer (under 3 minutes)
 *   npm run bench -- --leads 1000000       the dialer at 1M leads (opt-in: its process about 30-45 s, ~1.2 GB)
 *   npm run bench -- --only dialer --rounds 5   the dialer's alternating rounds (3 by default, 1 at 1M leads)
 *   npm run bench -- --only dialer,pages   some of them (http, msw, pages, dialer, import, start, har)
 *   npm run bench -- --only persist        the state-file bench (opt-in: 100k leads + 220k calls, several minutes)
 *   npm run bench -- --only sandboxes      the sandboxes' fairness and memory (opt-in: 17 campaigns of 50,000 leads, about 90 s)
 *   npm run bench -- --only sandboxes-scale  10,000 sandboxes: a request's p50 against 10, and RSS touching 10,000 kept ones with 100 loaded (opt-in, a few minutes)
 *   npm run bench -- --cpu-prof            each bench process writes a .cpuprofile to bench/profiles/
 *
 * Extra Node flags: the HAR bench collects a finished file's garbage before the next (--expose-gc), the
 * sandboxes bench the setup's garbage before each move (and its memory processes measure the heap after GC).
 *
 * Each line: `bench`, `value` and `unit`, the same-run `baseline` (and what it is),
 * `ratio`, `target` and `met`. See bench/README.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { flag, option, summaryLine, type Figure } from './lib.js';

/** Run by default (under 3 minutes). */
const DEFAULT_BENCHES = ['pages', 'dialer', 'msw', 'http', 'import', 'start', 'har'] as const;
/** Run only when named in `--only`: the state-file bench builds a 210 MB state and takes minutes; the sandboxes bench runs 17 campaigns of 50,000 leads (about 2 minutes). */
const OPT_IN_BENCHES = ['persist', 'sandboxes', 'sandboxes-scale'] as const;
const BENCHES = [...DEFAULT_BENCHES, ...OPT_IN_BENCHES] as const;
/** Benches that time the package as built (dist/): it is rebuilt first when a source is newer, as the packaging test does. */
const OF_THE_BUILD = ['import', 'start'];
/** Extra Node flags per bench: the state-file and start benches hold a snapshot string, its parse and a live state at once. */
const NODE_FLAGS: Record<string, string[]> = { persist: ['--max-old-space-size=8192'], start: ['--max-old-space-size=8192'], har: ['--expose-gc'], sandboxes: ['--expose-gc'] };

const only = option('only')?.split(',');
const unknown = only?.filter((name) => !(BENCHES as readonly string[]).includes(name)) ?? [];
if (unknown.length > 0) {
  console.error(`unknown bench ${unknown.join(', ')}; known: ${BENCHES.join(', ')}`);
  process.exit(2);
}
const leads = option('leads');
const rounds = option('rounds');
const profile = flag('cpu-prof');
const profiles = fileURLToPath(new URL('./profiles/', import.meta.url));
if (profile) mkdirSync(profiles, { recursive: true });

/** Runs one bench file in a child Node (the same Node and loader as this one), collecting its figures. */
function run(name: string): Promise<Figure[]> {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const args = [...process.execArgv, ...(NODE_FLAGS[name] ?? []), ...(profile ? ['--cpu-prof', '--cpu-prof-dir', profiles, '--cpu-prof-name', `${name}.cpuprofile`] : []), file, ...(name === 'dialer' && leads ? ['--leads', leads] : []), ...((name === 'dialer' || name === 'sandboxes' || name === 'sandboxes-scale') && rounds ? ['--rounds', rounds] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const figures: Figure[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    console.log(line);
    try {
      const parsed = JSON.parse(line) as Figure;
      if (typeof parsed.bench === 'string' && typeof parsed.met === 'boolean') figures.push(parsed);
    } catch {
      // Not a figure: passed through as printed.
    }
  });
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve(figures) : reject(new Error(`bench ${name} exited ${code}`)))));
}

const selected = BENCHES.filter((name) => (only ? only.includes(name) : (DEFAULT_BENCHES as readonly string[]).includes(name)));
const started = performance.now();
if (selected.some((name) => OF_THE_BUILD.includes(name))) {
  execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url)), '--if-stale'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
const all: Figure[] = [];
const failed: string[] = [];
for (const name of selected) {
  try {
    all.push(...(await run(name)));
  } catch (error) {
    failed.push(name);
    console.error(String(error));
  }
}
console.log(JSON.stringify(summaryLine(all, { ...(failed.length > 0 && { failed }), wall_s: Math.round((performance.now() - started) / 1000) })));
if (failed.length > 0) process.exitCode = 1;
