/**
 * What every benchmark of `npm run bench` shares: one JSON line per figure, medians of
 * alternating rounds, and the few helpers that build a measured simulator. Kept free of
 * any one benchmark so other benches (persistence, say) print the same line format.
 */

/** One figure of the bench: the subject, its same-run baseline, their ratio and the target. */
export interface Figure {
  bench: string;
  /** The subject's median, in `unit`. */
  value: number;
  unit: string;
  /** The baseline's median, in `unit` (absent when the target is absolute). */
  baseline?: number;
  /** What the baseline is. */
  baseline_of?: string;
  /** subject / baseline for times, baseline-relative throughput for rates (see `higher_is_better`). */
  ratio?: number;
  /** The target: a ratio when there is a baseline, else an absolute `value` bound. */
  target: string;
  met: boolean;
  [extra: string]: unknown;
}

/** Prints one figure as a JSON line (`npm run bench` collects the lines it runs). */
export function emit(figure: Figure): void {
  console.log(JSON.stringify(figure));
}

/** The summary line of a set of figures: how many met their target, and which did not. */
export function summaryLine(figures: readonly Figure[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const missed = figures.filter((f) => !f.met).map((f) => f.bench);
  return { bench: 'summary', figures: figures.length, met: figures.length - missed.length, missed, ...extra };
}

/** The median of samples (the mean of the middle two for an even count). */
export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Rounds to 3 significant decimals for printing. */
export function round(n: number, places = 3): number {
  const f = 10 ** places;
  return Math.round(n * f) / f;
}

/**
 * The figure of a time measured by `alternate` against its same-run baseline: medians,
 * their ratio against an upper `limit` (`<= limit`x), and each round's figures.
 * @example emit(timeFigure('import.voxsim_msw', result, { unit: 'ms per cold import', baselineOf: "import('msw/node')", limit: 1.5 }))
 */
export function timeFigure(
  bench: string,
  result: { subject: number; baseline: number; subjects: number[]; baselines: number[] },
  { unit, baselineOf, limit, ...extra }: { unit: string; baselineOf: string; limit: number; [extra: string]: unknown },
): Figure {
  const ratio = result.subject / result.baseline;
  return {
    bench,
    value: round(result.subject, 1),
    unit,
    baseline: round(result.baseline, 1),
    baseline_of: baselineOf,
    ratio: round(ratio, 2),
    target: `<= ${limit}x`,
    met: ratio <= limit,
    // Each round's figure (`rounds`, where other lines give it, is their count).
    round_values: result.subjects.map((s) => round(s, 1)),
    baseline_round_values: result.baselines.map((b) => round(b, 1)),
    ...extra,
  };
}

/**
 * Runs `subject` and `baseline` in alternating rounds (so the machine's drift hits both
 * alike), which of them runs first alternating too; answers every round's result of each.
 */
export async function alternateRuns<T>(rounds: number, subject: () => Promise<T> | T, baseline: () => Promise<T> | T): Promise<{ subjects: T[]; baselines: T[] }> {
  const subjects: T[] = [];
  const baselines: T[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      subjects.push(await subject());
      baselines.push(await baseline());
    } else {
      baselines.push(await baseline());
      subjects.push(await subject());
    }
  }
  return { subjects, baselines };
}

/**
 * `alternateRuns` of round functions that each answer their own figure (a time per
 * operation, a rate): with the median of each side.
 */
export async function alternate(rounds: number, subject: () => Promise<number> | number, baseline: () => Promise<number> | number): Promise<{ subject: number; baseline: number; subjects: number[]; baselines: number[] }> {
  const { subjects, baselines } = await alternateRuns(rounds, subject, baseline);
  return { subject: median(subjects), baseline: median(baselines), subjects, baselines };
}

/**
 * The mean time in µs of one call of `fn` over `iterations` calls, or fewer (at least 3)
 * when they would pass `budgetMs`: a slow subject does not stretch the whole bench.
 */
export async function perCallMicros(fn: () => unknown, iterations: number, budgetMs = Infinity): Promise<number> {
  const started = performance.now();
  let done = 0;
  while (done < iterations && (done < 3 || performance.now() - started < budgetMs)) {
    await fn();
    done++;
  }
  return ((performance.now() - started) * 1000) / done;
}

/** The same, for a synchronous function (no await between calls). */
export function perCallMicrosSync(fn: () => unknown, iterations: number): number {
  const started = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return ((performance.now() - started) * 1000) / iterations;
}

/** Reads `--name value` from the command line. */
export function option(name: string): string | undefined {
  const args = process.argv.slice(2);
  const at = args.indexOf(`--${name}`);
  if (at >= 0) return args[at + 1];
  const inline = args.find((a) => a.startsWith(`--${name}=`));
  return inline?.slice(name.length + 3);
}

/** Whether `--name` is on the command line. */
export function flag(name: string): boolean {
  return process.argv.slice(2).includes(`--${name}`);
}
